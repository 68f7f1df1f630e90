import CImageCore
import Testing
@testable import ImageCore

@Suite("Channel conversions (gray, RGB, RGBA)")
struct ChannelsTests {
    static let formats: [(ic_format, Int)] = [(IC_FORMAT_GRAY8, 1), (IC_FORMAT_RGB8, 3), (IC_FORMAT_RGBA8, 4)]

    /// The expected output pixel, written from the header's table: exact for the shuffles,
    /// and for luma the float formula, which the kernel must match within 1 LSB.
    static func expected(_ px: [UInt8], to dc: Int) -> [Double] {
        let sc = px.count
        if dc == 1 {
            if sc == 1 { return [Double(px[0])] }
            return [0.299 * Double(px[0]) + 0.587 * Double(px[1]) + 0.114 * Double(px[2])]
        }
        let rgb = sc == 1 ? [px[0], px[0], px[0]] : Array(px[0..<3])
        return rgb.map(Double.init) + (dc == 4 ? (sc == 4 && dc == 4 ? [Double(px[3])] : [255]) : [])
    }

    /// Both paths: the AVX2 kernels (16 pixels a step, so the widths cover none, one and
    /// several steps with and without a scalar tail) and the scalar reference (mask 0).
    @Test("every pair against the reference, odd sizes, padded strides, guard pages, AVX2 and scalar",
          arguments: [UInt32(0xffff_ffff), 0])
    func pairs(mask: UInt32) {
        for (sf, sc) in Self.formats {
            for (df, dc) in Self.formats {
                for (w, h) in [(1, 1), (3, 5), (15, 2), (16, 3), (17, 2), (33, 4), (67, 9), (130, 3)] {
                    let src = GuardedImage(sf, w, h, padding: 7), dst = GuardedImage(df, w, h, padding: 5)
                    src.randomize(seed: UInt64(w * 31 + h))
                    var s = src.image, d = dst.image
                    let status = ProcessSettings.with(cpuMask: mask) { ic_convert_channels(&s, &d) }
                    #expect(status == IC_OK)
                    let a = src.packed(0), b = dst.packed(0)
                    var worst = 0.0
                    for i in 0..<(w * h) {
                        let want = Self.expected(Array(a[(i * sc)..<(i * sc + sc)]), to: dc)
                        for c in 0..<dc { worst = max(worst, abs(Double(b[i * dc + c]) - want[c])) }
                    }
                    let bound = dc == 1 && sc > 1 ? 1.0 : 0.0 // luma within 1 LSB; shuffles exact
                    #expect(worst <= bound, "\(sc)→\(dc) \(w)x\(h): \(worst)")
                }
            }
        }
    }

    @Test("luma stays within 1 LSB of the float formula over a dense RGB grid")
    func lumaBound() {
        let src = GuardedImage(IC_FORMAT_RGB8, 64 * 64, 64), dst = GuardedImage(IC_FORMAT_GRAY8, 64 * 64, 64)
        let sp = src.plane(0)
        for y in 0..<64 { for x in 0..<(64 * 64) {
            sp.data[y * sp.stride + 3 * x] = UInt8(x % 64 * 4 + 3); sp.data[y * sp.stride + 3 * x + 1] = UInt8(x / 64 * 4 + 1)
            sp.data[y * sp.stride + 3 * x + 2] = UInt8(y * 4 + 2)
        } }
        var s = src.image, d = dst.image
        #expect(ic_convert_channels(&s, &d) == IC_OK)
        let a = src.packed(0), b = dst.packed(0)
        var worst = 0.0
        for i in 0..<b.count {
            let exact = 0.299 * Double(a[3 * i]) + 0.587 * Double(a[3 * i + 1]) + 0.114 * Double(a[3 * i + 2])
            worst = max(worst, abs(Double(b[i]) - exact))
        }
        #expect(worst < 1, "worst \(worst)")
        // The AVX2 kernel computes the scalar formula exactly: the same bytes with mask 0.
        let scalarDst = GuardedImage(IC_FORMAT_GRAY8, 64 * 64, 64)
        var d0 = scalarDst.image
        #expect(ProcessSettings.with(cpuMask: 0) { ic_convert_channels(&s, &d0) } == IC_OK)
        #expect(scalarDst.packed(0) == b)
    }

    @Test("bad arguments: size mismatch, YUV, overlap")
    func refusals() throws {
        let a = GuardedImage(IC_FORMAT_RGB8, 8, 8), b = GuardedImage(IC_FORMAT_RGBA8, 8, 9), yuv = GuardedImage(IC_FORMAT_I420, 8, 8)
        var s = a.image, d = b.image, y = yuv.image
        #expect(ic_convert_channels(&s, &d) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_convert_channels(&s, &y) == IC_ERR_UNSUPPORTED)
        var same = a.image
        #expect(ic_convert_channels(&s, &same) == IC_ERR_INVALID_ARGUMENT)
        // Through the Swift API: one allocation, alpha opaque.
        let rgb = try PixelBuffer(width: 5, height: 3, format: .rgb8, zeroed: true)
        let (alpha, usage) = try PixelAllocator.measure {
            let rgba = try rgb.converted(to: .rgba8)
            return (rgba.alphaMode, rgba.withPlane(0) { $0[3] })
        }
        #expect(alpha.0 == .opaque && alpha.1 == 255)
        #expect(usage.allocations == 1)
    }
}
