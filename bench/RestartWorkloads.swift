import CTurboJPEG
import ImageCore

/// Restart-interval workloads (issue 19): ImageCore's decode of a file with restart markers,
/// which splits into one stripe per thread, timed in pairs with single-threaded TurboJPEG on
/// the same file in the same run; the note gives the bare call's time, the ratios and the
/// stripes used. Run with `--threads 1,2`: at 1 thread the decode is serial.
///
/// Input: the `--image` JPEG when it has restart markers at MCU-row boundaries; otherwise the
/// bench image encoded by ImageCore at quality 90, 4:2:0, one restart interval per MCU row
/// (libjpeg's own bytes for those settings), once, in memory.
enum RestartWorkloads {
    static let all: [Workload] = [decodeRGBA, decodeEighth, decodeGrayQuarter, scan, threshold]

    nonisolated(unsafe) private static var cached: [UInt8]?

    static func input(_ ctx: BenchContext) throws -> [UInt8] {
        if let cached { return cached }
        let file = try CodecWorkloads.input(ctx)
        var bytes = file
        if !(try JPEG.scanRestarts(file).splittable) {
            let rgba = try JPEG.decode(file, format: .rgba8)
            bytes = try JPEG.encode(rgba, options: .init(quality: 90, subsampling: .s420, restartInterval: (rgba.width + 15) / 16))
        }
        cached = bytes
        return bytes
    }

    static func note(_ jpeg: [UInt8], stripes: Int, _ run: WorkloadRun) throws -> WorkloadRun {
        var r = run
        let info = try JPEG.scanRestarts(jpeg)
        r.note = "\(stripes) stripes (restart interval \(info.restartInterval) MCUs, \(info.mcuRows) MCU rows, \(jpeg.count) B); " + r.note
        return r
    }

    /// Decode into an existing buffer at the bench's thread count vs `tjDecompress2` (one thread).
    static func decodeWorkload(_ name: String, summary: String, format: PixelFormat, scale: Int, pf: TJPF) -> Workload {
        Workload(name: name, summary: summary) { ctx in
            let jpeg = try input(ctx)
            let info = try JPEG.info(jpeg)
            let (w, h) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: scale)
            var image = try PixelBuffer(width: w, height: h, format: format)
            var bare = [UInt8](repeating: 0, count: w * h * (format == .gray8 ? 1 : 4))
            let handle = tjInitDecompress()!
            defer { tjDestroy(handle) }
            let options = JPEG.DecodeOptions(scale: .eighths(scale))
            var stripes = 0
            let run = try CodecWorkloads.compare(ctx, bareName: "tjDecompress2 \(scale)/8 (1 thread)", pixels: w * h, limitBytes: bare.count,
                ours: { stripes = try JPEG.decode(jpeg, into: &image, options: options).stripes },
                bare: {
                    let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(w), 0, Int32(h), Int32(pf.rawValue), 0)
                    if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
                })
            return try note(jpeg, stripes: stripes, run)
        }
    }

    static let decodeRGBA = decodeWorkload("jpeg-decode-rgba-rst", summary: "JPEG with a restart marker per MCU row -> RGBA8, in stripes, vs tjDecompress2",
                                           format: .rgba8, scale: 8, pf: TJPF_RGBA)
    static let decodeEighth = decodeWorkload("jpeg-decode-1/8-rst", summary: "the same at 1/8 (a thumbnail), vs tjDecompress2 1/8",
                                             format: .rgba8, scale: 1, pf: TJPF_RGBA)
    static let decodeGrayQuarter = decodeWorkload("jpeg-decode-gray-1/4-rst", summary: "the same to GRAY8 at 1/4 (a burst frame), vs tjDecompress2 TJPF_GRAY 1/4",
                                                  format: .gray8, scale: 2, pf: TJPF_GRAY)

    /// The one-pass marker scan a parallel decode makes first, vs a serial 1/8 decode of the same
    /// file (the cheapest decode it could precede; a full decode costs about 3 times more).
    static let scan = Workload(name: "jpeg-restart-scan", summary: "restart-marker scan (JPEG.scanRestarts) vs a serial 1/8 decode of the same file") { ctx in
        let jpeg = try input(ctx)
        let info = try JPEG.info(jpeg)
        let (w, h) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: 1)
        var image = try PixelBuffer(width: w, height: h, format: .rgba8)
        let options = JPEG.DecodeOptions(scale: .eighths(1))
        var splittable = false
        var run = try CodecWorkloads.compare(ctx, bareName: "serial 1/8 decode", pixels: info.width * info.height, limitBytes: jpeg.count,
            ours: { splittable = try JPEG.scanRestarts(jpeg).splittable },
            bare: { try ImageCoreRuntime.withThreads(1) { () throws(ImageError) in _ = try JPEG.decode(jpeg, into: &image, options: options) } })
        run.note = "splittable \(splittable), \(jpeg.count) B; " + run.note
        return run
    }

    /// Where splitting starts to pay: RGBA decodes of the bench image scaled to 0.2...3 MP,
    /// each encoded with a restart marker per MCU row, split (at the bench's thread count) vs
    /// serial, in pairs. The row's time is the split decode of the largest; the note lists
    /// split/serial per size (the decoder's default threshold is about 0.5 MP).
    static let threshold = Workload(name: "jpeg-decode-threshold", summary: "split vs serial RGBA decode at 0.2 to 3 MP (where the parallel decode starts to pay)") { ctx in
        let base = try JPEG.decode(try CodecWorkloads.input(ctx), format: .rgba8)
        var notes: [String] = []
        var last: WorkloadRun? = nil
        for width in [512, 768, 1024, 1280, 1536, 2048] {
            let small = try base.resized(width: width, filter: .triangle)
            let jpeg = try JPEG.encode(small, options: .init(quality: 90, subsampling: .s420, restartInterval: (width + 15) / 16))
            var image = try PixelBuffer(width: small.width, height: small.height, format: .rgba8)
            let split = JPEG.DecodeOptions(parallelAnySize: true)
            var stripes = 0
            let (split_t, serial_t, paired) = try CodecWorkloads.pairs(ctx,
                ours: { stripes = try JPEG.decode(jpeg, into: &image, options: split).stripes },
                bare: { try ImageCoreRuntime.withThreads(1) { () throws(ImageError) in _ = try JPEG.decode(jpeg, into: &image, options: split) } })
            notes.append(String(format: "%.2f MP %d KB: %.2f / %.2f ms = %.3f (%d stripes)", Double(small.width * small.height) / 1e6,
                                jpeg.count / 1024, split_t.median * 1e3, serial_t.median * 1e3, paired, stripes))
            last = WorkloadRun(timing: split_t, pixels: small.width * small.height, limitBytes: small.width * small.height * 4)
        }
        var run = last!
        run.note = "\(ImageCoreRuntime.threads) thr, split/serial (medians, paired ratio): " + notes.joined(separator: "; ")
        return run
    }
}
