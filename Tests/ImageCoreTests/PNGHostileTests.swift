import CImageCore
import Testing
@testable import ImageCore

/// Hostile PNGs: every refusal is a typed error before any pixel memory is allocated
/// (PixelAllocator counts the Swift decode's buffer), recoverable damage is a warning.
@Suite("PNG hostile input")
struct PNGHostileTests {
    /// Runs the probe and both decodes; returns the C statuses and the pixel bytes the Swift
    /// new-buffer decode allocated.
    static func refuse(_ png: [UInt8], strict: Bool = false) -> (probe: ic_status, decode: ic_status, stream: ic_status, pixelBytes: Int) {
        var info = ic_png_info()
        let probe = ic_png_probe(png, png.count, &info)
        var o = ic_png_decode_options()
        o.flags = strict ? UInt32(IC_PNG_STRICT.rawValue) : 0
        // The header's size when it is small enough to allocate here, else 8 x 8 (refused anyway).
        let small = probe == IC_OK && info.width <= 4096 && info.height <= 4096
        let decode = PNGFixtures.decodeGuarded(png, format: IC_FORMAT_RGBA8, options: o, width: small ? Int(info.width) : 8,
                                               height: small ? Int(info.height) : 8).status
        o.format = IC_FORMAT_RGB8
        let stream = ic_png_decode_stream(png, png.count, &o, { _, _, _ in 0 }, nil, nil)
        let (_, usage) = PixelAllocator.measure { _ = try? PNG.decode(png, options: .init(strict: strict)).byteCount }
        return (probe, decode, stream, usage.peakBytes)
    }

    @Test("empty, not PNG, signature only, header cut short: corrupt data, nothing allocated")
    func notPNG() throws {
        let rgb = try PNGFixtures.bytes("rgb8")
        for bytes in [[], Array("not a png at all".utf8), PNGFixtures.signature, Array(rgb[0..<20]), Array(rgb[0..<33])] {
            let r = Self.refuse(bytes)
            #expect(r.probe == IC_ERR_CORRUPT_DATA && r.decode == IC_ERR_CORRUPT_DATA && r.stream == IC_ERR_CORRUPT_DATA, "\(bytes.count) bytes \(r)")
            #expect(r.pixelBytes == 0)
        }
        var info = ic_png_info()
        #expect(ic_png_probe(nil, 1, &info) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_png_probe(rgb, rgb.count, nil) == IC_ERR_INVALID_ARGUMENT)
    }

    @Test("bad CRC: IHDR corrupt data; IDAT (after the pixels) a warning; an ancillary chunk dropped; strict: errors")
    func badCRC() throws {
        let rgb = try PNGFixtures.bytes("rgb8-exif6")
        let chunks = PNGFixtures.chunks(rgb)
        var ihdrBad = rgb
        ihdrBad[chunks[0].data.upperBound] ^= 0xFF // IHDR's first CRC byte
        let r = Self.refuse(ihdrBad)
        #expect(r.probe == IC_ERR_CORRUPT_DATA && r.decode == IC_ERR_CORRUPT_DATA && r.stream == IC_ERR_CORRUPT_DATA, "\(r)")
        #expect(r.pixelBytes == 0)
        // IDAT's CRC is read after the last row (zlib's Adler-32 has vouched for the pixels): a
        // warning with every pixel decoded; strict: an error.
        var idatBad = rgb
        let idat = try #require(chunks.first { $0.type == "IDAT" })
        idatBad[idat.data.upperBound] ^= 0xFF
        let warned = PNGFixtures.decodeGuarded(idatBad, format: IC_FORMAT_RGBA8)
        #expect(warned.status == IC_OK && warned.result.warnings == 1)
        #expect(warned.pixels == (try PNGFixtures.expectedRGBA("rgb8-exif6")))
        var strict = ic_png_decode_options()
        strict.flags = UInt32(IC_PNG_STRICT.rawValue)
        #expect(PNGFixtures.decodeGuarded(idatBad, format: IC_FORMAT_RGBA8, options: strict).status == IC_ERR_CORRUPT_DATA)
        var bad = rgb
        let exif = try #require(chunks.first { $0.type == "eXIf" })
        bad[exif.data.upperBound] ^= 0xFF
        let lenient = PNGFixtures.decodeGuarded(bad, format: IC_FORMAT_RGBA8)
        #expect(lenient.status == IC_OK)
        #expect(lenient.pixels == (try PNGFixtures.expectedRGBA("rgb8-exif6")))
        var o = ic_png_decode_options()
        o.flags = UInt32(IC_PNG_STRICT.rawValue)
        #expect(PNGFixtures.decodeGuarded(bad, format: IC_FORMAT_RGBA8, options: o).status == IC_ERR_CORRUPT_DATA)
    }

    @Test("huge IHDR: 65535 x 65535 is too large for the pixel limit, 100000 wide beyond the dimension limit, 0 wide corrupt")
    func hugeHeader() throws {
        let idat = PNGFixtures.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let big = PNGFixtures.file(width: 65535, height: 65535, chunks: [idat])
        var info = ic_png_info()
        #expect(ic_png_probe(big, big.count, &info) == IC_OK)
        #expect(info.width == 65535 && info.height == 65535)
        var r = Self.refuse(big)
        #expect(r.decode == IC_ERR_TOO_LARGE && r.stream == IC_ERR_TOO_LARGE && r.pixelBytes == 0)
        r = Self.refuse(PNGFixtures.file(width: 100_000, height: 2, chunks: [idat]))
        #expect(r.probe == IC_ERR_TOO_LARGE && r.decode == IC_ERR_TOO_LARGE && r.pixelBytes == 0)
        r = Self.refuse(PNGFixtures.file(width: 0, height: 2, chunks: [idat]))
        #expect(r.probe == IC_ERR_CORRUPT_DATA && r.decode == IC_ERR_CORRUPT_DATA && r.pixelBytes == 0)
        let e = #expect(throws: ImageError.self) { _ = try PNG.decode(big) }
        #expect(e?.code == .tooLarge)
    }

    @Test("zlib bomb in iCCP (32 MiB from 33 KB) stops at the chunk limit: too large, nothing allocated")
    func iccBomb() throws {
        let stream = try PNGFixtures.zeroStream(width: 4095, rows: 8192) // 4096 x 8192 bytes inflated
        #expect(stream.count < 64 * 1024)
        let iccp = PNGFixtures.chunk("iCCP", Array("bomb".utf8) + [0, 0] + stream)
        // zlib of one RGB row: filter 0 and three zero samples.
        let idat = PNGFixtures.chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01])
        let png = PNGFixtures.file(width: 1, height: 1, chunks: [iccp, idat])
        let r = Self.refuse(png)
        #expect(r.probe == IC_ERR_TOO_LARGE && r.decode == IC_ERR_TOO_LARGE && r.stream == IC_ERR_TOO_LARGE)
        #expect(r.pixelBytes == 0)
        var size = 0
        #expect(ic_png_icc_profile(png, png.count, nil, 0, &size) == IC_ERR_TOO_LARGE)
        // A smaller cap refuses a smaller profile: the option is the cap.
        let small = PNGFixtures.chunk("iCCP", Array("p".utf8) + [0, 0] + (try PNGFixtures.zeroStream(width: 1023, rows: 64)))
        let fine = PNGFixtures.file(width: 1, height: 1, chunks: [small, idat])
        var o = ic_png_decode_options()
        #expect(PNGFixtures.decodeGuarded(fine, format: IC_FORMAT_GRAY8, options: o, width: 1, height: 1).status == IC_OK)
        o.max_memory = 32 * 1024
        #expect(PNGFixtures.decodeGuarded(fine, format: IC_FORMAT_GRAY8, options: o, width: 1, height: 1).status == IC_ERR_TOO_LARGE)
    }

    @Test("too many chunks: 1001 text chunks are too large; 1000 unknown ancillary chunks are skipped")
    func tooManyChunks() throws {
        // zlib of one gray row: filter 0 and one zero sample.
        let idat = PNGFixtures.chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
        let text = (0..<1001).map { PNGFixtures.chunk("tEXt", Array("k\($0)".utf8) + [0] + Array("v".utf8)) }
        let r = Self.refuse(PNGFixtures.file(width: 1, height: 1, colorType: 0, chunks: text + [idat]))
        #expect(r.probe == IC_ERR_TOO_LARGE && r.decode == IC_ERR_TOO_LARGE && r.pixelBytes == 0, "\(r)")
        let unknown = (0..<1000).map { _ in PNGFixtures.chunk("quUX", [1, 2, 3]) }
        let ok = PNGFixtures.file(width: 1, height: 1, colorType: 0, chunks: unknown + [idat])
        #expect(PNGFixtures.decodeGuarded(ok, format: IC_FORMAT_GRAY8, width: 1, height: 1).status == IC_OK)
    }

    @Test("truncated image data after some rows: the rows decoded, the rest 0, one warning; strict: corrupt")
    func truncated() throws {
        let source = try PNGFixtures.noise(width: 200, height: 120, seed: 5)
        let pixels = JPEGFixtures.packed(source, plane: 0)
        let png = try PNG.encode(source, options: .init(compressionLevel: 1, filters: .none))
        let idats = PNGFixtures.chunks(png).filter { $0.type == "IDAT" }
        #expect(idats.count >= 6)
        let cut = Array(png[0..<idats[idats.count * 3 / 4].offset]) // whole chunks only: the rest is missing
        var image = try PixelBuffer(width: 200, height: 120, format: .rgb8)
        let report = try PNG.decode(cut, into: &image)
        #expect(report.warnings == 1)
        #expect(report.lastWarning?.contains("set to 0") == true)
        let out = JPEGFixtures.packed(image, plane: 0)
        let rowBytes = 600
        let good = out.indices.firstIndex { out[$0] != pixels[$0] }.map { $0 / rowBytes } ?? 120
        #expect(good > 60 && good < 110, "rows decoded before the cut: \(good)")
        #expect(report.validRows == good)
        #expect(out[(good * rowBytes)...].allSatisfy { $0 == 0 })
        // The stream gives the same bytes and the same warning.
        var streamed: [UInt8] = []
        let sr = try PNG.decodeStream(cut, format: .rgb8, options: .init(bandRows: 7)) { band in
            band.withPlane(0) { span in for i in 0..<(band.rowCount * rowBytes) { streamed.append(span[i]) } }
        }
        #expect(sr.warnings == 1 && streamed == out)
        let e = #expect(throws: ImageError.self) { try PNG.decode(cut, into: &image, options: .init(strict: true)) }
        #expect(e?.code == .corruptData)
        // The data-sanity rule: a quarter of the rows is too few by default, enough with 0.
        let quarter = Array(png[0..<idats[idats.count / 4].offset])
        let e3 = #expect(throws: ImageError.self) { try PNG.decode(quarter, into: &image) }
        #expect(e3?.code == .corruptData)
        #expect(try PNG.decode(quarter, into: &image, options: .init(minValidShare: 0)).warnings == 1)
        // Cut inside the first IDAT: nothing decodable, an error.
        let early = Array(png[0..<(idats[0].offset + 20)])
        let e2 = #expect(throws: ImageError.self) { try PNG.decode(early, into: &image) }
        #expect(e2?.code == .corruptData)
        // The rule off (minValidShare 0; C: any negative permille, as the JPEG codec's): even
        // that decodes, every row 0, with one warning and no valid row.
        try image.fill([9, 9, 9])
        let off = try PNG.decode(early, into: &image, options: .init(minValidShare: 0))
        #expect(off.warnings == 1 && off.validRows == 0)
        #expect(JPEGFixtures.packed(image, plane: 0).allSatisfy { $0 == 0 })
        for permille: Int32 in [-1, -1000, Int32.min] {
            var o = ic_png_decode_options()
            o.min_valid_permille = permille
            let g = PNGFixtures.decodeGuarded(early, format: IC_FORMAT_RGB8, options: o, width: 200, height: 120)
            #expect(g.status == IC_OK && g.result.warnings == 1 && g.result.valid_rows == 0, "\(permille): \(g.status)")
            let q = PNGFixtures.decodeGuarded(quarter, format: IC_FORMAT_RGB8, options: o, width: 200, height: 120)
            #expect(q.status == IC_OK && q.result.valid_rows > 0 && q.result.valid_rows < 60, "\(permille): \(q.status)")
            o.flags = UInt32(IC_PNG_STRICT.rawValue) // strict still wins
            #expect(PNGFixtures.decodeGuarded(early, format: IC_FORMAT_RGB8, options: o, width: 200, height: 120).status == IC_ERR_CORRUPT_DATA)
        }
        var tooMuch = ic_png_decode_options()
        tooMuch.min_valid_permille = 1001
        #expect(PNGFixtures.decodeGuarded(png, format: IC_FORMAT_RGB8, options: tooMuch, width: 200, height: 120).status == IC_ERR_INVALID_ARGUMENT)
        for share in [-0.1, 1.5, Double.nan] {
            let e4 = #expect(throws: ImageError.self) { try PNG.decode(png, into: &image, options: .init(minValidShare: share)) }
            #expect(e4?.code == .invalidArgument)
        }
        #expect(try PNG.decode(png, into: &image, options: .init(minValidShare: 1)).validRows == 120)
        // Interlaced files are not recovered.
        let adam7 = try PNGFixtures.bytes("rgb8-adam7")
        let cutAdam7 = Array(adam7[0..<(adam7.count - 40)])
        #expect(PNGFixtures.decodeGuarded(cutAdam7, format: IC_FORMAT_RGB8).status == IC_ERR_CORRUPT_DATA)
    }

    @Test("every prefix and many single-byte corruptions of a fixture: a typed status, never a crash")
    func prefixesAndFlips() throws {
        let acceptable: Set<Int32> = [IC_OK.rawValue, IC_ERR_CORRUPT_DATA.rawValue, IC_ERR_TOO_LARGE.rawValue]
        for name in ["palette4-adam7-trns", "rgb16-trns", "rgb8-icc"] {
            let png = try PNGFixtures.bytes(name)
            for n in stride(from: 0, to: png.count, by: 7) {
                let r = Self.refuse(Array(png[0..<n]))
                #expect(acceptable.contains(r.decode.rawValue) && acceptable.contains(r.stream.rawValue) || r.stream == IC_ERR_UNSUPPORTED, "\(name) \(n): \(r)")
            }
            var rng = SplitMix64(seed: 77)
            for _ in 0..<150 {
                var bad = png
                bad[Int(rng.next() % UInt64(png.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                let r = Self.refuse(bad)
                #expect(acceptable.contains(r.decode.rawValue) || r.decode == IC_ERR_BUFFER_TOO_SMALL || r.decode == IC_ERR_INVALID_ARGUMENT)
            }
        }
    }
}
