import CImageCore
import CLibJPEG
import Foundation
import Testing
@testable import ImageCore

/// ICC profiles and EXIF bytes through both codecs: read back byte for byte (JPEG chunks also
/// against libjpeg's own jpeg_read_icc_profile), chunk checks, the orientation rewrite.
@Suite("ICC profiles and EXIF")
struct ICCTests {
    /// A deterministic "profile" of n bytes (the codecs carry bytes; they do not parse them).
    static func profile(_ n: Int, seed: UInt64 = 1) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// libjpeg's own reassembly (jpeg_save_markers + jpeg_read_icc_profile).
    static func libjpegICC(_ jpeg: [UInt8]) -> [UInt8]? {
        return JPEGFixtures.withLibjpegDecompressor(jpeg) { cinfo -> [UInt8]? in
            jpeg_save_markers(cinfo, Int32(JPEG_APP0 + 2), 0xFFFF)
            _ = jpeg_read_header(cinfo, 1)
            var data: UnsafeMutablePointer<JOCTET>? = nil
            var len: UInt32 = 0
            guard jpeg_read_icc_profile(cinfo, &data, &len) != 0, let data else { return nil }
            defer { free(data) }
            return Array(UnsafeBufferPointer(start: data, count: Int(len)))
        }
    }

    static func image() throws -> PixelBuffer {
        try PNG.decode(try PNGFixtures.bytes("rgb8"), format: .rgb8)
    }

    @Test("JPEG: a profile of 1, 3 and 4 APP2 chunks reads back byte for byte, as libjpeg reads it", arguments: [1, 3000, 150_000, 200_000])
    func jpegProfile(size: Int) throws {
        let icc = Self.profile(size, seed: UInt64(size))
        let jpeg = try JPEG.encode(try Self.image(), options: .init(iccProfile: icc))
        let info = try JPEG.info(jpeg)
        #expect(info.hasICCProfile && info.iccProfileSize == size)
        #expect(try JPEG.iccProfile(jpeg) == icc)
        #expect(Self.libjpegICC(jpeg) == icc)
        // The bound counts the chunks.
        let bound = try JPEG.encodeBound(width: 13, height: 11, options: .init(iccProfile: icc))
        #expect(bound >= jpeg.count)
        #expect(try JPEG.iccProfile(try JPEG.encode(try Self.image())) == nil)
    }

    @Test("JPEG: chunks out of order are reassembled; duplicate, missing or disagreeing chunks are corrupt data")
    func jpegChunkChecks() throws {
        let icc = Self.profile(150_000)
        let jpeg = try JPEG.encode(try Self.image(), options: .init(iccProfile: icc))
        // The APP2 segments' offsets.
        var segments: [Range<Int>] = []
        var pos = 2
        while pos + 4 <= jpeg.count, jpeg[pos] == 0xFF, jpeg[pos + 1] != 0xDA {
            let len = Int(jpeg[pos + 2]) << 8 | Int(jpeg[pos + 3])
            if jpeg[pos + 1] == 0xE2 { segments.append(pos..<(pos + 2 + len)) }
            pos += 2 + len
        }
        #expect(segments.count == 3)
        let head = Array(jpeg[0..<segments[0].lowerBound]), tail = Array(jpeg[segments[2].upperBound...])
        let s = segments.map { Array(jpeg[$0]) }
        #expect(try JPEG.iccProfile(head + s[2] + s[0] + s[1] + tail) == icc)
        for bad in [head + s[0] + s[0] + s[2] + tail, head + s[0] + s[2] + tail] {
            let e = #expect(throws: ImageError.self) { _ = try JPEG.iccProfile(bad) }
            #expect(e?.code == .corruptData)
        }
        var disagree = s[1]
        disagree[4 + 13] = 4 // chunk count 4 in chunk 2 only
        let e = #expect(throws: ImageError.self) { _ = try JPEG.iccProfile(head + s[0] + disagree + s[2] + tail) }
        #expect(e?.code == .corruptData)
        var size = 0
        #expect(ic_jpeg_icc_profile(nil, 0, nil, 0, &size) == IC_ERR_CORRUPT_DATA)
    }

    @Test("PNG: the profile goes into iCCP and reads back byte for byte; the same bytes through JPEG")
    func pngProfile() throws {
        let icc = try PNGFixtures.bytes("rgb8-icc", "icc") // Little CMS's sRGB profile via Pillow
        let png = try PNG.encode(try Self.image(), options: .init(iccProfile: icc))
        #expect(try PNG.info(png).iccProfileSize == icc.count)
        #expect(try PNG.iccProfile(png) == icc)
        #expect(try PNG.encodeBound(width: 13, height: 11, format: .rgb8, options: .init(iccProfile: icc)) >= png.count)
        #expect(try JPEG.iccProfile(try JPEG.encode(try Self.image(), options: .init(iccProfile: icc))) == icc)
    }

    @Test("EXIF: written as given; with an orientation the copy's tag is rewritten (both byte orders)")
    func exif() throws {
        for bigEndian in [false, true] {
            let entries = [JPEGFixtures.orientationEntry(6, bigEndian: bigEndian)]
            let app1 = JPEGFixtures.exif(bigEndian: bigEndian, entries: entries) // "Exif\0\0" + TIFF
            var copy = app1
            #expect(ic_exif_set_orientation(&copy, copy.count, 1) == 1)
            #expect(ic_exif_orientation(copy, copy.count) == 1)
            #expect(copy.count == app1.count && zip(copy, app1).filter { $0 != $1 }.count == 1, "one byte changes")
            var none = Array(app1.prefix(6)) + [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 0, 0]
            #expect(ic_exif_set_orientation(&none, none.count, 3) == 0)

            let jpeg = try JPEG.encode(try Self.image(), options: .init(orientation: .up, exif: app1))
            #expect(try JPEG.info(jpeg).orientation == .up)
            #expect(try JPEG.info(try JPEG.encode(try Self.image(), options: .init(exif: app1))).orientation == .right)
            let png = try PNG.encode(try Self.image(), options: .init(orientation: .up, exif: app1))
            #expect(try PNG.info(png).hasEXIF && (try PNG.info(png)).orientation == .up)
            let pngKept = try PNG.encode(try Self.image(), options: .init(exif: Array(app1.dropFirst(6))))
            #expect(try PNG.info(pngKept).orientation == .right)
        }
        let e = #expect(throws: ImageError.self) { _ = try PNG.encode(try Self.image(), options: .init(exif: [1, 2, 3, 4, 5])) }
        #expect(e?.code == .invalidArgument)
    }
}
