import CImageCore
import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Encode: byte-identical to TurboJPEG with the same settings; YUV planes straight in;
/// round trips within a PSNR bound; EXIF orientation; destinations.
@Suite("JPEG encode")
struct JPEGEncodeTests {
    static let tjSubsampling: [(JPEG.Subsampling, TJSAMP)] = [
        (.s444, TJSAMP_444), (.s422, TJSAMP_422), (.s420, TJSAMP_420), (.s440, TJSAMP_440), (.s411, TJSAMP_411), (.gray, TJSAMP_GRAY),
    ]

    @Test("RGBA8, RGB8, GRAY8: the same bytes as tjCompress2 for every subsampling, quality and flag")
    func matchesTJCompress2() throws {
        for (w, h) in [(1, 1), (17, 9), (64, 48), (203, 151)] {
            for (format, pf, channels) in [(PixelFormat.rgba8, TJPF_RGBA, 4), (.rgb8, TJPF_RGB, 3), (.gray8, TJPF_GRAY, 1)] {
                let px = JPEGFixtures.pixels(width: w, height: h, channels: channels)
                let image = JPEGFixtures.buffer(px, width: w, height: h, format: format)
                for (sub, tjs) in Self.tjSubsampling where format != .gray8 || sub == .gray {
                    for quality in [50, 85, 96, 100] {
                        for (progressive, accurate) in [(false, false), (true, false), (false, true)] {
                            let ours = try JPEG.encode(image, options: .init(quality: quality, subsampling: sub,
                                                                            progressive: progressive, accurateDCT: accurate))
                            let flags = (progressive ? Int32(TJFLAG_PROGRESSIVE) : 0) | (accurate ? Int32(TJFLAG_ACCURATEDCT) : 0)
                            let theirs = JPEGFixtures.tjCompress(px, width: w, height: h, pf: pf, subsampling: tjs, quality: quality, flags: flags)
                            #expect(byteDiff(ours, theirs) == "", "\(w)x\(h) \(format) \(sub) q\(quality) prog \(progressive) accurate \(accurate)")
                        }
                    }
                }
            }
        }
    }

    /// I420 planes in TurboJPEG's YUV geometry (plane sizes padded to the MCU sampling): the
    /// padding column and row repeat the last ones, as the encoder does for our planes.
    static func tjCompressI420(_ y: [UInt8], _ u: [UInt8], _ v: [UInt8], width w: Int, height h: Int,
                               gray: Bool, quality: Int, flags: Int32) -> [UInt8] {
        func padded(_ p: [UInt8], _ pw: Int, _ ph: Int, _ tw: Int, _ th: Int) -> [UInt8] {
            var out: [UInt8] = []
            for r in 0..<th {
                let row = Array(p[(min(r, ph - 1) * pw)..<(min(r, ph - 1) * pw + pw)])
                out += row + [UInt8](repeating: row[pw - 1], count: tw - pw)
            }
            return out
        }
        let samp = gray ? TJSAMP_GRAY : TJSAMP_420
        let yw = Int(tjPlaneWidth(0, Int32(w), Int32(samp.rawValue))), yh = Int(tjPlaneHeight(0, Int32(h), Int32(samp.rawValue)))
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let py = padded(y, w, h, yw, yh), pu = padded(u, cw, ch, cw, ch), pv = padded(v, cw, ch, cw, ch)
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let strides: [Int32] = [Int32(yw), Int32(cw), Int32(cw)]
        let rc = py.withUnsafeBufferPointer { yp in pu.withUnsafeBufferPointer { up in pv.withUnsafeBufferPointer { vp in
            var planes: [UnsafePointer<UInt8>?] = [yp.baseAddress, up.baseAddress, vp.baseAddress]
            return tjCompressFromYUVPlanes(handle, &planes, Int32(w), strides, Int32(h), Int32(samp.rawValue), &out, &size, Int32(quality), flags)
        } } }
        precondition(rc == 0, String(cString: tjGetErrorStr2(handle)))
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    @Test("I420 and NV12 planes: the same bytes as tjCompressFromYUVPlanes (4:2:0, and gray from Y)")
    func matchesTJCompressFromYUV() throws {
        for (w, h) in [(1, 1), (2, 3), (17, 9), (64, 48), (129, 67)] {
            let jpeg = JPEGFixtures.photo(width: w, height: h)
            let i420 = try JPEG.decode(jpeg, format: .i420)
            let nv12 = try JPEG.decode(jpeg, format: .nv12)
            let (y, u, v) = (JPEGFixtures.packed(i420, plane: 0), JPEGFixtures.packed(i420, plane: 1), JPEGFixtures.packed(i420, plane: 2))
            for (sub, gray) in [(JPEG.Subsampling.s420, false), (.gray, true)] {
                for quality in [75, 97] {
                    for progressive in [false, true] {
                        let options = JPEG.EncodeOptions(quality: quality, subsampling: sub, progressive: progressive)
                        let fromI420 = try JPEG.encode(i420, options: options)
                        let fromNV12 = try JPEG.encode(nv12, options: options)
                        let theirs = Self.tjCompressI420(y, u, v, width: w, height: h, gray: gray, quality: quality,
                                                         flags: progressive ? Int32(TJFLAG_PROGRESSIVE) : 0)
                        #expect(byteDiff(fromI420, theirs) == "", "\(w)x\(h) I420 \(sub) q\(quality) prog \(progressive)")
                        #expect(byteDiff(fromNV12, fromI420) == "", "\(w)x\(h) NV12 \(sub) q\(quality) prog \(progressive)")
                    }
                }
            }
        }
    }

    @Test("NV12 encode: the vector de-interleave gives the scalar path's bytes")
    func nv12Paths() throws {
        let nv12 = try JPEG.decode(JPEGFixtures.photo(width: 333, height: 211), format: .nv12)
        let scalar = try ProcessSettings.with(cpuMask: 0) { try JPEG.encode(nv12) }
        let sse2 = try ProcessSettings.with(cpuMask: UInt32(IC_CPU_SSE2.rawValue)) { try JPEG.encode(nv12) }
        let all = try ProcessSettings.with(cpuMask: UInt32.max) { try JPEG.encode(nv12) }
        #expect(sse2 == scalar && all == scalar)
    }

    @Test("round trips stay within PSNR bounds; Huffman optimisation and progression change no pixel")
    func roundTrip() throws {
        let (w, h) = (640, 480)
        let image = try SyntheticImage.photo(width: w, height: h, format: .rgb8)
        let original = JPEGFixtures.packed(image, plane: 0)
        var previous = 0.0
        for quality in [50, 75, 90, 100] {
            let baseline = try JPEG.encode(image, options: .init(quality: quality, subsampling: .s444))
            let decoded = JPEGFixtures.packed(try JPEG.decode(baseline, format: .rgb8), plane: 0)
            let p = JPEGFixtures.psnr(original, decoded)
            #expect(p > previous, "quality \(quality): PSNR \(p) dB not above \(previous) dB")
            previous = p
            // Lossless re-codings of the same coefficients decode to the same pixels.
            for options in [JPEG.EncodeOptions(quality: quality, subsampling: .s444, optimizeHuffman: true),
                            .init(quality: quality, subsampling: .s444, progressive: true)] {
                let other = try JPEG.encode(image, options: options)
                #expect(JPEGFixtures.packed(try JPEG.decode(other, format: .rgb8), plane: 0) == decoded)
                #expect(other.count < baseline.count, "optimised tables make a smaller file")
            }
        }
        // Bounds with margin below what libjpeg-turbo 2.1.5 gives on this image: 4:4:4 q50 33.4 dB,
        // q100 51.5 dB; 4:2:0 q85 (the bench setting) 33.5 dB; luma through q90 38.7 dB.
        let q85 = try JPEG.encode(image, options: .init(quality: 85))
        #expect(JPEGFixtures.psnr(original, JPEGFixtures.packed(try JPEG.decode(q85, format: .rgb8), plane: 0)) > 30)
        #expect(previous > 40) // q100 4:4:4

        // YUV in, YUV out.
        let yuv = try JPEG.decode(JPEG.encode(image, options: .init(quality: 100, subsampling: .s420)), format: .i420)
        let again = try JPEG.decode(JPEG.encode(yuv, options: .init(quality: 90)), format: .i420)
        #expect(JPEGFixtures.psnr(JPEGFixtures.packed(yuv, plane: 0), JPEGFixtures.packed(again, plane: 0)) > 36)
    }

    @Test("EXIF orientation: written in a minimal APP1, read back by the probe and by decode")
    func orientation() throws {
        var image = try SyntheticImage.photo(width: 48, height: 32)
        for o in Orientation.allCases {
            let jpeg = try JPEG.encode(image, options: .init(orientation: o))
            let info = try JPEG.info(jpeg)
            #expect(info.hasEXIF && info.orientation == o)
            #expect(try JPEG.decode(jpeg).orientation == o)
            // Pixels are as without the tag.
            #expect(JPEGFixtures.packed(try JPEG.decode(jpeg), plane: 0) == JPEGFixtures.packed(try JPEG.decode(JPEG.encode(image)), plane: 0))
        }
        #expect(try !JPEG.info(JPEG.encode(image)).hasEXIF)
        image.orientation = .left
        #expect(try JPEG.info(JPEG.encode(image)).orientation == .left) // nil writes the image's own
    }

    @Test("destinations: caller buffer (bound, exact, too small), callback, growing buffer")
    func destinations() throws {
        let image = try SyntheticImage.photo(width: 300, height: 200)
        let options = JPEG.EncodeOptions(quality: 90, restartInterval: 4, orientation: .down)
        let reference = try JPEG.encode(image, options: options)
        #expect(try JPEG.info(reference).restartInterval == 4)
        let bound = try JPEG.encodeBound(width: 300, height: 200, options: options)
        #expect(bound >= reference.count)
        for capacity in [bound, reference.count, reference.count - 1, 100, 0] {
            let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity + 16, alignment: 16)
            defer { raw.deallocate() }
            raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
            do {
                let n = try JPEG.encode(image, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<capacity]), options: options)
                #expect(capacity >= reference.count && Array(raw[0..<n]) == reference)
            } catch {
                #expect(capacity < reference.count && error.code == .bufferTooSmall, "\(capacity) bytes")
            }
            #expect(raw[capacity...].allSatisfy { $0 == 0xEE }, "nothing written past the buffer")
        }
        // The growing buffer (caller frees) and a callback that stops the encode.
        var o = ic_jpeg_encode_options()
        o.quality = 90; o.restart_interval = 4; o.orientation = 3
        image.withUnsafeImage { src in
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            #expect(ic_jpeg_encode_alloc(src, &o, &out, &size) == IC_OK)
            #expect(Array(UnsafeBufferPointer(start: out, count: size)) == reference)
            ic_jpeg_free(out)
            var calls = 0
            let st = withUnsafeMutablePointer(to: &calls) { counter in
                ic_jpeg_encode_to(src, &o, { ctx, _, _ in
                    ctx!.assumingMemoryBound(to: Int.self).pointee += 1
                    return IC_ERR_IO
                }, counter, nil)
            }
            #expect(st == IC_ERR_IO && calls == 1)
            var badQuality = o
            badQuality.quality = 101
            #expect(ic_jpeg_encode_alloc(src, &badQuality, &out, &size) == IC_ERR_INVALID_ARGUMENT && out == nil)
        }
    }

    @Test("subsamplings the input cannot give, and bad options, are refused")
    func refused() throws {
        let gray = try SyntheticImage.photo(width: 16, height: 16, format: .gray8)
        let i420 = try JPEG.decode(JPEGFixtures.photo(width: 16, height: 16), format: .i420)
        for sub in [JPEG.Subsampling.s444, .s420] {
            do { _ = try JPEG.encode(gray, options: .init(subsampling: sub)); Issue.record("gray \(sub)") }
            catch { #expect(error.code == .unsupported) }
        }
        for sub in [JPEG.Subsampling.s444, .s422, .s440, .s411] {
            do { _ = try JPEG.encode(i420, options: .init(subsampling: sub)); Issue.record("i420 \(sub)") }
            catch { #expect(error.code == .unsupported) }
        }
        for options in [JPEG.EncodeOptions(quality: 0), .init(quality: 101), .init(subsampling: .unknown), .init(restartInterval: -1)] {
            do { _ = try JPEG.encode(gray, options: options); Issue.record("\(options)") }
            catch { #expect(error.code == .invalidArgument) }
        }
    }
}
