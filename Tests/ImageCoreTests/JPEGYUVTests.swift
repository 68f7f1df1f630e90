import CImageCore
import CLibJPEG
import CTurboJPEG
import Testing
@testable import ImageCore

/// I420 / NV12 decode against tjDecompressToYUV2, sample for sample, at every scale.
@Suite("JPEG decode: I420 and NV12")
struct JPEGYUVTests {
    /// Our planes as TurboJPEG would give them for this file, resampled to 4:2:0 by the
    /// documented rule (an independent implementation of it, on TurboJPEG's native planes).
    static func reference(_ tj: JPEGFixtures.TJPlanes, subsampling: TJSAMP, width W: Int, height H: Int) -> [[UInt8]] {
        var y: [UInt8] = []
        for r in 0..<H { y += tj.planes[0][(r * tj.widths[0])..<(r * tj.widths[0] + W)] }
        let cw = (W + 1) / 2, ch = (H + 1) / 2
        var u = [UInt8](repeating: 128, count: cw * ch), v = u
        if subsampling == TJSAMP_420 {
            u = []; v = []
            for i in 0..<ch {
                u += tj.planes[1][(i * tj.widths[1])..<(i * tj.widths[1] + cw)]
                v += tj.planes[2][(i * tj.widths[2])..<(i * tj.widths[2] + cw)]
            }
        } else if subsampling != TJSAMP_GRAY {
            for p in 1...2 {
                let plane = tj.planes[p], pw = tj.widths[p]
                var out = [UInt8](repeating: 0, count: cw * ch)
                for i in 0..<ch {
                    let r0 = 2 * i, r1 = min(2 * i + 1, H - 1)
                    for j in 0..<cw {
                        let c0 = 2 * j, c1 = min(2 * j + 1, W - 1)
                        let value: Int
                        switch subsampling {
                        case TJSAMP_444:
                            value = (Int(plane[r0 * pw + c0]) + Int(plane[r0 * pw + c1]) + Int(plane[r1 * pw + c0]) + Int(plane[r1 * pw + c1]) + 2) >> 2
                        case TJSAMP_422: value = (Int(plane[r0 * pw + j]) + Int(plane[r1 * pw + j]) + 1) >> 1
                        case TJSAMP_440: value = (Int(plane[i * pw + c0]) + Int(plane[i * pw + c1]) + 1) >> 1
                        default /* 411 */: value = (Int(plane[r0 * pw + j / 2]) + Int(plane[r1 * pw + j / 2]) + 1) >> 1
                        }
                        out[i * cw + j] = UInt8(value)
                    }
                }
                if p == 1 { u = out } else { v = out }
            }
        }
        return [y, u, v]
    }

    static func interleave(_ u: [UInt8], _ v: [UInt8]) -> [UInt8] {
        var uv = [UInt8](repeating: 0, count: u.count * 2)
        for i in u.indices { uv[2 * i] = u[i]; uv[2 * i + 1] = v[i] }
        return uv
    }

    static func check(_ jpeg: [UInt8], subsampling: TJSAMP, label: String, fastDCT: Bool = false) throws {
        let info = try JPEG.info(jpeg)
        for m in 1...8 {
            let (sw, sh) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: m)
            let flags = fastDCT ? UInt32(IC_JPEG_FAST_DCT.rawValue) : 0
            let i420 = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_I420, options: JPEGFixtures.options(scale: m, flags: flags))
            let nv12 = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_NV12, options: JPEGFixtures.options(scale: m, flags: flags))
            #expect(i420.status == IC_OK && nv12.status == IC_OK, "\(label) \(m)/8: \(i420.status) \(nv12.status)")
            guard i420.status == IC_OK, nv12.status == IC_OK else { continue }
            #expect(nv12.planes[0] == i420.planes[0], "\(label) \(m)/8: NV12 luma")
            #expect(nv12.planes[1] == interleave(i420.planes[1], i420.planes[2]), "\(label) \(m)/8: NV12 = I420 interleaved")
            // TurboJPEG must use the same factor for this output size (it cannot be told M).
            guard JPEGFixtures.tjChosenEighths(width: info.width, height: info.height, scaledWidth: sw, scaledHeight: sh) == m else {
                #expect(info.width < 8 && info.height < 8, "only tiny images are ambiguous")
                continue
            }
            // TurboJPEG's scaled 4:2:0 chroma with TJFLAG_FASTDCT uses mismatched dequantisation
            // tables (its IDCT override swaps an IFAST method for an ISLOW one); below full size
            // we keep ISLOW, so the reference there is the accurate decode.
            let tjFlags: Int32 = fastDCT && m == 8 ? Int32(TJFLAG_FASTDCT) : 0
            let tj = try #require(JPEGFixtures.tjDecodeYUV(jpeg, width: sw, height: sh, subsampling: subsampling, flags: tjFlags))
            let ref = reference(tj, subsampling: subsampling, width: sw, height: sh)
            for p in 0..<3 {
                #expect(byteDiff(i420.planes[p], ref[p]) == "", "\(label) \(m)/8 plane \(p) vs tjDecompressToYUV2")
            }
        }
    }

    @Test("4:2:0 and gray: every scale, sizes 1x1 to 257x129, baseline and progressive")
    func matchesTurboJPEG420() throws {
        for (w, h) in [(1, 1), (2, 2), (3, 5), (17, 9), (33, 31), (64, 48), (257, 129)] {
            for s in [TJSAMP_420, TJSAMP_GRAY] {
                for progressive in [false, true] {
                    let jpeg = JPEGFixtures.photo(width: w, height: h, subsampling: s, progressive: progressive)
                    try Self.check(jpeg, subsampling: s, label: "\(w)x\(h) samp \(s.rawValue) prog \(progressive)")
                }
            }
        }
        let jpeg = JPEGFixtures.photo(width: 99, height: 67)
        try Self.check(jpeg, subsampling: TJSAMP_420, label: "fast DCT", fastDCT: true)
    }

    @Test("4:4:4, 4:2:2, 4:4:0, 4:1:1: TurboJPEG's native planes resampled to 4:2:0 as documented")
    func otherSubsamplings() throws {
        for (w, h) in [(17, 9), (40, 33), (131, 70)] {
            for s in [TJSAMP_444, TJSAMP_422, TJSAMP_440, TJSAMP_411] {
                for progressive in [false, true] {
                    let jpeg = JPEGFixtures.photo(width: w, height: h, subsampling: s, progressive: progressive)
                    try Self.check(jpeg, subsampling: s, label: "\(w)x\(h) samp \(s.rawValue) prog \(progressive)")
                }
            }
        }
    }

    @Test("the odd 4031x3023 photo: I420 at every scale equals tjDecompressToYUV2")
    func largeOdd() throws {
        let jpeg = JPEGFixtures.largeOdd
        for m in 1...8 {
            let (sw, sh) = try JPEG.scaledSize(width: 4031, height: 3023, eighths: m)
            let image = try JPEG.decode(jpeg, format: .i420, options: .init(scale: .eighths(m)))
            let tj = try #require(JPEGFixtures.tjDecodeYUV(jpeg, width: sw, height: sh, subsampling: TJSAMP_420))
            let ref = Self.reference(tj, subsampling: TJSAMP_420, width: sw, height: sh)
            for p in 0..<3 { #expect(byteDiff(JPEGFixtures.packed(image, plane: p), ref[p]) == "", "\(m)/8 plane \(p)") }
        }
    }

    @Test("NV12: the vector interleave equals the scalar one; no full-size temporary")
    func nv12Paths() throws {
        let jpeg = JPEGFixtures.photo(width: 517, height: 301)
        // Scalar, SSE2 only, and everything the CPU has (AVX2 here), on a width with a tail.
        let results = [UInt32(0), UInt32(IC_CPU_SSE2.rawValue), UInt32.max].map { mask in
            ProcessSettings.with(cpuMask: mask) {
                JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_NV12, options: JPEGFixtures.options()).planes
            }
        }
        #expect(results[0] == results[1] && results[0] == results[2])
        // The only pixel allocation of a decode into a new NV12 buffer is the buffer itself.
        let (bytes, usage) = try PixelAllocator.measure { () throws(ImageError) -> Int in
            let image = try JPEG.decode(jpeg, format: .nv12)
            return image.byteCount
        }
        #expect(usage.peakBytes == bytes && usage.allocations == 1)
    }

    @Test("YUV crop: even x and y, rectangles touching every edge, equal to the full decode's planes")
    func crop() throws {
        for s in [TJSAMP_420, TJSAMP_444, TJSAMP_GRAY] {
            let jpeg = JPEGFixtures.photo(width: 83, height: 61, subsampling: s)
            for m in [8, 5, 2] {
                let full = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_I420, options: JPEGFixtures.options(scale: m))
                let (W, H) = try JPEG.scaledSize(width: 83, height: 61, eighths: m)
                let rects = [(0, 0, W, H), (0, 0, 1, 1), (0, 0, 7, 3), (W - 1 - (W - 1) % 2, 0, W - (W - 1 - (W - 1) % 2), 2),
                             (0, H - 1 - (H - 1) % 2, 5, H - (H - 1 - (H - 1) % 2)), (2, 2, W - 2, H - 2), (4, 6, W - 9, 3)]
                for (x, y, w, h) in rects where w >= 1 && h >= 1 && x + w <= W && y + h <= H {
                    for format in [IC_FORMAT_I420, IC_FORMAT_NV12] {
                        let got = JPEGFixtures.decodeGuarded(jpeg, format: format, options: JPEGFixtures.options(scale: m, crop: (x, y, w, h)))
                        #expect(got.status == IC_OK, "crop \(x),\(y) \(w)x\(h): \(got.status)")
                        guard got.status == IC_OK else { continue }
                        let cw = (W + 1) / 2
                        #expect(got.planes[0] == JPEGFixtures.subRect(full.planes[0], rowWidth: W, channels: 1, x: x, y: y, w: w, h: h))
                        let u = JPEGFixtures.subRect(full.planes[1], rowWidth: cw, channels: 1, x: x / 2, y: y / 2, w: (w + 1) / 2, h: (h + 1) / 2)
                        let v = JPEGFixtures.subRect(full.planes[2], rowWidth: cw, channels: 1, x: x / 2, y: y / 2, w: (w + 1) / 2, h: (h + 1) / 2)
                        if format == IC_FORMAT_I420 { #expect(got.planes[1] == u && got.planes[2] == v, "samp \(s.rawValue) \(m)/8 crop \(x),\(y) \(w)x\(h)") }
                        else { #expect(got.planes[1] == Self.interleave(u, v), "samp \(s.rawValue) \(m)/8 crop \(x),\(y) \(w)x\(h) NV12") }
                    }
                }
            }
            let odd = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_I420, options: JPEGFixtures.options(crop: (1, 0, 4, 4)))
            #expect(odd.status == IC_ERR_INVALID_ARGUMENT, "odd x is refused for 4:2:0 output")
        }
    }

    @Test("files without YCbCr or gray samples are refused for YUV output")
    func unsupported() throws {
        let (w, h) = (24, 16)
        let rgbCoded = JPEGFixtures.libjpeg(.init(width: w, height: h, jpegSpace: JCS_RGB), JPEGFixtures.pixels(width: w, height: h, channels: 3))
        #expect(try JPEG.info(rgbCoded).colorSpace == .rgb)
        for format in [PixelFormat.i420, .nv12] {
            do { _ = try JPEG.decode(rgbCoded, format: format); Issue.record("RGB-coded JPEG accepted for \(format)") }
            catch { #expect(error.code == .unsupported) }
        }
        // The same file decodes to RGB as TurboJPEG decodes it.
        let rgb = try JPEG.decode(rgbCoded, format: .rgb8)
        #expect(JPEGFixtures.packed(rgb, plane: 0) == JPEGFixtures.tjDecode(rgbCoded, width: w, height: h, pf: TJPF_RGB))
    }
}
