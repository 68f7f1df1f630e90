import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// A float64 reference of the resize contract in `imagecore/resize.h`, written independently
/// of the C code: premultiply (straight alpha), average integer blocks (pre-reduction, partial
/// edge blocks averaging what they cover), then the separable filter on the reduced image with
/// clamped borders and weights normalised in double.
enum ResizeReference {
    static func filter(_ f: ic_resize_filter, _ x: Double) -> Double {
        func cubic(_ x: Double, _ b: Double, _ c: Double) -> Double {
            let x = abs(x)
            if x < 1 { return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6 }
            if x < 2 { return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6 }
            return 0
        }
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        switch f {
        case IC_RESIZE_BOX: return x > -0.5 && x <= 0.5 ? 1 : 0
        case IC_RESIZE_TRIANGLE: return abs(x) < 1 ? 1 - abs(x) : 0
        case IC_RESIZE_CATMULL_ROM: return cubic(x, 0, 0.5)
        case IC_RESIZE_MITCHELL: return cubic(x, 1.0 / 3, 1.0 / 3)
        default: return x > -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0
        }
    }

    static func support(_ f: ic_resize_filter) -> Double {
        switch f {
        case IC_RESIZE_BOX: 0.5
        case IC_RESIZE_TRIANGLE: 1
        case IC_RESIZE_CATMULL_ROM, IC_RESIZE_MITCHELL: 2
        default: 3
        }
    }

    /// The pre-reduction factor of the contract: ⌊in / out / 2⌋ when ≥ 2.
    static func factor(_ inSize: Int, _ out: Int, _ prereduce: Bool) -> Int {
        let k = inSize / out / 2
        return prereduce && k >= 2 ? k : 1
    }

    /// For each output: (first reduced index, normalised weights) over ⌈in/k⌉ samples.
    static func weights(_ f: ic_resize_filter, _ inSize: Int, _ out: Int, _ k: Int) -> [(Int, [Double])] {
        let nred = (inSize + k - 1) / k
        let extent = Double(inSize) / Double(k)
        let scale = extent / Double(out)
        let fs = max(scale, 1)
        let sup = support(f) * fs
        var result: [(Int, [Double])] = []
        for i in 0..<out {
            let c = (Double(i) + 0.5) * scale
            var w = [Double](repeating: 0, count: nred)
            for j in (Int((c - sup).rounded(.down)) - 2)...(Int((c + sup).rounded(.up)) + 2) {
                let v = filter(f, (Double(j) + 0.5 - c) / fs)
                if v != 0 { w[min(max(j, 0), nred - 1)] += v }
            }
            let sum = w.reduce(0, +)
            let first = w.firstIndex { $0 != 0 } ?? 0
            let last = w.lastIndex { $0 != 0 } ?? 0
            result.append((first, w[first...last].map { $0 / sum }))
        }
        return result
    }

    enum Mode { case direct, straight, premultiplied }

    /// The float result of one plane: outH × outW × ch values (for straight alpha the
    /// filtered *premultiplied* colour and alpha).
    static func plane(_ src: [UInt8], ch: Int, w: Int, h: Int, outW: Int, outH: Int, mode: Mode,
                      filter f: ic_resize_filter, prereduce: Bool) -> [Double] {
        var values = src.map(Double.init)
        if mode == .straight {
            for p in 0..<(w * h) { for c in 0..<3 { values[p * 4 + c] = values[p * 4 + c] * Double(src[p * 4 + 3]) / 255 } }
        }
        return plane(values: values, ch: ch, w: w, h: h, outW: outW, outH: outH, filter: f, prereduce: prereduce)
    }

    /// The same for samples already in the form they are filtered in (premultiplied, or in
    /// linear light): block means, then the separable filter.
    static func plane(values src: [Double], ch: Int, w: Int, h: Int, outW: Int, outH: Int,
                      filter f: ic_resize_filter, prereduce: Bool) -> [Double] {
        let kx = factor(w, outW, prereduce), ky = factor(h, outH, prereduce)
        let rw = (w + kx - 1) / kx, rh = (h + ky - 1) / ky
        // premultiply, then block means
        var red = [Double](repeating: 0, count: rw * rh * ch)
        for ry in 0..<rh {
            let y0 = ry * ky, y1 = min(y0 + ky, h)
            for rx in 0..<rw {
                let x0 = rx * kx, x1 = min(x0 + kx, w)
                let n = Double((y1 - y0) * (x1 - x0))
                for c in 0..<ch {
                    var s = 0.0
                    for y in y0..<y1 {
                        for x in x0..<x1 { s += src[(y * w + x) * ch + c] }
                    }
                    red[(ry * rw + rx) * ch + c] = s / n
                }
            }
        }
        let wh = weights(f, w, outW, kx), wv = weights(f, h, outH, ky)
        var tmp = [Double](repeating: 0, count: rh * outW * ch)
        for r in 0..<rh {
            for x in 0..<outW {
                let (first, ws) = wh[x]
                for c in 0..<ch {
                    var s = 0.0
                    for (t, wt) in ws.enumerated() { s += wt * red[(r * rw + first + t) * ch + c] }
                    tmp[(r * outW + x) * ch + c] = s
                }
            }
        }
        var out = [Double](repeating: 0, count: outH * outW * ch)
        for y in 0..<outH {
            let (first, ws) = wv[y]
            for e in 0..<(outW * ch) {
                var s = 0.0
                for (t, wt) in ws.enumerated() { s += wt * tmp[(first + t) * outW * ch + e] }
                out[y * outW * ch + e] = s
            }
        }
        return out
    }

    static func clamp8(_ v: Double) -> Double { min(255, max(0, v)) }

    /// Largest error of `ours` against the reference under the contract for `mode`, and the
    /// number of values outside the bound.
    static func compare(_ ours: [UInt8], _ ref: [Double], ch: Int, mode: Mode) -> (maxError: Double, failures: Int) {
        var maxError = 0.0, failures = 0
        func note(_ e: Double, _ bound: Double) {
            maxError = max(maxError, e)
            if e > bound + 1e-9 { failures += 1 }
        }
        let pixels = ours.count / ch
        for p in 0..<pixels {
            switch mode {
            case .direct:
                for c in 0..<ch { note(abs(Double(ours[p * ch + c]) - clamp8(ref[p * ch + c])), 1) }
            case .premultiplied:
                let a = clamp8(ref[p * 4 + 3])
                note(abs(Double(ours[p * 4 + 3]) - a), 1)
                for c in 0..<3 { note(abs(Double(ours[p * 4 + c]) - min(clamp8(ref[p * 4 + c]), a)), 1) }
                for c in 0..<3 where ours[p * 4 + c] > ours[p * 4 + 3] { failures += 1 } // valid premultiplied
            case .straight:
                let aRef = ref[p * 4 + 3], a = Double(ours[p * 4 + 3])
                note(abs(a - clamp8(aRef)), 1)
                for c in 0..<3 {
                    let cOurs = Double(ours[p * 4 + c])
                    if aRef >= 32 {
                        note(abs(cOurs - clamp8(255 * ref[p * 4 + c] / aRef)), 1)
                    } else if a >= 1 {
                        // Ill-conditioned colour of a nearly transparent pixel: bound the
                        // premultiplied value instead.
                        let want = min(clamp8(ref[p * 4 + c]), clamp8(aRef))
                        let e = abs(cOurs * a / 255 - want)
                        if e > 1.5 { failures += 1 }
                    } else if cOurs != 0 {
                        failures += 1 // alpha 0 has colour 0
                    }
                }
            }
        }
        return (maxError, failures)
    }
}

@Suite("Resize")
struct ResizeTests {
    typealias Mode = ResizeReference.Mode

    struct Kind: CustomStringConvertible {
        var format: ic_format
        var alpha: ic_alpha
        var description: String { "\(format.rawValue)/\(alpha.rawValue)" }
        var mode: Mode {
            guard format == IC_FORMAT_RGBA8 else { return .direct }
            return alpha == IC_ALPHA_STRAIGHT ? .straight : alpha == IC_ALPHA_PREMULTIPLIED ? .premultiplied : .direct
        }
    }

    static let kinds: [Kind] = [
        Kind(format: IC_FORMAT_GRAY8, alpha: IC_ALPHA_STRAIGHT), Kind(format: IC_FORMAT_RGB8, alpha: IC_ALPHA_STRAIGHT),
        Kind(format: IC_FORMAT_RGBA8, alpha: IC_ALPHA_OPAQUE), Kind(format: IC_FORMAT_RGBA8, alpha: IC_ALPHA_STRAIGHT),
        Kind(format: IC_FORMAT_RGBA8, alpha: IC_ALPHA_PREMULTIPLIED), Kind(format: IC_FORMAT_I420, alpha: IC_ALPHA_STRAIGHT),
        Kind(format: IC_FORMAT_NV12, alpha: IC_ALPHA_STRAIGHT),
    ]
    static let filters: [ic_resize_filter] = [IC_RESIZE_BOX, IC_RESIZE_TRIANGLE, IC_RESIZE_CATMULL_ROM, IC_RESIZE_MITCHELL, IC_RESIZE_LANCZOS3]

    /// Channels, size and result size of plane p of a kind.
    static func planes(_ k: Kind, _ w: Int, _ h: Int, _ ow: Int, _ oh: Int) -> [(ch: Int, w: Int, h: Int, ow: Int, oh: Int)] {
        let c = ((w + 1) / 2, (h + 1) / 2, (ow + 1) / 2, (oh + 1) / 2)
        switch k.format {
        case IC_FORMAT_GRAY8: return [(1, w, h, ow, oh)]
        case IC_FORMAT_RGB8: return [(3, w, h, ow, oh)]
        case IC_FORMAT_RGBA8: return [(4, w, h, ow, oh)]
        case IC_FORMAT_I420: return [(1, w, h, ow, oh), (1, c.0, c.1, c.2, c.3), (1, c.0, c.1, c.2, c.3)]
        default: return [(1, w, h, ow, oh), (2, c.0, c.1, c.2, c.3)]
        }
    }

    /// Resizes through a plan into a guarded destination; returns its planes packed.
    static func run(_ src: GuardedImage, _ ow: Int, _ oh: Int, _ filter: ic_resize_filter, prereduce: Bool = true,
                    padding: Int = 3, threads: Int32 = 0, linear: Bool = false) -> [[UInt8]]? {
        let dst = GuardedImage(src.format, ow, oh, padding: padding, alpha: src.image.alpha)
        var p = ic_resize_params()
        p.format = src.format
        p.alpha = src.image.alpha
        p.src_width = src.width
        p.src_height = src.height
        p.dst_width = Int32(ow)
        p.dst_height = Int32(oh)
        p.filter = filter
        p.flags = (prereduce ? 0 : UInt32(IC_RESIZE_NO_PREREDUCE.rawValue)) | (linear ? UInt32(IC_RESIZE_LINEAR_LIGHT.rawValue) : 0)
        p.max_threads = threads
        var plan: OpaquePointer? = nil
        guard ic_resize_plan_create(&p, &plan) == IC_OK else { return nil }
        defer { ic_resize_plan_destroy(plan) }
        var s = src.image, d = dst.image
        guard ic_resize_plan_execute(plan, &s, &d) == IC_OK else { return nil }
        return (0..<Int(ic_format_plane_count(src.format))).map { dst.packed($0) }
    }

    /// Runs one case on both paths and checks: scalar == SIMD, both within the bound of the
    /// float64 reference. Returns the largest error seen.
    @discardableResult
    static func check(_ kind: Kind, _ w: Int, _ h: Int, _ ow: Int, _ oh: Int, _ filter: ic_resize_filter,
                      prereduce: Bool = true, seed: UInt64) -> Double {
        let src = GuardedImage(kind.format, w, h, padding: (w * 5 + h) % 11, alpha: kind.alpha)
        src.randomize(seed: seed)
        let scalar = ProcessSettings.with(cpuMask: 0) { run(src, ow, oh, filter, prereduce: prereduce) }
        let simd = ProcessSettings.with(cpuMask: .max) { run(src, ow, oh, filter, prereduce: prereduce) }
        guard let scalar, let simd else {
            Issue.record("\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(filter.rawValue): failed")
            return .infinity
        }
        #expect(scalar == simd, "\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(filter.rawValue): scalar != SIMD")
        var worst = 0.0
        for (i, g) in planes(kind, w, h, ow, oh).enumerated() {
            let ref = ResizeReference.plane(src.packed(i), ch: g.ch, w: g.w, h: g.h, outW: g.ow, outH: g.oh,
                                            mode: i == 0 ? kind.mode : .direct, filter: filter, prereduce: prereduce)
            let (e, failures) = ResizeReference.compare(simd[i], ref, ch: g.ch, mode: i == 0 ? kind.mode : .direct)
            #expect(failures == 0, "\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(filter.rawValue) plane \(i): \(failures) values out of bounds, max error \(e)")
            worst = max(worst, e)
        }
        return worst
    }

    @Test("every format and filter vs the float64 reference, widths 1…67 down/up/pre-reduced; scalar == SIMD",
          arguments: [0, 1, 2, 3, 4, 5, 6])
    func widths(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        var worst = 0.0
        for w in 1...67 {
            let f = Self.filters[w % 5]
            worst = max(worst, Self.check(kind, w, 3, max(1, w / 3), 2, f, seed: UInt64(w)))
            worst = max(worst, Self.check(kind, w, 2, w + 4, 5, Self.filters[(w + 2) % 5], seed: UInt64(w + 100)))
            worst = max(worst, Self.check(kind, w, 9, max(1, w / 5), 2, Self.filters[(w + 4) % 5], seed: UInt64(w + 200)))
        }
        #expect(worst <= 1)
    }

    @Test("every format and filter vs the float64 reference, heights 1…67 down/up/pre-reduced; scalar == SIMD",
          arguments: [0, 1, 2, 3, 4, 5, 6])
    func heights(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        for h in 1...67 {
            Self.check(kind, 3, h, 2, max(1, h / 3), Self.filters[h % 5], seed: UInt64(h + 300))
            Self.check(kind, 2, h, 5, h + 4, Self.filters[(h + 1) % 5], seed: UInt64(h + 400))
            Self.check(kind, 9, h, 2, max(1, h / 5), Self.filters[(h + 3) % 5], seed: UInt64(h + 500))
        }
    }

    @Test("every filter on every format, 2-D down and up, with and without pre-reduction", arguments: [0, 1, 2, 3, 4, 5, 6])
    func allFilters(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        for (i, f) in Self.filters.enumerated() {
            // (200, 61) -> (33, 10) pre-reduces by 3 x 3, (40, 257) -> (13, 25) by 1 x 5.
            for (w, h, ow, oh) in [(61, 47, 13, 9), (13, 9, 61, 47), (67, 67, 67, 67), (45, 2, 7, 1), (97, 83, 11, 19),
                                   (200, 61, 33, 10), (40, 257, 13, 25)] {
                Self.check(kind, w, h, ow, oh, f, seed: UInt64(i * 1000 + w))
                Self.check(kind, w, h, ow, oh, f, prereduce: false, seed: UInt64(i * 1000 + w + 1))
            }
        }
    }

    @Test("large odd sizes vs the reference (gray, RGBA straight, NV12)")
    func largeOdd() {
        let cases: [(Kind, Int, Int, Int, Int, ic_resize_filter)] = [
            (Self.kinds[0], 1001, 7, 333, 3, IC_RESIZE_LANCZOS3), (Self.kinds[0], 7, 1001, 3, 250, IC_RESIZE_CATMULL_ROM),
            (Self.kinds[0], 4099, 3, 17, 2, IC_RESIZE_TRIANGLE), (Self.kinds[3], 1023, 5, 1025, 3, IC_RESIZE_LANCZOS3),
            (Self.kinds[3], 513, 259, 61, 31, IC_RESIZE_MITCHELL), (Self.kinds[6], 517, 129, 101, 63, IC_RESIZE_LANCZOS3),
            (Self.kinds[2], 2049, 3, 511, 1, IC_RESIZE_BOX),
            // Horizontal factors above 16 x 2: block means made in the row producer.
            (Self.kinds[0], 20000, 3, 7, 2, IC_RESIZE_LANCZOS3), (Self.kinds[3], 5000, 2, 9, 1, IC_RESIZE_MITCHELL),
            (Self.kinds[6], 8001, 4, 5, 2, IC_RESIZE_CATMULL_ROM), (Self.kinds[1], 3001, 37, 21, 2, IC_RESIZE_LANCZOS3),
        ]
        for (i, c) in cases.enumerated() { Self.check(c.0, c.1, c.2, c.3, c.4, c.5, seed: UInt64(9000 + i)) }
    }

    @Test("bit-identical for 1, 2 and 7 threads, scalar and SIMD, plan reused")
    func threads() throws {
        for kind in [Self.kinds[0], Self.kinds[3], Self.kinds[4], Self.kinds[5], Self.kinds[6]] {
            for (w, h, ow, oh) in [(517, 389, 131, 97), (131, 97, 517, 389), (1031, 777, 97, 61)] {
                let src = GuardedImage(kind.format, w, h, padding: 7, alpha: kind.alpha)
                src.randomize(seed: UInt64(w * h))
                var results: [[[UInt8]]] = []
                for t: Int32 in [1, 2, 7] {
                    for mask: UInt32 in [0, .max] {
                        results.append(ProcessSettings.with(cpuMask: mask, threads: t) {
                            Self.run(src, ow, oh, IC_RESIZE_LANCZOS3, threads: 0) ?? []
                        })
                    }
                }
                // A plan made for 7 threads and run with 2: same bytes.
                results.append(ProcessSettings.with(threads: 2) { Self.run(src, ow, oh, IC_RESIZE_LANCZOS3, threads: 7) ?? [] })
                #expect(!results[0].isEmpty)
                for r in results { #expect(r == results[0], "\(kind) \(w)x\(h) -> \(ow)x\(oh)") }
            }
        }
        // One plan, run twice on different images: each result equals a fresh plan's.
        let plan = try ResizePlan(format: .rgba8, alphaMode: .straight, sourceWidth: 300, sourceHeight: 200, width: 77, height: 51)
        for seed: UInt64 in [1, 2] {
            var src = try PixelBuffer(width: 300, height: 200, format: .rgba8, alphaMode: .straight)
            var rng = SplitMix64(seed: seed)
            let stride = src.plane(0).stride
            src.withMutablePlane(0) { p in for y in 0..<200 { for x in 0..<1200 { p[y * stride + x] = UInt8(truncatingIfNeeded: rng.next()) } } }
            var a = try PixelBuffer(width: 77, height: 51, format: .rgba8)
            try plan.resize(src, into: &a)
            let b = try src.resized(width: 77, height: 51)
            let sa = a.plane(0).stride, sb = b.plane(0).stride
            let same = a.withPlane(0) { pa in
                b.withPlane(0) { pb in (0..<51).allSatisfy { y in (0..<(77 * 4)).allSatisfy { pa[y * sa + $0] == pb[y * sb + $0] } } }
            }
            #expect(same)
            #expect(a.alphaMode == .straight)
        }
    }

    @Test("straight alpha: a constant colour survives exactly for alpha >= 6; below, colour * alpha / 255 within 0.5")
    func constantStraightAlpha() {
        for f in Self.filters {
            for alpha in 1...255 {
                for (w, h, ow, oh) in [(17, 13, 5, 4), (5, 4, 17, 13)] {
                    let src = GuardedImage(IC_FORMAT_RGBA8, w, h, padding: 0)
                    var s = src.image
                    var v: [UInt8] = [201, 3, 255, UInt8(alpha)]
                    #expect(ic_image_fill(&s, &v) == IC_OK)
                    guard let out = Self.run(src, ow, oh, f)?[0] else { Issue.record("run"); continue }
                    for (i, b) in out.enumerated() {
                        let want = Int(v[i % 4])
                        if i % 4 == 3 || alpha >= 6 {
                            #expect(Int(b) == want, "filter \(f.rawValue) alpha \(alpha)")
                        } else {
                            #expect(abs(Int(b) - want) * alpha * 2 <= 255, "filter \(f.rawValue) alpha \(alpha): \(b) vs \(want)")
                        }
                    }
                }
            }
        }
    }

    @Test("a constant image stays exactly constant: every filter, format, up and down", arguments: [0, 1, 2, 3, 4, 5, 6])
    func constant(kindIndex: Int) throws {
        let kind = Self.kinds[kindIndex]
        let value: [UInt8] = [201, 17, 90, kind.mode == .direct ? 255 : 140]
        for f in Self.filters {
            for (w, h, ow, oh) in [(17, 13, 5, 4), (17, 13, 40, 29), (101, 77, 11, 9), (1, 1, 3, 2), (3, 2, 1, 1), (64, 9, 64, 9)] {
                let src = GuardedImage(kind.format, w, h, padding: 1, alpha: kind.alpha)
                var s = src.image
                var v = value
                if kind.mode == .premultiplied { v[0] = 120; v[1] = 17; v[2] = 90 } // valid premultiplied
                #expect(ic_image_fill(&s, &v) == IC_OK)
                let out = ProcessSettings.with(cpuMask: .max) { Self.run(src, ow, oh, f) }
                let scalar = ProcessSettings.with(cpuMask: 0) { Self.run(src, ow, oh, f) }
                #expect(out == scalar)
                for (i, plane) in (out ?? []).enumerated() {
                    let pattern: [UInt8] = switch kind.format {
                    case IC_FORMAT_GRAY8: [v[0]]
                    case IC_FORMAT_RGB8: Array(v[0..<3])
                    case IC_FORMAT_RGBA8: v
                    case IC_FORMAT_I420: [v[i]]
                    default: i == 0 ? [v[0]] : [v[1], v[2]]
                    }
                    let ok = plane.enumerated().allSatisfy { $0.element == pattern[$0.offset % pattern.count] }
                    #expect(ok, "\(kind) filter \(f.rawValue) \(w)x\(h) -> \(ow)x\(oh) plane \(i)")
                }
            }
        }
    }

    @Test("an impulse resizes to the filter: its total equals the filter's weights' total within rounding")
    func impulse() throws {
        for f in Self.filters {
            for (n, out) in [(64, 16), (63, 21), (16, 64), (9, 40)] {
                let src = GuardedImage(IC_FORMAT_GRAY8, n, n, padding: 0)
                let g = src.plane(0)
                for y in 0..<n { for x in 0..<n { g.data[y * g.stride + x] = 0 } }
                let c = n / 2
                g.data[c * g.stride + c] = 255
                guard let planes = Self.run(src, out, out, f, prereduce: false) else { Issue.record("run"); continue }
                let total = planes[0].reduce(0) { $0 + Int($1) }
                // The float reference of the impulse: 255 * wx[i] * wy[j], clamped to 0...255
                // like every output (the negative lobes of the cubics and Lanczos clip to 0).
                let w = ResizeReference.weights(f, n, out, 1)
                let column = w.map { (first, ws) in c >= first && c < first + ws.count ? ws[c - first] : 0 }
                var want = 0.0
                for a in column { for b in column { want += ResizeReference.clamp8(255 * a * b) } }
                let nonzero = column.filter { $0 != 0 }.count
                // Each output is within its rounding (+ the fixed-point error) of the reference.
                #expect(abs(Double(total) - want) <= 0.55 * Double(nonzero * nonzero) + 1e-9, "filter \(f.rawValue) \(n) -> \(out): \(total) vs \(want)")
                #expect(Double(total) >= want - 1e-9 - 0.55 * Double(nonzero * nonzero))
            }
        }
        // Box, integer factor: the total intensity is exactly preserved.
        let src = GuardedImage(IC_FORMAT_GRAY8, 64, 64, padding: 0)
        let g = src.plane(0)
        for y in 0..<64 { for x in 0..<64 { g.data[y * g.stride + x] = (x / 4 == 5 && y / 4 == 7) ? 240 : 0 } }
        let out = Self.run(src, 16, 16, IC_RESIZE_BOX)!
        #expect(out[0].reduce(0) { $0 + Int($1) } * 16 == 240 * 16)
    }

    @Test("plan API: size query, caller memory, parameters, errors")
    func planAPI() throws {
        var p = ic_resize_params()
        p.format = IC_FORMAT_RGBA8
        p.alpha = IC_ALPHA_STRAIGHT
        p.src_width = 640; p.src_height = 480; p.dst_width = 100; p.dst_height = 75
        p.filter = IC_RESIZE_LANCZOS3
        p.max_threads = 3
        var size = 0
        #expect(ic_resize_plan_size(&p, &size) == IC_OK && size > 0)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { memory.deallocate() }
        var plan: OpaquePointer? = nil
        #expect(ic_resize_plan_init(memory, size - 1, &p, &plan) == IC_ERR_BUFFER_TOO_SMALL)
        #expect(ic_resize_plan_init(memory + 8, size, &p, &plan) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_plan_init(memory, size, &p, &plan) == IC_OK)
        var back = ic_resize_params()
        #expect(ic_resize_plan_params(plan, &back) == IC_OK && back.max_threads == 3 && back.dst_width == 100)
        let src = GuardedImage(IC_FORMAT_RGBA8, 640, 480, padding: 4)
        src.randomize(seed: 5)
        let dst = GuardedImage(IC_FORMAT_RGBA8, 100, 75, padding: 4)
        var s = src.image, d = dst.image
        #expect(ic_resize_plan_execute(plan, &s, &d) == IC_OK)
        #expect(dst.packed(0) == Self.run(src, 100, 75, IC_RESIZE_LANCZOS3)?[0])

        // Mismatches are refused and write nothing.
        let otherImage = GuardedImage(IC_FORMAT_RGBA8, 101, 75), grayImage = GuardedImage(IC_FORMAT_GRAY8, 100, 75)
        var other = otherImage.image
        #expect(ic_resize_plan_execute(plan, &s, &other) == IC_ERR_INVALID_ARGUMENT)
        var opaque = s
        opaque.alpha = IC_ALPHA_OPAQUE
        #expect(ic_resize_plan_execute(plan, &opaque, &d) == IC_ERR_INVALID_ARGUMENT)
        var gray = grayImage.image
        #expect(ic_resize_plan_execute(plan, &s, &gray) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_plan_execute(nil, &s, &d) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_plan_execute(plan, nil, &d) == IC_ERR_INVALID_ARGUMENT)
        // Overlapping source and destination.
        var p2 = p
        p2.dst_width = 640; p2.dst_height = 480
        var plan2: OpaquePointer? = nil
        #expect(ic_resize_plan_create(&p2, &plan2) == IC_OK)
        var same = s
        #expect(ic_resize_plan_execute(plan2, &s, &same) == IC_ERR_INVALID_ARGUMENT)
        ic_resize_plan_destroy(plan2)
        ic_resize_plan_destroy(nil)

        // Bad parameters.
        for mutate in [{ (q: inout ic_resize_params) in q.src_width = 0 }, { $0.dst_height = -3 }, { $0.filter = ic_resize_filter(rawValue: 9) },
                       { $0.flags = 8 }, { $0.max_threads = -1 }, { $0.max_threads = 257 }, { $0.alpha = ic_alpha(rawValue: 7) }] {
            var q = p
            mutate(&q)
            #expect(ic_resize_plan_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        }
        var big = p
        big.src_width = 70000
        #expect(ic_resize_plan_size(&big, &size) == IC_ERR_TOO_LARGE)
        var fmt = p
        fmt.format = ic_format(rawValue: 42)
        #expect(ic_resize_plan_size(&fmt, &size) == IC_ERR_UNSUPPORTED)
        #expect(ic_resize_plan_size(nil, &size) == IC_ERR_INVALID_ARGUMENT)
        // Without pre-reduction an extreme downscale needs a huge ring: refused, not allocated.
        var huge = p
        huge.src_width = 65535; huge.src_height = 65535; huge.dst_width = 65535; huge.dst_height = 2
        huge.flags = UInt32(IC_RESIZE_NO_PREREDUCE.rawValue)
        #expect(ic_resize_plan_size(&huge, &size) == IC_ERR_TOO_LARGE)
        huge.flags = 0
        #expect(ic_resize_plan_size(&huge, &size) == IC_OK && size < 1 << 30)
    }

    @Test("Swift conveniences: sizes, one allocation, metadata, errors")
    func swiftAPI() throws {
        var src = try PixelBuffer(width: 400, height: 300, format: .rgba8, alphaMode: .premultiplied, orientation: .right)
        try src.fill([10, 20, 30, 40])
        var made: PixelBuffer? = nil
        let (_, usage) = try PixelAllocator.measure { made = try src.resized(width: 100) }
        let out = made.take()!
        #expect(out.width == 100 && out.height == 75 && out.alphaMode == .premultiplied && out.orientation == .right)
        #expect(usage.allocations == 1 && usage.peakBytes == out.byteCount)
        #expect(try src.resized(height: 31).width == 41)
        let fit = try src.resized(fittingWidth: 50, height: 50, filter: .box)
        #expect(fit.width == 50 && fit.height == 38)
        var gray = try PixelBuffer(width: 3, height: 3, format: .gray8)
        let e = #expect(throws: ImageError.self) { try src.resize(into: &gray) }
        #expect(e?.code == .invalidArgument)
        let plan = try ResizePlan(format: .i420, sourceWidth: 33, sourceHeight: 17, width: 10, height: 5, filter: .mitchell, maxThreads: 2)
        #expect(plan.maxThreads == 2 && plan.byteCount > 0)
        var yuvSrc = try PixelBuffer(width: 33, height: 17, format: .i420)
        try yuvSrc.fill([100, 110, 120])
        var yuvDst = try PixelBuffer(width: 10, height: 5, format: .i420)
        try plan.resize(yuvSrc, into: &yuvDst)
        #expect(yuvDst.withPlane(2) { $0[0] } == 120)
        let e2 = #expect(throws: ImageError.self) { try plan.resize(yuvDst, into: &yuvSrc) }
        #expect(e2?.code == .invalidArgument)
        #expect(ResizeFilter.allCases.map(\.support) == [0.5, 1, 2, 2, 3])
    }

    @Test("fit and aspect geometry")
    func geometry() throws {
        #expect(try ResizeGeometry.fit(width: 4032, height: 3024, maxWidth: 1024, maxHeight: 1024) == (1024, 768))
        #expect(try ResizeGeometry.fit(width: 3024, height: 4032, maxWidth: 1024, maxHeight: 1024) == (768, 1024))
        #expect(try ResizeGeometry.fit(width: 100, height: 50, maxWidth: 400, maxHeight: 400) == (400, 200))
        #expect(try ResizeGeometry.fit(width: 100, height: 50, maxWidth: 400, maxHeight: 400, upscale: false) == (100, 50))
        #expect(try ResizeGeometry.fit(width: 10000, height: 1, maxWidth: 100, maxHeight: 100) == (100, 1))
        #expect(ResizeGeometry.scaled(width: 4032, height: 3024, toWidth: 1024) == (1024, 768))
        #expect(ResizeGeometry.scaled(width: 3, height: 1000, toHeight: 10) == (1, 10))
        #expect(throws: ImageError.self) { _ = try ResizeGeometry.fit(width: 0, height: 1, maxWidth: 1, maxHeight: 1) }
    }
}
