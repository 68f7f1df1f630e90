import Foundation
import ImageCore

/// Deterministic document photos for evaluating page detection: a text page (a real page
/// image or one rendered here) warped by a random homography onto a real photograph, with a
/// lighting gradient, sometimes a soft shadow, and sensor noise. The true corners are known.
///
/// All randomness comes from a seeded SplitMix64, so a seed always gives the same image.
public enum DocumentComposite {
    /// A composite photo and the page's true corners (top-left, top-right, bottom-right,
    /// bottom-left of the page, in the photo's continuous coordinates).
    public struct Sample: ~Copyable {
        public var image: PixelBuffer
        public var quad: Quad
        /// What was applied, for failure reports.
        public var note: String
    }

    /// A small deterministic generator (SplitMix64).
    public struct Random {
        var state: UInt64
        public init(seed: UInt64) { state = seed }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Uniform in [a, b).
        public mutating func uniform(_ a: Double, _ b: Double) -> Double {
            a + (b - a) * Double(next() >> 11) / Double(1 << 53)
        }
        /// Standard normal (Box-Muller).
        public mutating func normal() -> Double {
            let u1 = max(uniform(0, 1), 1e-12), u2 = uniform(0, 1)
            return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        }
    }

    /// Renders a text-like page: paper of a light tone, margins, a title bar, paragraphs of
    /// "words" (dark bars of random length) and sometimes a picture block.
    public static func renderPage(width: Int, height: Int, seed: UInt64) throws(ImageError) -> PixelBuffer {
        var rng = Random(seed: seed)
        var page = try PixelBuffer(width: width, height: height, format: .gray8)
        let stride = page.plane(0).stride
        let paper = UInt8(rng.uniform(215, 250))
        let ink = UInt8(rng.uniform(20, 80))
        let margin = Int(Double(width) * rng.uniform(0.07, 0.12))
        let lineHeight = max(4, Int(Double(height) * rng.uniform(0.018, 0.03)))
        let glyph = max(2, lineHeight * 6 / 10)
        page.withMutablePlane(0) { span in
            for i in span.indices { span[i] = paper }
            func bar(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ v: UInt8) {
                for y in max(0, y0)..<min(height, y1) { for x in max(0, x0)..<min(width, x1) { span[y * stride + x] = v } }
            }
            var y = margin
            // Title.
            bar(margin, y, margin + Int(Double(width - 2 * margin) * rng.uniform(0.4, 0.8)), y + glyph * 2, ink)
            y += lineHeight * 3
            while y + lineHeight < height - margin {
                if rng.uniform(0, 1) < 0.06 && y + lineHeight * 8 < height - margin {
                    // A picture block: a mid-gray rectangle with a gradient.
                    let bw = Int(Double(width - 2 * margin) * rng.uniform(0.3, 0.6)), bh = lineHeight * Int(rng.uniform(4, 8))
                    let tone = rng.uniform(90, 170)
                    for yy in y..<(y + bh) {
                        for xx in margin..<(margin + bw) {
                            span[yy * stride + xx] = UInt8(max(0, min(255, tone + 40 * Double(xx - margin) / Double(bw) - 20)))
                        }
                    }
                    y += bh + lineHeight
                    continue
                }
                // A line of words, the last line of a paragraph shorter.
                let end = rng.uniform(0, 1) < 0.15 ? margin + Int(Double(width - 2 * margin) * rng.uniform(0.2, 0.7)) : width - margin
                var x = margin
                while x < end {
                    let w = Int(Double(glyph) * rng.uniform(1.5, 7))
                    bar(x, y, min(x + w, end), y + glyph, ink)
                    x += w + max(2, glyph * 2 / 3)
                }
                y += lineHeight
                if rng.uniform(0, 1) < 0.12 { y += lineHeight } // paragraph gap
            }
        }
        return page
    }

    /// Composes `page` (GRAY8) onto `background` (GRAY8) into a new GRAY8 image of the
    /// background's size.
    ///
    /// The background is a random crop (75–100 %) of the photo, sometimes mirrored. The page
    /// covers 12–55 % of the frame, turned by up to ±25°, seen in perspective (one edge up
    /// to 25 % shorter, corners jittered), with every corner at least 4 % of the short side
    /// inside the frame, casting a thin contact shadow (its silhouette offset by 1–4 px and
    /// softened, darkening the surface by 6–25 %). Then a lighting gradient (gain 0.35–1.3 across the frame), with
    /// probability ½ a soft shadow edge across the page (darkening to 55–85 %), and Gaussian
    /// noise (σ 1.5–7). A side nobody could see cannot be located, so the paper's tone is
    /// re-drawn (0.55–1.25, nearest the random draw first) until every side shows at least
    /// 8 gray levels of mean contrast across it before noise.
    public static func compose(page: borrowing PixelBuffer, background: borrowing PixelBuffer,
                               seed: UInt64) throws(ImageError) -> Sample {
        guard page.format == .gray8, background.format == .gray8 else {
            throw ImageError(.unsupported, "composites are made of GRAY8 images")
        }
        var rng = Random(seed: seed)
        let W = Double(background.width), H = Double(background.height)
        var notes: [String] = []

        // 1. Background: a random crop, maybe mirrored, stretched to the full frame.
        let bg = try surface(background, &rng, &notes)

        // 2. The page quad.
        let pw0 = Double(page.width), ph0 = Double(page.height), aspect = pw0 / ph0
        let margin = 0.04 * min(W, H)
        var quad = Quad(width: 1, height: 1)
        var placed = false
        var fraction = rng.uniform(0.12, 0.55)
        for attempt in 0..<200 {
            if attempt % 40 == 39 { fraction *= 0.8 }
            let area = fraction * W * H
            let pw = (area * aspect).squareRoot(), ph = pw / aspect
            let angle = rng.uniform(-25, 25) * Double.pi / 180
            let keystone = rng.uniform(0.75, 1.0), side = Int(rng.uniform(0, 4))
            let centre = Point(x: rng.uniform(0, W), y: rng.uniform(0, H))
            var local = [(-pw / 2, -ph / 2), (pw / 2, -ph / 2), (pw / 2, ph / 2), (-pw / 2, ph / 2)]
            // Keystone: shorten one edge around its midpoint.
            let (a, b) = [(0, 1), (1, 2), (2, 3), (3, 0)][side]
            let mx = (local[a].0 + local[b].0) / 2, my = (local[a].1 + local[b].1) / 2
            local[a] = (mx + (local[a].0 - mx) * keystone, my + (local[a].1 - my) * keystone)
            local[b] = (mx + (local[b].0 - mx) * keystone, my + (local[b].1 - my) * keystone)
            let corners = local.map { (x, y) -> Point in
                let jx = rng.uniform(-0.04, 0.04) * pw, jy = rng.uniform(-0.04, 0.04) * ph
                return Point(x: centre.x + (x + jx) * cos(angle) - (y + jy) * sin(angle),
                             y: centre.y + (x + jx) * sin(angle) + (y + jy) * cos(angle))
            }
            if corners.allSatisfy({ $0.x >= margin && $0.x <= W - margin && $0.y >= margin && $0.y <= H - margin }) {
                quad = Quad(corners)
                if quad.problem() == nil {
                    placed = true
                    notes.append(String(format: "page %.0f%% turned %.0f° keystone %.2f", fraction * 100, angle * 180 / Double.pi, keystone))
                    break
                }
            }
        }
        guard placed else { throw ImageError(.internalError, "could not place the page (seed \(seed))") }

        // 3. The page warped into the frame, blended with analytic edge coverage.
        // The texture is padded by replicating its edge so that frame pixels partly
        // covered by the page blend with the page's edge, not with a fill value.
        let pad = 3
        var padded = try PixelBuffer(width: page.width + 2 * pad, height: page.height + 2 * pad, format: .gray8)
        let ps = page.plane(0).stride, pds = padded.plane(0).stride
        page.withPlane(0) { src in
            padded.withMutablePlane(0) { dst in
                for y in 0..<(page.height + 2 * pad) {
                    let sy = min(max(y - pad, 0), page.height - 1)
                    for x in 0..<(page.width + 2 * pad) { dst[y * pds + x] = src[sy * ps + min(max(x - pad, 0), page.width - 1)] }
                }
            }
        }
        var layer = try PixelBuffer(width: background.width, height: background.height, format: .gray8)
        let p = Double(pad)
        let toPage = try Homography(from: quad, to: Quad([Point(x: p, y: p), Point(x: pw0 + p, y: p), Point(x: pw0 + p, y: ph0 + p), Point(x: p, y: ph0 + p)]))
        try layer.warp(from: padded, homography: toPage, fill: [0])
        let paperGain = rng.uniform(0.85, 1.1)

        // 4. Lighting and shadow parameters.
        let q = quad.corners
        let lighting = Lighting(&rng, centre: Point(x: q.map(\.x).reduce(0, +) / 4, y: q.map(\.y).reduce(0, +) / 4),
                                width: W, height: H, notes: &notes)
        // Contact shadow: the page's silhouette offset by 1-4 px away from the light and
        // softened, darkening the surface next to the sides that face away from it.
        let cdir = rng.uniform(0, 2 * Double.pi), coff = rng.uniform(1, 4), cdark = rng.uniform(0.06, 0.25)
        let cox = coff * cos(cdir), coy = coff * sin(cdir)
        let sigma = rng.uniform(1.5, 7)
        notes.append(String(format: "light %.2f±%.2f noise %.1f", lighting.g0, lighting.gmag, sigma))

        // Edge lines of the quad (inward normals) for the coverage.
        var edges: [(nx: Double, ny: Double, d: Double)] = []
        let clockwise = { () -> Bool in
            var s = 0.0
            for i in 0..<4 { s += q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y }
            return s > 0
        }()
        for i in 0..<4 {
            let a = q[i], b = q[(i + 1) % 4]
            let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            var nx = -(b.y - a.y) / len, ny = (b.x - a.x) / len
            if !clockwise { nx = -nx; ny = -ny }
            edges.append((nx, ny, -(nx * a.x + ny * a.y)))
        }
        // Lit surface and lit page (lighting, shadows) and the page's coverage, without noise.
        let w = background.width, h = background.height
        let bs = bg.plane(0).stride, ls = layer.plane(0).stride
        var surfaceLit = [Double](repeating: 0, count: w * h), pageLit = surfaceLit, coverage = surfaceLit
        bg.withPlane(0) { bgs in
            layer.withPlane(0) { lys in
                for y in 0..<h {
                    let fy = Double(y) + 0.5
                    for x in 0..<w {
                        let fx = Double(x) + 0.5
                        var dmin = Double.infinity, dshadow = Double.infinity
                        for e in edges {
                            dmin = min(dmin, e.nx * fx + e.ny * fy + e.d)
                            dshadow = min(dshadow, e.nx * (fx - cox) + e.ny * (fy - coy) + e.d)
                        }
                        let cast = max(0, min(1, (dshadow + 1.5) / 3)) // 3 px soft ramp
                        let light = lighting.gain(fx, fy)
                        let i = y * w + x
                        coverage[i] = max(0, min(1, dmin + 0.5))
                        surfaceLit[i] = Double(bgs[y * bs + x]) * (1 - cdark * cast) * light
                        pageLit[i] = Double(lys[y * ls + x]) * light
                    }
                }
            }
        }
        // A side nobody can see cannot be located: the paper's tone is re-drawn (darker or
        // lighter, nearest the random one first) until every side has at least 8 gray levels
        // of mean contrast between 3 px inside and 3 px outside, before noise.
        func contrast(_ gain: Double) -> Double {
            var worst = Double.infinity
            for i in 0..<4 {
                let a = q[i], b = q[(i + 1) % 4], e = edges[i]
                var sum = 0.0, n = 0.0
                for k in 0..<40 {
                    let u = 0.1 + 0.8 * Double(k) / 39
                    let px = a.x + u * (b.x - a.x), py = a.y + u * (b.y - a.y)
                    let ix = Int(px + 3 * e.nx), iy = Int(py + 3 * e.ny), ox = Int(px - 3 * e.nx), oy = Int(py - 3 * e.ny)
                    guard ix >= 0, iy >= 0, ox >= 0, oy >= 0, ix < w, ox < w, iy < h, oy < h else { continue }
                    sum += min(255, pageLit[iy * w + ix] * gain) - min(255, surfaceLit[oy * w + ox])
                    n += 1
                }
                worst = min(worst, n > 0 ? abs(sum / n) : 0)
            }
            return worst
        }
        var gain = paperGain, best = contrast(paperGain)
        if best < 8 {
            let options = stride(from: 0.55, through: 1.25, by: 0.05).sorted { abs($0 - paperGain) < abs($1 - paperGain) }
            for g in options {
                let c = contrast(g)
                if c > best { best = c; gain = g }
                if c >= 8 { break }
            }
            notes.append(String(format: "paper %.2f -> %.2f", paperGain, gain))
        }
        notes.append(String(format: "edge contrast %.0f", best))
        var out = try PixelBuffer(width: w, height: h, format: .gray8)
        let os = out.plane(0).stride
        out.withMutablePlane(0) { o in
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    var v = surfaceLit[i] * (1 - coverage[i]) + pageLit[i] * gain * coverage[i]
                    v += sigma * rng.normal()
                    o[y * os + x] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return Sample(image: out, quad: quad, note: notes.joined(separator: ", "))
    }

    /// A photo with no page in it, for measuring false detections: a random crop of
    /// `background` (75–100 %, sometimes mirrored) under a lighting gradient, with
    /// probability ½ a soft shadow edge, and Gaussian noise (σ 1.5–7) — the surface and
    /// light of ``compose(page:background:seed:)`` without the page.
    public static func composeEmpty(background: borrowing PixelBuffer, seed: UInt64) throws(ImageError) -> PixelBuffer {
        guard background.format == .gray8 else { throw ImageError(.unsupported, "composites are made of GRAY8 images") }
        var rng = Random(seed: seed)
        var notes: [String] = []
        let bg = try surface(background, &rng, &notes)
        let W = Double(background.width), H = Double(background.height)
        let lighting = Lighting(&rng, centre: Point(x: rng.uniform(0, W), y: rng.uniform(0, H)), width: W, height: H, notes: &notes)
        let sigma = rng.uniform(1.5, 7)
        let w = background.width, h = background.height, bs = bg.plane(0).stride
        var out = try PixelBuffer(width: w, height: h, format: .gray8)
        let os = out.plane(0).stride
        bg.withPlane(0) { src in
            out.withMutablePlane(0) { o in
                for y in 0..<h {
                    for x in 0..<w {
                        let v = Double(src[y * bs + x]) * lighting.gain(Double(x) + 0.5, Double(y) + 0.5) + sigma * rng.normal()
                        o[y * os + x] = UInt8(max(0, min(255, v.rounded())))
                    }
                }
            }
        }
        return out
    }

    /// The surface: a random crop (75–100 %) of the photo, maybe mirrored, stretched to the
    /// full frame.
    static func surface(_ background: borrowing PixelBuffer, _ rng: inout Random, _ notes: inout [String]) throws(ImageError) -> PixelBuffer {
        let W = Double(background.width), H = Double(background.height)
        var bg = try PixelBuffer(width: background.width, height: background.height, format: .gray8)
        let c = rng.uniform(0.75, 1.0)
        let cx0 = rng.uniform(0, W * (1 - c)), cy0 = rng.uniform(0, H * (1 - c))
        var crop = [Point(x: cx0, y: cy0), Point(x: cx0 + W * c, y: cy0), Point(x: cx0 + W * c, y: cy0 + H * c), Point(x: cx0, y: cy0 + H * c)]
        if rng.uniform(0, 1) < 0.5 { crop = [crop[1], crop[0], crop[3], crop[2]]; notes.append("mirrored") }
        try bg.warp(from: background, homography: try Homography(from: Quad(width: W, height: H).corners, to: crop))
        return bg
    }

    /// A lighting gradient (gain 0.35–1.3 across the frame) and, with probability ½, a soft
    /// shadow edge through a point near `centre` (darkening to 55–85 %).
    struct Lighting {
        let g0: Double, gdir: Double, gmag: Double, shadow: Bool
        let centre: Point, sdir: Double, soft: Double, dark: Double, soff: Double
        let width: Double, height: Double

        init(_ rng: inout Random, centre: Point, width W: Double, height H: Double, notes: inout [String]) {
            g0 = rng.uniform(0.75, 1.05); gdir = rng.uniform(0, 2 * Double.pi); gmag = rng.uniform(0.15, 0.55)
            shadow = rng.uniform(0, 1) < 0.5
            self.centre = centre
            sdir = rng.uniform(0, 2 * Double.pi); soft = rng.uniform(6, 30); dark = rng.uniform(0.55, 0.85)
            soff = rng.uniform(-0.3, 0.3) * min(W, H) * 0.5
            width = W; height = H
            if shadow { notes.append(String(format: "shadow %.2f soft %.0f", dark, soft)) }
        }

        /// The light's gain at continuous position (fx, fy).
        func gain(_ fx: Double, _ fy: Double) -> Double {
            var light = max(0.35, min(1.3, g0 + gmag * ((fx / width - 0.5) * cos(gdir) + (fy / height - 0.5) * sin(gdir)) * 2))
            if shadow {
                let t = ((fx - centre.x) * cos(sdir) + (fy - centre.y) * sin(sdir) - soff) / soft
                light *= 1 - (1 - dark) / (1 + exp(-t)) // smooth step across the shadow edge
            }
            return light
        }
    }

    /// The largest distance between matching corners of two quads, trying the four cyclic
    /// correspondences (a detector may start its corner list at another corner).
    public static func cornerError(_ a: Quad, _ b: Quad) -> Double {
        let p = a.corners, q = b.corners
        var best = Double.infinity
        for shift in 0..<4 {
            for reversed in [false, true] {
                var worst = 0.0
                for i in 0..<4 {
                    let j = reversed ? (shift - i + 8) % 4 : (shift + i) % 4
                    let dx = p[i].x - q[j].x, dy = p[i].y - q[j].y
                    worst = max(worst, (dx * dx + dy * dy).squareRoot())
                }
                best = min(best, worst)
            }
        }
        return best
    }
}
