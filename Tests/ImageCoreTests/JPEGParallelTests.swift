import CImageCore
import CLibJPEG
import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore

/// Parallel decode over restart intervals: every output is compared byte for byte with the
/// serial decode of the same file and options (one thread), and the report must say the
/// parallel path actually ran (`stripes` > 1) where it should, and did not where it must not.
@Suite("JPEG decode in parallel over restart intervals")
struct JPEGParallelTests {
    static let formats: [PixelFormat] = [.rgba8, .rgb8, .gray8, .i420, .nv12]

    struct Decoded: Equatable {
        var planes: [[UInt8]]
        var warnings: Int
        var message: String?
        var validRows: Int
    }

    /// Decodes on `threads` threads (this thread's setting only) and returns the planes and report.
    static func decode(_ jpeg: [UInt8], _ format: PixelFormat, _ options: JPEG.DecodeOptions,
                       threads: Int) throws(ImageError) -> (Decoded, stripes: Int) {
        try ImageCoreRuntime.withThreads(threads) { () throws(ImageError) -> (Decoded, stripes: Int) in
            let size = try JPEG.decodedSize(jpeg, format: format, options: options)
            var image = try PixelBuffer(width: size.width, height: size.height, format: format)
            let r = try JPEG.decode(jpeg, into: &image, options: options)
            let planes = (0..<image.planeCount).map { JPEGFixtures.packed(image, plane: $0) }
            return (Decoded(planes: planes, warnings: r.warnings, message: r.lastWarning, validRows: r.validRows), r.stripes)
        }
    }

    /// Serial and parallel decodes agree; returns the parallel run's stripe count.
    @discardableResult
    static func same(_ jpeg: [UInt8], _ format: PixelFormat, _ options: JPEG.DecodeOptions, threads: Int = 2,
                     _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var o = options
        o.parallelAnySize = true
        let (serial, one) = try decode(jpeg, format, o, threads: 1)
        let (parallel, stripes) = try decode(jpeg, format, o, threads: threads)
        #expect(one == 1, "\(what()): one thread", sourceLocation: sourceLocation)
        #expect(parallel == serial, "\(what()): \(stripes) stripes differ from the serial decode", sourceLocation: sourceLocation)
        #expect(stripes <= threads, sourceLocation: sourceLocation)
        return stripes
    }

    /// A photo with a restart interval of `interval` MCUs (0: one per MCU row).
    static func photo(_ w: Int, _ h: Int, sampling: [(Int, Int)], gray: Bool = false, interval: Int = 0,
                      quality: Int = 88, seed: UInt32 = 3) -> [UInt8] {
        let mcuW = 8 * (sampling.first?.0 ?? 1)
        var spec = JPEGFixtures.Spec(width: w, height: h)
        if gray {
            spec.inputComponents = 1
            spec.inputSpace = JCS_GRAYSCALE
            spec.jpegSpace = JCS_GRAYSCALE
        }
        spec.sampling = sampling
        spec.quality = quality
        spec.restartInterval = interval > 0 ? interval : (w + mcuW - 1) / mcuW
        return JPEGFixtures.libjpeg(spec, JPEGFixtures.pixels(width: w, height: h, channels: gray ? 1 : 3, seed: seed))
    }

    static let samplings: [(String, [(Int, Int)], Bool)] = [
        ("4:2:0", [(2, 2), (1, 1), (1, 1)], false), ("4:2:2", [(2, 1), (1, 1), (1, 1)], false),
        ("4:4:4", [(1, 1), (1, 1), (1, 1)], false), ("gray", [(1, 1)], true),
        ("4:4:0", [(1, 2), (1, 1), (1, 1)], false), ("4:1:1", [(4, 1), (1, 1), (1, 1)], false),
    ]

    @Test("every format, scale and subsampling, odd sizes: byte-identical to the serial decode, in 2 and 3 stripes")
    func everyFormatScaleSampling() throws {
        for (name, sampling, gray) in Self.samplings {
            // Tall enough for MCU rows starting intervals numbered 0 mod 8 at two places at least.
            let (w, h) = sampling[0].1 == 2 ? (301, 437) : (173, 229)
            let jpeg = Self.photo(w, h, sampling: sampling, gray: gray)
            for format in Self.formats {
                for scale in 1...8 {
                    let o = JPEG.DecodeOptions(scale: .eighths(scale))
                    let s2 = try Self.same(jpeg, format, o, "\(name) \(format) \(scale)/8")
                    #expect(s2 == 2, "\(name) \(format) \(scale)/8: \(s2) stripes")
                    let s3 = try Self.same(jpeg, format, o, threads: 3, "\(name) \(format) \(scale)/8, 3 threads")
                    #expect(s3 >= 2, "\(name) \(format) \(scale)/8, 3 threads: \(s3) stripes")
                }
            }
        }
    }

    @Test("fast upsampling and fast IDCT, CMYK, and every stripe count up to 8")
    func flagsCMYKAndManyStripes() throws {
        let jpeg = Self.photo(517, 611, sampling: [(2, 2), (1, 1), (1, 1)])
        for format in Self.formats {
            for scale in [1, 3, 8] {
                try Self.same(jpeg, format, .init(scale: .eighths(scale), fastUpsampling: true), "\(format) \(scale)/8 fast upsampling")
                try Self.same(jpeg, format, .init(scale: .eighths(scale), fastDCT: true), "\(format) \(scale)/8 fast DCT")
            }
        }
        for threads in 2...8 {
            let s = try Self.same(jpeg, .rgba8, .init(), threads: threads, "\(threads) threads")
            #expect(s >= 2 && s <= threads)
        }
        var spec = JPEGFixtures.Spec(width: 203, height: 301)
        spec.inputComponents = 4
        spec.inputSpace = JCS_CMYK
        spec.jpegSpace = JCS_CMYK
        spec.restartInterval = 26
        let cmyk = JPEGFixtures.libjpeg(spec, JPEGFixtures.cmykPixels(width: 203, height: 301))
        for format: PixelFormat in [.rgba8, .rgb8, .gray8] {
            #expect(try Self.same(cmyk, format, .init(), "CMYK \(format)") == 2)
        }
    }

    @Test("crops (any rows, any columns; even for I420/NV12) at every scale are the serial crop")
    func crops() throws {
        let jpeg = Self.photo(389, 533, sampling: [(2, 2), (1, 1), (1, 1)], seed: 9)
        var rng = SplitMix64(seed: 19)
        for scale in 1...8 {
            let (w, h) = try JPEG.scaledSize(width: 389, height: 533, eighths: scale)
            for format in Self.formats {
                for _ in 0..<4 {
                    var x = Int(rng.next() % UInt64(w - 2)), y = Int(rng.next() % UInt64(h - 2))
                    if format == .i420 || format == .nv12 { x &= ~1; y &= ~1 }
                    let cw = 1 + Int(rng.next() % UInt64(w - x)), ch = 1 + Int(rng.next() % UInt64(h - y))
                    try Self.same(jpeg, format, .init(scale: .eighths(scale), crop: .init(x: x, y: y, width: cw, height: ch)),
                                  "\(format) \(scale)/8 crop \(x),\(y) \(cw)x\(ch)")
                }
            }
        }
    }

    @Test("restart intervals: every MCU, several rows, part of a row; too coarse to split → serial")
    func intervals() throws {
        let (w, h) = (333, 701) // 4:2:0: 21 MCUs a row, 44 MCU rows
        for interval in [1, 3, 7, 21, 42, 63] {
            let jpeg = Self.photo(w, h, sampling: [(2, 2), (1, 1), (1, 1)], interval: interval)
            let s = try Self.same(jpeg, .rgba8, .init(), "interval \(interval)")
            // Intervals numbered 0 mod 8 start at MCU rows r where r * 21 is a multiple of
            // 8 * interval: every 8 rows for 1, 3, 7 and 21 MCUs, every 16 for 42, 24 for 63.
            let aligned = 8 * interval / Self.gcd(8 * interval, 21)
            #expect(s == 2, "interval \(interval): \(s) stripes, aligned rows every \(aligned)")
            try Self.same(jpeg, .i420, .init(scale: .eighths(3)), "interval \(interval), I420 3/8")
        }
        // 5 MCUs: an interval numbered 0 mod 8 starts only at row 40 of 44, too low to pay; 37:
        // no interval starts a row below the first (37 and 21 are coprime); 0: no markers.
        for interval in [5, 37, 0] {
            var spec = JPEGFixtures.Spec(width: w, height: h)
            spec.restartInterval = interval
            let jpeg = JPEGFixtures.libjpeg(spec, JPEGFixtures.pixels(width: w, height: h, channels: 3))
            #expect(try Self.same(jpeg, .rgba8, .init(), "interval \(interval)") == 1)
        }
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    @Test("scanRestarts: intervals, rows and cut rows; incomplete or foreign markers are not splittable")
    func scanRestarts() throws {
        let jpeg = Self.photo(333, 701, sampling: [(2, 2), (1, 1), (1, 1)], interval: 7) // 21 x 44 MCUs
        let info = try JPEG.scanRestarts(jpeg)
        #expect(info.restartInterval == 7 && info.intervals == 21 * 44 / 7 && info.mcuRows == 44)
        #expect(info.cutRows == 43 / 8 && info.splittable) // 0 mod 8 intervals begin rows 8, 16, ...
        let data = Self.entropyRange(jpeg)
        #expect(try !JPEG.scanRestarts(Array(jpeg[0..<(data.upperBound - 100)])).splittable, "truncated")
        var renumbered = jpeg
        var p = data.lowerBound + data.count / 2
        while !(renumbered[p] == 0xFF && (0xD0...0xD7).contains(renumbered[p + 1])) { p += 1 }
        renumbered[p + 1] = 0xD0 | ((renumbered[p + 1] + 1) & 7)
        #expect(try !JPEG.scanRestarts(renumbered).splittable, "a marker out of sequence")
        var dropped = jpeg
        dropped.removeSubrange(p..<(p + 2))
        #expect(try !JPEG.scanRestarts(dropped).splittable, "a marker missing")
        let plain = JPEGFixtures.photo(width: 333, height: 701)
        let none = try JPEG.scanRestarts(plain)
        #expect(none.restartInterval == 0 && !none.splittable)
        #expect(throws: ImageError.self) { try JPEG.scanRestarts([0xFF, 0xD8, 0xFF]) }
    }

    @Test("progressive, arithmetic-coded and non-interleaved files are decoded serially")
    func notSplittable() throws {
        let (w, h) = (301, 437)
        var spec = JPEGFixtures.Spec(width: w, height: h)
        spec.restartInterval = 19
        let pixels = JPEGFixtures.pixels(width: w, height: h, channels: 3)
        for variant in ["progressive", "arithmetic", "non-interleaved"] {
            var s = spec
            switch variant {
            case "progressive": s.progressive = true
            case "arithmetic": s.arithmetic = true
            default: s.nonInterleaved = true
            }
            let jpeg = JPEGFixtures.libjpeg(s, pixels)
            if variant == "arithmetic" && (try? JPEG.info(jpeg)) == nil { continue } // no arithmetic decoder
            #expect(try Self.same(jpeg, .rgba8, .init(), variant) == 1, "\(variant)")
        }
    }

    /// Entropy-coded bytes: after the first SOS segment, before EOI.
    static func entropyRange(_ jpeg: [UInt8]) -> Range<Int> {
        var p = 2
        while p + 4 < jpeg.count {
            let len = Int(jpeg[p + 2]) << 8 | Int(jpeg[p + 3])
            if jpeg[p + 1] == 0xDA { return (p + 2 + len)..<(jpeg.count - 2) }
            p += 2 + len
        }
        return 0..<0
    }

    @Test("corrupt, truncated and mis-marked data: the same pixels, warnings, message and valid rows as serial")
    func corruptData() throws {
        var rng = SplitMix64(seed: 77)
        var parallelClean = 0, redone = 0
        for trial in 0..<60 {
            let sampling = Self.samplings[trial % 4]
            let jpeg0 = Self.photo(240 + trial * 3, 300 + trial * 5, sampling: sampling.1, gray: sampling.2,
                                   interval: trial % 3 == 0 ? 2 : 0, seed: UInt32(trial))
            var jpeg = jpeg0
            let data = Self.entropyRange(jpeg)
            switch trial % 4 {
            case 0, 1: // flip bytes that are not part of a marker or a stuffed 0xFF 0x00
                for _ in 0..<(1 + Int(rng.next() % 4)) {
                    let p = data.lowerBound + 1 + Int(rng.next() % UInt64(data.count - 2))
                    if jpeg[p] == 0xFF || jpeg[p - 1] == 0xFF { continue }
                    jpeg[p] = UInt8(rng.next() % 255)
                }
            case 2: // truncated inside the entropy-coded data
                jpeg = Array(jpeg[0..<(data.lowerBound + Int(rng.next() % UInt64(data.count)))])
            default: // a restart marker renumbered
                var p = data.lowerBound + Int(rng.next() % UInt64(data.count / 2))
                while p + 1 < data.upperBound, !(jpeg[p] == 0xFF && (0xD0...0xD7).contains(jpeg[p + 1])) { p += 1 }
                if p + 1 < data.upperBound { jpeg[p + 1] = 0xD0 | ((jpeg[p + 1] + 3) & 7) }
            }
            for format in Self.formats {
                let scale = 1 + Int(rng.next() % 8)
                for strict in [false, true] {
                    let o = JPEG.DecodeOptions(scale: .eighths(scale), strict: strict, minValidShare: 0, parallelAnySize: true)
                    let serial = Swift.Result { () throws(ImageError) in try Self.decode(jpeg, format, o, threads: 1).0 }
                    let parallel = Swift.Result { () throws(ImageError) in try Self.decode(jpeg, format, o, threads: 2) }
                    switch (serial, parallel) {
                    case (.success(let a), .success(let (b, stripes))):
                        #expect(a == b, "trial \(trial) \(format) \(scale)/8 strict \(strict)")
                        if stripes > 1 { parallelClean += 1; #expect(a.warnings == 0) } else if a.warnings > 0 { redone += 1 }
                    case (.failure(let a), .failure(let b)):
                        #expect(a.code == b.code && a.detail == b.detail, "trial \(trial) \(format) \(scale)/8 strict: \(a) vs \(b)")
                    default:
                        Issue.record("trial \(trial) \(format) \(scale)/8 strict \(strict): \(serial) vs \(parallel)")
                    }
                }
            }
        }
        // Both paths were taken: intact files (a flip can land where it changes nothing) and
        // corrupt ones redone serially.
        #expect(parallelClean > 0 && redone > 0, "\(parallelClean) clean parallel decodes, \(redone) redone")
    }

    @Test("the marker search's scalar reference and AVX2 paths give the same decode, both in stripes")
    func scalarAndVector() throws {
        let jpeg = Self.photo(301, 437, sampling: [(2, 2), (1, 1), (1, 1)], quality: 97)
        let o = JPEG.DecodeOptions(parallelAnySize: true)
        let (vector, s1) = try Self.decode(jpeg, .rgb8, o, threads: 2)
        let (scalar, s2) = try ProcessSettings.with(cpuMask: 0) { try Self.decode(jpeg, .rgb8, o, threads: 2) }
        let (serial, _) = try Self.decode(jpeg, .rgb8, o, threads: 1)
        #expect(s1 == 2 && s2 == 2)
        #expect(vector == serial && scalar == serial)
    }

    @Test("a parallel decode allocates no pixel memory and reports its stripes' libjpeg memory")
    func memory() throws {
        let jpeg = Self.photo(640, 480, sampling: [(2, 2), (1, 1), (1, 1)])
        for format in Self.formats {
            var image = try PixelBuffer(width: 640, height: 480, format: format)
            let (report, usage) = try PixelAllocator.measure { () throws(ImageError) -> JPEG.DecodeReport in
                try ImageCoreRuntime.withThreads(2) { () throws(ImageError) -> JPEG.DecodeReport in
                    try JPEG.decode(jpeg, into: &image, options: .init(parallelAnySize: true))
                }
            }
            #expect(report.stripes == 2)
            #expect(usage.allocations == 0 && usage.peakBytes == 0)
            #expect(report.peakMemory > 0)
            // A budget below what two stripes need makes them fail; the decode then runs serially
            // within the budget (or fails as the serial decode would).
            let serialPeak = try ImageCoreRuntime.withThreads(1) { () throws(ImageError) -> Int in
                try JPEG.decode(jpeg, into: &image, options: .init(parallelAnySize: true)).peakMemory
            }
            let tight = try ImageCoreRuntime.withThreads(2) { () throws(ImageError) -> JPEG.DecodeReport in
                try JPEG.decode(jpeg, into: &image, options: .init(maxMemory: serialPeak, parallelAnySize: true))
            }
            #expect(tight.peakMemory <= serialPeak)
        }
    }

    /// A stream's bands (first row, rows, packed planes), the report, or the error.
    struct Streamed: Equatable {
        var bands: [[Int]] = []
        var planes: [[UInt8]] = []
        var warnings = 0
        var message: String?
        var validRows = 0
        var error: ImageError?
    }

    static func stream(_ jpeg: [UInt8], _ format: PixelFormat, _ options: JPEG.DecodeOptions, threads: Int,
                       stopAfter: Int = 0) -> (Streamed, stripes: Int) {
        var out = Streamed()
        out.planes = [[UInt8]](repeating: [], count: format.planeCount)
        var stripes = 0
        do {
            let r = try ImageCoreRuntime.withThreads(threads) { () throws(ImageError) -> JPEG.DecodeReport in
                try JPEG.decodeStream(jpeg, format: format, options: options) { band throws(ImageError) in
                    out.bands.append([band.firstRow, band.rowCount])
                    for p in 0..<band.planeCount {
                        let g = band.plane(p)
                        band.withPlane(p) { span in
                            span.withUnsafeBufferPointer { b in
                                for y in 0..<g.rows { out.planes[p] += b[(y * g.stride)..<(y * g.stride + g.rowBytes)] }
                            }
                        }
                    }
                    if stopAfter > 0 && out.bands.count >= stopAfter { throw ImageError(.cancelled, "enough") }
                }
            }
            (out.warnings, out.message, out.validRows, stripes) = (r.warnings, r.lastWarning, r.validRows, r.stripes)
        } catch {
            out.error = error
        }
        return (out, stripes)
    }

    @Test("streams: the serial decode's bands, every format and scale, any band height, crops, a consumer that stops")
    func streams() throws {
        let jpeg = Self.photo(1203, 1499, sampling: [(2, 2), (1, 1), (1, 1)], seed: 4)
        let jpeg422 = Self.photo(640, 2400, sampling: [(2, 1), (1, 1), (1, 1)], interval: 80, seed: 6)
        var parallel = 0
        for (name, file, w, h) in [("4:2:0", jpeg, 1203, 1499), ("4:2:2, 2 rows an interval", jpeg422, 640, 2400)] {
            for format in Self.formats {
                for scale in 1...8 {
                    let (sw, sh) = try JPEG.scaledSize(width: w, height: h, eighths: scale)
                    var cases: [(JPEG.DecodeOptions, Int)] = [(.init(scale: .eighths(scale)), 0),
                                                              (.init(scale: .eighths(scale), crop: .init(x: 4, y: sh / 3 * 2, width: sw / 2, height: sh / 3)), 0),
                                                              (.init(scale: .eighths(scale)), 5)]
                    if scale <= 2 { for rows in [1, 7, 100] { cases.append((.init(scale: .eighths(scale), bandRows: rows), 0)) } }
                    for (var o, stop) in cases {
                        o.parallelAnySize = true
                        let (serial, one) = Self.stream(file, format, o, threads: 1, stopAfter: stop)
                        let (split, stripes) = Self.stream(file, format, o, threads: 2, stopAfter: stop)
                        #expect(one == 1 || serial.error != nil)
                        #expect(split == serial, "\(name) \(format) \(scale)/8 band \(o.bandRows) crop \(String(describing: o.crop)) stop \(stop): \(stripes) stripes")
                        if stripes > 1 { parallel += 1 }
                    }
                }
            }
        }
        // Chunks are at least 16 MCU rows and their buffers at most 8 MiB: the scaled decodes split.
        #expect(parallel >= 100, "\(parallel) streams in stripes")
        let (_, scaled) = Self.stream(jpeg, .rgba8, .init(scale: .eighths(2), parallelAnySize: true), threads: 2)
        #expect(scaled > 2, "a 1/4 stream in waves of chunks")
    }

    @Test("streams of corrupt and truncated files: the serial decode's bands and report")
    func corruptStreams() throws {
        let jpeg0 = Self.photo(1203, 1499, sampling: [(2, 2), (1, 1), (1, 1)], seed: 8)
        let data = Self.entropyRange(jpeg0)
        var rng = SplitMix64(seed: 3)
        for trial in 0..<12 {
            var jpeg = jpeg0
            if trial % 3 == 2 {
                jpeg = Array(jpeg[0..<(data.lowerBound + data.count / 2 + Int(rng.next() % UInt64(data.count / 3)))])
            } else {
                let p = data.lowerBound + data.count / 3 + Int(rng.next() % UInt64(data.count / 2))
                if jpeg[p] != 0xFF && jpeg[p - 1] != 0xFF { jpeg[p] ^= 0x5A }
            }
            for format in [PixelFormat.rgba8, .nv12] {
                for strict in [false, true] {
                    let o = JPEG.DecodeOptions(scale: .eighths(1 + trial % 3), strict: strict, minValidShare: 0, parallelAnySize: true)
                    let (serial, _) = Self.stream(jpeg, format, o, threads: 1)
                    let (split, _) = Self.stream(jpeg, format, o, threads: 2)
                    #expect(split == serial, "trial \(trial) \(format) strict \(strict)")
                }
            }
        }
    }

    @Test("the size threshold: small images stay serial unless asked, large ones split by default")
    func threshold() throws {
        let small = Self.photo(301, 437, sampling: [(2, 2), (1, 1), (1, 1)])
        #expect(try Self.decode(small, .rgba8, .init(), threads: 2).stripes == 1)
        #expect(try Self.decode(small, .rgba8, .init(parallelAnySize: true), threads: 2).stripes == 2)
        let large = Self.photo(1200, 900, sampling: [(2, 2), (1, 1), (1, 1)])
        #expect(try Self.decode(large, .rgba8, .init(), threads: 2).stripes == 2)
        #expect(try Self.decode(large, .rgba8, .init(), threads: 1).stripes == 1)
    }
}
