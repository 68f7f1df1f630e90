import CImageCore
import CTurboJPEG
import Foundation
import ImageCore

/// Pipeline workloads (issue 6): W1 `thumbnail`, W2 `scan-gray` / `scan-color`, W7 `burst`.
/// The input is the codec workloads' JPEG (``CodecWorkloads/input(_:)``: `--image` or the
/// synthetic 12 MP photo encoded by TurboJPEG at q90 4:2:0).
enum PipelineWorkloads {
    static let all: [Workload] = [thumbnail, scanGray, scanColor, burst, burstQuarter]

    /// W1: 12 MP JPEG → 256 px thumbnail (streamed decode at the DCT scale + streaming
    /// Lanczos-3 + orientation), beside bare tjDecompress2 to RGBA at the same scale.
    static let thumbnail = Workload(name: "thumbnail", summary: "12 MP JPEG -> 256 px thumbnail vs bare tjDecompress2 at the same DCT scale") { ctx in
        let jpeg = try CodecWorkloads.input(ctx)
        let first = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256)
        let (w, h) = (first.decodedWidth, first.decodedHeight)
        var bare = [UInt8](repeating: 0, count: w * h * 4)
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        var run = try CodecWorkloads.compare(ctx, bareName: "tjDecompress2 \(first.scale)/8 RGBA", pixels: w * h, limitBytes: bare.count,
            ours: { _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256) },
            bare: {
                let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &bare, Int32(w), 0, Int32(h), Int32(TJPF_RGBA.rawValue), 0)
                if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
            })
        run.note = "\(first.image.width)x\(first.image.height) from \(w)x\(h) at \(first.scale)/8; " + run.note
        return run
    }

    static func scanWorkload(_ name: String, _ mode: EnhanceMode) -> Workload {
        Workload(name: name, summary: "scanner: 12 MP JPEG with given corners -> A4 at 150 dpi, \(mode)") { ctx in
            let jpeg = try CodecWorkloads.input(ctx)
            let info = try JPEG.info(jpeg)
            let quad = DocumentWorkloads.pageQuad(width: info.width, height: info.height)
            let options = Scanner.Options(corners: quad, size: .paper(.a4, dpi: 150), mode: mode)
            var last = try Scanner.scan(jpeg, options: options)
            let timing = try ctx.time { last = try Scanner.scan(jpeg, options: options) }
            let c = last.plan.crop
            return WorkloadRun(timing: timing, pixels: last.width * last.height, limitBytes: last.width * last.height * 3 / 2,
                               note: "\(info.width)x\(info.height) -> \(last.width)x\(last.height); decoded crop \(c.width)x\(c.height) at \(last.plan.scale)/8; scan peak pixel bytes \(last.peakPixelBytes); \(last.encoded.count) B out")
        }
    }

    /// W2, gray and colour.
    static let scanGray = scanWorkload("scan-gray", .gray)
    static let scanColor = scanWorkload("scan-color", .color)

    /// `--frames`: burst frames read from these files in every repetition (as the CLI and
    /// OpenCV's imread do) instead of the in-memory frames.
    nonisolated(unsafe) static var framePaths: [String] = []

    /// The burst's frames: the `--frames` files, or the input re-encoded at 8 qualities
    /// (8 different 12 MP JPEGs) held in memory.
    struct BurstFrames: Sendable {
        var paths: [String]
        var bytes: [[UInt8]]
        var count: Int { paths.isEmpty ? bytes.count : paths.count }
        func load(_ i: Int) throws(ImageError) -> [UInt8] { paths.isEmpty ? bytes[i] : try FileBytes.read(path: paths[i]) }

        static func make(_ ctx: BenchContext) throws -> BurstFrames {
            if !framePaths.isEmpty { return BurstFrames(paths: framePaths, bytes: []) }
            let base = try CodecWorkloads.input(ctx)
            let decoded = try JPEG.decode(base, format: .rgba8)
            var frames: [[UInt8]] = []
            for i in 0..<8 { frames.append(try JPEG.encode(decoded, options: .init(quality: 60 + 5 * i))) }
            return BurstFrames(paths: [], bytes: frames)
        }
    }

    /// W7: 8 × 12 MP JPEGs → the sharpest at the default long side (1280: the nearest n/8).
    static let burst = burstWorkload("burst", summary: "8 x 12 MP JPEGs ranked by Laplacian sharpness (long side ~1280)") { _ in 1280 }

    /// W7 at OpenCV's IMREAD_REDUCED_GRAYSCALE_4 scale (2/8), the peers table's comparison.
    static let burstQuarter = burstWorkload("burst-1/4", summary: "8 x 12 MP JPEGs ranked by Laplacian sharpness at 1/4 (OpenCV's REDUCED_GRAYSCALE_4)") { long in (long + 3) / 4 }

    /// Ranks the frames with `BurstRanking` (workers = the thread count), timed in pairs with
    /// the floor: bare `tjDecompress2(TJPF_GRAY)` of the same frames at the same scale, one
    /// after the other on one thread (each frame read the same way as ours).
    static func burstWorkload(_ name: String, summary: String, target: @escaping @Sendable (Int) -> Int) -> Workload {
        Workload(name: name, summary: summary) { ctx in
            let frames = try BurstFrames.make(ctx)
            let first = try JPEG.info(try frames.load(0))
            let options = BurstRanking.Options(targetLongSide: target(max(first.width, first.height)), workers: 0)
            let rank = { BurstRanking.rank(count: frames.count, options: options, load: { (i: Int) throws(ImageError) -> [UInt8] in try frames.load(i) }) }
            var last = rank()
            if let e = last.entries.first(where: { if case .failure = $0.result { true } else { false } }), case .failure(let err) = e.result { throw err }
            let handle = tjInitDecompress()!
            defer { tjDestroy(handle) }
            var gray = [UInt8]()
            var run = try CodecWorkloads.compare(ctx, bareName: "tjDecompress2 TJPF_GRAY, \(frames.count) frames", pixels: 0, limitBytes: 0,
                ours: { last = rank() },
                bare: {
                    for i in 0..<frames.count {
                        let jpeg = try frames.load(i)
                        let info = try JPEG.info(jpeg)
                        let n = BurstRanking.scale(width: info.width, height: info.height, targetLongSide: options.targetLongSide)
                        let (w, h) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: n)
                        if gray.count < w * h { gray = [UInt8](repeating: 0, count: w * h) }
                        let rc = tjDecompress2(handle, jpeg, UInt(jpeg.count), &gray, Int32(w), 0, Int32(h), Int32(TJPF_GRAY.rawValue), 0)
                        if rc != 0 { throw ImageError(.corruptData, "tjDecompress2") }
                    }
                })
            let e = last.entries[0]
            let px = last.entries.reduce(0) { $0 + $1.width * $1.height }
            run.pixels = px
            run.limitBytes = px
            run.note = "\(frames.count) frames at \(e.scale)/8 (\(e.width)x\(e.height) luma)\(frames.paths.isEmpty ? "" : " read from files"), \(min(frames.count, ImageCoreRuntime.threads)) workers, sharpest #\(last.order.first ?? -1), ranking peak pixel bytes \(last.peakPixelBytes); " + run.note
            return run
        }
    }
}
