import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// Homographies, quad validation, orientation maps and rectified sizes.
@Suite("Homography and quads")
struct HomographyTests {
    /// Random convex quads: a rectangle of random size, rotated, with each corner jittered.
    static func randomQuad(_ rng: inout SplitMix64, scale: Double) -> Quad {
        func u(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        while true {
            let cx = u(0, scale), cy = u(0, scale), w = u(0.1, 1) * scale, h = u(0.1, 1) * scale, a = u(-3.2, 3.2)
            let pts = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)].map { (x, y) in
                Point(x: cx + x * cos(a) - y * sin(a) + u(-0.15, 0.15) * w, y: cy + x * sin(a) + y * cos(a) + u(-0.15, 0.15) * h)
            }
            let q = Quad(pts)
            if q.problem() == nil { return q }
        }
    }

    @Test("maps the four corners exactly (1e-9) and round-trips through the inverse")
    func corners() throws {
        var rng = SplitMix64(seed: 5)
        // Corners: 1e-9 absolute at every scale. Round trip through the inverse: 1e-9 absolute
        // up to phone-photo coordinates; at coordinates near 10^5 the inverse's rounding is
        // ~1e-14 relative (tens of ulps), so that scale is held to 2e-14 relative.
        var worst = 0.0, worstRound = 0.0, worstRoundRelative = 0.0
        for i in 0..<500 {
            let scale = [10.0, 640, 4032, 60000][i % 4]
            let a = Self.randomQuad(&rng, scale: scale), b = Self.randomQuad(&rng, scale: scale)
            let h = try Homography(from: a, to: b)
            let inv = try h.inverted()
            for (p, q) in zip(a.corners, b.corners) {
                let m = try h.map(p)
                worst = max(worst, abs(m.x - q.x), abs(m.y - q.y))
                let back = try inv.map(q)
                let e = max(abs(back.x - p.x), abs(back.y - p.y))
                if scale <= 4032 { worstRound = max(worstRound, e) } else { worstRoundRelative = max(worstRoundRelative, e / max(abs(p.x), abs(p.y))) }
            }
            // Interior points round-trip too.
            let c = Point(x: a.corners.map(\.x).reduce(0, +) / 4, y: a.corners.map(\.y).reduce(0, +) / 4)
            let rt = try inv.map(try h.map(c))
            let e = max(abs(rt.x - c.x), abs(rt.y - c.y))
            if scale <= 4032 { worstRound = max(worstRound, e) } else { worstRoundRelative = max(worstRoundRelative, e / max(abs(c.x), abs(c.y))) }
        }
        #expect(worst <= 1e-9, "corner error \(worst)")
        #expect(worstRound <= 1e-9, "round-trip error \(worstRound)")
        #expect(worstRoundRelative <= 2e-14, "relative round-trip error \(worstRoundRelative)")
        print("homography: worst corner error \(worst), round trip \(worstRound) (<= 4032 px), \(worstRoundRelative) relative (~10^5 px)")
    }

    @Test("agrees with an independent float64 solve of the 8x8 system")
    func independentSolve() throws {
        // Unnormalised 8x8 system with h33 = 1, solved with Foundation-free Gaussian elimination.
        func solve(_ a: [Point], _ b: [Point]) -> [Double] {
            var m = [[Double]]()
            for i in 0..<4 {
                let (x, y, u, v) = (a[i].x, a[i].y, b[i].x, b[i].y)
                m.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
                m.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
            }
            for k in 0..<8 {
                let p = (k..<8).max { abs(m[$0][k]) < abs(m[$1][k]) }!
                m.swapAt(k, p)
                for i in (k + 1)..<8 {
                    let f = m[i][k] / m[k][k]
                    for j in k...8 { m[i][j] -= f * m[k][j] }
                }
            }
            var h = [Double](repeating: 0, count: 8)
            for k in stride(from: 7, through: 0, by: -1) {
                var s = m[k][8]
                for j in (k + 1)..<8 { s -= m[k][j] * h[j] }
                h[k] = s / m[k][k]
            }
            return h + [1]
        }
        var rng = SplitMix64(seed: 9)
        for _ in 0..<100 {
            let a = Self.randomQuad(&rng, scale: 1000), b = Self.randomQuad(&rng, scale: 1000)
            let h = try Homography(from: a, to: b)
            let ref = solve(a.corners, b.corners)
            for i in 0..<9 { #expect(abs(h.matrix[i] - ref[i]) <= 1e-7 * max(1, abs(ref[i])), "entry \(i): \(h.matrix[i]) vs \(ref[i])") }
        }
    }

    @Test("composition, identity and refusal of degenerate point sets")
    func algebra() throws {
        var rng = SplitMix64(seed: 11)
        let a = Self.randomQuad(&rng, scale: 500), b = Self.randomQuad(&rng, scale: 500), c = Self.randomQuad(&rng, scale: 500)
        let ab = try Homography(from: a, to: b), bc = try Homography(from: b, to: c)
        let ac = bc * ab
        for (p, q) in zip(a.corners, c.corners) {
            let m = try ac.map(p)
            #expect(abs(m.x - q.x) < 1e-8 && abs(m.y - q.y) < 1e-8)
        }
        let id = try Homography(from: a, to: a)
        for i in 0..<9 { #expect(abs(id.matrix[i] - Homography.identity.matrix[i]) < 1e-12) }
        // Coincident and collinear source points, non-finite input.
        var pts = a.corners
        pts[1] = pts[0]
        #expect(throws: ImageError.self) { try Homography(from: pts, to: b.corners) }
        let line = [Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 2, y: 2), Point(x: 5, y: 0)]
        #expect(throws: ImageError.self) { try Homography(from: line, to: b.corners) }
        pts = a.corners
        pts[2].x = .nan
        #expect(throws: ImageError.self) { try Homography(from: pts, to: b.corners) }
        #expect(throws: ImageError.self) { try Homography(matrix: [1, 2, 3, 2, 4, 6, 0, 0, 1]).inverted() }
        // A point on the line at infinity.
        let proj = Homography(matrix: [1, 0, 0, 0, 1, 0, 1, 0, 0])
        #expect(throws: ImageError.self) { try proj.map(Point(x: 0, y: 3)) }
    }

    @Test("quad validation reports typed problems")
    func validation() {
        let ok = Quad([Point(x: 10, y: 10), Point(x: 90, y: 12), Point(x: 95, y: 80), Point(x: 5, y: 70)])
        #expect(ok.problem(width: 100, height: 100) == nil)
        // Counter-clockwise is accepted (mirrored rectification).
        #expect(Quad([ok.topLeft, ok.bottomLeft, ok.bottomRight, ok.topRight]).problem() == nil)
        var q = ok
        q.topRight.y = .infinity
        #expect(q.problem() == .notFinite)
        q = ok
        q.bottomRight = Point(x: 250, y: 80)
        #expect(q.problem(width: 100, height: 100) == .outOfBounds)
        #expect(q.problem() == nil) // no image bounds given
        q.bottomRight = Point(x: 3e7, y: 80)
        #expect(q.problem() == .outOfBounds)
        q = ok
        q.topRight = q.topLeft
        #expect(q.problem() == .degenerate)
        q = ok
        q.topRight = Point(x: 50, y: 40) // on the diagonal-ish: collinear with 0 and 2?
        q = Quad([Point(x: 0, y: 0), Point(x: 50, y: 50), Point(x: 100, y: 100), Point(x: 0, y: 100)])
        #expect(q.problem() == .degenerate)
        q = Quad([Point(x: 0, y: 0), Point(x: 0.5, y: 0), Point(x: 0.5, y: 0.5), Point(x: 0, y: 0.5)])
        #expect(q.problem() == .degenerate) // area 0.25 px²
        q = Quad([ok.topLeft, ok.bottomRight, ok.topRight, ok.bottomLeft])
        #expect(q.problem() == .selfIntersecting)
        q = Quad([Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 30, y: 30), Point(x: 0, y: 100)])
        #expect(q.problem() == .notConvex)
        #expect(throws: ImageError.self) { try q.validate() }
        do { try q.validate() } catch { #expect(error.code == .invalidArgument && (error.detail ?? "").contains("not convex")) }
    }

    @Test("ordering corners: clockwise from the top-left")
    func ordering() throws {
        let q = Quad([Point(x: 10, y: 10), Point(x: 90, y: 12), Point(x: 95, y: 80), Point(x: 5, y: 70)])
        let shuffled = Quad([q.bottomRight, q.topLeft, q.bottomLeft, q.topRight])
        #expect(try shuffled.ordered() == q)
        let ccw = Quad([q.topLeft, q.bottomLeft, q.bottomRight, q.topRight])
        #expect(try ccw.ordered() == q)
    }

    @Test("orientation maps send displayed pixel centres onto the stored ones (EXIF definitions)")
    func orientationMaps() throws {
        let w = 7, h = 4
        for o in Orientation.allCases {
            let m = try Homography.orientation(o, width: w, height: h)
            let (dw, dh) = o.displaySize(width: w, height: h)
            for y in 0..<dh {
                for x in 0..<dw {
                    let s = try m.map(Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                    let (ex, ey) = OrientationReference.stored(o, x: x, y: y, width: w, height: h)
                    #expect(abs(s.x - (Double(ex) + 0.5)) < 1e-12 && abs(s.y - (Double(ey) + 0.5)) < 1e-12, "\(o) (\(x),\(y))")
                }
            }
        }
    }

    @Test("rectified size from edge lengths, long side and paper")
    func sizes() throws {
        // A 300 x 400 rectangle seen in perspective: top edge shorter than the bottom.
        let q = Quad([Point(x: 120, y: 100), Point(x: 380, y: 100), Point(x: 420, y: 500), Point(x: 80, y: 500)])
        let top = 260.0, bottom = 340.0, side = (400.0 * 400 + 40 * 40).squareRoot()
        let n = try q.rectifiedSize(.natural)
        #expect(n.width == Int(((top + bottom) / 2).rounded()) && n.height == Int(side.rounded()))
        let l = try q.rectifiedSize(.longSide(1000))
        #expect(l.height == 1000 && l.width == Int((1000 * 300 / side).rounded()))
        #expect(try q.rectifiedSize(.pixels(width: 17, height: 9)) == (17, 9))
        #expect(try q.rectifiedSize(.paper(.a4, dpi: 300)) == (2480, 3508))
        #expect(try q.rectifiedSize(.paper(.letter, dpi: 100)) == (850, 1100))
        #expect(try q.rectifiedSize(.paper(.legal, dpi: 100)) == (850, 1400))
        #expect(try q.rectifiedSize(.paper(.a5, dpi: 254)) == (1480, 2100))
        // Landscape quads give landscape paper.
        let wide = Quad(width: 600, height: 400)
        #expect(try wide.rectifiedSize(.paper(.a4, dpi: 300)) == (3508, 2480))
        #expect(throws: ImageError.self) { try q.rectifiedSize(.paper(.a4, dpi: 0)) }
        #expect(throws: ImageError.self) { try q.rectifiedSize(.longSide(70000)) }
        #expect(throws: ImageError.self) { try q.rectifiedSize(.pixels(width: 0, height: 3)) }
    }

    /// IC_SIZE_PAPER_FIT (a page cut by the frame: its own aspect, as large as fits in the
    /// paper) against float64 arithmetic here: the paper's and the quad's own rounded sizes,
    /// the own size scaled by the smaller ratio, each side rounded and at most the paper's.
    @Test("rectified size fitted in a paper: the quad's own aspect, as large as fits")
    func paperFit() throws {
        func fit(_ quad: Quad, _ paper: Paper, _ dpi: Double) throws -> (Int, Int) {
            var r = RectifiedSize.paper(paper, dpi: dpi).cValue
            r.kind = IC_SIZE_PAPER_FIT
            let s = try quad.rectifiedSize(r, for: "fit")
            return (s.width, s.height)
        }
        var rng = SplitMix64(seed: 21)
        for i in 0..<200 {
            let x = Double(rng.next() % 900) + 1, y = Double(rng.next() % 900) + 1
            let quad = Quad([Point(x: 10, y: 10), Point(x: 10 + x, y: 14), Point(x: 6 + x, y: 10 + y), Point(x: 12, y: 8 + y)])
            let paper = Paper.allCases[i % Paper.allCases.count], dpi = [72.0, 150, 300][i % 3]
            let (pw, ph) = try quad.rectifiedSize(.paper(paper, dpi: dpi)), (ow, oh) = try quad.rectifiedSize(.natural)
            let s = min(Double(pw) / Double(ow), Double(ph) / Double(oh))
            let want = (max(1, min(pw, Int((Double(ow) * s).rounded()))), max(1, min(ph, Int((Double(oh) * s).rounded()))))
            let got = try fit(quad, paper, dpi)
            #expect(got == want, "\(quad) \(paper) \(dpi)")
            #expect(got.0 == pw || got.1 == ph) // as large as fits: one side fills the paper
        }
        // A strip a third as tall as wide, in A4 at 150 dpi: landscape, the width filled.
        #expect(try fit(Quad(width: 900, height: 300), .a4, 150) == (1754, 585))
        #expect(throws: ImageError.self) { try fit(Quad(width: 900, height: 300), .a4, 0) }
        #expect(throws: ImageError.self) { try fit(Quad(width: 900, height: 300), .a4, .nan) }
    }
}

/// EXIF orientations as plain pixel loops: the displayed pixel (x, y) shows stored pixel
/// `stored(...)`. Written from the EXIF definitions, independent of the library.
enum OrientationReference {
    static func stored(_ o: Orientation, x: Int, y: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch o {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, h - 1 - x)
        case .rightMirrored: (w - 1 - y, h - 1 - x)
        case .left: (w - 1 - y, x)
        }
    }

    /// Applies orientation `o` to a packed plane of `channels` bytes per pixel.
    static func apply(_ o: Orientation, _ plane: [UInt8], width w: Int, height h: Int, channels: Int) -> [UInt8] {
        let (dw, dh) = o.displaySize(width: w, height: h)
        var out = [UInt8](repeating: 0, count: dw * dh * channels)
        for y in 0..<dh {
            for x in 0..<dw {
                let (sx, sy) = stored(o, x: x, y: y, width: w, height: h)
                for c in 0..<channels { out[(y * dw + x) * channels + c] = plane[(sy * w + sx) * channels + c] }
            }
        }
        return out
    }
}
