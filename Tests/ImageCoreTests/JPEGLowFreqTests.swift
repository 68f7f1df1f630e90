import CImageCore
import CLibJPEG
import CTurboJPEG
import Foundation
@testable import ImageCore
import Testing

/// The reduced progressive decoder (jpeg_lowfreq*.c): progressive files at 1/8 and 1/4 from
/// the scans those scales read. Every output is held to libjpeg's own scaled decode of the same
/// file (its scanline API, default settings = tjDecompress2's), byte for byte, and the tests
/// check which decoder made it: the reduced one where it should, libjpeg where it must.
/// Files are written at test time by libjpeg's encoder with its default script and with
/// scripts of our own (what cjpeg -scans does).
@Suite("JPEG progressive at 1/8 and 1/4 from the low-frequency scans")
struct JPEGLowFreqTests {
    typealias Script = [jpeg_scan_info]
    static func s(_ c: [Int], _ ss: Int, _ se: Int, ah: Int = 0, al: Int = 0) -> jpeg_scan_info {
        JPEGFixtures.scan(c, ss, se, ah: ah, al: al)
    }

    /// Three-component scripts; `reduced` = the reduced decoder takes them. The last three
    /// leave some of the first nine AC coefficients unsent (or not fully), so libjpeg smooths
    /// the blocks (jdcoefct.c) and the file goes to libjpeg.
    static let colourScripts: [(name: String, scans: Script, reduced: Bool)] = [
        ("libjpeg's default", [], true),
        ("chroma DC after the luma AC", [s([0], 0, 0), s([0], 1, 63), s([1], 0, 0), s([2], 0, 0), s([1], 1, 63), s([2], 1, 63)], true),
        ("DC and AC in approximation steps", [s([0, 1, 2], 0, 0, al: 2), s([0], 1, 63, al: 1), s([1], 1, 63, al: 1), s([2], 1, 63, al: 1),
                                              s([0, 1, 2], 0, 0, ah: 2, al: 1), s([0, 1, 2], 0, 0, ah: 1), s([0], 1, 63, ah: 1),
                                              s([1], 1, 63, ah: 1), s([2], 1, 63, ah: 1)], true),
        ("spectral bands", [s([0, 1, 2], 0, 0), s([0], 1, 2), s([0], 3, 9), s([0], 10, 63), s([1], 1, 5), s([1], 6, 63), s([2], 1, 63)], true),
        ("one DC scan per component", [s([0], 0, 0), s([1], 0, 0), s([2], 0, 0), s([0], 1, 63), s([1], 1, 63), s([2], 1, 63)], true),
        ("luma and Cr DC interleaved, Cb alone", [s([0, 2], 0, 0), s([1], 0, 0), s([2], 1, 63), s([0], 1, 63), s([1], 1, 63)], true),
        ("the last luma AC bit never sent", [s([0, 1, 2], 0, 0), s([0], 1, 63, al: 1), s([1], 1, 63), s([2], 1, 63)], false),
        ("DC only", [s([0, 1, 2], 0, 0)], false),
        ("luma band 6...63 never sent", [s([0, 1, 2], 0, 0), s([0], 1, 5), s([1], 1, 63), s([2], 1, 63)], false),
    ]

    static let grayScripts: [(name: String, scans: Script, reduced: Bool)] = [
        ("libjpeg's default", [], true),
        ("DC and bands in approximation steps", [s([0], 0, 0, al: 1), s([0], 1, 5, al: 2), s([0], 6, 63, al: 1), s([0], 0, 0, ah: 1),
                                                 s([0], 1, 5, ah: 2, al: 1), s([0], 1, 63, ah: 1)], true),
        ("DC only", [s([0], 0, 0)], false),
    ]

    /// Sampling factors and whether colour output goes through the reduced decoder at 1/8 and
    /// at 1/4. 4:4:0 at 1/4 needs libjpeg's vertical triangle upsampling, which reads the
    /// neighbouring row groups: libjpeg.
    static let samplings: [(name: String, factors: [(Int, Int)], at8: Bool, at4: Bool)] = [
        ("4:4:4", [(1, 1), (1, 1), (1, 1)], true, true),
        ("4:2:2", [(2, 1), (1, 1), (1, 1)], true, true),
        ("4:2:0", [(2, 2), (1, 1), (1, 1)], true, true),
        ("4:4:0", [(1, 2), (1, 1), (1, 1)], true, false),
        ("4:1:1", [(4, 1), (1, 1), (1, 1)], true, true),
        ("chroma sampled above luma", [(1, 1), (2, 2), (2, 2)], true, true),
    ]

    static let formats: [(ic_format, J_COLOR_SPACE)] = [(IC_FORMAT_RGBA8, JCS_EXT_RGBA), (IC_FORMAT_RGB8, JCS_EXT_RGB),
                                                        (IC_FORMAT_GRAY8, JCS_GRAYSCALE)]

    static func colourFile(_ w: Int, _ h: Int, factors: [(Int, Int)], scans: Script, restart: Int = 0, seed: UInt32 = 3) -> [UInt8] {
        JPEGFixtures.libjpeg(.init(width: w, height: h, sampling: factors, quality: 85, progressive: scans.isEmpty,
                                   restartInterval: restart, scans: scans),
                             JPEGFixtures.pixels(width: w, height: h, channels: 3, seed: seed))
    }

    static func grayFile(_ w: Int, _ h: Int, scans: Script, restart: Int = 0) -> [UInt8] {
        JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 1, inputSpace: JCS_GRAYSCALE, jpegSpace: JCS_GRAYSCALE,
                                   quality: 85, progressive: scans.isEmpty, restartInterval: restart, scans: scans),
                             JPEGFixtures.pixels(width: w, height: h, channels: 1, seed: 5))
    }

    /// Decodes `jpeg` at 1/8 and 1/4 in every format into guard-page planes and compares with
    /// libjpeg's decode; `reduced(scale, format)` says which decoder must have made it.
    static func check(_ jpeg: [UInt8], _ label: String, reduced: (Int, ic_format) -> Bool) {
        for scale in [1, 2] {
            for (format, space) in formats {
                let want = JPEGFixtures.libjpegDecode(jpeg, scale: scale, space: space)
                let ours = JPEGFixtures.decodeGuarded(jpeg, format: format, options: JPEGFixtures.options(scale: scale))
                let context = "\(label), \(scale)/8, format \(format.rawValue)"
                #expect(ours.status == IC_OK, "\(context)")
                #expect(byteDiff(ours.planes.first, want) == "", "\(context)")
                #expect(ours.result.warnings == 0, "\(context)")
                let expected = reduced(scale, format) ? IC_JPEG_DECODER_LOWFREQ : IC_JPEG_DECODER_LIBJPEG
                #expect(ours.result.decoder == Int32(expected.rawValue), "\(context): decoder \(ours.result.decoder)")
            }
        }
    }

    @Test("scan scripts x samplings x sizes: libjpeg's pixels, and the reduced decoder wherever it applies")
    func scriptsAndSamplings() {
        for script in Self.colourScripts {
            for sampling in Self.samplings {
                for (w, h) in [(1, 1), (9, 7), (16, 16), (31, 17), (70, 45)] {
                    let jpeg = Self.colourFile(w, h, factors: sampling.factors, scans: script.scans)
                    Self.check(jpeg, "\(script.name), \(sampling.name), \(w)x\(h)") { scale, format in
                        // Gray output reads luma only, which is never upsampled in these files
                        // (or, above, sampled like the chroma): only smoothing sends it to libjpeg.
                        guard script.reduced else { return false }
                        if format == IC_FORMAT_GRAY8 { return true }
                        return scale == 1 ? sampling.at8 : sampling.at4
                    }
                }
            }
        }
        for script in Self.grayScripts {
            for (w, h) in [(1, 1), (8, 8), (23, 13), (64, 33)] {
                Self.check(Self.grayFile(w, h, scans: script.scans), "gray, \(script.name), \(w)x\(h)") { _, _ in script.reduced }
            }
        }
    }

    @Test("restart markers: every interval, scripts with bands and approximations, odd sizes")
    func restarts() {
        for restart in [1, 2, 5, 13] {
            for script in Self.colourScripts.prefix(4) {
                for (name, factors) in [("4:2:0", [(2, 2), (1, 1), (1, 1)]), ("4:2:2", [(2, 1), (1, 1), (1, 1)])] {
                    for (w, h) in [(33, 17), (67, 49)] {
                        let jpeg = Self.colourFile(w, h, factors: factors, scans: script.scans, restart: restart)
                        #expect((try? JPEG.info(jpeg))?.restartInterval == restart)
                        Self.check(jpeg, "restart \(restart), \(script.name), \(name), \(w)x\(h)") { _, _ in true }
                    }
                }
            }
            Self.check(Self.grayFile(45, 38, scans: [], restart: restart), "gray, restart \(restart)") { _, _ in true }
        }
    }

    @Test("TurboJPEG's flags: the fast IDCT changes nothing at 1/8 and 1/4; fast upsampling and strict go to libjpeg")
    func flags() throws {
        let jpeg = JPEGFixtures.photo(width: 203, height: 131, subsampling: TJSAMP_422, progressive: true)
        for scale in [1, 2] {
            let (w, h) = ((203 * scale + 7) / 8, (131 * scale + 7) / 8)
            for (flag, tjFlag, reduced) in [(IC_JPEG_FAST_DCT, TJFLAG_FASTDCT, true), (IC_JPEG_FAST_UPSAMPLE, TJFLAG_FASTUPSAMPLE, false),
                                            (IC_JPEG_STRICT, 0, false), (IC_JPEG_LIBJPEG_ONLY, 0, false)] {
                let ours = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8,
                                                      options: JPEGFixtures.options(scale: scale, flags: UInt32(flag.rawValue)))
                let want = JPEGFixtures.tjDecode(jpeg, width: w, height: h, pf: TJPF_RGBA, flags: Int32(tjFlag))
                #expect(ours.status == IC_OK && byteDiff(ours.planes.first, want) == "", "flag \(flag.rawValue) at \(scale)/8")
                #expect(ours.result.decoder == Int32((reduced ? IC_JPEG_DECODER_LOWFREQ : IC_JPEG_DECODER_LIBJPEG).rawValue))
            }
        }
        // Requests the reduced decoder does not make: other scales, crops, YUV, baseline files.
        let cases: [(ic_jpeg_decode_options, ic_format, [UInt8])] = [
            (JPEGFixtures.options(scale: 3), IC_FORMAT_RGBA8, jpeg),
            (JPEGFixtures.options(scale: 1, crop: (2, 2, 10, 8)), IC_FORMAT_RGBA8, jpeg),
            (JPEGFixtures.options(scale: 1), IC_FORMAT_I420, jpeg),
            (JPEGFixtures.options(scale: 1), IC_FORMAT_RGBA8, JPEGFixtures.photo(width: 64, height: 48)),
        ]
        for (o, format, file) in cases {
            let r = JPEGFixtures.decodeGuarded(file, format: format, options: o)
            #expect(r.status == IC_OK && r.result.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue))
        }
    }

    @Test("streams: bands of 1...40 rows reassemble to the decode; a consumer's error stops it")
    func streams() throws {
        let jpeg = Self.colourFile(157, 93, factors: [(2, 2), (1, 1), (1, 1)], scans: Self.colourScripts[3].scans, restart: 3)
        for scale in [1, 2] {
            let size = try JPEG.decodedSize(jpeg, format: .rgb8, options: .init(scale: .eighths(scale)))
            var full = try PixelBuffer(width: size.width, height: size.height, format: .rgb8)
            let fullReport = try JPEG.decode(jpeg, into: &full, options: .init(scale: .eighths(scale)))
            let want = JPEGFixtures.packed(full, plane: 0)
            #expect(fullReport.decoder == .progressiveLowFrequency)
            for bandRows in [1, 2, 7, 40] {
                var got: [UInt8] = []
                let report = try JPEG.decodeStream(jpeg, format: .rgb8, options: .init(scale: .eighths(scale), bandRows: bandRows)) {
                    (band: borrowing JPEG.Band) throws(ImageError) in
                    #expect(band.firstRow * size.width * 3 == got.count)
                    let g = band.plane(0)
                    band.withPlane(0) { span in
                        for y in 0..<band.rowCount { for x in 0..<g.rowBytes { got.append(span[y * g.stride + x]) } }
                    }
                }
                #expect(report.decoder == .progressiveLowFrequency)
                #expect(byteDiff(got, want) == "", "\(scale)/8, bands of \(bandRows)")
            }
            var bands = 0
            #expect(throws: ImageError.self) {
                try JPEG.decodeStream(jpeg, format: .rgb8, options: .init(scale: .eighths(scale), bandRows: 4)) { _ throws(ImageError) in
                    bands += 1
                    throw ImageError(.cancelled, "enough")
                }
            }
            #expect(bands == 1)
        }
    }

    /// Files cjpeg wrote (scripts/make-progressive-fixtures.sh, committed): its default
    /// progression and our scan scripts through its -scans option, 4:2:0/4:2:2/4:4:4/gray, odd
    /// size, restart markers. `reduced` = the reduced decoder takes it (the incomplete script
    /// leaves the last luma AC bit unsent: libjpeg smooths, so the file goes to libjpeg).
    static let cjpegFixtures: [(name: String, reduced: Bool)] = [
        ("p420-default", true), ("p422-restart2", true), ("p444-dc-late", true), ("p420-approx-restart1", true),
        ("gray-default", true), ("p420-odd-restart1", true), ("p420-incomplete", false),
    ]

    @Test("files written by cjpeg (default and -scans scripts, restarts, gray, odd size): libjpeg's pixels")
    func cjpegFiles() throws {
        let dir = (Bundle.module.url(forResource: "Fixtures", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures"))
            .appendingPathComponent("progressive")
        for (name, reduced) in Self.cjpegFixtures {
            let jpeg = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name).jpg")))
            #expect(try JPEG.info(jpeg).isProgressive, "\(name)")
            Self.check(jpeg, "cjpeg \(name)") { _, _ in reduced }
        }
    }

    // MARK: damaged files

    /// Byte ranges of each scan's entropy-coded data (after its SOS header, up to the next
    /// marker that is not RSTn).
    static func scanData(_ jpeg: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var p = 2
        while p + 4 <= jpeg.count, jpeg[p] == 0xFF {
            let m = jpeg[p + 1]
            if m == 0xD9 { break }
            let len = Int(jpeg[p + 2]) << 8 | Int(jpeg[p + 3])
            p += 2 + len
            guard m == 0xDA else { continue }
            var q = p
            while q + 1 < jpeg.count, !(jpeg[q] == 0xFF && jpeg[q + 1] != 0 && !(0xD0...0xD7).contains(jpeg[q + 1])) { q += 1 }
            out.append(p..<q)
            p = q
        }
        return out
    }

    struct Outcome: Equatable {
        var status: ic_status
        var pixels: [UInt8]
        var warnings: Int32
        var decoder: Int32
        var streamRows: Int
        var streamed: [UInt8]
    }

    static func decode(_ jpeg: [UInt8], scale: Int, flags: UInt32) -> Outcome {
        var o = JPEGFixtures.options(scale: scale, flags: flags)
        o.format = IC_FORMAT_RGB8
        let r = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGB8, options: o)
        // The stream: every row exactly once, in order.
        final class Rows { var rows = 0; var bytes: [UInt8] = []; var inOrder = true }
        let rows = Rows()
        o.band_rows = 5
        var sr = ic_jpeg_decode_result()
        let st = withUnsafeMutablePointer(to: &o) { op in
            ic_jpeg_decode_stream(jpeg, jpeg.count, op, { ctx, band, first in
                let rows = Unmanaged<Rows>.fromOpaque(ctx!).takeUnretainedValue()
                let b = band!.pointee
                if Int(first) != rows.rows { rows.inOrder = false }
                for y in 0..<Int(b.height) {
                    let row = b.planes.0.data + y * b.planes.0.stride
                    rows.bytes.append(contentsOf: UnsafeBufferPointer(start: row, count: Int(b.width) * 3))
                }
                rows.rows += Int(b.height)
                return 0
            }, Unmanaged.passUnretained(rows).toOpaque(), &sr)
        }
        #expect(rows.inOrder)
        #expect(st == r.status)
        #expect(sr.decoder == r.result.decoder)
        return Outcome(status: r.status, pixels: r.status == IC_OK ? r.planes[0] : [], warnings: r.result.warnings,
                       decoder: r.result.decoder, streamRows: rows.rows, streamed: st == IC_OK ? rows.bytes : [])
    }

    @Test("truncated and damaged files: the same status, pixels and stream as libjpeg alone (seeded mutations)")
    func damaged() {
        let bases: [(String, [UInt8])] = [
            ("4:2:0 default, restart 2", Self.colourFile(48, 40, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 2)),
            ("4:2:2 bands", Self.colourFile(37, 29, factors: [(2, 1), (1, 1), (1, 1)], scans: Self.colourScripts[3].scans)),
            ("4:4:4 approximation steps", Self.colourFile(40, 24, factors: [(1, 1), (1, 1), (1, 1)], scans: Self.colourScripts[2].scans)),
            ("gray default", Self.grayFile(33, 20, scans: [])),
        ]
        var rng = SplitMix64(seed: 18)
        var reducedCount = 0, libjpegCount = 0, warned = 0
        for (name, base) in bases {
            var variants: [(String, [UInt8])] = []
            for k in 1...24 { let cut = base.count * k / 25; variants.append(("cut at \(cut)", Array(base[..<cut]))) }
            for _ in 0..<60 {
                var v = base
                let at = 2 + Int(rng.next() % UInt64(base.count - 2))
                v[at] = UInt8(truncatingIfNeeded: rng.next())
                variants.append(("byte \(at)", v))
            }
            for (what, v) in variants {
                for scale in [1, 2] {
                    let ours = Self.decode(v, scale: scale, flags: 0)
                    let theirs = Self.decode(v, scale: scale, flags: UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue))
                    let context = "\(name), \(what), \(scale)/8"
                    #expect(ours.status == theirs.status, "\(context)")
                    #expect(byteDiff(ours.pixels, theirs.pixels) == "", "\(context)")
                    #expect(byteDiff(ours.streamed, theirs.streamed) == "", "\(context)")
                    if ours.status == IC_OK { #expect(ours.streamRows == theirs.streamRows, "\(context)") }
                    #expect(theirs.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue))
                    if ours.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue) {
                        // The same path, so the same report.
                        #expect(ours.warnings == theirs.warnings, "\(context)")
                        libjpegCount += 1
                        if theirs.warnings > 0 { warned += 1 }
                    } else {
                        #expect(ours.status == IC_OK)
                        reducedCount += 1
                    }
                }
            }
        }
        // Both paths were exercised, and damage libjpeg reports went to libjpeg.
        #expect(reducedCount > 50 && libjpegCount > 50 && warned > 50, "reduced \(reducedCount), libjpeg \(libjpegCount), warned \(warned)")
    }

    @Test("a damaged scan the decode does not read: the reduced decoder's pixels are libjpeg's; strict mode is libjpeg's")
    func damagedSkippedScan() throws {
        // 4:4:4 at 1/8 reads the DC scans only; the last scan (luma AC refinement) is skipped.
        var jpeg = Self.colourFile(64, 48, factors: [(1, 1), (1, 1), (1, 1)], scans: [])
        let last = try #require(Self.scanData(jpeg).last)
        for i in stride(from: last.lowerBound + 1, to: last.upperBound - 1, by: 2) { jpeg[i] = 0xFF; jpeg[i + 1] = 0x00 }
        let ours = Self.decode(jpeg, scale: 1, flags: 0)
        let theirs = Self.decode(jpeg, scale: 1, flags: UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue))
        #expect(ours.status == IC_OK && theirs.status == IC_OK)
        #expect(ours.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
        #expect(byteDiff(ours.pixels, theirs.pixels) == "")
        #expect(theirs.warnings > 0 && ours.warnings == 0) // the documented difference
        let strict = Self.decode(jpeg, scale: 1, flags: UInt32(IC_JPEG_STRICT.rawValue))
        #expect(strict.status == IC_ERR_CORRUPT_DATA && strict.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue))
    }

    @Test("limits: more scans than max_scans is libjpeg's refusal; a memory budget without room for libjpeg's coefficient buffer")
    func limits() throws {
        let jpeg = JPEGFixtures.photo(width: 640, height: 480, progressive: true)
        let scans = Self.scanData(jpeg).count
        var o = JPEGFixtures.options(scale: 1)
        o.max_scans = Int32(scans - 1)
        for flags in [UInt32(0), UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue)] {
            o.flags = flags
            #expect(JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: o).status == IC_ERR_TOO_LARGE)
        }
        // The reduced decode's own peak is its budget; libjpeg needs 2 bytes per sample more.
        let reduced = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: JPEGFixtures.options(scale: 1))
        #expect(reduced.status == IC_OK && reduced.result.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
        #expect(reduced.result.valid_rows == reduced.result.height)
        var m = JPEGFixtures.options(scale: 1)
        m.max_memory = reduced.result.peak_memory
        let budgeted = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: m)
        #expect(budgeted.status == IC_OK && byteDiff(budgeted.planes.first, reduced.planes.first) == "")
        #expect(reduced.result.peak_memory < 640 * 480 * 3 / 4, "peak \(reduced.result.peak_memory)")
        m.flags = UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue)
        #expect(JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: m).status == IC_ERR_TOO_LARGE)
    }
}
