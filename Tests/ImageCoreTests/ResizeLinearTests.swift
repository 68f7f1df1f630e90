import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// Linear-light resize (`IC_RESIZE_LINEAR_LIGHT`, `ResizeOptions.linearLight`) against a
/// float64 reference written from the sRGB standard: decode each sample, premultiply
/// straight alpha, average the pre-reduction blocks and filter (the resize reference), then
/// un-premultiply and encode.
enum LinearReference {
    static func toLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func toSRGB(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }

    /// The exact (unrounded) output samples, in u8 units, of one image.
    static func resize(_ src: [UInt8], ch: Int, straight: Bool, w: Int, h: Int, outW: Int, outH: Int,
                       filter: ic_resize_filter, prereduce: Bool) -> [Double] {
        var values = [Double](repeating: 0, count: src.count)
        for p in 0..<(w * h) {
            let a = ch == 4 ? Double(src[p * 4 + 3]) : 255
            for c in 0..<ch {
                let v = Double(src[p * ch + c])
                if ch == 4 && c == 3 { values[p * 4 + 3] = v; continue }
                values[p * ch + c] = 255 * toLinear(v / 255) * (straight ? a / 255 : 1)
            }
        }
        var out = ResizeReference.plane(values: values, ch: ch, w: w, h: h, outW: outW, outH: outH, filter: filter,
                                        prereduce: prereduce)
        for p in 0..<(outW * outH) {
            let a = ch == 4 ? out[p * 4 + 3] : 255
            for c in 0..<ch where !(ch == 4 && c == 3) {
                var l = out[p * ch + c] / 255
                if straight { l = a > 0 ? out[p * ch + c] / a : 0 }
                out[p * ch + c] = 255 * toSRGB(min(1, max(0, l)))
            }
        }
        return out
    }
}

@Suite("Resize in linear light")
struct ResizeLinearTests {
    typealias Kind = ResizeTests.Kind
    static let kinds: [Kind] = [ResizeTests.kinds[0], ResizeTests.kinds[1], ResizeTests.kinds[2], ResizeTests.kinds[3]]
    static let filters = ResizeTests.filters

    /// Largest errors seen: opaque kinds; straight alpha colour by the output alpha's band.
    final class Worst: @unchecked Sendable {
        var direct = 0.0
        var straight: [Int: Double] = [:] // alpha band (alpha / 32) -> error
    }

    /// Fills an image with random samples, or dark ones (0...47, where the sRGB curve is
    /// steepest) when `dark`.
    static func source(_ kind: Kind, _ w: Int, _ h: Int, seed: UInt64, dark: Bool) -> GuardedImage {
        let src = GuardedImage(kind.format, w, h, padding: (w * 3 + h) % 7, alpha: kind.alpha)
        var rng = SplitMix64(seed: seed)
        let ch = kind.format == IC_FORMAT_GRAY8 ? 1 : kind.format == IC_FORMAT_RGB8 ? 3 : 4
        var bytes = [UInt8](repeating: 0, count: w * h * ch)
        for i in bytes.indices {
            let r = rng.next()
            bytes[i] = ch == 4 && i % 4 == 3 ? (kind.mode == .direct ? 255 : UInt8(truncatingIfNeeded: r))
                : dark ? UInt8(r % 48) : UInt8(truncatingIfNeeded: r)
        }
        src.load(0, bytes)
        return src
    }

    /// One case on both paths: scalar == SIMD, both within the bound of the reference.
    static func check(_ kind: Kind, _ w: Int, _ h: Int, _ ow: Int, _ oh: Int, _ filter: ic_resize_filter,
                      prereduce: Bool = true, seed: UInt64, dark: Bool = false, worst: Worst) {
        let src = source(kind, w, h, seed: seed, dark: dark)
        let scalar = ProcessSettings.with(cpuMask: 0) { ResizeTests.run(src, ow, oh, filter, prereduce: prereduce, linear: true) }
        let simd = ProcessSettings.with(cpuMask: .max) { ResizeTests.run(src, ow, oh, filter, prereduce: prereduce, linear: true) }
        let name = "\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(filter.rawValue)\(prereduce ? "" : " direct")\(dark ? " dark" : "")"
        guard let scalar, let simd else { Issue.record("\(name): failed"); return }
        #expect(scalar == simd, "\(name): scalar != SIMD")
        let ch = kind.format == IC_FORMAT_GRAY8 ? 1 : kind.format == IC_FORMAT_RGB8 ? 3 : 4
        let straight = kind.mode == .straight
        let ref = LinearReference.resize(src.packed(0), ch: ch, straight: straight, w: w, h: h, outW: ow, outH: oh,
                                         filter: filter, prereduce: prereduce)
        let ours = simd[0]
        var failures = 0
        for p in 0..<(ow * oh) {
            if ch == 4 {
                let e = abs(Double(ours[p * 4 + 3]) - ResizeReference.clamp8(ref[p * 4 + 3]))
                worst.direct = max(worst.direct, e)
                if e > 1 { failures += 1 }
            }
            for c in 0..<min(ch, 3) {
                let e = abs(Double(ours[p * ch + c]) - ref[p * ch + c])
                if straight {
                    let a = ResizeReference.clamp8(ref[p * 4 + 3])
                    let band = Int(a) / 32
                    worst.straight[band] = max(worst.straight[band] ?? 0, e)
                    if a >= 96 && e > 1 { failures += 1 }
                    if Double(ours[p * 4 + 3]) == 0 && ours[p * 4 + c] != 0 { failures += 1 } // alpha 0 has colour 0
                } else {
                    worst.direct = max(worst.direct, e)
                    if e > 1 { failures += 1 }
                }
            }
        }
        #expect(failures == 0, "\(name): \(failures) values out of bounds")
    }

    @Test("gray, RGB, opaque and straight RGBA vs the float64 reference: widths and heights 1…67, every filter, pre-reduced and direct, random and dark; scalar == SIMD",
          arguments: [0, 1, 2, 3])
    func sweep(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        let worst = Worst()
        for n in 1...67 {
            let dark = n % 2 == 0
            Self.check(kind, n, 3, max(1, n / 3), 2, Self.filters[n % 5], seed: UInt64(n), dark: dark, worst: worst)
            Self.check(kind, n, 9, max(1, n / 5), 2, Self.filters[(n + 4) % 5], seed: UInt64(n + 200), dark: !dark, worst: worst)
            Self.check(kind, 3, n, 2, max(1, n / 3), Self.filters[(n + 1) % 5], seed: UInt64(n + 300), dark: dark, worst: worst)
            Self.check(kind, 2, n, 5, n + 4, Self.filters[(n + 2) % 5], seed: UInt64(n + 400), dark: !dark, worst: worst)
        }
        for (i, f) in Self.filters.enumerated() {
            for (w, h, ow, oh) in [(61, 47, 13, 9), (13, 9, 61, 47), (97, 83, 11, 19), (200, 61, 33, 10), (40, 257, 13, 25),
                                   (1001, 5, 37, 2)] {
                for dark in [false, true] {
                    Self.check(kind, w, h, ow, oh, f, seed: UInt64(i * 1000 + w), dark: dark, worst: worst)
                    Self.check(kind, w, h, ow, oh, f, prereduce: false, seed: UInt64(i * 1000 + w + 1), dark: dark, worst: worst)
                }
            }
        }
        // Horizontal factors above 16 x 2 (block means made in the producer).
        Self.check(kind, 5000, 2, 9, 1, IC_RESIZE_LANCZOS3, seed: 77, worst: worst)
        #expect(worst.direct <= 1)
        print("linear light \(kind): max error \(worst.direct)"
              + (kind.mode == .straight ? "; colour by output alpha band: "
                 + worst.straight.keys.sorted().map { "\($0 * 32)-\($0 * 32 + 31): \(String(format: "%.2f", worst.straight[$0]!))" }
                     .joined(separator: ", ") : ""))
    }

    @Test("a one-pixel black and white pattern halves to sRGB 188 (linear 0.5), not 128")
    func pattern() throws {
        for format in [PixelFormat.gray8, .rgb8, .rgba8] {
            var src = try PixelBuffer(width: 64, height: 64, format: format, alphaMode: .opaque)
            let rowStride = src.plane(0).stride, ch = format == .gray8 ? 1 : format == .rgb8 ? 3 : 4
            src.withMutablePlane(0) { p in
                for y in 0..<64 { for x in 0..<64 { for c in 0..<ch { p[y * rowStride + x * ch + c] = c == 3 ? 255 : (x + y) % 2 == 0 ? 255 : 0 } } }
            }
            for filter in [ResizeFilter.box, .triangle, .lanczos3] {
                let linear = try src.resized(width: 32, height: 32, options: ResizeOptions(filter: filter, linearLight: true))
                let plain = try src.resized(width: 32, height: 32, options: ResizeOptions(filter: filter))
                let l = linear.packedPlane(0), q = plain.packedPlane(0)
                // Inside, away from the clamped borders the kernel reaches (3 outputs).
                for y in 3..<29 {
                    for x in 3..<29 {
                        let i = (y * 32 + x) * ch
                        #expect(l[i] == 188, "\(format) \(filter) linear (\(x), \(y))")
                        #expect(q[i] == 128, "\(format) \(filter) plain (\(x), \(y))")
                        if ch == 4 { #expect(l[i + 3] == 255) }
                    }
                }
            }
        }
    }

    @Test("a constant image stays exactly constant in linear light (every filter, every sample value)")
    func constant() {
        for kind in Self.kinds {
            for f in Self.filters {
                for v in stride(from: 0, through: 255, by: kind.format == IC_FORMAT_GRAY8 ? 1 : 17) {
                    for (w, h, ow, oh) in [(17, 13, 5, 4), (5, 4, 17, 13), (101, 7, 9, 3)] {
                        let src = GuardedImage(kind.format, w, h, padding: 1, alpha: kind.alpha)
                        var s = src.image
                        var value: [UInt8] = [UInt8(v), UInt8(255 - v), UInt8(v / 2), kind.mode == .straight ? 200 : 255]
                        #expect(ic_image_fill(&s, &value) == IC_OK)
                        guard let out = ResizeTests.run(src, ow, oh, f, linear: true)?[0] else { Issue.record("run"); continue }
                        let ch = out.count / (ow * oh)
                        let ok = out.enumerated().allSatisfy { $0.element == value[$0.offset % ch] }
                        #expect(ok, "\(kind) filter \(f.rawValue) value \(v) \(w)x\(h) -> \(ow)x\(oh)")
                    }
                }
            }
        }
    }

    @Test("the row-push stream gives the one-shot plan's bytes in linear light")
    func stream() throws {
        for kind in Self.kinds {
            for (w, h, ow, oh) in [(301, 203, 37, 25), (64, 700, 9, 40), (40, 30, 97, 61)] {
                let src = Self.source(kind, w, h, seed: UInt64(w + h), dark: false)
                let oneShot = ResizeTests.run(src, ow, oh, IC_RESIZE_LANCZOS3, linear: true)?[0]
                let format = PixelFormat(kind.format)!
                let alpha: AlphaMode = kind.mode == .straight ? .straight : .opaque
                var resizer = try StreamingResizer(format: format, alphaMode: alpha, sourceWidth: w, sourceHeight: h,
                                                   width: ow, height: oh, linearLight: true)
                var out = try PixelBuffer(width: ow, height: oh, format: format, alphaMode: alpha)
                let g = src.plane(0)
                for y in 0..<h { try resizer.push(row: UnsafePointer(g.data + y * g.stride), into: &out) }
                #expect(out.packedPlane(0) == oneShot, "\(kind) \(w)x\(h) -> \(ow)x\(oh)")
            }
        }
    }

    @Test("linear light refuses premultiplied RGBA and YUV (unsupported); the plan holds its tables")
    func refusals() throws {
        for (format, alpha) in [(IC_FORMAT_RGBA8, IC_ALPHA_PREMULTIPLIED), (IC_FORMAT_I420, IC_ALPHA_STRAIGHT), (IC_FORMAT_NV12, IC_ALPHA_STRAIGHT)] {
            var p = ic_resize_params()
            p.format = format; p.alpha = alpha
            p.src_width = 8; p.src_height = 8; p.dst_width = 4; p.dst_height = 4
            p.filter = IC_RESIZE_LANCZOS3
            p.flags = UInt32(IC_RESIZE_LINEAR_LIGHT.rawValue)
            var size = 0
            #expect(ic_resize_plan_size(&p, &size) == IC_ERR_UNSUPPORTED)
            #expect(ic_resize_stream_size(&p, &size) == IC_ERR_UNSUPPORTED)
        }
        #expect(throws: ImageError.self) {
            _ = try ResizePlan(format: .nv12, sourceWidth: 8, sourceHeight: 8, width: 4, height: 4,
                               options: ResizeOptions(linearLight: true))
        }
        let plain = try ResizePlan(format: .rgb8, sourceWidth: 800, sourceHeight: 600, width: 200, height: 150, maxThreads: 1)
        let linear = try ResizePlan(format: .rgb8, sourceWidth: 800, sourceHeight: 600, width: 200, height: 150,
                                    options: ResizeOptions(linearLight: true), maxThreads: 1)
        #expect(linear.linearLight && !plain.linearLight)
        // Tables (256 x 2 + 65281 bytes) and one output row of L16, each 64-byte aligned.
        #expect(linear.byteCount - plain.byteCount >= 512 + 65281 + 200 * 3 * 2)
        #expect(linear.byteCount - plain.byteCount <= 512 + 65281 + 200 * 3 * 2 + 4 * 64 + 800 * 3 * 2)
    }
}
