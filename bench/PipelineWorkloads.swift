import CImageCore
import CTurboJPEG
import Foundation
import ImageCore

/// Pipeline workloads (issue 6): W1 `thumbnail`, W2 `scan-gray` / `scan-color`, W7 `burst`.
/// The input is the codec workloads' JPEG (``CodecWorkloads/input(_:)``: `--image` or the
/// synthetic 12 MP photo encoded by TurboJPEG at q90 4:2:0).
enum PipelineWorkloads {
    static let all: [Workload] = [thumbnail, scanGray, scanColor, burst]

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
                               note: "\(info.width)x\(info.height) -> \(last.width)x\(last.height); decoded crop \(c.width)x\(c.height) at \(last.plan.scale)/8; scan peak pixel bytes \(last.peakPixelBytes); \(last.jpeg.count) B out")
        }
    }

    /// W2, gray and colour.
    static let scanGray = scanWorkload("scan-gray", .gray)
    static let scanColor = scanWorkload("scan-color", .color)

    /// W7: 8 × 12 MP JPEGs → the sharpest (8 different JPEGs: the input re-encoded at 8 qualities).
    static let burst = Workload(name: "burst", summary: "8 x 12 MP JPEGs ranked by Laplacian sharpness") { ctx in
        let base = try CodecWorkloads.input(ctx)
        let decoded = try JPEG.decode(base, format: .rgba8)
        var frames: [[UInt8]] = []
        for i in 0..<8 { frames.append(try JPEG.encode(decoded, options: .init(quality: 60 + 5 * i))) }
        _ = consume decoded
        var last = BurstRanking.rank(frames)
        let timing = ctx.time { last = BurstRanking.rank(frames) }
        let e = last.entries[0]
        return WorkloadRun(timing: timing, pixels: 8 * e.width * e.height, limitBytes: 8 * e.width * e.height,
                           note: "8 frames at \(e.scale)/8 (\(e.width)x\(e.height) luma), sharpest #\(last.order.first ?? -1), ranking peak pixel bytes \(last.peakPixelBytes)")
    }
}
