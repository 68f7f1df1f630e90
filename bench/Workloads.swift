import CImageCore
import ImageCore

/// What one workload run measured.
struct WorkloadRun {
    var timing: Timing
    /// Pixels processed per repetition (for MP/s).
    var pixels: Int
    /// Bytes whose plain copy is this workload's limit (usually the larger image's bytes).
    var limitBytes: Int
    var note: String = ""
}

/// Everything a workload may use: the input image and the repetition settings.
final class BenchContext {
    var image: PixelBuffer
    let repetitions: Int
    let warmup: Int

    init(image: consuming PixelBuffer, repetitions: Int, warmup: Int) {
        self.image = image
        self.repetitions = repetitions
        self.warmup = warmup
    }

    func time(_ body: () throws -> Void) rethrows -> Timing {
        try measure(repetitions: repetitions, warmup: warmup, body)
    }
}

/// A named benchmark. `run` sets up its own buffers, then times its body with
/// `context.time`; it runs at the thread count the harness has set.
struct Workload: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (BenchContext) throws -> WorkloadRun
}

/// The registry. Later issues add codec, kernel and pipeline workloads here.
enum Workloads {
    static let all: [Workload] = [copy, fill] + CodecWorkloads.all + RestartWorkloads.all + yuvAndRotate + kernelWorkloadsResize
        + DocumentWorkloads.all + [renderer, rendererCamera] + PipelineWorkloads.all + PNGWorkloads.all + ProgressiveWorkloads.all

    /// ic_image_copy of the input RGBA image into a second buffer: the bandwidth reference.
    static let copy = Workload(name: "copy", summary: "RGBA image copy with ic_image_copy (strided, parallel)") { ctx in
        var dst = try PixelBuffer(width: ctx.image.width, height: ctx.image.height, format: ctx.image.format)
        let timing = try ctx.time { try dst.copy(from: ctx.image) }
        let g = ctx.image.plane(0)
        return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height, limitBytes: g.rowBytes * g.rows)
    }

    /// ic_image_fill of an RGBA buffer with one colour.
    static let fill = Workload(name: "fill", summary: "RGBA image fill with ic_image_fill") { ctx in
        var dst = try PixelBuffer(width: ctx.image.width, height: ctx.image.height, format: .rgba8)
        let timing = try ctx.time { try dst.fill([10, 20, 30, 255]) }
        let g = dst.plane(0)
        return WorkloadRun(timing: timing, pixels: dst.width * dst.height, limitBytes: g.rowBytes * g.rows)
    }
}
