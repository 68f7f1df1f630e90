import CImageCore
import CTurboJPEG
import Testing
@testable import ImageCore

/// Crop decodes equal the same rectangle of a full decode; streamed bands put together equal a
/// full decode.
@Suite("JPEG decode: crop and stream")
struct JPEGCropStreamTests {
    /// Rectangles touching every edge and corner, single pixels at the corners, thin strips,
    /// and rectangles starting just before and after iMCU boundaries.
    static func rects(_ W: Int, _ H: Int) -> [(Int, Int, Int, Int)] {
        var r: [(Int, Int, Int, Int)] = [
            (0, 0, W, H), (0, 0, 1, 1), (W - 1, 0, 1, 1), (0, H - 1, 1, 1), (W - 1, H - 1, 1, 1),
            (0, 0, W, 1), (0, H - 1, W, 1), (0, 0, 1, H), (W - 1, 0, 1, H),
            (0, 0, W / 2, H / 2), (W / 2, 0, W - W / 2, H / 2), (0, H / 2, W / 2, H - H / 2), (W / 2, H / 2, W - W / 2, H - H / 2),
            (1, 1, W - 2, H - 2), (W / 3, H / 3, W / 3, H / 3),
        ]
        for b in [8, 15, 16, 17, 31, 32, 33] where b < W - 1 && b < H - 1 {
            r.append((b, b, W - b, H - b))
            r.append((b, b, 1, 1))
            r.append((0, b, W, 2))
        }
        return r.filter { $0.2 >= 1 && $0.3 >= 1 && $0.0 + $0.2 <= W && $0.1 + $0.3 <= H }
    }

    @Test("RGBA/RGB/gray crops at every scale equal the full decode's rectangle")
    func cropEqualsFullDecode() throws {
        for s in [TJSAMP_420, TJSAMP_422, TJSAMP_440, TJSAMP_444, TJSAMP_GRAY] {
            for progressive in [false, true] {
                let jpeg = JPEGFixtures.photo(width: 101, height: 77, subsampling: s, progressive: progressive)
                for m in 1...8 {
                    let (W, H) = try JPEG.scaledSize(width: 101, height: 77, eighths: m)
                    for (format, channels) in [(IC_FORMAT_RGBA8, 4), (IC_FORMAT_GRAY8, 1)] {
                        for flags in [UInt32(0), UInt32(IC_JPEG_FAST_UPSAMPLE.rawValue)] {
                            let full = JPEGFixtures.decodeGuarded(jpeg, format: format, options: JPEGFixtures.options(scale: m, flags: flags))
                            #expect(full.status == IC_OK)
                            for (x, y, w, h) in Self.rects(W, H) {
                                let got = JPEGFixtures.decodeGuarded(jpeg, format: format,
                                                                     options: JPEGFixtures.options(scale: m, crop: (x, y, w, h), flags: flags))
                                #expect(got.status == IC_OK && got.result.width == w && got.result.height == h)
                                let want = JPEGFixtures.subRect(full.planes[0], rowWidth: W, channels: channels, x: x, y: y, w: w, h: h)
                                #expect(byteDiff(got.planes[0], want) == "",
                                        "samp \(s.rawValue) prog \(progressive) \(m)/8 fmt \(format.rawValue) flags \(flags) crop \(x),\(y) \(w)x\(h)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("random crops of a larger photo (fixed seed), RGB, every scale")
    func randomCrops() throws {
        let jpeg = JPEGFixtures.photo(width: 640, height: 480, quality: 80)
        var rng = SplitMix64(seed: 42)
        for m in 1...8 {
            let (W, H) = try JPEG.scaledSize(width: 640, height: 480, eighths: m)
            let full = try #require(JPEGFixtures.tjDecode(jpeg, width: W, height: H, pf: TJPF_RGB))
            for _ in 0..<12 {
                let w = 1 + Int(rng.next() % UInt64(W)), h = 1 + Int(rng.next() % UInt64(H))
                let x = Int(rng.next() % UInt64(W - w + 1)), y = Int(rng.next() % UInt64(H - h + 1))
                let image = try JPEG.decode(jpeg, format: .rgb8, options: .init(scale: .eighths(m), crop: .init(x: x, y: y, width: w, height: h)))
                #expect(image.width == w && image.height == h)
                #expect(byteDiff(JPEGFixtures.packed(image, plane: 0), JPEGFixtures.subRect(full, rowWidth: W, channels: 3, x: x, y: y, w: w, h: h)) == "",
                        "\(m)/8 crop \(x),\(y) \(w)x\(h)")
            }
        }
    }

    @Test("crops outside the output, empty or with an offset but no size are refused")
    func badCrops() throws {
        let jpeg = JPEGFixtures.photo(width: 40, height: 30)
        let bad: [(Int32, Int32, Int32, Int32)] = [(0, 0, 41, 30), (1, 0, 40, 30), (0, 0, 40, 31), (39, 29, 2, 1), (-1, 0, 5, 5), (5, 5, 0, 0), (0, 0, 0, 5)]
        for (x, y, w, h) in bad {
            var o = ic_jpeg_decode_options()
            o.crop_x = x; o.crop_y = y; o.crop_width = w; o.crop_height = h
            var rw: Int32 = 0, rh: Int32 = 0
            #expect(ic_jpeg_decode_size(jpeg, jpeg.count, &o, &rw, &rh, nil) == IC_ERR_INVALID_ARGUMENT, "\(x),\(y) \(w)x\(h)")
        }
        // At 1/2 the output is 20x15: a crop valid at full size is outside it.
        do { _ = try JPEG.decode(jpeg, options: .init(scale: .eighths(4), crop: .init(x: 10, y: 0, width: 20, height: 5))); Issue.record("accepted") }
        catch { #expect(error.code == .invalidArgument) }
    }

    /// Streams `jpeg` and reassembles the bands into packed planes, checking the band sequence.
    static func reassemble(_ jpeg: [UInt8], format: PixelFormat, options: JPEG.DecodeOptions) throws -> [[UInt8]] {
        var planes = [[UInt8]](repeating: [], count: format.planeCount)
        var next = 0
        try JPEG.decodeStream(jpeg, format: format, options: options) { band throws(ImageError) in
            #expect(band.firstRow == next)
            #expect(band.rowCount >= 1 && band.rowCount <= options.bandRows + 1)
            if format.isYUV { #expect(band.firstRow % 2 == 0) }
            next += band.rowCount
            for p in 0..<band.planeCount {
                let g = band.plane(p)
                band.withPlane(p) { span in
                    span.withUnsafeBufferPointer { b in
                        for y in 0..<g.rows { planes[p] += b[(y * g.stride)..<(y * g.stride + g.rowBytes)] }
                    }
                }
            }
        }
        return planes
    }

    @Test("streamed bands of 1…1000 rows reassemble to the full decode, every format, with scale and crop")
    func streamEqualsDecode() throws {
        for s in [TJSAMP_420, TJSAMP_444, TJSAMP_GRAY] {
            let jpeg = JPEGFixtures.photo(width: 93, height: 71, subsampling: s, progressive: s == TJSAMP_444)
            for format in [PixelFormat.rgba8, .rgb8, .gray8, .i420, .nv12] {
                for (scale, crop) in [(8, nil), (3, nil), (8, PixelRect(x: 10, y: 6, width: 51, height: 33)), (5, PixelRect(x: 2, y: 4, width: 41, height: 31))] {
                    let options = JPEG.DecodeOptions(scale: .eighths(scale), crop: crop)
                    let full = try JPEG.decode(jpeg, format: format, options: options)
                    let want = (0..<full.planeCount).map { JPEGFixtures.packed(full, plane: $0) }
                    for rows in [1, 2, 7, 16, 1000] {
                        var o = options
                        o.bandRows = rows
                        let got = try Self.reassemble(jpeg, format: format, options: o)
                        #expect(got == want, "samp \(s.rawValue) \(format) \(scale)/8 crop \(String(describing: crop)) band \(rows)")
                    }
                }
            }
        }
    }

    @Test("a consumer can stop the stream: C callback → cancelled; a Swift error is rethrown")
    func cancel() throws {
        let jpeg = JPEGFixtures.photo(width: 64, height: 64)
        var o = ic_jpeg_decode_options()
        o.band_rows = 8
        var calls = 0
        let st = withUnsafeMutablePointer(to: &calls) { counter in
            ic_jpeg_decode_stream(jpeg, jpeg.count, &o, { ctx, _, _ in
                let c = ctx!.assumingMemoryBound(to: Int.self)
                c.pointee += 1
                return c.pointee == 2 ? 1 : 0
            }, counter, nil)
        }
        #expect(st == IC_ERR_CANCELLED && calls == 2)

        var seen = 0
        do {
            try JPEG.decodeStream(jpeg, format: .nv12, options: .init(bandRows: 16)) { band throws(ImageError) in
                seen += 1
                if band.firstRow >= 16 { throw ImageError(.io, "consumer full") }
            }
            Issue.record("not stopped")
        } catch {
            #expect(error == ImageError(.io, "consumer full") && seen == 2)
        }
    }

    @Test("streaming holds one band, never the image")
    func streamMemory() throws {
        let jpeg = JPEGFixtures.photo(width: 300, height: 200)
        let (_, usage) = try PixelAllocator.measure { () throws(ImageError) in
            try JPEG.decodeStream(jpeg, format: .rgba8, options: .init(bandRows: 16)) { _ throws(ImageError) in }
        }
        #expect(usage.peakBytes == 0) // the band lives in the decoder's bounded scratch
        // The same through a span of the bytes.
        var rows = 0
        try JPEG.decodeStream(jpeg.span.bytes, format: .gray8) { band throws(ImageError) in rows += band.rowCount }
        let size = try JPEG.decodedSize(jpeg.span.bytes)
        #expect(rows == 200 && size == (300, 200))
    }
}
