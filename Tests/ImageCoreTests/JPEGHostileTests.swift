import CImageCore
import CTurboJPEG
import Testing
@testable import ImageCore

/// Hostile input: every entry point returns a typed error (or, for recoverable corruption in
/// non-strict mode, a decode with warnings) and never crashes, hangs or over-reads. Decodes go
/// into guard-page planes, so a write past a plane faults.
@Suite("JPEG hostile input")
struct JPEGHostileTests {
    static let formats = [IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12]

    /// Runs every decode entry point on `bytes` and returns the statuses
    /// (probe, then per format: full decode, 1/4 scale, a crop, a stream).
    static func everyEntryPoint(_ bytes: [UInt8], strict: Bool = false, maxPixels: UInt64 = 4_000_000) -> [ic_status] {
        var statuses: [ic_status] = []
        var info = ic_jpeg_info()
        statuses.append(ic_jpeg_probe(bytes, bytes.count, &info))
        for format in formats {
            for variant in 0..<3 {
                var o = JPEGFixtures.options(scale: variant == 1 ? 2 : 8, crop: variant == 2 ? (2, 2, 6, 4) : nil,
                                             flags: strict ? UInt32(IC_JPEG_STRICT.rawValue) : 0)
                o.max_pixels = maxPixels
                let r = JPEGFixtures.decodeGuarded(bytes, format: format, options: o)
                statuses.append(r.status)
                if r.status == IC_OK && strict { #expect(r.result.warnings == 0) }
            }
            var o = JPEGFixtures.options(flags: strict ? UInt32(IC_JPEG_STRICT.rawValue) : 0)
            o.format = format
            o.max_pixels = maxPixels
            o.band_rows = 5
            statuses.append(ic_jpeg_decode_stream(bytes, bytes.count, &o, { _, band, _ in
                // Touch every byte the band claims to hold.
                var sum = 0
                let b = band!.pointee
                withUnsafeBytes(of: b.planes) { raw in
                    for p in 0..<Int(ic_format_plane_count(b.format)) {
                        let pl = raw.load(fromByteOffset: p * MemoryLayout<ic_plane>.stride, as: ic_plane.self)
                        var rowBytes = 0
                        var rows: Int32 = 0
                        _ = ic_plane_geometry(b.format, b.width, b.height, Int32(p), &rowBytes, &rows)
                        for y in 0..<Int(rows) { for x in 0..<rowBytes { sum &+= Int(pl.data[y * pl.stride + x]) } }
                    }
                }
                return sum == -1 ? 1 : 0
            }, nil, nil))
        }
        return statuses
    }

    static let acceptable: Set<Int32> = [IC_OK.rawValue, IC_ERR_CORRUPT_DATA.rawValue, IC_ERR_UNSUPPORTED.rawValue, IC_ERR_TOO_LARGE.rawValue]

    @Test("empty, non-JPEG, SOI+EOI, tables-only: corrupt data from every entry point")
    func notJPEG() throws {
        let good = JPEGFixtures.photo(width: 16, height: 16)
        // Tables only: SOI, the file's DQT/DHT segments, EOI (no frame).
        var tables: [UInt8] = [0xFF, 0xD8]
        var i = 2
        while i + 4 <= good.count, good[i] == 0xFF, good[i + 1] != 0xDA {
            let len = Int(good[i + 2]) << 8 | Int(good[i + 3])
            if good[i + 1] == 0xDB || good[i + 1] == 0xC4 { tables += good[i..<(i + 2 + len)] }
            i += 2 + len
        }
        tables += [0xFF, 0xD9]
        let inputs: [(String, [UInt8])] = [
            ("empty", []), ("one byte", [0xFF]), ("SOI", [0xFF, 0xD8]), ("SOI FF", [0xFF, 0xD8, 0xFF]),
            ("SOI EOI", [0xFF, 0xD8, 0xFF, 0xD9]), ("text", Array("hello, world".utf8)),
            ("PNG", [0x89] + Array("PNG\r\n\u{1A}\n".utf8) + [UInt8](repeating: 0, count: 24)),
            ("GIF", Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]),
            ("SOI then garbage", [0xFF, 0xD8] + [UInt8](repeating: 0x42, count: 100)),
            ("tables only", tables),
        ]
        for (label, bytes) in inputs {
            for st in Self.everyEntryPoint(bytes) { #expect(st == IC_ERR_CORRUPT_DATA, "\(label): \(st)") }
            do { _ = try JPEG.info(bytes); Issue.record("\(label) accepted") } catch { #expect(error.code == .corruptData) }
            do { _ = try JPEG.decode(bytes); Issue.record("\(label) accepted") } catch { #expect(error.code == .corruptData) }
        }
        // Null data with a size is an argument error, not a crash.
        var info = ic_jpeg_info()
        #expect(ic_jpeg_probe(nil, 10, &info) == IC_ERR_INVALID_ARGUMENT)
        var o = ic_jpeg_decode_options()
        var w: Int32 = 0, h: Int32 = 0
        #expect(ic_jpeg_decode_size(nil, 10, &o, &w, &h, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_jpeg_decode(good, good.count, &o, nil, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_jpeg_decode_stream(good, good.count, &o, nil, nil, nil) == IC_ERR_INVALID_ARGUMENT)
    }

    @Test("truncated at every point: strict mode fails, non-strict decodes what is there and warns")
    func truncated() throws {
        for (jpeg, label) in [(JPEGFixtures.photo(width: 33, height: 17), "baseline"),
                              (JPEGFixtures.photo(width: 33, height: 17, subsampling: TJSAMP_444, progressive: true), "progressive")] {
            for n in 0..<jpeg.count {
                let cut = Array(jpeg.prefix(n))
                // Non-strict: an error, or pixels with at least one warning.
                for format in [IC_FORMAT_RGBA8, IC_FORMAT_NV12] {
                    let r = JPEGFixtures.decodeGuarded(cut, format: format, options: JPEGFixtures.options())
                    #expect(r.status == IC_ERR_CORRUPT_DATA || (r.status == IC_OK && r.result.warnings >= 1),
                            "\(label) cut at \(n): \(r.status), \(r.result.warnings) warnings")
                    let s = JPEGFixtures.decodeGuarded(cut, format: format, options: JPEGFixtures.options(flags: UInt32(IC_JPEG_STRICT.rawValue)))
                    #expect(s.status == IC_ERR_CORRUPT_DATA, "\(label) strict cut at \(n): \(s.status)")
                }
                if n % 7 == 0 {
                    for st in Self.everyEntryPoint(cut) { #expect(Self.acceptable.contains(st.rawValue), "\(label) cut at \(n): \(st)") }
                }
            }
            // The whole file: no warning.
            let r = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: JPEGFixtures.options(flags: UInt32(IC_JPEG_STRICT.rawValue)))
            #expect(r.status == IC_OK && r.result.warnings == 0)
        }
        // The Swift report carries the warning text and the rows that had data.
        let jpeg = JPEGFixtures.photo(width: 64, height: 64)
        var image = try PixelBuffer(width: 64, height: 64, format: .rgba8)
        let report = try JPEG.decode(Array(jpeg.prefix(jpeg.count / 2)), into: &image, options: .init(minValidShare: 0))
        #expect(report.warnings >= 1 && (report.lastWarning ?? "").lowercased().contains("premature end"), "\(report)")
        #expect(report.validRows > 0 && report.validRows < 64 && report.peakMemory > 0, "\(report)")
        // The data-sanity rule: the default share refuses the file when fewer than half of the
        // rows had data, and 1 refuses it whenever any row lacks data.
        let share = Double(report.validRows) / 64
        for rule in [0.5, 1.0] {
            do {
                let r = try JPEG.decode(Array(jpeg.prefix(jpeg.count / 2)), into: &image, options: .init(minValidShare: rule))
                #expect(share >= rule && r.validRows == report.validRows, "share \(share) accepted under \(rule)")
            } catch {
                #expect(share < rule && error.code == .corruptData && (error.detail ?? "").contains("rows have image data"), "\(error)")
            }
        }
        #expect(throws: ImageError.self) { try JPEG.decode(jpeg, into: &image, options: .init(minValidShare: 1.5)) }
        #expect(try JPEG.decode(jpeg, into: &image, options: .init(minValidShare: 1)).validRows == 64)
        do { try JPEG.decode(Array(jpeg.prefix(jpeg.count / 2)), into: &image, options: .init(strict: true)); Issue.record("strict accepted") }
        catch { #expect(error.code == .corruptData && (error.detail ?? "").lowercased().contains("premature end"), "\(error)") }
    }

    @Test("random byte corruption (fixed seed, 1500 files): typed errors only, never a crash")
    func corruption() throws {
        let bases = [JPEGFixtures.photo(width: 40, height: 30), JPEGFixtures.photo(width: 40, height: 30, subsampling: TJSAMP_444, progressive: true),
                     JPEGFixtures.libjpeg(.init(width: 40, height: 30, sampling: [(2, 1), (1, 1), (1, 1)], restartInterval: 2),
                                          JPEGFixtures.pixels(width: 40, height: 30, channels: 3)),
                     JPEGFixtures.photo(width: 23, height: 41, subsampling: TJSAMP_GRAY)]
        var rng = SplitMix64(seed: 0xC0FFEE)
        var outcomes: [Int32: Int] = [:]
        for i in 0..<1500 {
            var bytes = bases[i % bases.count]
            let edits = 1 + Int(rng.next() % 8)
            for _ in 0..<edits {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 4 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes[at] ^= UInt8(1 << (rng.next() % 8))
                case 2: bytes[at] = 0xFF
                default: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 16)))
                }
            }
            // Full matrix on some, a quick RGBA + NV12 decode on all.
            let statuses = i % 10 == 0 ? Self.everyEntryPoint(bytes)
                : [IC_FORMAT_RGBA8, IC_FORMAT_NV12].map { fmt in
                    var o = JPEGFixtures.options()
                    o.max_pixels = 4_000_000
                    return JPEGFixtures.decodeGuarded(bytes, format: fmt, options: o).status
                }
            for st in statuses {
                #expect(Self.acceptable.contains(st.rawValue), "file \(i): \(st)")
                outcomes[st.rawValue, default: 0] += 1
            }
        }
        // The corpus exercised both outcomes.
        #expect((outcomes[IC_OK.rawValue] ?? 0) > 100 && (outcomes[IC_ERR_CORRUPT_DATA.rawValue] ?? 0) > 100)
    }

    @Test("multi-scan files cut before a component's scan (fuzzer regression: per-scan state never set)")
    func missingScans() throws {
        let (w, h) = (48, 32)
        let px = JPEGFixtures.pixels(width: w, height: h, channels: 3)
        let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, sampling: [(2, 2), (1, 1), (1, 1)], nonInterleaved: true), px)
        // Complete, it decodes as TurboJPEG decodes it, at every scale and format.
        try JPEGDecodeTests.checkAllScales(jpeg, label: "non-interleaved")
        try JPEGYUVTests.check(jpeg, subsampling: TJSAMP_420, label: "non-interleaved")
        // Cut anywhere (including between the scans): typed results only.
        for n in stride(from: 0, to: jpeg.count, by: 3) {
            let cut = Array(jpeg.prefix(n))
            for m in [1, 3, 4, 8] {
                for format in [IC_FORMAT_I420, IC_FORMAT_NV12, IC_FORMAT_RGBA8] {
                    let r = JPEGFixtures.decodeGuarded(cut, format: format, options: JPEGFixtures.options(scale: m))
                    #expect(r.status == IC_ERR_CORRUPT_DATA || (r.status == IC_OK && r.result.warnings >= 1), "cut at \(n), \(m)/8: \(r.status)")
                }
            }
        }
    }

    /// A JPEG whose frame header claims `width` x `height` (SOF patched), data unchanged.
    static func bomb(width: Int, height: Int, progressive: Bool) -> [UInt8] {
        var jpeg = JPEGFixtures.photo(width: 16, height: 16, progressive: progressive)
        var i = 2
        while i + 9 < jpeg.count {
            let marker = jpeg[i + 1]
            if marker == 0xC0 || marker == 0xC2 {
                jpeg[i + 5] = UInt8(height >> 8); jpeg[i + 6] = UInt8(height & 255)
                jpeg[i + 7] = UInt8(width >> 8); jpeg[i + 8] = UInt8(width & 255)
                return jpeg
            }
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        fatalError("no SOF")
    }

    @Test("a header claiming 65500x65500 is refused before anything is allocated")
    func decompressionBomb() throws {
        for progressive in [false, true] {
            let jpeg = Self.bomb(width: 65500, height: 65500, progressive: progressive)
            let info = try JPEG.info(jpeg) // the probe reports it; it allocates nothing image-sized
            #expect(info.width == 65500 && info.height == 65500)
            for format in [PixelFormat.rgba8, .i420, .nv12, .gray8] {
                let (_, usage) = PixelAllocator.measure { () -> Int in
                    do throws(ImageError) { _ = try JPEG.decode(jpeg, format: format); Issue.record("bomb decoded") }
                    catch {
                        #expect(error.code == .tooLarge)
                        // The refusal comes from the header check, which runs before
                        // jpeg_start_decompress (libjpeg's only image-sized allocations).
                        #expect((error.detail ?? "").contains("above the limit of 100000000"), "\(error)")
                    }
                    do throws(ImageError) { try JPEG.decodeStream(jpeg, format: format) { _ throws(ImageError) in Issue.record("band delivered") } }
                    catch { #expect(error.code == .tooLarge) }
                    return 0
                }
                #expect(usage.peakBytes == 0 && usage.allocations == 0)
            }
        }
        // The limit is configurable per call, and it is on source pixels (before scaling).
        let small = Self.bomb(width: 3000, height: 2000, progressive: false)
        do { _ = try JPEG.decodedSize(small, options: .init(maxPixels: 5_999_999)); Issue.record("accepted") }
        catch { #expect(error.code == .tooLarge) }
        do { _ = try JPEG.decodedSize(small, options: .init(scale: .eighths(1), maxPixels: 5_999_999)); Issue.record("accepted") }
        catch { #expect(error.code == .tooLarge) }
        #expect(try JPEG.decodedSize(small, options: .init(maxPixels: 6_000_000)) == (3000, 2000))
    }

    @Test("scan and memory limits stop progressive files")
    func limits() throws {
        let progressive = JPEGFixtures.photo(width: 200, height: 100, progressive: true)
        do { _ = try JPEG.decode(progressive, options: .init(maxScans: 3)); Issue.record("accepted") }
        catch { #expect(error.code == .tooLarge && (error.detail ?? "").contains("scans")) }
        _ = try JPEG.decode(progressive, options: .init(maxScans: 20))
        // A progressive file needs a whole-image coefficient buffer (200 x 100 at 4:2:0: 60 000
        // bytes); a baseline one does not: the budget that fits the baseline decode refuses it.
        let baseline = JPEGFixtures.photo(width: 200, height: 100)
        var image = try PixelBuffer(width: 200, height: 100, format: .rgba8)
        let budget = try JPEG.decode(baseline, into: &image).peakMemory
        #expect(budget > 0 && budget < 60_000, "\(budget)")
        try JPEG.decode(baseline, into: &image, options: .init(maxMemory: budget))
        do { try JPEG.decode(progressive, into: &image, options: .init(maxMemory: budget)); Issue.record("accepted") }
        catch { #expect(error.code == .tooLarge && (error.detail ?? "").contains("memory budget"), "\(error)") }
        #expect(try JPEG.decode(progressive, into: &image).peakMemory > budget + 60_000)
    }

    @Test("bad descriptors and options are argument errors")
    func badArguments() throws {
        let jpeg = JPEGFixtures.photo(width: 16, height: 8)
        var bytes = [UInt8](repeating: 0, count: 16 * 8 * 4)
        bytes.withUnsafeMutableBufferPointer { p in
            var image = ic_image()
            image.format = IC_FORMAT_RGBA8
            image.width = 16; image.height = 8
            image.planes.0 = ic_plane(data: p.baseAddress, stride: 63) // shorter than a row
            var o = ic_jpeg_decode_options()
            #expect(ic_jpeg_decode(jpeg, jpeg.count, &o, &image, nil) == IC_ERR_INVALID_ARGUMENT)
            image.planes.0.stride = 64
            for bad in [{ (o: inout ic_jpeg_decode_options) in o.scale_num = 9 }, { $0.scale_num = -1 }, { $0.flags = 1 << 7 },
                        { $0.max_scans = -1 }, { $0.band_rows = -3 }, { $0.format = IC_FORMAT_GRAY8 }, { $0.crop_x = 3 }] {
                var o = ic_jpeg_decode_options()
                bad(&o)
                #expect(ic_jpeg_decode(jpeg, jpeg.count, &o, &image, nil) == IC_ERR_INVALID_ARGUMENT)
            }
            #expect(ic_jpeg_decode(jpeg, jpeg.count, nil, &image, nil) == IC_OK) // NULL options = defaults
        }
    }
}
