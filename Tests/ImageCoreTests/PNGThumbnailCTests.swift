import CImageCore
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// The C core's PNG thumbnail (`ic_thumbnail_plan_png` / `ic_thumbnail_png`) for C hosts, against
/// Swift's `Thumbnailer.thumbnail(png:)`: byte for byte.
@Suite("Pipelines: the C PNG thumbnail equals Thumbnailer.thumbnail(png:)")
struct PNGThumbnailCTests {
    /// The C plan and run into a packed buffer; the plan too.
    static func cThumbnail(_ png: [UInt8], maxWidth: Int, maxHeight: Int, format: PixelFormat, linear: Bool = false,
                           bandRows: Int32 = 0, maxPixels: UInt64 = 0) throws -> (plan: ic_thumbnail_plan, pixels: [UInt8]) {
        var o = ic_thumbnail_options()
        o.max_width = Int32(maxWidth); o.max_height = Int32(maxHeight)
        o.format = format.cValue
        o.linear_light = linear ? 1 : 0
        o.band_rows = bandRows
        o.decode.max_pixels = maxPixels
        var plan = ic_thumbnail_plan()
        try ImageError.check(png.withUnsafeBufferPointer { ic_thumbnail_plan_png($0.baseAddress, $0.count, &o, &plan) })
        var out = try PixelBuffer(width: Int(plan.width), height: Int(plan.height), format: format)
        let scratch = try ScratchBuffer(bytes: plan.scratch_size)
        var r = ic_png_decode_result()
        let status = png.withUnsafeBufferPointer { p in
            scratch.withUnsafeBytes { s in
                out.withUnsafeMutableImage { dst in ic_thumbnail_png(p.baseAddress, p.count, &plan, s.baseAddress, s.count, dst, &r) }
            }
        }
        try ImageError.check(status)
        return (plan, JPEGFixtures.packed(out, plane: 0))
    }

    @Test("RGB, RGBA with alpha, gray, palette; Adam7 decoded whole; eXIf 6; linear light; RGBA8 and GRAY8",
          arguments: ["rgb8", "rgba8", "graya8", "palette8-trns", "rgb8-adam7", "rgba16-adam7", "rgb8-exif6", "gray16"])
    func fixtures(_ name: String) throws {
        let png = try PNGFixtures.bytes(name)
        let info = try PNG.info(png)
        for (format, box, linear) in [(PixelFormat.rgba8, 7, false), (.gray8, 5, false), (.rgba8, 9, true)] {
            let c = try Self.cThumbnail(png, maxWidth: box, maxHeight: box, format: format, linear: linear)
            #expect(c.plan.source == IC_THUMBNAIL_SOURCE_PNG && c.plan.orientation == Int32(info.orientation.exifValue))
            #expect((c.plan.whole_bytes > 0) == info.isInterlaced, "\(name): Adam7 decoded whole, others streamed")
            let swift = try Thumbnailer.thumbnail(png: png, maxWidth: box, maxHeight: box, format: format, linearLight: linear).take()
            #expect(Int(c.plan.width) == swift.width && Int(c.plan.height) == swift.height)
            #expect(c.pixels == JPEGFixtures.packed(swift, plane: 0), "\(name) \(format) \(box) linear \(linear)")
        }
    }

    @Test("a large synthetic photo: streamed in 1- and 16-row bands, equal to Swift; RGB8; limits and a truncated file")
    func large() throws {
        var img = try SyntheticImage.photo(width: 1203, height: 771, format: .rgba8, seed: 3)
        img.orientation = .up
        let png = try PNG.encode(img, options: .init(compressionLevel: 1, orientation: .left))
        let swift = try Thumbnailer.thumbnail(png: png, maxWidth: 160, maxHeight: 160, format: .rgba8).take()
        for bands: Int32 in [1, 16] {
            let c = try Self.cThumbnail(png, maxWidth: 160, maxHeight: 160, format: .rgba8, bandRows: bands)
            // 771 x 1203 displayed (orientation 8) into 160 x 160: 102.5 rounds to 103.
            #expect(c.plan.width == 103 && c.plan.height == 160 && c.plan.whole_bytes == 0)
            #expect(c.pixels == JPEGFixtures.packed(swift, plane: 0), "bands \(bands)")
        }
        // RGB8 (which Thumbnailer does not offer): the whole decode resized in one shot, turned.
        let rgb = try Self.cThumbnail(png, maxWidth: 160, maxHeight: 160, format: .rgb8)
        let whole = try PNG.decode(png, format: .rgb8).resized(width: 160, height: 103)
        var expected = try whole.applying(.left)
        expected.orientation = .up
        #expect(rgb.pixels == JPEGFixtures.packed(expected, plane: 0), "RGB8: decode + resize + orient")
        // The pixel limit is checked by the plan, before anything is allocated.
        #expect(throws: ImageError.self) { _ = try Self.cThumbnail(png, maxWidth: 160, maxHeight: 160, format: .rgba8, maxPixels: 1203 * 771 - 1) }
        // A file cut in its image data: the missing rows are 0 with a warning (more than half
        // came from data), or refused under the default data-sanity rule when too few did.
        let cut = Array(png.prefix(png.count * 3 / 4))
        let c = try Self.cThumbnail(cut, maxWidth: 160, maxHeight: 160, format: .rgba8)
        #expect(c.plan.width == 103)
        #expect(throws: ImageError.self) { _ = try Self.cThumbnail(Array(png.prefix(png.count / 8)), maxWidth: 160, maxHeight: 160, format: .rgba8) }
        #expect(throws: ImageError.self) { _ = try Self.cThumbnail(Array(png.prefix(30)), maxWidth: 160, maxHeight: 160, format: .rgba8) }
    }
}
