#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTurboJPEG
import ImageCore

/// JPEG codec workloads, each timed beside the bare TurboJPEG call doing the same job on the
/// same bytes in the same run (alternating repetitions, so both see the same machine load).
/// The row's time is ours; the note gives the bare call's median and our/bare ratios.
///
/// Input: the `--image` file's bytes when it is a JPEG; otherwise the bench image (the
/// built-in 4032x3024 synthetic photo, or the decoded `--image`) encoded once by TurboJPEG
/// as a 4:2:0 quality-90 baseline JPEG in memory (deterministic).
enum CodecWorkloads {
    static let all: [Workload] = [decodeRGBA, decodeNV12, decodeEighth, encodeRGBA, encodeNV12]

    /// The `--image` path, set by BenchInput.load.
    nonisolated(unsafe) static var imagePath: String?
    nonisolated(unsafe) private static var cached: [UInt8]?

    static func input(_ ctx: BenchContext) throws -> [UInt8] {
        if let cached { return cached }
        var bytes: [UInt8]
        if let path = imagePath, let file = try? FileBytes.read(path: path), file.count > 2, file[0] == 0xFF, file[1] == 0xD8 {
            bytes = file
        } else {
            let g = ctx.image.plane(0)
            let handle = tjInitCompress()!
            defer { tjDestroy(handle) }
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size: UInt = 0
            let rc = ctx.image.withPlane(0) { span in
                span.withUnsafeBufferPointer { p in
                    tjCompress2(handle, p.baseAddress, Int32(ctx.image.width), Int32(g.stride), Int32(ctx.image.height),
                                Int32(TJPF_RGBA.rawValue), &out, &size, Int32(TJSAMP_420.rawValue), 90, 0)
                }
            }
            guard rc == 0 else { throw ImageError(.internalError, "TurboJPEG could not encode the bench image") }
            bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
            tjFree(out)
        }
        cached = bytes
        return bytes
    }

    /// Times `ours` and `bare` alternately (warm-up first): both timings and the median of the
    /// per-pair ratios ours/bare.
    static func pairs(_ ctx: BenchContext, ours: () throws -> Void, bare: () throws -> Void) throws -> (ours: Timing, bare: Timing, paired: Double) {
        for _ in 0..<max(1, ctx.warmup) { try ours(); try bare() }
        var a: [Double] = [], b: [Double] = []
        for i in 0..<ctx.repetitions {
            // Alternate which goes first, so neither always runs on a warmer cache.
            if i % 2 == 0 {
                var t = now(); try ours(); a.append(now() - t)
                t = now(); try bare(); b.append(now() - t)
            } else {
                var t = now(); try bare(); b.append(now() - t)
                t = now(); try ours(); a.append(now() - t)
            }
        }
        // Each pair ran back to back under the same machine load: the median of the per-pair
        // ratios is the steadiest comparison on a shared machine.
        return (Timing(seconds: a), Timing(seconds: b), Timing(seconds: zip(a, b).map { $0 / $1 }).median)
    }

    /// Times `ours` and `bare` alternately; the run's timing is ours, the note compares.
    static func compare(_ ctx: BenchContext, bareName: String, pixels: Int, limitBytes: Int,
                        ours: () throws -> Void, bare: () throws -> Void) throws -> WorkloadRun {
        let (ta, tb, paired) = try pairs(ctx, ours: ours, bare: bare)
        let note = String(format: "%d thr: bare %@ median %.2f ms, min %.2f ms; ours/bare: paired %.3f, medians %.3f, mins %.3f",
                          ImageCoreRuntime.threads, bareName, tb.median * 1e3, tb.min * 1e3, paired, ta.median / tb.median, ta.min / tb.min)
        return WorkloadRun(timing: ta, pixels: pixels, limitBytes: limitBytes, note: note)
    }

    /// Full-size decode to RGBA8 into an existing buffer, vs tjDecompress2(TJPF_RGBA).
    static let decodeRGBA = Workload(name: "jpeg-decode-rgba", summary: "JPEG decode to RGBA8 vs tjDecompress2") { ctx in
        let jpeg = try input(ctx)
        let info = try JPEG.info(jpeg)
        var image = try PixelBuffer(width: info.width, height: info.height, format: .rgba8)
        var bare = [UInt8](repeating: 0, count: info.width * info.height * 4)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        return try compare(ctx, bareName: "tjDecompress2", pixels: info.width * info.height, limitBytes: bare.count,
            ours: { try JPEG.decode(jpeg, into: &image) },
            bare: {
                let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(info.width), 0, Int32(info.height), Int32(TJPF_RGBA.rawValue), 0)
                if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
            })
    }

    /// Full-size decode to NV12 (bands, interleaved chroma) vs tjDecompressToYUV2 (I420). The
    /// only pixel allocation is the NV12 output buffer (peak pixel heap = output bytes).
    static let decodeNV12 = Workload(name: "jpeg-decode-nv12", summary: "JPEG decode to NV12 vs tjDecompressToYUV2 (I420)") { ctx in
        let jpeg = try input(ctx)
        let info = try JPEG.info(jpeg)
        var image = try PixelBuffer(width: info.width, height: info.height, format: .nv12)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        // TurboJPEG writes the file's own subsampling (4:2:2 planes are larger than 4:2:0 ones).
        var w: Int32 = 0, h: Int32 = 0, samp: Int32 = 0, cs: Int32 = 0
        guard tjDecompressHeader3(handle, jpeg, UInt(jpeg.count), &w, &h, &samp, &cs) == 0 else {
            throw ImageError(.unsupported, "TurboJPEG cannot read this header")
        }
        var bare = [UInt8](repeating: 0, count: Int(tjBufSizeYUV2(w, 1, h, samp)))
        let bytes = RawYUV.fileSize(width: info.width, height: info.height)
        var run = try compare(ctx, bareName: "tjDecompressToYUV2", pixels: info.width * info.height, limitBytes: bytes,
            ours: { try JPEG.decode(jpeg, into: &image) },
            bare: {
                let rc = tjDecompressToYUV2(handle, jpeg, UInt(jpeg.count), &bare, w, 1, h, 0)
                if rc != 0 { throw ImageError(.corruptData, "tjDecompressToYUV2") }
            })
        if info.subsampling != .s420 {
            run.note += " (source \(info.subsampling.rawValue): TurboJPEG gives its native planes, ours converts to 4:2:0)"
        }
        return run
    }

    /// 1/8-scale decode to RGBA8 (a thumbnail: 4032x3024 gives 504x378) vs tjDecompress2 at that size.
    static let decodeEighth = Workload(name: "jpeg-decode-1/8", summary: "JPEG decode at 1/8 to RGBA8 vs tjDecompress2") { ctx in
        let jpeg = try input(ctx)
        let info = try JPEG.info(jpeg)
        let (w, h) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: 1)
        var image = try PixelBuffer(width: w, height: h, format: .rgba8)
        var bare = [UInt8](repeating: 0, count: w * h * 4)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        let options = JPEG.DecodeOptions(scale: .eighths(1))
        return try compare(ctx, bareName: "tjDecompress2 1/8", pixels: w * h, limitBytes: bare.count,
            ours: { try JPEG.decode(jpeg, into: &image, options: options) },
            bare: {
                let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(w), 0, Int32(h), Int32(TJPF_RGBA.rawValue), 0)
                if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
            })
    }

    /// Encode RGBA8 at quality 85, 4:2:0, into a bound-sized buffer, vs tjCompress2 into its own
    /// preallocated buffer (TJFLAG_NOREALLOC).
    static let encodeRGBA = Workload(name: "jpeg-encode-rgba-q85", summary: "JPEG encode RGBA8 q85 4:2:0 vs tjCompress2") { ctx in
        let w = ctx.image.width, h = ctx.image.height
        let stride = ctx.image.plane(0).stride
        let options = JPEG.EncodeOptions(quality: 85, subsampling: .s420)
        let ours = UnsafeMutableRawBufferPointer.allocate(byteCount: try JPEG.encodeBound(width: w, height: h, options: options), alignment: 64)
        let bareSize = Int(tjBufSize(Int32(w), Int32(h), Int32(TJSAMP_420.rawValue)))
        let bare = UnsafeMutablePointer<UInt8>.allocate(capacity: bareSize)
        defer { ours.deallocate(); bare.deallocate() }
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        return try compare(ctx, bareName: "tjCompress2", pixels: w * h, limitBytes: w * h * 4,
            ours: { _ = try JPEG.encode(ctx.image, into: ours, options: options) },
            bare: {
                var out: UnsafeMutablePointer<UInt8>? = bare
                var size = UInt(bareSize)
                let rc = ctx.image.withPlane(0) { span in
                    span.withUnsafeBufferPointer { p in
                        tjCompress2(handle, p.baseAddress, Int32(w), Int32(stride), Int32(h), Int32(TJPF_RGBA.rawValue), &out, &size,
                                    Int32(TJSAMP_420.rawValue), 85, Int32(TJFLAG_NOREALLOC))
                    }
                }
                if rc != 0 { throw ImageError(.internalError, "tjCompress2") }
            })
    }

    /// Encode NV12 planes at quality 85 (raw-data input, chroma de-interleaved in bands) vs
    /// tjCompressFromYUVPlanes on the same samples as I420.
    static let encodeNV12 = Workload(name: "jpeg-encode-nv12-q85", summary: "JPEG encode NV12 q85 vs tjCompressFromYUVPlanes (I420)") { ctx in
        let jpeg = try input(ctx)
        // TurboJPEG's input: the same samples as I420, in plain arrays (not pixel buffers), made
        // first so that the pixel heap shows only our NV12 input.
        let i420 = try JPEG.decode(jpeg, format: .i420)
        let y = i420.withPlane(0) { s in s.withUnsafeBufferPointer { Array($0) } }
        let u = i420.withPlane(1) { s in s.withUnsafeBufferPointer { Array($0) } }
        let v = i420.withPlane(2) { s in s.withUnsafeBufferPointer { Array($0) } }
        let strides: [Int32] = (0..<3).map { Int32(i420.plane($0).stride) }
        _ = consume i420
        let nv12 = try JPEG.decode(jpeg, format: .nv12)
        let w = nv12.width, h = nv12.height
        let options = JPEG.EncodeOptions(quality: 85)
        let ours = UnsafeMutableRawBufferPointer.allocate(byteCount: try JPEG.encodeBound(width: w, height: h, options: options), alignment: 64)
        let bareSize = Int(tjBufSize(Int32(w), Int32(h), Int32(TJSAMP_420.rawValue)))
        let bare = UnsafeMutablePointer<UInt8>.allocate(capacity: bareSize)
        defer { ours.deallocate(); bare.deallocate() }
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        return try compare(ctx, bareName: "tjCompressFromYUVPlanes", pixels: w * h, limitBytes: RawYUV.fileSize(width: w, height: h),
            ours: { _ = try JPEG.encode(nv12, into: ours, options: options) },
            bare: {
                var out: UnsafeMutablePointer<UInt8>? = bare
                var size = UInt(bareSize)
                let rc = y.withUnsafeBufferPointer { yp in u.withUnsafeBufferPointer { up in v.withUnsafeBufferPointer { vp in
                    var planes: [UnsafePointer<UInt8>?] = [yp.baseAddress, up.baseAddress, vp.baseAddress]
                    return tjCompressFromYUVPlanes(handle, &planes, Int32(w), strides, Int32(h), Int32(TJSAMP_420.rawValue),
                                                   &out, &size, 85, Int32(TJFLAG_NOREALLOC))
                } } }
                if rc != 0 { throw ImageError(.internalError, "tjCompressFromYUVPlanes") }
            })
    }
}
