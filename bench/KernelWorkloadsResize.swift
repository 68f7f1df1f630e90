import CImageCore
import ImageCore

/// Workloads of the Laplacian and resize kernels (issue 4, items 3 and 4).
extension Workloads {
    static let kernelWorkloadsResize: [Workload] = [laplacian, lanczos, triangle, lanczosLinear]

    /// The fused Laplacian score (mean, variance, std-dev; the response is never written) of
    /// the input converted to gray (in setup, outside the timing). Limit: a copy of the gray
    /// bytes.
    static let laplacian = Workload(name: "laplacian", summary: "fused Laplacian sharpness score of the gray image") { ctx in
        let gray = try ctx.image.converted(to: .gray8) // BT.601 luma, setup only
        var score: SharpnessScore? = nil
        let timing = try ctx.time { score = try gray.laplacianScore() }
        let g = gray.plane(0)
        return WorkloadRun(timing: timing, pixels: gray.width * gray.height, limitBytes: g.rowBytes * g.rows,
                           note: "std-dev \(score.map { ($0.standardDeviation * 1000).rounded() / 1000 } ?? 0)")
    }

    /// RGBA resize to 1024 wide (height keeping the aspect ratio) with a plan made outside the
    /// timing. Limit: a copy of the source bytes.
    static let lanczos = resize(name: "lanczos", filter: .lanczos3)
    static let triangle = resize(name: "triangle", filter: .triangle)

    static func resize(name: String, filter: ResizeFilter) -> Workload {
        Workload(name: name, summary: "RGBA resize to 1024 wide, \(filter), reused plan") { ctx in
            let src = ctx.image.plane(0)
            let size = ResizeGeometry.scaled(width: ctx.image.width, height: ctx.image.height, toWidth: 1024)
            let plan = try ResizePlan(format: ctx.image.format, alphaMode: ctx.image.alphaMode,
                                      sourceWidth: ctx.image.width, sourceHeight: ctx.image.height,
                                      width: size.width, height: size.height, filter: filter)
            var dst = try PixelBuffer(width: size.width, height: size.height, format: ctx.image.format,
                                      alphaMode: ctx.image.alphaMode)
            let timing = try ctx.time { try plan.resize(ctx.image, into: &dst) }
            return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height,
                               limitBytes: src.rowBytes * src.rows,
                               note: "\(ctx.image.width)x\(ctx.image.height) -> \(size.width)x\(size.height), plan \(plan.byteCount / 1024) KiB")
        }
    }

    /// The same Lanczos-3 RGBA resize to 1024 wide in linear light (sRGB decoded by table,
    /// filtered as linear P7, encoded by table) beside the plain plan in the same run
    /// (alternating repetitions; the note gives the plain time and linear/plain). The image is
    /// read as opaque RGBA, as the plain `lanczos` row reads it.
    static let lanczosLinear = Workload(name: "lanczos-linear",
                                        summary: "RGBA resize to 1024 wide, lanczos3 in linear light, beside the plain resize") { ctx in
        let src = ctx.image.plane(0)
        let size = ResizeGeometry.scaled(width: ctx.image.width, height: ctx.image.height, toWidth: 1024)
        func plan(_ linear: Bool) throws -> ResizePlan {
            try ResizePlan(format: ctx.image.format, alphaMode: ctx.image.alphaMode, sourceWidth: ctx.image.width,
                           sourceHeight: ctx.image.height, width: size.width, height: size.height,
                           options: ResizeOptions(filter: .lanczos3, linearLight: linear))
        }
        let linear = try plan(true), plain = try plan(false)
        var a = try PixelBuffer(width: size.width, height: size.height, format: ctx.image.format, alphaMode: ctx.image.alphaMode)
        var b = try PixelBuffer(width: size.width, height: size.height, format: ctx.image.format, alphaMode: ctx.image.alphaMode)
        var run = try CodecWorkloads.compare(ctx, bareName: "plain lanczos3", pixels: ctx.image.width * ctx.image.height,
                                             limitBytes: src.rowBytes * src.rows,
                                             ours: { try linear.resize(ctx.image, into: &a) },
                                             bare: { try plain.resize(ctx.image, into: &b) })
        run.note = "\(ctx.image.width)x\(ctx.image.height) \(ctx.image.alphaMode) -> \(size.width)x\(size.height), plan \(linear.byteCount / 1024) KiB "
            + "(plain \(plain.byteCount / 1024) KiB); linear = ours, " + run.note
        return run
    }
}
