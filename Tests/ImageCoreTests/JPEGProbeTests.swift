import CImageCore
import CLibJPEG
import CTurboJPEG
import Testing
@testable import ImageCore

/// The header probe, EXIF orientation (both byte orders, hostile layouts) and ICC presence.
@Suite("JPEG probe and EXIF")
struct JPEGProbeTests {
    @Test("size, components, colour space, subsampling, progressive, restart interval, arithmetic")
    func fields() throws {
        let cases: [(TJSAMP, JPEG.Subsampling)] = [(TJSAMP_444, .s444), (TJSAMP_422, .s422), (TJSAMP_420, .s420),
                                                   (TJSAMP_440, .s440), (TJSAMP_411, .s411), (TJSAMP_GRAY, .gray)]
        for (tjs, sub) in cases {
            for progressive in [false, true] {
                let info = try JPEG.info(JPEGFixtures.photo(width: 37, height: 21, subsampling: tjs, progressive: progressive))
                #expect(info.width == 37 && info.height == 21 && info.subsampling == sub && info.isProgressive == progressive)
                #expect(info.components == (tjs == TJSAMP_GRAY ? 1 : 3) && info.colorSpace == (tjs == TJSAMP_GRAY ? .gray : .yCbCr))
                #expect(info.restartInterval == 0 && !info.isArithmeticCoded && !info.hasEXIF && !info.hasICCProfile && info.orientation == .up)
            }
        }
        let px = JPEGFixtures.pixels(width: 30, height: 20, channels: 3)
        let rst = try JPEG.info(JPEGFixtures.libjpeg(.init(width: 30, height: 20, restartInterval: 7, arithmetic: true), px))
        #expect(rst.restartInterval == 7 && rst.isArithmeticCoded)
        let cmyk = try JPEG.info(JPEGFixtures.libjpeg(.init(width: 30, height: 20, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: JCS_CMYK,
                                                            sampling: [(2, 2), (1, 1), (1, 1), (2, 2)]),
                                                      JPEGFixtures.cmykPixels(width: 30, height: 20)))
        #expect(cmyk.components == 4 && cmyk.colorSpace == .cmyk && cmyk.hasAdobeMarker && cmyk.subsampling == .s420)
        // A non-standard sampling (chroma components differ) is reported as unknown, not refused.
        let odd = try JPEG.info(JPEGFixtures.libjpeg(.init(width: 30, height: 20, sampling: [(2, 2), (1, 1), (2, 1)]), px))
        #expect(odd.subsampling == .unknown)
    }

    @Test("EXIF orientation 1…8 in both byte orders: probe, decode report and buffer")
    func orientations() throws {
        let base = JPEGFixtures.photo(width: 24, height: 16)
        for bigEndian in [false, true] {
            for value in 1...8 {
                let exif = JPEGFixtures.exif(bigEndian: bigEndian, entries: [
                    (0x010F, 2, 4, Array("Cam\0".utf8)), JPEGFixtures.orientationEntry(value, bigEndian: bigEndian), (0x0131, 2, 4, Array("sw\0\0".utf8)),
                ])
                let jpeg = JPEGFixtures.insertSegment(base, marker: 0xE1, payload: exif)
                let info = try JPEG.info(jpeg)
                #expect(info.hasEXIF && info.orientation.exifValue == value, "\(bigEndian ? "MM" : "II") \(value)")
                #expect(try JPEG.decode(jpeg).orientation.exifValue == value)
                var c = ic_jpeg_decode_result()
                var o = ic_jpeg_decode_options()
                #expect(ic_jpeg_decode_stream(jpeg, jpeg.count, &o, { _, _, _ in 0 }, nil, &c) == IC_OK && c.orientation == Int32(value))
                // The bare TIFF structure and the APP1 payload both parse.
                #expect(ic_exif_orientation(exif, exif.count) == Int32(value))
                let tiff = Array(exif.dropFirst(6))
                #expect(ic_exif_orientation(tiff, tiff.count) == Int32(value))
                // LONG instead of SHORT (some writers) is accepted.
                let long = JPEGFixtures.exif(bigEndian: bigEndian, entries: [
                    (0x0112, 4, 1, bigEndian ? [0, 0, 0, UInt8(value)] : [UInt8(value), 0, 0, 0]),
                ])
                #expect(ic_exif_orientation(long, long.count) == Int32(value))
            }
        }
    }

    @Test("hostile EXIF: bad offsets, counts, types, values and loops mean 'no orientation'")
    func hostileEXIF() throws {
        let be = true
        let o6 = JPEGFixtures.orientationEntry(6, bigEndian: be)
        var hostile: [(String, [UInt8])] = [
            ("IFD0 offset past the end", JPEGFixtures.exif(bigEndian: be, entries: [o6], ifd0Offset: 0xFFFF_FFF0)),
            ("entry count larger than the data", JPEGFixtures.exif(bigEndian: be, entries: [(0x010F, 2, 1, [0])], declaredCount: 0xFFFF)),
            ("value 0", JPEGFixtures.exif(bigEndian: be, entries: [JPEGFixtures.orientationEntry(0, bigEndian: be)])),
            ("value 9", JPEGFixtures.exif(bigEndian: be, entries: [JPEGFixtures.orientationEntry(9, bigEndian: be)])),
            ("value 0xFFFF", JPEGFixtures.exif(bigEndian: be, entries: [JPEGFixtures.orientationEntry(0xFFFF, bigEndian: be)])),
            ("ASCII type", JPEGFixtures.exif(bigEndian: be, entries: [(0x0112, 2, 1, [6])])),
            ("count 2", JPEGFixtures.exif(bigEndian: be, entries: [(0x0112, 3, 2, [0, 6, 0, 6])])),
            ("next IFD loops to IFD0 (orientation only in IFD1)", JPEGFixtures.exif(bigEndian: be, entries: [(0x010F, 2, 1, [0])], nextIFD: 8)),
            ("IFD0 pointing into the TIFF header", JPEGFixtures.exif(bigEndian: be, entries: [o6], ifd0Offset: 2)),
            ("bad byte-order mark", Array("Exif\0\0XX\0*\0\0\0\u{8}".utf8) + [0, 0]),
            ("bad magic", Array("Exif\0\0MM\0+".utf8) + [0, 0, 0, 8, 0, 0]),
            ("identifier only", Array("Exif\0\0".utf8)),
            ("empty", []),
        ]
        // IFD0 offsets at, just before and far past the end of the structure.
        let valid = JPEGFixtures.exif(bigEndian: be, entries: [o6])
        let tiffLength = valid.count - 6
        for offset in [tiffLength, tiffLength - 1, tiffLength - 2, tiffLength + 1, Int(UInt32.max)] {
            var p = valid
            p[10] = UInt8((offset >> 24) & 255); p[11] = UInt8((offset >> 16) & 255); p[12] = UInt8((offset >> 8) & 255); p[13] = UInt8(offset & 255)
            hostile.append(("IFD0 at \(offset) of \(tiffLength)", p))
        }
        // Every truncation of a valid payload.
        for n in 0..<(valid.count - 4) { hostile.append(("truncated to \(n)", Array(valid.prefix(n)))) }
        let base = JPEGFixtures.photo(width: 24, height: 16)
        let reference = JPEGFixtures.packed(try JPEG.decode(base), plane: 0)
        for (label, payload) in hostile {
            let parsed = ic_exif_orientation(payload, payload.count)
            let truncatedValid = label.hasPrefix("truncated") && payload.count >= 26 // entry complete
            #expect(parsed == 0 || (truncatedValid && parsed == 6), "\(label): \(parsed)")
            // Inside a JPEG: the probe and decode still work and report "up".
            guard payload.count <= 65533 else { continue }
            let jpeg = JPEGFixtures.insertSegment(base, marker: 0xE1, payload: payload)
            let info = try JPEG.info(jpeg)
            #expect(info.orientation == (parsed == 0 ? .up : .right), "\(label)")
            let image = try JPEG.decode(jpeg)
            #expect(JPEGFixtures.packed(image, plane: 0) == reference, "\(label): pixels unaffected")
        }
        // The first EXIF APP1 wins; an XMP APP1 before it is not EXIF.
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)
        var jpeg = JPEGFixtures.insertSegment(base, marker: 0xE1, payload: JPEGFixtures.exif(bigEndian: false, entries: [JPEGFixtures.orientationEntry(3, bigEndian: false)]))
        jpeg = JPEGFixtures.insertSegment(jpeg, marker: 0xE1, payload: xmp)
        #expect(try JPEG.info(jpeg).orientation == .down)
        // A segment length running past the end of the file stops the marker walk safely.
        let cut = Array(JPEGFixtures.insertSegment(base, marker: 0xE1, payload: valid).prefix(12))
        var m = ic_jpeg_info()
        #expect(ic_jpeg_probe(cut, cut.count, &m) == IC_ERR_CORRUPT_DATA)
    }

    @Test("ICC profile chunks are detected and their sizes summed")
    func icc() throws {
        let base = JPEGFixtures.photo(width: 24, height: 16)
        func chunk(_ i: UInt8, _ n: UInt8, _ size: Int) -> [UInt8] { Array("ICC_PROFILE\0".utf8) + [i, n] + [UInt8](repeating: i, count: size) }
        var jpeg = JPEGFixtures.insertSegment(base, marker: 0xE2, payload: chunk(2, 2, 300))
        jpeg = JPEGFixtures.insertSegment(jpeg, marker: 0xE2, payload: chunk(1, 2, 65519))
        let info = try JPEG.info(jpeg)
        #expect(info.hasICCProfile && info.iccProfileSize == 65519 + 300)
        // APP2 without the identifier is not a profile.
        let other = try JPEG.info(JPEGFixtures.insertSegment(base, marker: 0xE2, payload: Array("FPXR\0".utf8) + [1, 2, 3]))
        #expect(!other.hasICCProfile && other.iccProfileSize == 0)
    }
}
