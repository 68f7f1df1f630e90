import CSpng
import ImageCore

/// PNG codec workloads, each beside libspng's own bare call on the same bytes in the same run
/// (alternating repetitions; see ``CodecWorkloads/compare``).
///
/// Input: the `--image` file's bytes when it is a PNG; otherwise the bench image as RGB8
/// encoded once by our encoder (zlib level 6, all filters) in memory (deterministic).
enum PNGWorkloads {
    static let all: [Workload] = [decodeRGB, thumbnail]

    nonisolated(unsafe) private static var cached: [UInt8]?

    static func input(_ ctx: BenchContext) throws -> [UInt8] {
        if let cached { return cached }
        var bytes: [UInt8]
        if let path = CodecWorkloads.imagePath, let file = try? FileBytes.read(path: path), PNG.isPNG(file) {
            bytes = file
        } else {
            var rgb = try PixelBuffer(width: ctx.image.width, height: ctx.image.height, format: .rgb8)
            try rgb.convert(from: ctx.image)
            bytes = try PNG.encode(rgb)
        }
        cached = bytes
        return bytes
    }

    /// libspng's whole-image decode to RGB8 into one contiguous buffer, a new context per call:
    /// the floor our decode is held to.
    static func bareDecode(_ png: [UInt8], into out: inout [UInt8]) throws {
        guard let ctx = spng_ctx_new(0) else { throw ImageError(.outOfMemory, "spng_ctx_new") }
        defer { spng_ctx_free(ctx) }
        let e = png.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst -> Int32 in
                let set = spng_set_png_buffer(ctx, src.baseAddress, src.count)
                return set != 0 ? set : spng_decode_image(ctx, dst.baseAddress, dst.count, Int32(SPNG_FMT_RGB8.rawValue), 0)
            }
        }
        if e != 0 { throw ImageError(.corruptData, "spng_decode_image: \(String(cString: spng_strerror(e)))") }
    }

    /// Full decode to RGB8 into an existing buffer vs spng_decode_image(SPNG_FMT_RGB8).
    static let decodeRGB = Workload(name: "png-decode-rgb", summary: "PNG decode to RGB8 vs libspng's spng_decode_image") { ctx in
        let png = try input(ctx)
        let info = try PNG.info(png)
        var image = try PixelBuffer(width: info.width, height: info.height, format: .rgb8)
        var bare = [UInt8](repeating: 0, count: info.width * info.height * 3)
        var run = try CodecWorkloads.compare(ctx, bareName: "spng_decode_image RGB8", pixels: info.width * info.height,
                                             limitBytes: bare.count,
            ours: { try PNG.decode(png, into: &image) },
            bare: { try bareDecode(png, into: &bare) })
        run.note = "\(png.count) B file, \(info.bitDepth)-bit \(info.colorType)\(info.isInterlaced ? " Adam7" : ""); " + run.note
        return run
    }

    /// PNG -> 256 px thumbnail (streamed rows into the streaming Lanczos-3) beside the bare
    /// full decode; the note gives the thumbnail's peak pixel bytes against its output bytes.
    static let thumbnail = Workload(name: "png-thumbnail", summary: "PNG -> 256 px thumbnail (streamed) vs libspng's bare full decode") { ctx in
        let png = try input(ctx)
        let info = try PNG.info(png)
        var bare = [UInt8](repeating: 0, count: info.width * info.height * 3)
        let (output, usage) = try PixelAllocator.measure { () throws -> Int in
            try Thumbnailer.thumbnail(png: png, maxWidth: 256, maxHeight: 256).image.byteCount
        }
        var run = try CodecWorkloads.compare(ctx, bareName: "spng_decode_image RGB8 (whole image)", pixels: info.width * info.height,
                                             limitBytes: bare.count,
            ours: { _ = try Thumbnailer.thumbnail(png: png, maxWidth: 256, maxHeight: 256) },
            bare: { try bareDecode(png, into: &bare) })
        run.note = "peak pixel bytes \(usage.peakBytes) (output \(output), resizer scratch \(usage.peakBytes - output)); decoder band "
            + "16 rows x \(info.width * 4) B; " + run.note
        return run
    }
}
