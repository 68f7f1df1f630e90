import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// A float64 reference of the warp contract in warp.h, written from its prose: pixel centres
/// at +0.5, inverse map, w > 0 at the destination's centre, inside = [0, w] x [0, h], taps
/// replicated at the edges, bilinear or Catmull-Rom (a = -0.5), 4:2:0 chroma centred (chroma
/// coordinate c = luma coordinate 2c).
enum WarpReference {
    struct Plane {
        var data: [UInt8]  // packed
        var width: Int, height: Int, channels: Int
        func at(_ x: Int, _ y: Int, _ c: Int) -> Double {
            let xx = min(max(x, 0), width - 1), yy = min(max(y, 0), height - 1)
            return Double(data[(yy * width + xx) * channels + c])
        }
    }

    /// Expected value per destination sample (unrounded) and whether the sample lies within
    /// `band` px of the source extent's border or the horizon (either result allowed there).
    struct Sample { var value: [Double]; var inside: Bool; var ambiguous: Bool }

    static func cubic(_ t: Double) -> [Double] {
        let t2 = t * t, t3 = t2 * t
        return [-0.5 * t3 + t2 - 0.5 * t, 1.5 * t3 - 2.5 * t2 + 1, -1.5 * t3 + 2 * t2 + 0.5 * t, 0.5 * t3 - 0.5 * t2]
    }

    /// Warps one plane; `m` maps destination continuous coordinates of this plane to the
    /// source's; `sign` is the sign that makes w positive at the (luma) destination centre.
    static func warp(_ src: Plane, dstWidth: Int, dstHeight: Int, m: [Double], sign: Double, bicubic: Bool,
                     fill: [UInt8], band: Double = 2e-3) -> [Sample] {
        var out = [Sample]()
        out.reserveCapacity(dstWidth * dstHeight)
        for j in 0..<dstHeight {
            for i in 0..<dstWidth {
                let x = Double(i) + 0.5, y = Double(j) + 0.5
                let u = sign * (m[0] * x + m[1] * y + m[2]), v = sign * (m[3] * x + m[4] * y + m[5])
                let w = sign * (m[6] * x + m[7] * y + m[8])
                let sx = u / w, sy = v / w
                let inside = w > 0 && sx >= 0 && sx <= Double(src.width) && sy >= 0 && sy <= Double(src.height)
                let near = { (a: Double, lim: Double) in abs(a) < band || abs(a - lim) < band }
                let ambiguous = abs(w) < 1e-6 || (w > 0 && (
                    (near(sx, Double(src.width)) && sy > -band && sy < Double(src.height) + band) ||
                    (near(sy, Double(src.height)) && sx > -band && sx < Double(src.width) + band)))
                guard inside else {
                    out.append(Sample(value: fill.map(Double.init), inside: false, ambiguous: ambiguous))
                    continue
                }
                let X = sx - 0.5, Y = sy - 0.5
                let x0 = Int(X.rounded(.down)), y0 = Int(Y.rounded(.down))
                let fx = X - Double(x0), fy = Y - Double(y0)
                var value = [Double](repeating: 0, count: src.channels)
                for c in 0..<src.channels {
                    if bicubic {
                        let wx = cubic(fx), wy = cubic(fy)
                        var acc = 0.0
                        for jj in 0..<4 {
                            var h = 0.0
                            for ii in 0..<4 { h += wx[ii] * src.at(x0 - 1 + ii, y0 - 1 + jj, c) }
                            acc += wy[jj] * h
                        }
                        value[c] = min(max(acc, 0), 255)
                    } else {
                        let t = src.at(x0, y0, c) * (1 - fx) + src.at(x0 + 1, y0, c) * fx
                        let b = src.at(x0, y0 + 1, c) * (1 - fx) + src.at(x0 + 1, y0 + 1, c) * fx
                        value[c] = t * (1 - fy) + b * fy
                    }
                }
                out.append(Sample(value: value, inside: true, ambiguous: ambiguous))
            }
        }
        return out
    }

    /// The chroma plane's map: S M S^-1 with S = diag(1/2, 1/2, 1).
    static func chroma(_ m: [Double]) -> [Double] {
        [m[0], m[1], m[2] / 2, m[3], m[4], m[5] / 2, 2 * m[6], 2 * m[7], m[8]]
    }

    /// All planes of an image as packed references.
    static func planes(_ g: GuardedImage) -> [Plane] {
        let f = g.format
        let w = Int(g.width), h = Int(g.height), cw = (w + 1) / 2, ch = (h + 1) / 2
        switch f {
        case IC_FORMAT_GRAY8: return [Plane(data: g.packed(0), width: w, height: h, channels: 1)]
        case IC_FORMAT_RGBA8: return [Plane(data: g.packed(0), width: w, height: h, channels: 4)]
        case IC_FORMAT_NV12:
            return [Plane(data: g.packed(0), width: w, height: h, channels: 1), Plane(data: g.packed(1), width: cw, height: ch, channels: 2)]
        default:
            return [Plane(data: g.packed(0), width: w, height: h, channels: 1), Plane(data: g.packed(1), width: cw, height: ch, channels: 1),
                    Plane(data: g.packed(2), width: cw, height: ch, channels: 1)]
        }
    }
}

/// Test helpers for guarded images: sentinel padding and warp calls.
extension GuardedImage {
    /// Writes `value` into every padding byte between rows.
    func setPadding(_ value: UInt8) {
        for p in 0..<Int(ic_format_plane_count(format)) {
            let g = plane(p)
            for y in 0..<(g.rows - 1) { for x in g.rowBytes..<g.stride { g.data[y * g.stride + x] = value } }
        }
    }

    /// Whether every padding byte still holds `value`.
    func paddingIs(_ value: UInt8) -> Bool {
        for p in 0..<Int(ic_format_plane_count(format)) {
            let g = plane(p)
            for y in 0..<(g.rows - 1) { for x in g.rowBytes..<g.stride where g.data[y * g.stride + x] != value { return false } }
        }
        return true
    }
}

@Suite("Perspective warp and rectify")
struct WarpTests {
    static let formats: [ic_format] = [IC_FORMAT_GRAY8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12]

    static func name(_ f: ic_format) -> String { PixelFormat(f)!.description }

    static func matrix(_ h: ic_homography) -> [Double] { withUnsafeBytes(of: h.m) { Array($0.bindMemory(to: Double.self)) } }

    /// Random destination-to-source maps of several kinds for a source of `sw` x `sh` and a
    /// destination of `dw` x `dh`.
    static func randomMap(_ rng: inout SplitMix64, kind: Int, sw: Int, sh: Int, dw: Int, dh: Int) -> ic_homography {
        func u(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53) }
        let W = Double(sw), H = Double(sh)
        var quad: [Point]
        switch kind {
        case 0: // a page-like quad inside the source
            quad = [Point(x: u(0, 0.3) * W, y: u(0, 0.3) * H), Point(x: u(0.7, 1) * W, y: u(0, 0.3) * H),
                    Point(x: u(0.7, 1) * W, y: u(0.7, 1) * H), Point(x: u(0, 0.3) * W, y: u(0.7, 1) * H)]
        case 1: // reaching out of the source on all sides (fill), rotated by up to 180 degrees
            let a = u(-3.14, 3.14), s = u(0.6, 1.4)
            quad = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map { (x, y) in
                Point(x: W / 2 + s * W * (x * cos(a) - y * sin(a)) + u(-0.1, 0.1) * W,
                      y: H / 2 + s * H * (x * sin(a) + y * cos(a)) + u(-0.1, 0.1) * H)
            }
        case 3, 4, 5: // a page at a mild upscale, turned a little: the interior window fast paths;
            // 4 lists the corners mirrored left-right (x decreasing along a row), 5 top-bottom
            let a = u(-0.15, 0.15), cx = W / 2, cy = H / 2, hw = 0.3 * W, hh = 0.35 * H
            quad = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)].map { (x, y) in
                Point(x: cx + x * cos(a) - y * sin(a) + u(-0.03, 0.03) * W, y: cy + x * sin(a) + y * cos(a) + u(-0.03, 0.03) * H)
            }
            if kind == 4 { quad = [quad[1], quad[0], quad[3], quad[2]] }
            if kind == 5 { quad = [quad[3], quad[2], quad[1], quad[0]] }
        default: // strong downscale / upscale of a small region
            let cx = u(0.2, 0.8) * W, cy = u(0.2, 0.8) * H, r = u(0.05, 2) * min(W, H)
            quad = [Point(x: cx - r, y: cy - r * 0.8), Point(x: cx + r * 1.1, y: cy - r), Point(x: cx + r, y: cy + r), Point(x: cx - r * 0.9, y: cy + r * 1.2)]
        }
        let rect = [Point(x: 0, y: 0), Point(x: Double(dw), y: 0), Point(x: Double(dw), y: Double(dh)), Point(x: 0, y: Double(dh))]
        var h = ic_homography()
        let st = rect.map(\.cValue).withUnsafeBufferPointer { r in quad.map(\.cValue).withUnsafeBufferPointer { q in ic_homography_from_points(r.baseAddress, q.baseAddress, &h) } }
        precondition(st == IC_OK)
        return h
    }

    struct Comparison { var worst = 0.0; var checked = 0; var ambiguous = 0; var failures: [String] = [] }

    /// Compares the destination with the reference: |out - round(ref)| <= 1 everywhere but in
    /// the ambiguous border band.
    static func compare(_ dst: GuardedImage, src: GuardedImage, h: ic_homography, bicubic: Bool, fill: [UInt8]) -> Comparison {
        var cmp = Comparison()
        let m = matrix(h)
        let dw = Int(dst.width), dh = Int(dst.height)
        let wc = m[6] * Double(dw) / 2 + m[7] * Double(dh) / 2 + m[8]
        let sign: Double = wc < 0 ? -1 : 1
        let srcPlanes = WarpReference.planes(src), dstPlanes = WarpReference.planes(dst)
        for (p, sp) in srcPlanes.enumerated() {
            let dp = dstPlanes[p]
            let pm = p == 0 ? m : WarpReference.chroma(m)
            let pf: [UInt8] = switch dst.format {
            case IC_FORMAT_NV12: p == 0 ? [fill[0]] : [fill[1], fill[2]]
            case IC_FORMAT_I420: [fill[p]]
            case IC_FORMAT_GRAY8: [fill[0]]
            default: fill
            }
            let ref = WarpReference.warp(sp, dstWidth: dp.width, dstHeight: dp.height, m: pm, sign: sign, bicubic: bicubic, fill: pf)
            for (i, s) in ref.enumerated() {
                if s.ambiguous { cmp.ambiguous += 1; continue }
                cmp.checked += 1
                for c in 0..<sp.channels {
                    let got = Double(dp.data[i * sp.channels + c])
                    let want = (s.value[c] + 0.5).rounded(.down)
                    let err = abs(got - want)
                    cmp.worst = max(cmp.worst, abs(got - s.value[c]))
                    if err > 1 && cmp.failures.count < 5 {
                        cmp.failures.append("plane \(p) pixel (\(i % dp.width),\(i / dp.width)) ch \(c): got \(got), want \(s.value[c]) inside \(s.inside)")
                    }
                }
            }
        }
        return cmp
    }

    static func warp(_ src: GuardedImage, _ dst: GuardedImage, _ h: ic_homography, _ opt: ic_warp_options) -> ic_status {
        var s = src.image, d = dst.image, hh = h, o = opt
        return ic_warp_perspective(&s, &d, &hh, &o)
    }

    @Test("every format and interpolation against the float64 reference: odd sizes, padded strides, guard pages, scalar and AVX2")
    func reference() throws {
        var rng = SplitMix64(seed: 2024)
        let sizes: [(Int, Int, Int, Int)] = [(37, 29, 23, 41), (64, 48, 131, 37), (5, 7, 9, 4), (101, 67, 67, 101), (1, 1, 3, 2), (2, 3, 5, 5),
                                             (4, 4, 17, 3), (96, 80, 75, 61)]
        var total = 0, ambiguous = 0
        var worst = [String: Double]()
        for f in Self.formats {
            for bicubic in [false, true] {
                for (si, (sw, sh, dw, dh)) in sizes.enumerated() {
                    for kind in 0..<6 {
                        let src = GuardedImage(f, sw, sh, padding: (si + kind) % 3 * 5)
                        src.randomize(seed: rng.next())
                        let h = Self.randomMap(&rng, kind: kind, sw: sw, sh: sh, dw: dw, dh: dh)
                        var opt = ic_warp_options_default(f)
                        opt.interpolation = bicubic ? IC_INTERPOLATION_BICUBIC : IC_INTERPOLATION_BILINEAR
                        opt.fill = (UInt8(truncatingIfNeeded: rng.next()), 7, 200, 99)
                        let fill = [opt.fill.0, opt.fill.1, opt.fill.2, opt.fill.3]
                        var outputs = [[[UInt8]]]()
                        for mask: UInt32? in [0, nil] {
                            let dst = GuardedImage(f, dw, dh, padding: (si + kind + 1) % 3 * 3)
                            dst.setPadding(0xA5)
                            let st = ProcessSettings.with(cpuMask: mask) { Self.warp(src, dst, h, opt) }
                            #expect(st == IC_OK)
                            #expect(dst.paddingIs(0xA5), "padding written")
                            let cmp = Self.compare(dst, src: src, h: h, bicubic: bicubic, fill: fill)
                            let label = "\(Self.name(f)) \(bicubic ? "bicubic" : "bilinear") \(sw)x\(sh)->\(dw)x\(dh) kind \(kind) \(mask == 0 ? "scalar" : "fast")"
                            #expect(cmp.failures.isEmpty, "\(label): \(cmp.failures)")
                            total += cmp.checked
                            ambiguous += cmp.ambiguous
                            let key = "\(Self.name(f)) \(bicubic ? "bicubic" : "bilinear") \(mask == 0 ? "scalar" : "fast")"
                            worst[key] = max(worst[key] ?? 0, cmp.worst)
                            outputs.append((0..<Int(ic_format_plane_count(f))).map { dst.packed($0) })
                        }
                        // Scalar against vector: within 1.
                        for p in 0..<outputs[0].count {
                            let d = zip(outputs[0][p], outputs[1][p]).map { abs(Int($0) - Int($1)) }.max() ?? 0
                            #expect(d <= 1 || outputs[0][p].count == 0, "\(Self.name(f)) scalar vs fast plane \(p): \(d)")
                        }
                    }
                }
            }
        }
        // The ambiguous border band is a tiny share of what was checked.
        #expect(ambiguous * 200 < total, "\(ambiguous) ambiguous of \(total)")
        print("warp reference: \(total) samples checked, \(ambiguous) in the border band; worst |out - exact| per path: "
              + worst.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.3f", $0.value))" }.joined(separator: ", "))
    }

    @Test("large spans and extreme perspective (horizon inside the destination) stay within 1")
    func extreme() throws {
        var rng = SplitMix64(seed: 77)
        for f in Self.formats {
            for bicubic in [false, true] {
                let src = GuardedImage(f, 211, 97, padding: 3)
                src.randomize(seed: rng.next())
                // A map whose w crosses zero inside the destination.
                let h = ic_homography(m: (1.3, 0.2, -20, 0.1, 0.9, 5, 0.004, 0.0015, -0.3))
                var opt = ic_warp_options_default(f)
                opt.interpolation = bicubic ? IC_INTERPOLATION_BICUBIC : IC_INTERPOLATION_BILINEAR
                let fill = [opt.fill.0, opt.fill.1, opt.fill.2, opt.fill.3]
                for mask: UInt32? in [0, nil] {
                    let dst = GuardedImage(f, 300, 120, padding: 1)
                    let st = ProcessSettings.with(cpuMask: mask) { Self.warp(src, dst, h, opt) }
                    #expect(st == IC_OK)
                    let cmp = Self.compare(dst, src: src, h: h, bicubic: bicubic, fill: fill)
                    #expect(cmp.failures.isEmpty, "\(Self.name(f)) \(bicubic) \(String(describing: mask)): \(cmp.failures)")
                }
            }
        }
    }

    @Test("results do not depend on the thread count")
    func threads() throws {
        let src = GuardedImage(IC_FORMAT_RGBA8, 300, 200, padding: 4)
        src.randomize(seed: 3)
        var rng = SplitMix64(seed: 8)
        let h = Self.randomMap(&rng, kind: 1, sw: 300, sh: 200, dw: 257, dh: 311)
        var outs = [[UInt8]]()
        for t: Int32 in [1, 2, 7] {
            let dst = GuardedImage(IC_FORMAT_RGBA8, 257, 311)
            #expect(ProcessSettings.with(threads: t) { Self.warp(src, dst, h, ic_warp_options_default(IC_FORMAT_RGBA8)) } == IC_OK)
            outs.append(dst.packed(0))
        }
        #expect(outs[0] == outs[1] && outs[1] == outs[2])
    }

    @Test("rectify with the image's own rectangle is an exact copy, every format and interpolation")
    func identity() throws {
        for f in Self.formats {
            for interp in Interpolation.allCases {
                for (w, h) in [(37, 23), (64, 64), (5, 3), (1, 1)] {
                    for mask: UInt32? in [0, nil] {
                        var src = try PixelBuffer(width: w, height: h, format: PixelFormat(f)!)
                        var rng = SplitMix64(seed: UInt64(w * h))
                        for p in 0..<src.planeCount {
                            src.withMutablePlane(p) { span in for i in span.indices { span[i] = UInt8(truncatingIfNeeded: rng.next()) } }
                        }
                        var dst = try PixelBuffer(width: w, height: h, format: PixelFormat(f)!)
                        try ProcessSettings.with(cpuMask: mask) {
                            try dst.rectify(from: src, quad: Quad(width: Double(w), height: Double(h)), interpolation: interp)
                        }
                        for p in 0..<src.planeCount {
                            let g = src.plane(p)
                            let same = src.withPlane(p) { a in dst.withPlane(p) { b in
                                (0..<g.rows).allSatisfy { y in (0..<g.rowBytes).allSatisfy { a[y * g.stride + $0] == b[y * g.stride + $0] } }
                            } }
                            #expect(same, "\(Self.name(f)) \(interp) \(w)x\(h) plane \(p) mask \(String(describing: mask))")
                        }
                    }
                }
            }
        }
    }

    @Test("an orientation composed into rectify equals rectify followed by the rotation")
    func orientation() throws {
        for f in Self.formats {
            let format = PixelFormat(f)!
            // 4:2:0 needs even rectified sizes: with an odd size the turned chroma grid is
            // offset by half a chroma pixel from the stored one, so no pixel permutation matches.
            let (rw, rh) = format.isYUV ? (46, 30) : (45, 31)
            var src = try PixelBuffer(width: 120, height: 90, format: format)
            try SyntheticDraw.smooth(&src, seed: 4)
            let quad = Quad([Point(x: 14.3, y: 9.1), Point(x: 101.7, y: 17.6), Point(x: 110.2, y: 80.4), Point(x: 8.8, y: 71.9)])
            for interp in Interpolation.allCases {
                for mask: UInt32? in [0, nil] {
                    var upright = try PixelBuffer(width: rw, height: rh, format: format)
                    try ProcessSettings.with(cpuMask: mask) { try upright.rectify(from: src, quad: quad, interpolation: interp) }
                    for o in Orientation.allCases {
                        let (dw, dh) = o.displaySize(width: rw, height: rh)
                        var turned = try PixelBuffer(width: dw, height: dh, format: format)
                        try ProcessSettings.with(cpuMask: mask) { try turned.rectify(from: src, quad: quad, orientation: o, interpolation: interp) }
                        var worst = 0, differing = 0, count = 0
                        for p in 0..<upright.planeCount {
                            let ch = format == .rgba8 ? 4 : (format == .nv12 && p == 1 ? 2 : 1)
                            let pw = p == 0 ? rw : (rw + 1) / 2, ph = p == 0 ? rh : (rh + 1) / 2
                            let expected = OrientationReference.apply(o, packed(upright, p), width: pw, height: ph, channels: ch)
                            let got = packed(turned, p)
                            for (a, b) in zip(expected, got) {
                                let d = abs(Int(a) - Int(b))
                                worst = max(worst, d)
                                if d != 0 { differing += 1 }
                                count += 1
                            }
                        }
                        // Both are within 1 of the exact value at slightly different single-
                        // precision positions, so rare 1-off pixels are allowed.
                        #expect(worst <= 1, "\(format) \(interp) orientation \(o): worst \(worst)")
                        #expect(differing * 100 <= count, "\(format) \(interp) orientation \(o): \(differing) of \(count) differ")
                    }
                }
            }
        }
    }

    @Test("hostile arguments are refused, never crash")
    func hostile() throws {
        let src = GuardedImage(IC_FORMAT_RGBA8, 16, 16)
        let dst = GuardedImage(IC_FORMAT_RGBA8, 8, 8)
        let opt = ic_warp_options_default(IC_FORMAT_RGBA8)
        #expect(Self.warp(src, dst, ic_homography(m: (.nan, 0, 0, 0, 1, 0, 0, 0, 1)), opt) == IC_ERR_INVALID_ARGUMENT)
        #expect(Self.warp(src, dst, ic_homography(m: (1, 2, 3, 2, 4, 6, 0, 0, 1)), opt) == IC_OK) // singular: degenerate picture
        #expect(Self.warp(src, dst, ic_homography(m: (0, 0, 0, 0, 0, 0, 0, 0, 0)), opt) == IC_ERR_INVALID_ARGUMENT)
        #expect(Self.warp(src, src, ic_homography_identity(), opt) == IC_ERR_INVALID_ARGUMENT) // overlap
        var bad = opt
        bad.interpolation = ic_interpolation(rawValue: 7)
        #expect(Self.warp(src, dst, ic_homography_identity(), bad) == IC_ERR_INVALID_ARGUMENT)
        let gray = GuardedImage(IC_FORMAT_GRAY8, 8, 8)
        #expect(Self.warp(src, gray, ic_homography_identity(), opt) == IC_ERR_UNSUPPORTED)
        let rgb = GuardedImage(IC_FORMAT_RGB8, 8, 8), rgb2 = GuardedImage(IC_FORMAT_RGB8, 8, 8)
        #expect(Self.warp(rgb, rgb2, ic_homography_identity(), opt) == IC_ERR_UNSUPPORTED)
        var s = src.image, d = dst.image
        #expect(ic_warp_perspective(nil, &d, nil, nil) == IC_ERR_INVALID_ARGUMENT)
        var hh = ic_homography_identity()
        #expect(ic_warp_perspective(&s, &d, &hh, nil) == IC_OK)
        // Huge and tiny scales, translations far away: all fill or valid samples, no fault.
        // (1e5 scale sends span anchors beyond 2^22 px: the kernels hand those spans to the
        // double-precision reference.)
        for m in [(1e12, 0, 0, 0, 1e12, 0, 0, 0, 1), (1e5, 0, 0, 0, 1e5, 0, 0, 0, 1), (1e-12, 0, 3, 0, 1e-12, 3, 0, 0, 1),
                  (1, 0, -1e15, 0, 1, 1e15, 0, 0, 1), (1, 0, 0, 0, 1, 0, 1e-300, 1e-300, 1e-300), (0, 0, 0, 0, 0, 0, 0, 0, 1e-300),
                  (.greatestFiniteMagnitude, 0, 0, 0, 1, 0, 0, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, -1)] as [(Double, Double, Double, Double, Double, Double, Double, Double, Double)] {
            for mask: UInt32? in [0, nil] {
                let dd = GuardedImage(IC_FORMAT_RGBA8, 70, 9)
                #expect(ProcessSettings.with(cpuMask: mask) { Self.warp(src, dd, ic_homography(m: m), opt) } == IC_OK)
            }
        }
        // Invalid quads are refused with the reason available from ic_quad_validate.
        var q = Quad([Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 3, y: 3), Point(x: 0, y: 10)]).cValue
        #expect(ic_rectify(&s, &q, 1, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        q = Quad(width: 16, height: 16).cValue
        #expect(ic_rectify(&s, &q, 9, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_rectify(&s, &q, 8, &d, nil) == IC_OK)
    }

    @Test("randomised hostile maps and quads: never a fault, only OK or invalid argument")
    func randomHostile() throws {
        var rng = SplitMix64(seed: 99)
        func value() -> Double {
            switch rng.next() % 10 {
            case 0: return .nan
            case 1: return rng.next() % 2 == 0 ? .infinity : -.infinity
            case 2: return 0
            case 3: return Double(bitPattern: rng.next()) // any bit pattern
            default:
                let mag = pow(10, Double(Int(rng.next() % 40)) - 20)
                return (Double(rng.next() % 2001) / 1000 - 1) * mag
            }
        }
        for i in 0..<400 {
            let f = Self.formats[i % 4]
            let src = GuardedImage(f, 5 + i % 23, 4 + i % 17, padding: i % 3)
            src.randomize(seed: UInt64(i))
            let dst = GuardedImage(f, 3 + i % 29, 2 + i % 13, padding: (i + 1) % 3)
            var m = ic_homography()
            withUnsafeMutableBytes(of: &m.m) { raw in for k in 0..<9 { raw.storeBytes(of: value(), toByteOffset: 8 * k, as: Double.self) } }
            var opt = ic_warp_options_default(f)
            opt.interpolation = i % 2 == 0 ? IC_INTERPOLATION_BILINEAR : IC_INTERPOLATION_BICUBIC
            for mask: UInt32? in [0, nil] {
                let st = ProcessSettings.with(cpuMask: mask) { Self.warp(src, dst, m, opt) }
                #expect(st == IC_OK || st == IC_ERR_INVALID_ARGUMENT)
            }
            var q = ic_quad()
            withUnsafeMutableBytes(of: &q.corners) { raw in for k in 0..<8 { raw.storeBytes(of: value(), toByteOffset: 8 * k, as: Double.self) } }
            var s = src.image, d = dst.image
            let st = ic_rectify(&s, &q, Int32(1 + i % 8), &d, &opt)
            #expect(st == IC_OK || st == IC_ERR_INVALID_ARGUMENT)
            var problem = IC_QUAD_VALID
            _ = ic_quad_validate(&q, 100, 100, &problem)
            var w: Int32 = 0, h: Int32 = 0
            var req = ic_size_request()
            req.kind = ic_size_kind(rawValue: UInt32(i % 6)) // the five kinds and one that is none
            req.width = Int32(truncatingIfNeeded: Int(bitPattern: UInt(rng.next())))
            req.height = 7
            req.long_side = Int32(i)
            req.paper = ic_paper(rawValue: UInt32(i % 6))
            req.dpi = value()
            _ = ic_rectified_size(&q, &req, &w, &h)
        }
    }

    func packed(_ b: borrowing PixelBuffer, _ p: Int) -> [UInt8] {
        let g = b.plane(p)
        return b.withPlane(p) { s in
            var out = [UInt8]()
            out.reserveCapacity(g.rowBytes * g.rows)
            for y in 0..<g.rows { for x in 0..<g.rowBytes { out.append(s[y * g.stride + x]) } }
            return out
        }
    }
}

/// Smooth deterministic content for tests where random noise would make every 1-LSB
/// difference a large one (any format).
enum SyntheticDraw {
    static func smooth(_ b: inout PixelBuffer, seed: Int) throws {
        for p in 0..<b.planeCount {
            let g = b.plane(p)
            b.withMutablePlane(p) { span in
                for y in 0..<g.rows {
                    for x in 0..<g.rowBytes {
                        let v = 128 + 60 * sin(Double(x) * 0.21 + Double(seed)) + 50 * cos(Double(y) * 0.17 + Double(p))
                        span[y * g.stride + x] = UInt8(max(0, min(255, v)))
                    }
                }
            }
        }
    }
}
