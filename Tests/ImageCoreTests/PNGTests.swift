import CImageCore
import CSpng
import Testing
@testable import ImageCore

/// The PNG codec against Pillow-written fixtures (every colour type and bit depth, tRNS,
/// palette, Adam7) and against libspng's own whole-image decode; streams, encode round trips.
@Suite("PNG codec")
struct PNGTests {
    static let formats: [(PixelFormat, ic_format)] = [(.rgba8, IC_FORMAT_RGBA8), (.rgb8, IC_FORMAT_RGB8), (.gray8, IC_FORMAT_GRAY8)]

    @Test("probe: size, colour type, bit depth, interlace, tRNS, iCCP, eXIf", arguments: PNGFixtures.names)
    func probe(name: String) throws {
        let info = try PNG.info(try PNGFixtures.bytes(name))
        #expect(info.width == PNGFixtures.width && info.height == PNGFixtures.height)
        let depth = name.contains("16") ? 16 : name.hasPrefix("gray1") ? 1 : name.hasPrefix("gray2") ? 2
            : name.hasPrefix("gray4") || name.hasPrefix("palette4") ? 4 : 8
        #expect(info.bitDepth == depth)
        let type: PNG.ColorType = name.hasPrefix("graya") ? .grayAlpha : name.hasPrefix("gray") ? .gray
            : name.hasPrefix("rgba") ? .rgba : name.hasPrefix("palette") ? .palette : .rgb
        #expect(info.colorType == type)
        #expect(info.isInterlaced == name.contains("adam7"))
        #expect(info.hasTransparencyChunk == name.contains("trns"))
        #expect(info.hasAlpha == (name.contains("trns") || type == .grayAlpha || type == .rgba))
        #expect(info.hasEXIF == name.contains("exif"))
        #expect(info.orientation == (name.contains("exif6") ? .right : .up))
        #expect(info.hasICCProfile == name.contains("icc"))
        if name.contains("icc") {
            let expected = try PNGFixtures.bytes(name, "icc")
            #expect(info.iccProfileSize == expected.count)
            #expect(try PNG.iccProfile(try PNGFixtures.bytes(name)) == expected)
        } else {
            #expect(try PNG.iccProfile(try PNGFixtures.bytes(name)) == nil)
        }
    }

    @Test("decode to RGBA8 / RGB8 / GRAY8 equals the script's expected pixels and libspng's own decode",
          arguments: PNGFixtures.names)
    func decodeFixtures(name: String) throws {
        let png = try PNGFixtures.bytes(name)
        let expected = try PNGFixtures.expectedRGBA(name)
        let spng = try #require(PNGFixtures.spngReference(png))
        #expect(byteDiff(spng, expected) == "", "libspng's own decode vs the script's samples")
        for (format, cformat) in Self.formats {
            let (status, pixels, result) = PNGFixtures.decodeGuarded(png, format: cformat)
            #expect(status == IC_OK, "\(name) \(format)")
            #expect(result.warnings == 0)
            #expect(byteDiff(pixels, PNGFixtures.reduce(expected, to: format)) == "", "\(name) \(format)")
        }
        // Through Swift: orientation and alpha mode.
        let image = try PNG.decode(png, format: .rgba8)
        #expect(image.orientation == (name.contains("exif6") ? .right : .up))
        let alpha = name.contains("trns") || name.hasPrefix("graya") || name.hasPrefix("rgba")
        #expect(image.alphaMode == (alpha ? .straight : .opaque))
        #expect(JPEGFixtures.packed(image, plane: 0) == expected)
    }

    @Test("16-bit rounding: 128 -> 0, 129 -> 1, 65535 -> 255 (libspng alone would truncate)")
    func rounding() throws {
        let gray = try PNG.decode(try PNGFixtures.bytes("gray16"), format: .gray8)
        let first = JPEGFixtures.packed(gray, plane: 0).prefix(4)
        #expect(Array(first) == [0, 0, 1, 255])
        let rgb = try PNG.decode(try PNGFixtures.bytes("rgb16"), format: .rgb8)
        #expect(Array(JPEGFixtures.packed(rgb, plane: 0).prefix(3)) == [0, 1, 255])
    }

    @Test("stream: bands concatenate to the whole decode; bands of 1, 4 and more rows than the image")
    func stream() throws {
        for name in PNGFixtures.names where !name.contains("adam7") {
            let png = try PNGFixtures.bytes(name)
            for (format, _) in Self.formats {
                let whole = JPEGFixtures.packed(try PNG.decode(png, format: format), plane: 0)
                for bandRows in [1, 4, 64] {
                    var rows: [UInt8] = []
                    var next = 0
                    let report = try PNG.decodeStream(png, format: format, options: .init(bandRows: bandRows)) { band in
                        #expect(band.firstRow == next)
                        #expect(band.rowCount <= bandRows)
                        next += band.rowCount
                        let g = band.plane(0)
                        band.withPlane(0) { span in
                            for y in 0..<g.rows { for x in 0..<g.rowBytes { rows.append(span[y * g.stride + x]) } }
                        }
                    }
                    #expect(next == PNGFixtures.height)
                    #expect(report.orientation == (name.contains("exif6") ? .right : .up))
                    #expect(rows == whole, "\(name) \(format) bands of \(bandRows)")
                }
            }
        }
    }

    @Test("stream: Adam7 is refused (unsupported); a consumer's error stops the decode and is rethrown")
    func streamRefusals() throws {
        let adam7 = try PNGFixtures.bytes("rgb8-adam7")
        let refused = #expect(throws: ImageError.self) { try PNG.decodeStream(adam7) { _ in } }
        #expect(refused?.code == .unsupported)
        let rgb8 = try PNGFixtures.bytes("rgb8")
        let thrown = #expect(throws: ImageError.self) {
            try PNG.decodeStream(rgb8) { (_: borrowing PNG.Band) throws(ImageError) in throw ImageError(.io, "consumer") }
        }
        #expect(thrown == ImageError(.io, "consumer"))
        var status = ic_png_decode_stream(nil, 0, nil, nil, nil, nil)
        #expect(status == IC_ERR_INVALID_ARGUMENT)
        var o = ic_png_decode_options()
        o.format = IC_FORMAT_NV12
        let png = try PNGFixtures.bytes("rgb8")
        status = ic_png_decode_stream(png, png.count, &o, { _, _, _ in 0 }, nil, nil)
        #expect(status == IC_ERR_UNSUPPORTED)
    }

    @Test("destination size and format are checked")
    func destinationChecks() throws {
        let png = try PNGFixtures.bytes("rgb8")
        var small = try PixelBuffer(width: 12, height: 11, format: .rgb8)
        let e1 = #expect(throws: ImageError.self) { try PNG.decode(png, into: &small) }
        #expect(e1?.code == .bufferTooSmall)
        #expect(e1?.detail == "destination 12x11 is smaller than the 13x11 image")
        var large = try PixelBuffer(width: 13, height: 12, format: .rgb8)
        let e2 = #expect(throws: ImageError.self) { try PNG.decode(png, into: &large) }
        #expect(e2?.code == .invalidArgument)
        var yuv = try PixelBuffer(width: 13, height: 11, format: .nv12)
        let e3 = #expect(throws: ImageError.self) { try PNG.decode(png, into: &yuv) }
        #expect(e3?.code == .unsupported)
    }

    @Test("encode: every format, level and filter set decodes back (libspng's own decode) to the source")
    func encodeRoundTrip() throws {
        for (format, _) in Self.formats {
            for name in ["rgba8", "rgb16", "palette8-trns", "graya8"] {
                let source = try PNG.decode(try PNGFixtures.bytes(name), format: format)
                let pixels = JPEGFixtures.packed(source, plane: 0)
                for (level, filters) in [(6, PNG.Filters.all), (0, .all), (1, .none), (9, .paeth), (3, [.sub, .up, .average])] {
                    let png = try PNG.encode(source, options: .init(compressionLevel: level, filters: filters))
                    let info = try PNG.info(png)
                    #expect(info.bitDepth == 8)
                    #expect(info.colorType == (format == .rgba8 ? .rgba : format == .rgb8 ? .rgb : .gray))
                    let back = try #require(PNGFixtures.spngReference(png))
                    #expect(PNGFixtures.reduce(back, to: format) == pixels, "\(name) \(format) level \(level)")
                    let ours = try PNG.decode(png, format: format)
                    #expect(JPEGFixtures.packed(ours, plane: 0) == pixels)
                }
            }
        }
    }

    @Test("encode: level 0 stores (output larger than the raw rows), level 9 compresses a smooth image")
    func levels() throws {
        var ramp = try PixelBuffer(width: 200, height: 100, format: .gray8)
        ramp.withMutablePlane(0) { span in for i in span.indices { span[i] = UInt8(i % 200) } }
        let stored = try PNG.encode(ramp, options: .init(compressionLevel: 0))
        let packed = try PNG.encode(ramp, options: .init(compressionLevel: 9))
        #expect(stored.count > 201 * 100)
        #expect(packed.count < 2000)
    }

    @Test("encode into a caller buffer: the bound suffices; one byte short is bufferTooSmall with nothing written past it")
    func encodeBuffer() throws {
        let source = try PNGFixtures.noise(width: 61, height: 37, seed: 3)
        let options = PNG.EncodeOptions(compressionLevel: 0)
        let bound = try PNG.encodeBound(width: 61, height: 37, format: .rgb8, options: options)
        let reference = try PNG.encode(source, options: options)
        #expect(bound >= reference.count)
        var buffer = [UInt8](repeating: 0xEE, count: bound + 16)
        let n = try buffer.withUnsafeMutableBytes { raw in
            try PNG.encode(source, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<bound]), options: options)
        }
        #expect(Array(buffer[0..<n]) == reference)
        buffer = [UInt8](repeating: 0xEE, count: reference.count + 16)
        #expect(throws: ImageError.self) {
            _ = try buffer.withUnsafeMutableBytes { raw in
                try PNG.encode(source, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(reference.count - 1)]), options: options)
            }
        }
        #expect(buffer[(reference.count - 1)...].allSatisfy { $0 == 0xEE })
        // The malloc'd variant gives the same bytes.
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var o = ic_png_encode_options()
        o.compression_level = -1
        o.filters = UInt32(IC_PNG_FILTER_ALL.rawValue) // as the Swift options pass it
        let status = source.withUnsafeImage { ic_png_encode_alloc($0, &o, &out, &size) }
        #expect(status == IC_OK)
        #expect(byteDiff(Array(UnsafeBufferPointer(start: out, count: size)), reference) == "")
        ic_png_free(out)
    }

    @Test("encode: orientation goes into eXIf and reads back; premultiplied and YUV input are refused")
    func encodeMetadataAndRefusals() throws {
        var image = try PNG.decode(try PNGFixtures.bytes("rgba8"), format: .rgba8)
        image.orientation = .left
        let png = try PNG.encode(image)
        let info = try PNG.info(png)
        #expect(info.hasEXIF && info.orientation == .left)
        #expect(try PNG.decode(png).orientation == .left)
        #expect(try PNG.info(try PNG.encode(image, options: .init(orientation: .up))).orientation == .up)
        image.alphaMode = .premultiplied
        #expect(throws: ImageError.self) { _ = try PNG.encode(image) }
        let yuv = try PixelBuffer(width: 4, height: 4, format: .i420)
        #expect(throws: ImageError.self) { _ = try PNG.encode(yuv) }
        #expect(throws: ImageError.self) { _ = try PNG.encode(image, options: .init(compressionLevel: 10)) }
    }

    @Test("large odd image with many IDAT chunks: decode equals the source, stream too, with 16 KB of scratch at most per row")
    func largeImage() throws {
        let source = try PNGFixtures.noise(width: 1001, height: 257, seed: 9)
        let png = try PNG.encode(source, options: .init(compressionLevel: 1))
        #expect(PNGFixtures.chunks(png).filter { $0.type == "IDAT" }.count > 10)
        let pixels = JPEGFixtures.packed(source, plane: 0)
        #expect(JPEGFixtures.packed(try PNG.decode(png, format: .rgb8), plane: 0) == pixels)
        let (bytes, usage) = try PixelAllocator.measure { try PNG.decode(png, format: .rgb8).byteCount }
        #expect(usage.peakBytes == bytes, "the decode allocates its output and nothing else")
    }

    @Test("PNG thumbnail: streamed bytes equal a one-shot resize of the whole decode; pixel memory is the thumbnail and the resizer's scratch")
    func thumbnail() throws {
        let source = try PNGFixtures.noise(width: 1203, height: 801, seed: 21)
        let png = try PNG.encode(source, options: .init(compressionLevel: 1))
        let whole = try PNG.decode(png, format: .rgba8)
        var expected = try PixelBuffer(width: 256, height: 170, format: .rgba8, alphaMode: .opaque)
        try whole.resize(into: &expected)
        let ((bytes, size), usage) = try PixelAllocator.measure { () throws -> ([UInt8], Int) in
            let t = try Thumbnailer.thumbnail(png: png, maxWidth: 256, maxHeight: 256)
            #expect(t.image.width == 256 && t.image.height == 170)
            return (JPEGFixtures.packed(t.image, plane: 0), t.image.byteCount)
        }
        #expect(bytes == JPEGFixtures.packed(expected, plane: 0))
        // The 1203 x 801 decode (3.9 MB) never exists: the peak is the thumbnail plus the
        // resizer's ring and tables, under a quarter of a megabyte here.
        #expect(usage.peakBytes < size + 256 * 1024, "\(usage)")
        // eXIf orientation 6 is applied (13 x 11 stored -> 11 x 13 upright), interlaced files too.
        let turned = try Thumbnailer.thumbnail(png: try PNGFixtures.bytes("rgb8-exif6"), maxWidth: 100, maxHeight: 100)
        #expect(turned.image.width == 11 && turned.image.height == 13 && turned.orientation == .right)
        let upright = try PNG.decode(try PNGFixtures.bytes("rgb8-exif6"), format: .rgba8).upright()
        #expect(JPEGFixtures.packed(turned.image, plane: 0) == JPEGFixtures.packed(upright, plane: 0))
        let interlaced = try Thumbnailer.thumbnail(png: try PNGFixtures.bytes("rgba16-adam7"), maxWidth: 5, maxHeight: 5)
        #expect(interlaced.image.width == 5 && interlaced.image.alphaMode == .straight)
    }
}
