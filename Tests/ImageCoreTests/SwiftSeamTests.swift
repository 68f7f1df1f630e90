import CImageCore
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// The Swift seam: validation happens once, in C, and its reason reaches ``ImageError/detail``;
/// region conversions write through the C core's crop view.
@Suite("Swift seam: C reasons in ImageError.detail, region conversions")
struct SwiftSeamTests {
    func error(_ body: () throws -> Void) -> ImageError? {
        do { try body(); return nil } catch { return error as? ImageError }
    }

    @Test("the C core's reason for a refusal is in the error's detail")
    func reasons() throws {
        var rgba = try PixelBuffer(width: 10, height: 10, format: .rgba8)
        let rgb = try PixelBuffer(width: 11, height: 10, format: .rgb8)
        let e1 = error { try rgba.convert(from: rgb) }
        #expect(e1?.code == .invalidArgument)
        #expect(e1?.detail?.contains("11x10 and destination 10x10 differ in size") == true, "\(String(describing: e1))")

        var nv12 = try PixelBuffer(width: 8, height: 8, format: .nv12)
        let gray = try PixelBuffer(width: 2, height: 2, format: .gray8)
        let e2 = error { try nv12.convert(from: gray, region: PixelRect(x: 1, y: 2, width: 2, height: 2)) }
        #expect(e2?.code == .invalidArgument && e2?.detail?.contains("must be even") == true, "\(String(describing: e2))")
        let e3 = error { try nv12.convert(from: gray, region: PixelRect(x: 8, y: 0, width: 2, height: 2)) }
        #expect(e3?.detail?.contains("is not inside the 8x8 image") == true, "\(String(describing: e3))")

        let jpeg = JPEGFixtures.photo(width: 40, height: 30)
        let e4 = error { _ = try JPEG.decode(jpeg, format: .nv12, options: .init(crop: PixelRect(x: 3, y: 2, width: 8, height: 8))) }
        #expect(e4?.code == .invalidArgument && e4?.detail?.contains("must be even") == true, "\(String(describing: e4))")
        let e5 = error { _ = try RawYUV.read(path: "/nonexistent.yuv", width: 70000, height: 10, format: .nv12) }
        #expect(e5?.code == .tooLarge && e5?.detail?.contains("sides are at most 65535") == true, "\(String(describing: e5))")
        // A detail is consumed once: a later failure with no C reason does not show an old one.
        let e6 = error { _ = try JPEG.decode([0xFF, 0xD8, 0x00], format: .rgba8) }
        #expect(e6?.code == .corruptData && e6?.detail?.contains("even") != true)
    }

    @Test("page detection's refusals carry their reason")
    func detectionReasons() throws {
        let image = try PixelBuffer(width: 64, height: 48, format: .rgb8)
        let e1 = error { _ = try PageDetector(minimumConfidence: 1.5).detect(in: image) }
        #expect(e1?.code == .invalidArgument && e1?.detail?.contains("min_confidence 1.5: at most 1") == true,
                "\(String(describing: e1))")
        let e2 = error { _ = try PageDetector(workSize: 32).detect(in: image) }
        #expect(e2?.code == .invalidArgument && e2?.detail?.contains("work_size 32 is not in [64, 1024]") == true,
                "\(String(describing: e2))")
        let e3 = error { _ = try PageDetector(minimumArea: 1).scratchSize(width: 64, height: 48) }
        #expect(e3?.code == .invalidArgument && e3?.detail?.contains("min_area 1 is not in (0, 1)") == true,
                "\(String(describing: e3))")
        let e4 = error { _ = try PageDetector().scratchSize(width: 70000, height: 10) }
        #expect(e4?.code == .tooLarge && e4?.detail?.contains("70000x10: sides are at most 65535") == true,
                "\(String(describing: e4))")
        let need = try PageDetector().scratchSize(width: 64, height: 48)
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: need - 1, alignment: 64)
        defer { small.deallocate() }
        let e5 = error { _ = try PageDetector().detect(in: image, scratch: small) }
        #expect(e5?.code == .bufferTooSmall && e5?.detail?.contains("scratch of \(need - 1) bytes, \(need) needed") == true,
                "\(String(describing: e5))")
    }

    @Test("ic_last_error: per call, consumed by the read")
    func lastError() {
        var text = [CChar](repeating: 0, count: Int(IC_DETAIL_LENGTH))
        _ = ic_last_error(&text, text.count) // start clean
        var image = ic_image()
        #expect(ic_image_validate(&image) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_last_error(&text, text.count) == IC_ERR_INVALID_ARGUMENT)
        #expect(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("unknown format"))
        #expect(ic_last_error(&text, text.count) == IC_OK && text[0] == 0)
    }

    @Test("convert into a region writes exactly the region, as a whole-image convert would")
    func region() throws {
        let thumb = try SyntheticImage.photo(width: 37, height: 21, format: .gray8, seed: 3)
        for format in [PixelFormat.rgb8, .rgba8, .nv12, .i420] {
            var sheet = try PixelBuffer(width: 80, height: 50, format: format)
            try sheet.fill(format.isYUV ? [200, 90, 160] : format == .rgb8 ? [7, 8, 9] : [7, 8, 9, 10])
            let before = JPEGFixtures.packed(sheet, plane: 0)
            let rect = PixelRect(x: 10, y: 6, width: 37, height: 21)
            try sheet.convert(from: thumb, region: rect)
            let whole = try thumb.converted(to: format)
            let after = JPEGFixtures.packed(sheet, plane: 0), inside = JPEGFixtures.packed(whole, plane: 0)
            let bpp = format == .rgb8 ? 3 : format == .rgba8 ? 4 : 1
            var ok = true
            for y in 0..<50 {
                for x in 0..<(80 * bpp) {
                    let px = x / bpp
                    let inRect = px >= 10 && px < 47 && y >= 6 && y < 27
                    let want = inRect ? inside[(y - 6) * 37 * bpp + (x - 10 * bpp)] : before[y * 80 * bpp + x]
                    ok = ok && after[y * 80 * bpp + x] == want
                }
            }
            #expect(ok, "\(format)")
        }
    }
}
