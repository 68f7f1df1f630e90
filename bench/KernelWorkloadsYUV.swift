import ImageCore

/// YUV conversion and rotation workloads (issue 4, items 1 and 2). Conversions are judged
/// against a copy of the RGBA bytes (the larger side); rotations against a copy of the
/// image they rotate. Inputs and outputs are allocated before timing.
extension Workloads {
    static let yuvAndRotate: [Workload] = [rgbaToNV12, rgbaToI420, nv12ToRGBA, i420ToRGBA, rotate90RGBA, rotate90NV12]

    static func rgbaBytes(_ image: borrowing PixelBuffer) -> Int {
        image.width * image.height * 4
    }

    static func rgbaTo(_ format: PixelFormat, name: String) -> Workload {
        Workload(name: name, summary: "RGBA8 → \(format) (BT.601 full range) with ic_rgb_to_yuv") { ctx in
            var dst = try PixelBuffer(width: ctx.image.width, height: ctx.image.height, format: format)
            let timing = try ctx.time { try dst.convert(from: ctx.image) }
            return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height, limitBytes: rgbaBytes(ctx.image),
                               note: "limit = copy of the RGBA bytes")
        }
    }

    static func toRGBA(from format: PixelFormat, name: String) -> Workload {
        Workload(name: name, summary: "\(format) → RGBA8 (BT.601 full range) with ic_yuv_to_rgb") { ctx in
            let src = try ctx.image.converted(to: format)
            var dst = try PixelBuffer(width: ctx.image.width, height: ctx.image.height, format: .rgba8)
            let timing = try ctx.time { try dst.convert(from: src) }
            return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height, limitBytes: rgbaBytes(ctx.image),
                               note: "limit = copy of the RGBA bytes")
        }
    }

    static let rgbaToNV12 = rgbaTo(.nv12, name: "rgba-nv12")
    static let rgbaToI420 = rgbaTo(.i420, name: "rgba-i420")
    static let nv12ToRGBA = toRGBA(from: .nv12, name: "nv12-rgba")
    static let i420ToRGBA = toRGBA(from: .i420, name: "i420-rgba")

    /// Rotate 90° clockwise (EXIF 6) into a second buffer.
    static let rotate90RGBA = Workload(name: "rotate90-rgba", summary: "RGBA8 rotate 90° cw with ic_image_orient") { ctx in
        var dst = try PixelBuffer(width: ctx.image.height, height: ctx.image.width, format: .rgba8)
        let timing = try ctx.time { try ctx.image.apply(.right, into: &dst) }
        return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height, limitBytes: rgbaBytes(ctx.image))
    }

    static let rotate90NV12 = Workload(name: "rotate90-nv12", summary: "NV12 rotate 90° cw with ic_image_orient") { ctx in
        let src = try ctx.image.converted(to: .nv12)
        var dst = try PixelBuffer(width: src.height, height: src.width, format: .nv12)
        let timing = try ctx.time { try src.apply(.right, into: &dst) }
        let w = src.width, h = src.height
        return WorkloadRun(timing: timing, pixels: w * h, limitBytes: RawYUV.fileSize(width: w, height: h),
                           note: "limit = copy of the NV12 bytes")
    }
}
