import CImageCore
import CTurboJPEG
import ImageCore
import ImageCoreSynthetic

/// Progressive JPEG thumbnails (issue 18): the 256 px thumbnail with ImageCore's reduced
/// progressive decoder, beside the same thumbnail with libjpeg as the decoder (the path before
/// it) and the floor, bare tjDecompress2 at the same DCT scale, all in one run. Times are
/// taken in rotating order per repetition; each path's memory is measured with it running
/// alone (peak RSS above the RSS before it, the kernel's high-water mark reset first), and
/// the decoders' own bytes from ``JPEG/DecodeReport/peakMemory``.
enum ProgressiveWorkloads {
    static let all: [Workload] = [thumbnail, thumbnail100MP, thumbnailExif]

    /// A 12 MP camera JPEG (the bench image, q90 4:2:0) with a 160x120 EXIF thumbnail of
    /// itself: the 75 px small-tier thumbnail from the EXIF thumbnail, beside the same
    /// thumbnail from the main image and bare tjDecompress2 at 1/8 (the main image's floor).
    static let thumbnailExif = Workload(name: "thumbnail-exif",
                                        summary: "12 MP camera JPEG -> 75 px thumbnail from its EXIF thumbnail vs the 1/8 decode of the main image") { ctx in
        let main = try JPEG.encode(ctx.image, options: .init(quality: 90))
        let thumb = try JPEG.encode(try ctx.image.resized(width: 160, height: 120), options: .init(quality: 85))
        let jpeg = ExifWriter.insertingAPP1(main, payload: ExifWriter.app1(thumbnail: thumb, layout: .init(orientation: 6)))
        let info = try JPEG.info(jpeg)
        let first = try Thumbnailer.thumbnail(jpeg, maxWidth: 75, maxHeight: 75)
        guard first.source == .exifThumbnail else { throw ImageError(.internalError, "the EXIF thumbnail was not used") }
        let (w, h) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: 1)
        var bare = [UInt8](repeating: 0, count: w * h * 4)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        let ours = { () throws -> Void in _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 75, maxHeight: 75).image.width }
        let viaMain = { () throws -> Void in
            _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: false).image.width
        }
        let floor = { () throws -> Void in
            let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(w), 0, Int32(h), Int32(TJPF_RGBA.rawValue), 0)
            if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
        }
        for _ in 0..<max(1, ctx.warmup) { try ours(); try viaMain(); try floor() }
        var a: [Double] = [], b: [Double] = [], c: [Double] = []
        for i in 0..<max(1, ctx.repetitions) {
            for k in [0, 1, 2].map({ ($0 + i) % 3 }) {
                let t = now()
                switch k {
                case 0: try ours(); a.append(now() - t)
                case 1: try viaMain(); b.append(now() - t)
                default: try floor(); c.append(now() - t)
                }
            }
        }
        let ta = Timing(seconds: a), tb = Timing(seconds: b), tc = Timing(seconds: c)
        let note = String(format: "%dx%d, %d B EXIF thumbnail 160x120 -> %dx%d (orientation 6); from the main image median %.2f ms; "
                          + "floor (bare tjDecompress2 1/8, %dx%d) median %.2f ms; ours/main path %.3f, ours/floor %.3f (medians)",
                          info.width, info.height, thumb.count, first.image.width, first.image.height, tb.median * 1e3, w, h,
                          tc.median * 1e3, ta.median / tb.median, ta.median / tc.median)
        return WorkloadRun(timing: ta, pixels: first.image.width * first.image.height, limitBytes: bare.count, note: note)
    }

    /// `--image` when it is a progressive JPEG (e.g. the corpus's mate-Elephants), else the
    /// bench image as a progressive 4:2:2 q90 JPEG from TurboJPEG.
    static let thumbnail = Workload(name: "thumbnail-progressive",
                                    summary: "progressive JPEG -> 256 px thumbnail: reduced decoder vs libjpeg vs bare tjDecompress2") { ctx in
        let jpeg: [UInt8]
        if let path = CodecWorkloads.imagePath, let file = try? FileBytes.read(path: path),
           let info = try? JPEG.info(file), info.isProgressive {
            jpeg = file
        } else {
            jpeg = try ctx.image.withUnsafeImage { image throws(ImageError) in try encode(image.pointee, TJSAMP_422) }
        }
        return try compareThree(ctx, jpeg: jpeg, repeatBefore: true)
    }

    /// A 12000x8333 (100 MP) progressive 4:2:0 JPEG made once from the synthetic photo. The
    /// libjpeg path and the floor (each with a 300 MB coefficient buffer) run once.
    static let thumbnail100MP = Workload(name: "thumbnail-progressive-100mp",
                                         summary: "100 MP progressive JPEG -> 256 px thumbnail: reduced decoder vs libjpeg (slow setup)") { ctx in
        let jpeg = try PixelAllocator.measure { () throws(ImageError) -> [UInt8] in
            let source = try SyntheticImage.photo(width: 12000, height: 8333, format: .rgb8)
            return try source.withUnsafeImage { image throws(ImageError) in try encode(image.pointee, TJSAMP_420) }
        }.0
        return try compareThree(ctx, jpeg: jpeg, repeatBefore: false)
    }

    static func encode(_ image: ic_image, _ samp: TJSAMP) throws(ImageError) -> [UInt8] {
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let pf = image.format == IC_FORMAT_RGB8 ? TJPF_RGB : TJPF_RGBA
        let rc = tjCompress2(handle, image.planes.0.data, image.width, Int32(image.planes.0.stride), image.height,
                             Int32(pf.rawValue), &out, &size, Int32(samp.rawValue), 90, Int32(TJFLAG_PROGRESSIVE))
        guard rc == 0 else { throw ImageError(.internalError, "TurboJPEG could not encode the bench image") }
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// The 256 px thumbnail with libjpeg as the decoder; returns its width.
    @inline(never)
    static func libjpegThumbnailWidth(_ jpeg: [UInt8]) throws -> Int {
        let t = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256, limits: .init(libjpegOnly: true))
        return t.image.width
    }

    /// Peak RSS above the RSS before `body` (which runs twice).
    static func peakRSS(_ body: () throws -> Void) rethrows -> Int {
        let base = RSS.current
        RSS.resetHighWaterMark()
        try body()
        try body()
        return max(0, RSS.highWaterMark - base)
    }

    static func compareThree(_ ctx: BenchContext, jpeg: [UInt8], repeatBefore: Bool) throws -> WorkloadRun {
        let info = try JPEG.info(jpeg)
        let first = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256)
        let (w, h, scale) = (first.decodedWidth, first.decodedHeight, first.scale)
        var bare = [UInt8](repeating: 0, count: w * h * 4)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        let ours = { () throws -> Void in _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256) }
        let before = { () throws -> Void in _ = try libjpegThumbnailWidth(jpeg) }
        let floor = { () throws -> Void in
            let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(w), 0, Int32(h), Int32(TJPF_RGBA.rawValue), 0)
            if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
        }
        // The decoders' own bytes at this scale (JPEG.decode counts every allocation it makes).
        var probe = try PixelBuffer(width: w, height: h, format: .rgba8)
        let oursReport = try JPEG.decode(jpeg, into: &probe, options: .init(scale: .eighths(scale)))
        let beforeReport = try JPEG.decode(jpeg, into: &probe, options: .init(scale: .eighths(scale), libjpegOnly: true))
        _ = consume probe
        // The thumbnail's own pixel + coefficient memory (issue 18's 16 MiB for 100 MP): every pixel
        // allocation of the call (output, resize scratch) plus the decoder's bytes (its peakMemory).
        let (thumbReport, pixelUse) = try PixelAllocator.measure { () throws -> JPEG.DecodeReport in
            let t = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256)
            return t.report
        }
        let thumbBytes = pixelUse.peakBytes + thumbReport.peakMemory
        // Memory, each path alone.
        let rssOurs = try peakRSS(ours)
        let rssBefore = try peakRSS(before)
        let rssFloor = try peakRSS(floor)
        // Time, in rotating order.
        for _ in 0..<max(1, ctx.warmup) { try ours() }
        var a: [Double] = [], b: [Double] = [], c: [Double] = []
        let reps = max(1, ctx.repetitions)
        for i in 0..<reps {
            let runBefore = repeatBefore || i == 0
            let order = [0, 1, 2].map { ($0 + i) % 3 }
            for k in order {
                let t = now()
                switch k {
                case 0: try ours(); a.append(now() - t)
                case 1: if runBefore { try before(); b.append(now() - t) }
                default: if runBefore { try floor(); c.append(now() - t) }
                }
            }
        }
        let ta = Timing(seconds: a), tb = Timing(seconds: b), tc = Timing(seconds: c)
        let mib = { (v: Int) in String(format: "%.1f", Double(v) / 1048576) }
        let note = String(format: "%dx%d %@ -> %dx%d at %d/8; libjpeg path median %.1f ms, floor (bare tjDecompress2 %d/8) median %.1f ms; "
                          + "ours/libjpeg %.3f, ours/floor %.3f (medians); peak RSS above baseline, each path alone: ours %@ MiB, "
                          + "libjpeg %@ MiB, floor %@ MiB; decoder bytes (peakMemory): ours %d KiB, libjpeg %d KiB; decoder %@; "
                          + "thumbnail's pixel + coefficient memory %d KiB (pixels %d KiB + decoder %d KiB) = %.4f x the 16 MiB limit",
                          info.width, info.height, info.isProgressive ? "progressive" : "baseline", first.image.width, first.image.height,
                          scale, tb.median * 1e3, scale, tc.median * 1e3, ta.median / tb.median, ta.median / tc.median,
                          mib(rssOurs), mib(rssBefore), mib(rssFloor), oursReport.peakMemory / 1024, beforeReport.peakMemory / 1024,
                          oursReport.decoder == .progressiveLowFrequency ? "reduced" : "libjpeg",
                          thumbBytes / 1024, pixelUse.peakBytes / 1024, thumbReport.peakMemory / 1024, Double(thumbBytes) / Double(16 << 20))
        return WorkloadRun(timing: ta, pixels: w * h, limitBytes: bare.count, note: note)
    }
}
