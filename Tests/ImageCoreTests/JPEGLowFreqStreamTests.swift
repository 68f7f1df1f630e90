import CImageCore
import CLibJPEG
import Foundation
@testable import ImageCore
import Testing

/// The reduced progressive decoder fed from a streamed file (`ic_jpeg_decode_options.read` +
/// `read_at`): the headers in memory, the rest read forward by `read` (libjpeg) or by offset
/// through bounded windows (`read_at`, the reduced decoder). Every outcome (status, pixels,
/// warnings, valid rows, decoder) must equal the in-memory decode of the same bytes.
@Suite("JPEG progressive at 1/8 and 1/4 streamed through bounded windows")
struct JPEGLowFreqStreamTests {
    /// A file served in chunks of at most `chunk` bytes per call; reads can be made to fail.
    final class Source {
        let file: [UInt8]
        let prefix: Int
        let chunk: Int
        var position: Int
        /// `read` ends (returns 0) at this offset; `read_at` returns 0 for offsets at or past
        /// `readAtFailsFrom` (and, with `failReadAtAfterBand`, once a band was delivered).
        var readFailsFrom = Int.max
        var readAtFailsFrom = Int.max
        var failReadAtAfterBand = false
        var bandSeen = false
        var readAtBytes = 0
        var askedForPrefix = false
        var largestRequest = 0

        init(_ file: [UInt8], prefix: Int, chunk: Int) {
            self.file = file
            self.prefix = prefix
            self.chunk = chunk
            position = prefix
        }
    }

    static let read: ic_jpeg_read_fn = { ctx, buffer, capacity in
        let s = Unmanaged<Source>.fromOpaque(ctx!).takeUnretainedValue()
        let n = min(capacity, s.chunk, s.file.count - s.position, max(0, s.readFailsFrom - s.position))
        guard n > 0 else { return 0 }
        s.file.withUnsafeBufferPointer { _ = memcpy(buffer!, $0.baseAddress! + s.position, n) }
        s.position += n
        return n
    }

    static let readAt: ic_jpeg_read_at_fn = { ctx, offset, buffer, capacity in
        let s = Unmanaged<Source>.fromOpaque(ctx!).takeUnretainedValue()
        let at = Int(offset)
        if at < s.prefix { s.askedForPrefix = true }
        s.largestRequest = max(s.largestRequest, capacity)
        if s.failReadAtAfterBand && s.bandSeen { return 0 }
        let n = min(capacity, s.chunk, s.file.count - at, max(0, s.readAtFailsFrom - at))
        guard n > 0 else { return 0 }
        s.file.withUnsafeBufferPointer { _ = memcpy(buffer!, $0.baseAddress! + at, n) }
        s.readAtBytes += n
        return n
    }

    /// Bytes through the first SOS segment: what a streamed decode must get in memory.
    static func headerBytes(_ jpeg: [UInt8]) -> Int {
        var p = 2
        while p + 4 <= jpeg.count {
            let m = jpeg[p + 1], len = Int(jpeg[p + 2]) << 8 | Int(jpeg[p + 3])
            p += 2 + len
            if m == 0xDA { return p }
        }
        return jpeg.count
    }

    struct Outcome: Equatable, CustomStringConvertible {
        var status: ic_status, pixels: [UInt8], warnings: Int32, validRows: Int32, decoder: Int32, message: String
        var description: String { "status \(status.rawValue), decoder \(decoder), warnings \(warnings), rows \(validRows), \(message)" }
    }

    static func outcome(_ r: (status: ic_status, planes: [[UInt8]], result: ic_jpeg_decode_result)) -> Outcome {
        var res = r.result
        let message = withUnsafeBytes(of: &res.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Outcome(status: r.status, pixels: r.status == IC_OK ? r.planes[0] : [], warnings: r.result.warnings,
                       validRows: r.result.valid_rows, decoder: r.result.decoder, message: message)
    }

    static func inMemory(_ jpeg: [UInt8], scale: Int, format: ic_format, flags: UInt32 = 0) -> Outcome {
        outcome(JPEGFixtures.decodeGuarded(jpeg, format: format, options: JPEGFixtures.options(scale: scale, flags: flags)))
    }

    static func streamed(_ src: Source, scale: Int, format: ic_format, readAt: Bool = true, flags: UInt32 = 0) -> Outcome {
        var o = JPEGFixtures.options(scale: scale, flags: flags)
        o.min_valid_permille = -1 // truncations decode grey with a warning, so pixels compare too
        o.read = Self.read
        if readAt { o.read_at = Self.readAt }
        o.read_context = Unmanaged.passUnretained(src).toOpaque()
        return withExtendedLifetime(src) { outcome(JPEGFixtures.decodeGuarded(Array(src.file.prefix(src.prefix)), format: format, options: o)) }
    }

    static func inMemoryNoRule(_ jpeg: [UInt8], scale: Int, format: ic_format, flags: UInt32 = 0) -> Outcome {
        var o = JPEGFixtures.options(scale: scale, flags: flags)
        o.min_valid_permille = -1
        return outcome(JPEGFixtures.decodeGuarded(jpeg, format: format, options: o))
    }

    static func fixtures() throws -> [(String, [UInt8])] {
        let dir = (Bundle.module.url(forResource: "Fixtures", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures"))
            .appendingPathComponent("progressive")
        var files = try JPEGLowFreqTests.cjpegFixtures.map { ($0.name, [UInt8](try Data(contentsOf: dir.appendingPathComponent("\($0.name).jpg")))) }
        // Larger than the windows: scans that need several of them.
        files.append(("640x480 4:2:0 noise, restart 7",
                      JPEGLowFreqTests.colourFile(640, 480, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 7)))
        files.append(("600x400 4:2:2 bands", JPEGLowFreqTests.colourFile(600, 400, factors: [(2, 1), (1, 1), (1, 1)],
                                                                          scans: JPEGLowFreqTests.colourScripts[3].scans)))
        return files
    }

    @Test("streamed equals in memory: committed fixtures and large files, chunks of 1 byte, odd, window-sized, headers only or more")
    func equalsInMemory() throws {
        var reduced = 0
        for (name, jpeg) in try Self.fixtures() {
            let headers = Self.headerBytes(jpeg)
            for scale in [1, 2] {
                for format in [IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8] {
                    let want = Self.inMemory(jpeg, scale: scale, format: format)
                    #expect(want.status == IC_OK)
                    let chunks = jpeg.count > 100_000 && format != IC_FORMAT_RGB8 ? [4093] : [1, 7, 4093, 32 * 1024, 128 * 1024]
                    for chunk in chunks {
                        for prefix in [headers, max(headers, jpeg.count / 2)] {
                            let src = Source(jpeg, prefix: prefix, chunk: chunk)
                            let got = Self.streamed(src, scale: scale, format: format)
                            let context = "\(name), \(scale)/8, format \(format.rawValue), chunk \(chunk), prefix \(prefix)"
                            #expect(got == want, "\(context): \(got) vs \(want)")
                            #expect(!src.askedForPrefix, "\(context)")
                            if got.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue) {
                                reduced += 1
                                #expect(src.readAtBytes > 0, "\(context)")
                                #expect(src.largestRequest <= 128 * 1024, "\(context): a request of \(src.largestRequest)")
                            }
                        }
                    }
                }
            }
        }
        #expect(reduced > 100, "reduced decodes: \(reduced)")
    }

    @Test("without read_at a streamed progressive file is libjpeg's (same pixels)")
    func withoutReadAt() throws {
        let jpeg = try Self.fixtures()[0].1
        for scale in [1, 2] {
            let want = Self.inMemory(jpeg, scale: scale, format: IC_FORMAT_RGBA8)
            #expect(want.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
            let src = Source(jpeg, prefix: Self.headerBytes(jpeg), chunk: 1000)
            let got = Self.streamed(src, scale: scale, format: IC_FORMAT_RGBA8, readAt: false)
            #expect(got.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue))
            #expect(got.status == IC_OK && got.pixels == want.pixels && got.warnings == 0)
            #expect(src.readAtBytes == 0)
        }
    }

    @Test("truncated and damaged streams: the outcome of the same bytes in memory (seeded mutations, odd chunks)")
    func damaged() {
        let bases: [(String, [UInt8])] = [
            ("4:2:0 default, restart 2", JPEGLowFreqTests.colourFile(48, 40, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 2)),
            ("4:2:2 bands", JPEGLowFreqTests.colourFile(37, 29, factors: [(2, 1), (1, 1), (1, 1)], scans: JPEGLowFreqTests.colourScripts[3].scans)),
            ("gray approximations", JPEGLowFreqTests.grayFile(33, 20, scans: JPEGLowFreqTests.grayScripts[1].scans)),
        ]
        var rng = SplitMix64(seed: 1818)
        var reduced = 0, libjpeg = 0, warned = 0
        for (name, base) in bases {
            let headers = Self.headerBytes(base)
            var variants: [(String, [UInt8])] = []
            for k in 1...16 {
                let cut = headers + (base.count - headers) * k / 17
                variants.append(("cut at \(cut)", Array(base[..<cut])))
            }
            for _ in 0..<40 {
                var v = base
                let at = headers + Int(rng.next() % UInt64(base.count - headers))
                v[at] = UInt8(truncatingIfNeeded: rng.next())
                variants.append(("byte \(at)", v))
            }
            for (what, v) in variants {
                for scale in [1, 2] {
                    let want = Self.inMemoryNoRule(v, scale: scale, format: IC_FORMAT_RGB8)
                    let chunk = 1 + Int(rng.next() % 37)
                    let got = Self.streamed(Source(v, prefix: headers, chunk: chunk), scale: scale, format: IC_FORMAT_RGB8)
                    #expect(got == want, "\(name), \(what), \(scale)/8, chunk \(chunk): \(got) vs \(want)")
                    if got.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue) { reduced += 1 } else { libjpeg += 1 }
                    if got.warnings > 0 { warned += 1 }
                }
            }
        }
        #expect(reduced > 30 && libjpeg > 30 && warned > 30, "reduced \(reduced), libjpeg \(libjpeg), warned \(warned)")
    }

    @Test("a file cut inside a segment libjpeg skips (a comment between scans): one warning, as in memory")
    func cutInSkippedSegment() throws {
        let base = JPEGLowFreqTests.colourFile(64, 48, factors: [(2, 2), (1, 1), (1, 1)], scans: [])
        let first = try #require(JPEGLowFreqTests.scanData(base).first)
        let comment: [UInt8] = [0xFF, 0xFE, 0x0F, 0xA2] + [UInt8](repeating: 0x41, count: 4000)
        let jpeg = Array(base[..<first.upperBound]) + comment + Array(base[first.upperBound...])
        for cut in [first.upperBound + 10, first.upperBound + 2000] {
            let v = Array(jpeg.prefix(cut))
            for scale in [1, 2, 8] {
                for readAt in [true, false] {
                    let want = Self.inMemoryNoRule(v, scale: scale, format: IC_FORMAT_RGB8)
                    let got = Self.streamed(Source(v, prefix: Self.headerBytes(v), chunk: 1000), scale: scale,
                                            format: IC_FORMAT_RGB8, readAt: readAt)
                    #expect(want.warnings == 1, "cut at \(cut), \(scale)/8")
                    #expect(got == want, "cut at \(cut), \(scale)/8, read_at \(readAt): \(got) vs \(want)")
                }
            }
        }
    }

    @Test("read errors: read_at failing hands the file to libjpeg (same pixels); both failing is a truncation")
    func readErrors() throws {
        let jpeg = JPEGLowFreqTests.colourFile(640, 480, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 7)
        let headers = Self.headerBytes(jpeg)
        for scale in [1, 2] {
            let whole = Self.inMemory(jpeg, scale: scale, format: IC_FORMAT_RGBA8)
            #expect(whole.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
            for at in [headers, headers + 5000, jpeg.count / 2, jpeg.count - 3] {
                // Positional reads fail, the forward reads work: libjpeg decodes the whole file.
                let src = Source(jpeg, prefix: headers, chunk: 8192)
                src.readAtFailsFrom = at
                let got = Self.streamed(src, scale: scale, format: IC_FORMAT_RGBA8)
                #expect(got.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue), "read_at fails at \(at)")
                #expect(got.status == IC_OK && got.pixels == whole.pixels && got.warnings == 0, "read_at fails at \(at)")
                // Both fail at the same byte: the file as if it ended there.
                let both = Source(jpeg, prefix: headers, chunk: 8192)
                both.readAtFailsFrom = at
                both.readFailsFrom = at
                let cut = Self.inMemoryNoRule(Array(jpeg.prefix(at)), scale: scale, format: IC_FORMAT_RGBA8)
                #expect(Self.streamed(both, scale: scale, format: IC_FORMAT_RGBA8) == cut, "both fail at \(at)")
                #expect(cut.warnings > 0)
            }
        }
    }

    @Test("a stream whose reads fail after its data was checked ends with a typed error, not libjpeg's second delivery")
    func readFailsWhileDelivering() {
        let jpeg = JPEGLowFreqTests.colourFile(640, 480, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 7)
        final class Bands {
            let src: Source
            var rows = 0
            var firsts: [Int32] = []
            init(_ src: Source) { self.src = src }
        }
        for (fail, expected) in [(false, IC_OK), (true, IC_ERR_CORRUPT_DATA)] {
            let src = Source(jpeg, prefix: Self.headerBytes(jpeg), chunk: 1 << 20)
            src.failReadAtAfterBand = fail
            let bands = Bands(src)
            var o = JPEGFixtures.options(scale: 2)
            o.format = IC_FORMAT_RGB8
            o.band_rows = 8
            o.read = Self.read
            o.read_at = Self.readAt
            o.read_context = Unmanaged.passUnretained(src).toOpaque()
            var r = ic_jpeg_decode_result()
            let prefix = Array(jpeg.prefix(src.prefix))
            let context = Unmanaged.passUnretained(bands).toOpaque()
            let st = withExtendedLifetime((src, bands)) {
                ic_jpeg_decode_stream(prefix, prefix.count, &o, { ctx, band, first in
                    let b = Unmanaged<Bands>.fromOpaque(ctx!).takeUnretainedValue()
                    b.firsts.append(first)
                    b.rows += Int(band!.pointee.height)
                    b.src.bandSeen = true
                    return 0
                }, context, &r)
            }
            #expect(st == expected, "status \(st.rawValue)")
            #expect(bands.firsts == bands.firsts.sorted() && Set(bands.firsts).count == bands.firsts.count, "bands once each, in order")
            if fail {
                #expect(bands.rows > 0 && bands.rows < 120, "\(bands.rows) rows delivered before the failed read")
            } else {
                #expect(bands.rows == 120 && r.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
            }
        }
    }

    /// A stream with IC_JPEG_STREAM_RESTART: the rows of the last pass from row 0, how many
    /// times row 0 came, and the status.
    static func restartStream(_ jpeg: [UInt8], scale: Int, flags: UInt32) -> (status: ic_status, rows: [UInt8], starts: Int, decoder: Int32, warnings: Int32) {
        final class Rows { var bytes: [UInt8] = []; var starts = 0; var next = 0; var ordered = true }
        let rows = Rows()
        var o = JPEGFixtures.options(scale: scale, flags: flags)
        o.format = IC_FORMAT_RGB8
        o.band_rows = 3
        o.min_valid_permille = -1
        var r = ic_jpeg_decode_result()
        let st = withExtendedLifetime(rows) {
            ic_jpeg_decode_stream(jpeg, jpeg.count, &o, { ctx, band, first in
                let rows = Unmanaged<Rows>.fromOpaque(ctx!).takeUnretainedValue()
                if first == 0 { rows.starts += 1; rows.bytes = []; rows.next = 0 }
                if Int(first) != rows.next { rows.ordered = false }
                let b = band!.pointee
                for y in 0..<Int(b.height) {
                    rows.bytes.append(contentsOf: UnsafeBufferPointer(start: b.planes.0.data + y * b.planes.0.stride, count: Int(b.width) * 3))
                }
                rows.next = Int(first) + Int(b.height)
                return 0
            }, Unmanaged.passUnretained(rows).toOpaque(), &r)
        }
        #expect(rows.ordered)
        return (st, st == IC_OK ? rows.bytes : [], rows.starts, r.decoder, r.warnings)
    }

    @Test("IC_JPEG_STREAM_RESTART: bands as decoded; on data left to libjpeg halfway, libjpeg's bands again from row 0 (seeded damage)")
    func restartStreams() {
        let bases: [[UInt8]] = [
            JPEGLowFreqTests.colourFile(96, 80, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 2),
            JPEGLowFreqTests.colourFile(88, 72, factors: [(2, 1), (1, 1), (1, 1)], scans: JPEGLowFreqTests.colourScripts[2].scans),
        ]
        var rng = SplitMix64(seed: 1819)
        var restarted = 0, reduced = 0
        for base in bases {
            let scans = JPEGLowFreqTests.scanData(base)
            var variants: [[UInt8]] = [base]
            for _ in 0..<40 {
                // Damage late in a scan the decode reads (the DC scans, read at every scale).
                var v = base
                let scan = scans[Int(rng.next() % 2) == 0 ? 0 : scans.count > 6 ? 4 : 0]
                let at = scan.lowerBound + scan.count / 2 + Int(rng.next() % UInt64(max(1, scan.count / 2)))
                v[min(at, scan.upperBound - 1)] = UInt8(truncatingIfNeeded: rng.next())
                variants.append(v)
            }
            for v in variants {
                for scale in [1, 2] {
                    let want = Self.restartStream(v, scale: scale, flags: UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue))
                    let got = Self.restartStream(v, scale: scale, flags: UInt32(IC_JPEG_STREAM_RESTART.rawValue))
                    let plain = Self.restartStream(v, scale: scale, flags: 0)
                    #expect(got.status == want.status && got.rows == want.rows)
                    #expect(plain.status == want.status && plain.rows == want.rows && plain.starts <= 1)
                    #expect(got.decoder == plain.decoder)
                    // Damage in a scan the reduced decoder skips is not reported (README); libjpeg's report otherwise.
                    if got.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue) { #expect(got.warnings == want.warnings) }
                    if got.starts > 1 { restarted += 1; #expect(got.decoder == Int32(IC_JPEG_DECODER_LIBJPEG.rawValue)) }
                    if got.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue) { reduced += 1; #expect(got.starts == 1) }
                }
            }
        }
        #expect(restarted > 5 && reduced > 5, "restarted \(restarted), reduced \(reduced)")
    }

    @Test("thumbnails of damaged progressive files: libjpeg's thumbnail, also when the decode starts over")
    func restartThumbnails() throws {
        let base = JPEGLowFreqTests.colourFile(400, 300, factors: [(2, 2), (1, 1), (1, 1)], scans: [], restart: 3)
        let dc = try #require(JPEGLowFreqTests.scanData(base).first)
        var rng = SplitMix64(seed: 1820)
        for k in 0..<12 {
            var v = base
            if k > 0 { v[dc.lowerBound + dc.count * (k + 3) / 16] ^= UInt8(truncatingIfNeeded: rng.next() | 1) }
            for size in [50, 100] {
                let limits = JPEG.DecodeOptions(minValidShare: 0)
                let ours = Result { () throws(ImageError) -> PipelineStreamedThumbnailTests.Snap in
                    PipelineStreamedThumbnailTests.Snap(try Thumbnailer.thumbnail(v, maxWidth: size, maxHeight: size, limits: limits))
                }
                var only = limits
                only.libjpegOnly = true
                let theirs = Result { () throws(ImageError) -> PipelineStreamedThumbnailTests.Snap in
                    PipelineStreamedThumbnailTests.Snap(try Thumbnailer.thumbnail(v, maxWidth: size, maxHeight: size, limits: only))
                }
                switch (ours, theirs) {
                case let (.success(a), .success(b)): #expect(a == b, "variant \(k), \(size) px")
                case let (.failure(a), .failure(b)): #expect(a.code == b.code, "variant \(k), \(size) px")
                default: Issue.record("variant \(k), \(size) px: \(ours) vs \(theirs)")
                }
            }
        }
    }

    @Test("memory: the streamed reduced decode holds its windows, not the file (the decoder's byte counter)")
    func memory() {
        let jpeg = JPEGLowFreqTests.colourFile(3200, 2400, factors: [(2, 1), (1, 1), (1, 1)], scans: [])
        #expect(jpeg.count > 1_000_000, "\(jpeg.count) bytes")
        for scale in [1, 2] {
            let src = Source(jpeg, prefix: Self.headerBytes(jpeg), chunk: 1 << 20)
            var o = JPEGFixtures.options(scale: scale)
            o.read = Self.read
            o.read_at = Self.readAt
            o.read_context = Unmanaged.passUnretained(src).toOpaque()
            let r = withExtendedLifetime(src) { JPEGFixtures.decodeGuarded(Array(jpeg.prefix(src.prefix)), format: IC_FORMAT_RGBA8, options: o) }
            #expect(r.status == IC_OK && r.result.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue))
            #expect(r.planes.first == Self.inMemory(jpeg, scale: scale, format: IC_FORMAT_RGBA8).pixels)
            // 128 KiB walk window + 256 KiB of scan windows at most + rows and tables.
            #expect(r.result.peak_memory < 600 * 1024, "\(scale)/8: peak \(r.result.peak_memory) of a \(jpeg.count)-byte file")
            #expect(src.readAtBytes >= jpeg.count - src.prefix, "the walk reads the file once")
        }
    }
}
