import CImageCore
import ImageCore

/// Document workloads (issue 5): rectification of a 12 MP photo to A4 at 300 dpi, page
/// detection, page enhancement.
enum DocumentWorkloads {
    static let all: [Workload] = [
        warpRGBABilinear, warpRGBABicubic, warpNV12Bilinear, warpNV12Bicubic,
    ]

    /// A page-shaped quad inside a `w` x `h` photo: portrait, in perspective (top edge
    /// shorter), turned by a few degrees.
    static func pageQuad(width w: Int, height h: Int) -> Quad {
        let W = Double(w), H = Double(h)
        return Quad([Point(x: 0.273 * W, y: 0.050 * H), Point(x: 0.732 * W, y: 0.086 * H),
                     Point(x: 0.756 * W, y: 0.959 * H), Point(x: 0.243 * W, y: 0.932 * H)])
    }

    static let a4 = (width: 2480, height: 3508)

    static func rectifyWorkload(_ name: String, _ summary: String, nv12: Bool, _ interpolation: Interpolation) -> Workload {
        Workload(name: name, summary: summary) { ctx in
            let quad = pageQuad(width: ctx.image.width, height: ctx.image.height)
            if nv12 {
                let src = try makeNV12(ctx.image)
                var dst = try PixelBuffer(width: a4.width, height: a4.height, format: .nv12)
                let timing = try ctx.time { try dst.rectify(from: src, quad: quad, interpolation: interpolation) }
                return WorkloadRun(timing: timing, pixels: a4.width * a4.height, limitBytes: dst.byteCount,
                                   note: "NV12 \(src.width)x\(src.height) -> A4 300 dpi NV12")
            }
            var dst = try PixelBuffer(width: a4.width, height: a4.height, format: .rgba8)
            let timing = try ctx.time { try dst.rectify(from: ctx.image, quad: quad, interpolation: interpolation) }
            return WorkloadRun(timing: timing, pixels: a4.width * a4.height, limitBytes: a4.width * a4.height * 4,
                               note: "RGBA \(ctx.image.width)x\(ctx.image.height) -> A4 300 dpi (2480x3508); OpenCV warpPerspective bilinear 4032x2268 -> A4: 29.6 ms 1 thread")
        }
    }

    static let warpRGBABilinear = rectifyWorkload("warp-rgba-bilinear", "rectify a page of the RGBA photo to A4 at 300 dpi, bilinear", nv12: false, .bilinear)
    static let warpRGBABicubic = rectifyWorkload("warp-rgba-bicubic", "rectify a page of the RGBA photo to A4 at 300 dpi, bicubic", nv12: false, .bicubic)
    static let warpNV12Bilinear = rectifyWorkload("warp-nv12-bilinear", "rectify a page of the photo as NV12 to A4 NV12 at 300 dpi, bilinear", nv12: true, .bilinear)
    static let warpNV12Bicubic = rectifyWorkload("warp-nv12-bicubic", "rectify a page of the photo as NV12 to A4 NV12 at 300 dpi, bicubic", nv12: true, .bicubic)

    /// NV12 from RGBA with a plain loop (full-range BT.601, 2 x 2 chroma average): setup
    /// only, outside the timing; the YUV kernels live on another branch.
    static func makeNV12(_ rgba: borrowing PixelBuffer) throws -> PixelBuffer {
        let w = rgba.width, h = rgba.height
        var out = try PixelBuffer(width: w, height: h, format: .nv12)
        let s = rgba.plane(0), y = out.plane(0), uv = out.plane(1)
        rgba.withPlane(0) { src in
            out.withMutablePlane(0) { yp in
                for j in 0..<h {
                    for i in 0..<w {
                        let o = j * s.stride + 4 * i
                        let r = Double(src[o]), g = Double(src[o + 1]), b = Double(src[o + 2])
                        yp[j * y.stride + i] = UInt8(max(0, min(255, (0.299 * r + 0.587 * g + 0.114 * b).rounded())))
                    }
                }
            }
            out.withMutablePlane(1) { cp in
                for j in 0..<uv.rows {
                    for i in 0..<(uv.rowBytes / 2) {
                        var u = 0.0, v = 0.0, n = 0.0
                        for dy in 0..<2 where 2 * j + dy < h {
                            for dx in 0..<2 where 2 * i + dx < w {
                                let o = (2 * j + dy) * s.stride + 4 * (2 * i + dx)
                                let r = Double(src[o]), g = Double(src[o + 1]), b = Double(src[o + 2])
                                u += -0.168736 * r - 0.331264 * g + 0.5 * b
                                v += 0.5 * r - 0.418688 * g - 0.081312 * b
                                n += 1
                            }
                        }
                        cp[j * uv.stride + 2 * i] = UInt8(max(0, min(255, (u / n + 128).rounded())))
                        cp[j * uv.stride + 2 * i + 1] = UInt8(max(0, min(255, (v / n + 128).rounded())))
                    }
                }
            }
        }
        return out
    }
}
