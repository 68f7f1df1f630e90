import CImageCore
import CTurboJPEG
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Parallel encode in stripes of whole restart intervals: the bytes must be the serial
/// encoder's with the same settings, and ``JPEG/lastEncodeStripes`` must show the stripes ran.
@Suite("JPEG encode in parallel over restart intervals")
struct JPEGParallelEncodeTests {
    /// Encodes on `threads` threads (this thread's setting only) into a new array; the stripes used.
    static func encode(_ image: borrowing PixelBuffer, _ options: JPEG.EncodeOptions, threads: Int) throws(ImageError) -> ([UInt8], Int) {
        try ImageCoreRuntime.withThreads(threads) { () throws(ImageError) -> ([UInt8], Int) in
            let bytes = try JPEG.encode(image, options: options)
            return (bytes, JPEG.lastEncodeStripes)
        }
    }

    /// Serial and parallel encodes give the same bytes through all three destinations; returns
    /// the parallel encode's stripes.
    @discardableResult
    static func same(_ image: borrowing PixelBuffer, _ options: JPEG.EncodeOptions, threads: Int = 2,
                     _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let (serial, one) = try encode(image, options, threads: 1)
        let (parallel, stripes) = try encode(image, options, threads: threads)
        #expect(one == 1, "\(what()): one thread", sourceLocation: sourceLocation)
        #expect(parallel == serial, "\(what()): \(stripes) stripes give other bytes", sourceLocation: sourceLocation)
        // The caller's buffer: exactly large enough, and one byte short.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: serial.count, alignment: 1)
        defer { buffer.deallocate() }
        try ImageCoreRuntime.withThreads(threads) { () throws(ImageError) in
            let n = try JPEG.encode(image, into: buffer, options: options)
            #expect(n == serial.count && Array(buffer) == serial, "\(what()): fixed buffer", sourceLocation: sourceLocation)
            #expect(JPEG.lastEncodeStripes == stripes, sourceLocation: sourceLocation)
            #expect(throws: ImageError.self, "\(what()): a buffer one byte short", sourceLocation: sourceLocation) {
                _ = try JPEG.encode(image, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(serial.count - 1)]), options: options)
            }
        }
        return stripes
    }

    static func photo(_ w: Int, _ h: Int, _ format: PixelFormat, seed: UInt32 = 5) throws -> PixelBuffer {
        let rgba = try SyntheticImage.photo(width: w, height: h, format: .rgba8, seed: seed)
        switch format {
        case .rgba8: return rgba
        case .rgb8, .gray8:
            var out = try PixelBuffer(width: w, height: h, format: format)
            try out.convert(from: rgba)
            return out
        default:
            return try rgba.converted(to: format)
        }
    }

    @Test("every input format and subsampling, odd sizes, restart rows and intervals: the serial bytes")
    func everyFormat() throws {
        let cases: [(PixelFormat, [JPEG.Subsampling])] = [
            (.rgba8, [.s420, .s422, .s444, .s440, .s411, .gray]), (.rgb8, [.s420, .s444]), (.gray8, [.gray]),
            (.i420, [.s420, .gray]), (.nv12, [.s420, .gray]),
        ]
        for (w, h) in [(1001, 601), (413, 1301)] {
            for (format, samplings) in cases {
                let image = try Self.photo(w, h, format)
                for sampling in samplings {
                    let mcuWidth = [.s420, .s422].contains(sampling) ? 16 : sampling == .s411 ? 32 : 8
                    let perRow = (w + mcuWidth - 1) / mcuWidth
                    let restarts: [(String, JPEG.EncodeOptions)] = [
                        ("every row", .init(subsampling: sampling, restartRows: 1)),
                        ("every 3 rows, q95, EXIF", .init(quality: 95, subsampling: sampling, orientation: .right, restartRows: 3)),
                        ("interval of a row", .init(quality: 60, subsampling: sampling, restartInterval: perRow)),
                        ("interval of 2 rows", .init(subsampling: sampling, restartInterval: 2 * perRow)),
                        ("7 MCUs", .init(subsampling: sampling, restartInterval: 7)),
                    ]
                    for (name, options) in restarts {
                        let s = try Self.same(image, options, "\(w)x\(h) \(format) \(sampling) \(name)")
                        // 7 MCUs start a row every 7 / gcd(7, MCUs a row) rows: still whole rows.
                        #expect(s == 2, "\(w)x\(h) \(format) \(sampling) \(name): \(s) stripes")
                    }
                }
            }
        }
    }

    @Test("3 to 8 threads; optimised tables, progressive, no markers and small images stay serial")
    func stripeCountsAndSerialCases() throws {
        let image = try Self.photo(1280, 960, .rgba8)
        for threads in 3...8 {
            let s = try Self.same(image, .init(restartRows: 1), threads: threads, "\(threads) threads")
            #expect(s == threads)
        }
        let serial: [(String, JPEG.EncodeOptions)] = [
            ("optimised tables", .init(optimizeHuffman: true, restartRows: 1)),
            ("progressive", .init(progressive: true, restartRows: 1)),
            ("no markers", .init(restartRows: 0)),
        ]
        for (name, options) in serial {
            #expect(try Self.same(image, options, name) == 1, "\(name)")
        }
        let small = try Self.photo(640, 480, .rgba8)
        #expect(try Self.same(small, .init(restartRows: 1), "640x480") == 1)
    }

    @Test("an ICC profile of two APP2 chunks and caller EXIF with an orientation: the serial bytes, written once")
    func metadata() throws {
        let image = try Self.photo(1280, 960, .rgba8)
        let icc = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } // two chunks
        let thumbnail = try JPEG.encode(try Self.photo(32, 24, .rgba8), options: .init(quality: 50))
        let exif = ExifWriter.app1(thumbnail: thumbnail, layout: .init(orientation: 1))
        let options = JPEG.EncodeOptions(orientation: .left, iccProfile: icc, exif: exif, restartRows: 1)
        #expect(try Self.same(image, options, "ICC + EXIF") == 2)
        let (bytes, _) = try Self.encode(image, options, threads: 2)
        #expect(try JPEG.iccProfile(bytes) == icc, "the profile, once")
        #expect(try JPEG.info(bytes).orientation == .left)
    }

    @Test("defaults: restart markers every MCU row from 1 Mi pixels; no markers below, as tjCompress2")
    func automaticRestarts() throws {
        let large = try Self.photo(1280, 960, .rgba8) // 1 228 800 pixels
        let (bytes, stripes) = try Self.encode(large, .init(), threads: 2)
        #expect(stripes == 2)
        let info = try JPEG.scanRestarts(bytes)
        #expect(info.restartInterval == 80 && info.splittable, "one interval per MCU row of 80 MCUs")
        // The markers change the bytes, not the pixels: the same decode as TurboJPEG's file
        // without them, and a few bytes a row.
        let packed = JPEGFixtures.packed(large, plane: 0)
        let tj = JPEGFixtures.tjCompress(packed, width: 1280, height: 960, pf: TJPF_RGBA, subsampling: TJSAMP_420, quality: 85)
        #expect(JPEGFixtures.packed(try JPEG.decode(bytes, format: .rgba8), plane: 0) ==
                JPEGFixtures.packed(try JPEG.decode(tj, format: .rgba8), plane: 0))
        #expect(bytes.count > tj.count && bytes.count - tj.count < 60 * 8, "\(bytes.count - tj.count) bytes for 60 markers")
        let (none, _) = try Self.encode(large, .init(restartRows: 0), threads: 2)
        #expect(none == tj, "no markers: TurboJPEG's bytes")
        let small = try Self.photo(1024, 1023, .rgba8) // just under 1 Mi pixels
        let smallTJ = JPEGFixtures.tjCompress(JPEGFixtures.packed(small, plane: 0), width: 1024, height: 1023, pf: TJPF_RGBA,
                                              subsampling: TJSAMP_420, quality: 85)
        #expect(try Self.encode(small, .init(), threads: 2).0 == smallTJ)
    }

    @Test("a parallel encode's file decodes in parallel to the pixels of the serial one")
    func roundTrip() throws {
        let image = try Self.photo(1500, 1100, .nv12)
        let (bytes, stripes) = try Self.encode(image, .init(quality: 92), threads: 2)
        #expect(stripes == 2)
        var parallel = try PixelBuffer(width: 1500, height: 1100, format: .nv12)
        let report = try ImageCoreRuntime.withThreads(2) { () throws(ImageError) -> JPEG.DecodeReport in
            try JPEG.decode(bytes, into: &parallel, options: .init())
        }
        #expect(report.stripes == 2 && report.warnings == 0)
        let serial = try ImageCoreRuntime.withThreads(1) { () throws(ImageError) -> PixelBuffer in try JPEG.decode(bytes, format: .nv12) }
        for p in 0..<2 { #expect(JPEGFixtures.packed(parallel, plane: p) == JPEGFixtures.packed(serial, plane: p)) }
    }
}
