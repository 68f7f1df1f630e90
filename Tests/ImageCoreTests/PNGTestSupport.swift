import CImageCore
import CSpng
import Foundation
@testable import ImageCore

/// PNG fixtures (Tests/ImageCoreTests/Fixtures/png, written by scripts/make-png-fixtures.py),
/// libspng's own decode as a reference, and a chunk builder for hostile files.
enum PNGFixtures {
    static var directory: URL {
        (Bundle.module.url(forResource: "Fixtures", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures"))
            .appendingPathComponent("png")
    }

    /// Every fixture with its expected RGBA8 decode.
    static let names = ["gray1", "gray2", "gray4", "gray8", "gray8-trns", "gray16", "graya8", "graya16",
                        "rgb8", "rgb8-trns", "rgb16", "rgb16-trns", "rgba8", "rgba16", "palette8-trns", "palette4-trns",
                        "rgb8-adam7", "rgba16-adam7", "gray2-adam7", "palette4-adam7-trns", "rgb8-exif6", "rgb8-icc"]
    static let width = 13, height = 11

    static func bytes(_ name: String, _ ext: String = "png") throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent("\(name).\(ext)")))
    }

    /// The expected RGBA8 decode (computed by the script from the source samples).
    static func expectedRGBA(_ name: String) throws -> [UInt8] { try bytes(name, "rgba") }

    /// RGBA8 reference reduced to `format` by the documented rules: RGB drops alpha; GRAY8 is
    /// the library's BT.601 luma (9798 R + 19235 G + 3735 B + 16384) >> 15 of the RGB.
    static func reduce(_ rgba: [UInt8], to format: PixelFormat) -> [UInt8] {
        switch format {
        case .rgba8: return rgba
        case .rgb8: return stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<($0 + 3)] }
        default:
            // The library's one luma (row.h; the Y of BT.601 full-range YUV), Q15.
            return stride(from: 0, to: rgba.count, by: 4).map { (i: Int) -> UInt8 in
                let r: UInt32 = 9798 * UInt32(rgba[i]), g: UInt32 = 19235 * UInt32(rgba[i + 1])
                let b: UInt32 = 3735 * UInt32(rgba[i + 2])
                return UInt8((r + g + b + 16384) >> 15)
            }
        }
    }

    /// libspng's own whole-image decode (spng_decode_image) to RGBA8, or to RGBA16 rounded to
    /// 8 bits with round(v * 255 / 65535) in Double for 16-bit files; tRNS applied.
    static func spngReference(_ png: [UInt8]) -> [UInt8]? {
        guard let ctx = spng_ctx_new(0) else { return nil }
        defer { spng_ctx_free(ctx) }
        var ihdr = spng_ihdr()
        guard png.withUnsafeBytes({ spng_set_png_buffer(ctx, $0.baseAddress, $0.count) }) == 0,
              spng_get_ihdr(ctx, &ihdr) == 0 else { return nil }
        let sixteen = ihdr.bit_depth == 16
        let fmt = Int32(sixteen ? SPNG_FMT_RGBA16.rawValue : SPNG_FMT_RGBA8.rawValue)
        var size = 0
        guard spng_decoded_image_size(ctx, fmt, &size) == 0 else { return nil }
        var out = [UInt8](repeating: 0, count: size)
        let e = png.withUnsafeBytes { _ in
            out.withUnsafeMutableBytes { spng_decode_image(ctx, $0.baseAddress, size, fmt, Int32(SPNG_DECODE_TRNS.rawValue)) }
        }
        guard e == 0 else { return nil }
        if !sixteen { return out }
        return out.withUnsafeBytes { raw in
            raw.bindMemory(to: UInt16.self).map { UInt8((Double($0) * 255 / 65535).rounded()) }
        }
    }

    /// Our decode through the C API into guard-page rows with padded strides (a write past a
    /// row's pixels or the plane's end faults or shows in the padding check).
    static func decodeGuarded(_ png: [UInt8], format: ic_format, options: ic_png_decode_options = .init(),
                              width: Int = width, height: Int = height) -> (status: ic_status, pixels: [UInt8], result: ic_png_decode_result) {
        let g = GuardedImage(format, width, height, padding: 5)
        let pl = g.plane(0)
        for y in 0..<(pl.rows - 1) { for x in pl.rowBytes..<pl.stride { pl.data[y * pl.stride + x] = 0xA5 } }
        var image = g.image
        var o = options
        var r = ic_png_decode_result()
        let st = ic_png_decode(png, png.count, &o, &image, &r)
        for y in 0..<(pl.rows - 1) { for x in pl.rowBytes..<pl.stride { precondition(pl.data[y * pl.stride + x] == 0xA5, "padding written") } }
        return (st, g.packed(0), r)
    }

    // MARK: building files

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 255)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(payload.count)) + t + payload + be32(crc32(t + payload))
    }

    /// The chunks of a PNG file as (offset, type, payload range).
    static func chunks(_ png: [UInt8]) -> [(offset: Int, type: String, data: Range<Int>)] {
        var out: [(Int, String, Range<Int>)] = []
        var pos = 8
        while pos + 12 <= png.count {
            let len = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            let type = String(decoding: png[(pos + 4)..<(pos + 8)], as: UTF8.self)
            out.append((pos, type, (pos + 8)..<(pos + 8 + len)))
            pos += 12 + len
        }
        return out
    }

    /// A file with the given IHDR fields and chunks, then IEND.
    static func file(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2,
                     chunks: [[UInt8]]) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0]
        return signature + chunk("IHDR", ihdr) + chunks.flatMap { $0 } + chunk("IEND", [])
    }

    /// A zlib stream that inflates to `rows` x (`width` + 1) zero bytes, made by our encoder
    /// (the IDAT payloads of an all-zero gray image at level 9: about 1000:1).
    static func zeroStream(width: Int, rows: Int) throws -> [UInt8] {
        var zeros = try PixelBuffer(width: width, height: rows, format: .gray8)
        try zeros.fill([0])
        let png = try PNG.encode(zeros, options: .init(compressionLevel: 9, filters: .none))
        return chunks(png).filter { $0.type == "IDAT" }.flatMap { png[$0.data] }
    }

    /// Random RGB8 noise of the given size (stresses zlib: about 1:1).
    static func noise(width: Int, height: Int, seed: UInt64) throws -> PixelBuffer {
        var image = try PixelBuffer(width: width, height: height, format: .rgb8)
        var rng = SplitMix64(seed: seed)
        image.withMutablePlane(0) { span in
            for i in span.indices { span[i] = UInt8(truncatingIfNeeded: rng.next() >> 17) }
        }
        return image
    }
}
