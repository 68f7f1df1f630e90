import Foundation
import Testing
@testable import ImageCore

@Suite("PNM")
struct PNMTests {
    /// A buffer of `format` whose bytes are a fixed function of position.
    static func pattern(_ w: Int, _ h: Int, _ format: PixelFormat) throws -> PixelBuffer {
        var b = try PixelBuffer(width: w, height: h, format: format, alignment: 32)
        let g = b.plane(0)
        b.withMutablePlane(0) { s in
            for y in 0..<g.rows { for x in 0..<g.rowBytes { s[y * g.stride + x] = UInt8(truncatingIfNeeded: x &* 13 &+ y &* 101) } }
        }
        return b
    }

    /// The expected file bytes, built independently of the writer.
    static func expectedFile(_ w: Int, _ h: Int, _ format: PixelFormat) -> [UInt8] {
        let channels = format == .gray8 ? 1 : format == .rgb8 ? 3 : 4
        let header = switch format {
        case .gray8: "P5\n\(w) \(h)\n255\n"
        case .rgb8: "P6\n\(w) \(h)\n255\n"
        default: "P7\nWIDTH \(w)\nHEIGHT \(h)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        }
        var bytes = Array(header.utf8)
        for y in 0..<h { for x in 0..<(w * channels) { bytes.append(UInt8(truncatingIfNeeded: x &* 13 &+ y &* 101)) } }
        return bytes
    }

    static func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-\(UUID().uuidString)-\(name)").path
    }

    @Test("encode and write produce the exact bytes; read and decode give them back",
          arguments: [PixelFormat.gray8, .rgb8, .rgba8])
    func roundTrip(format: PixelFormat) throws {
        for (w, h) in [(1, 1), (17, 9), (67, 3)] {
            let b = try Self.pattern(w, h, format)
            let expected = Self.expectedFile(w, h, format)
            #expect(try PNM.encode(b) == expected)
            let path = Self.tempPath("rt.pnm")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try PNM.write(b, path: path)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == expected)
            let fromFile = try PNM.read(path: path), fromMemory = try PNM.decode(expected)
            #expect(fromFile.width == w && fromFile.height == h && fromFile.format == format)
            #expect(fromMemory.width == w && fromMemory.height == h && fromMemory.format == format)
            #expect(try PNM.encode(fromFile) == expected)
            #expect(try PNM.encode(fromMemory) == expected)
        }
    }

    @Test("reading allocates exactly one buffer: pixels go straight into its rows")
    func readAllocatesOnce() throws {
        let bytes = Self.expectedFile(300, 200, .rgb8)
        let (_, usage) = try PixelAllocator.measure { _ = try PNM.decode(bytes) }
        var l = 0
        let b = try PixelBuffer(width: 300, height: 200, format: .rgb8)
        l = b.byteCount
        #expect(usage.allocations == 1 && usage.peakBytes == l)
    }

    @Test("headers with comments and odd whitespace parse")
    func comments() throws {
        let bytes = Array("P5 # comment\n# another\n 2\t3 \n255\n".utf8) + [1, 2, 3, 4, 5, 6]
        let b = try PNM.decode(bytes)
        #expect(b.width == 2 && b.height == 3)
        #expect(b.withPlane(0) { s in s[b.plane(0).stride * 2 + 1] } == 6)
        let pam = Array("P7\n# c\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".utf8) + [9, 8, 7]
        #expect(try PNM.decode(pam).format == .rgb8)
    }

    static let bad: [(String, [UInt8], ImageError.Code)] = [
        ("empty", [], .corruptData),
        ("not PNM", Array("GIF89a".utf8), .corruptData),
        ("ASCII P3", Array("P3\n1 1\n255\n1 2 3\n".utf8), .unsupported),
        ("16-bit", Array("P5\n1 1\n65535\n".utf8) + [0, 0], .unsupported),
        ("maxval 0", Array("P5\n1 1\n0\n".utf8) + [0], .corruptData),
        ("zero width", Array("P5\n0 1\n255\n".utf8), .corruptData),
        ("too wide", Array("P5\n70000 1\n255\n".utf8), .tooLarge),
        ("huge claimed", Array("P6\n65535 65535\n255\n".utf8) + [1, 2, 3], .corruptData),
        ("truncated pixels", Array("P6\n4 4\n255\n".utf8) + [UInt8](repeating: 1, count: 47), .corruptData),
        ("truncated header", Array("P6\n4 4".utf8), .corruptData),
        ("garbage number", Array("P5\n4x 4\n255\n".utf8), .corruptData),
        ("overflowing number", Array("P5\n99999999999999999999999999 4\n255\n".utf8), .tooLarge),
        ("PAM gray+alpha", Array("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n".utf8) + [1, 2], .unsupported),
        ("PAM depth mismatch", Array("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8), .unsupported),
        ("PAM missing size", Array("P7\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n".utf8), .corruptData),
        ("PAM no ENDHDR", Array("P7\nWIDTH 1\nHEIGHT 1\n".utf8), .corruptData),
        ("endless comment", Array("P5\n#".utf8) + [UInt8](repeating: 0x41, count: 100_000), .corruptData),
    ]

    @Test("hostile input gets a typed error and allocates nothing", arguments: 0..<bad.count)
    func hostile(index: Int) {
        let (name, bytes, code) = Self.bad[index]
        let (_, usage) = PixelAllocator.measure {
            do throws(ImageError) { _ = try PNM.decode(bytes); Issue.record("\(name) accepted") }
            catch { #expect(error.code == code, "\(name): \(error)") }
        }
        #expect(usage.allocations == 0, "\(name)")
    }

    @Test("files: missing input, truncated file, unwritable output, unsupported formats")
    func files() throws {
        do { _ = try PNM.read(path: "/nonexistent/x.pgm"); Issue.record("read a missing file") }
        catch { #expect(error.code == .io && error.detail!.contains("/nonexistent/x.pgm")) }
        let path = Self.tempPath("trunc.ppm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(Array("P6\n10 10\n255\n".utf8) + [1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let (_, usage) = PixelAllocator.measure {
            do throws(ImageError) { _ = try PNM.read(path: path); Issue.record("read a truncated file") }
            catch { #expect(error.code == .corruptData) }
        }
        #expect(usage.allocations == 0)
        let b = try PixelBuffer(width: 2, height: 2, format: .gray8, zeroed: true)
        do { try PNM.write(b, path: "/nonexistent/dir/out.pgm"); Issue.record("wrote to a missing directory") }
        catch { #expect(error.code == .io) }
        let yuv = try PixelBuffer(width: 2, height: 2, format: .nv12)
        do { _ = try PNM.encode(yuv); Issue.record("encoded NV12 as PNM") } catch { #expect(error.code == .unsupported) }
        let pre = try PixelBuffer(width: 2, height: 2, format: .rgba8, alphaMode: .premultiplied)
        do { _ = try PNM.encode(pre); Issue.record("encoded premultiplied RGBA") } catch { #expect(error.code == .unsupported) }
    }
}

@Suite("Raw YUV files")
struct RawYUVTests {
    @Test("write then read gives the same planes; sizes are checked before allocating", arguments: [PixelFormat.i420, .nv12])
    func roundTrip(format: PixelFormat) throws {
        for (w, h) in [(1, 1), (17, 9), (64, 3)] {
            var b = try PixelBuffer(width: w, height: h, format: format)
            var expected: [UInt8] = []
            for p in 0..<b.planeCount {
                let g = b.plane(p)
                b.withMutablePlane(p) { s in
                    for y in 0..<g.rows { for x in 0..<g.rowBytes { s[y * g.stride + x] = UInt8(truncatingIfNeeded: 3 &* x &+ 7 &* y &+ 50 &* p) } }
                }
                for y in 0..<g.rows { for x in 0..<g.rowBytes { expected.append(UInt8(truncatingIfNeeded: 3 &* x &+ 7 &* y &+ 50 &* p)) } }
            }
            #expect(expected.count == RawYUV.fileSize(width: w, height: h))
            let path = PNMTests.tempPath("rt.yuv")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try RawYUV.write(b, path: path)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == expected)
            let r = try RawYUV.read(path: path, width: w, height: h, format: format)
            for p in 0..<r.planeCount {
                let g = r.plane(p)
                let same = r.withPlane(p) { x in b.withPlane(p) { y in
                    (0..<g.rows).allSatisfy { row in (0..<g.rowBytes).allSatisfy { x[row * g.stride + $0] == y[row * g.stride + $0] } } } }
                #expect(same)
            }
            let (_, usage) = PixelAllocator.measure {
                do throws(ImageError) { _ = try RawYUV.read(path: path, width: w + 2, height: h, format: format); Issue.record("wrong size accepted") }
                catch { #expect(error.code == .corruptData) }
            }
            #expect(usage.allocations == 0)
        }
        let gray = try PixelBuffer(width: 2, height: 2, format: .gray8)
        do { try RawYUV.write(gray, path: "/tmp/x.yuv"); Issue.record("gray written as yuv") } catch { #expect(error.code == .invalidArgument) }
    }
}
