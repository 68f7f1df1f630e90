import Foundation
import Testing
@testable import ImageCore

/// `imagecore convert` with raw .yuv files and `imagecore rotate`, run as a process (as
/// CLITests does) and checked against the Swift API on the same pixels.
@Suite("imagecore convert (YUV) and rotate")
struct CLIYUVRotateTests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-cli-yuv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func bytes(_ path: String) throws -> [UInt8] { try Array(Data(contentsOf: URL(fileURLWithPath: path))) }

    /// An RGB test image with every kind of content the conversions care about.
    static func image(_ w: Int, _ h: Int) throws -> PixelBuffer {
        var b = try PixelBuffer(width: w, height: h, format: .rgb8)
        let stride = b.plane(0).stride
        b.withMutablePlane(0) { span in
            for y in 0..<h { for x in 0..<w { for c in 0..<3 { span[y * stride + 3 * x + c] = UInt8(truncatingIfNeeded: x * 37 + y * 11 + c * 80) } } }
        }
        return b
    }

    @Test("PNM → .yuv → PNM matches the Swift API; layouts, matrices, ranges")
    func convertYUV() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (13, 7)
        let src = try Self.image(w, h)
        let ppm = dir.appendingPathComponent("in.ppm").path
        try PNM.write(src, path: ppm)
        for (layout, format) in [("i420", PixelFormat.i420), ("nv12", .nv12)] {
            for (matrix, m) in [("bt601", YUVMatrix.bt601), ("bt709", .bt709)] {
                for (range, r) in [("full", YUVRange.full), ("video", .video)] {
                    let yuv = dir.appendingPathComponent("o.yuv").path
                    let run = try CLITests.run(["convert", ppm, yuv, "--layout", layout, "--matrix", matrix, "--range", range])
                    #expect(run.status == 0, "\(run.stderr)")
                    let expected = try src.converted(to: format, matrix: m, range: r)
                    let expectedPath = dir.appendingPathComponent("e.yuv").path
                    try RawYUV.write(expected, path: expectedPath)
                    #expect(try Self.bytes(yuv) == Self.bytes(expectedPath), "\(layout) \(matrix) \(range)")
                    // Back to RGB (.ppm), RGBA (.pam) and gray (.pgm).
                    for (ext, back) in [("ppm", PixelFormat.rgb8), ("pam", .rgba8), ("pgm", .gray8)] {
                        let out = dir.appendingPathComponent("b.\(ext)").path
                        let r2 = try CLITests.run(["convert", yuv, out, "--size", "\(w)x\(h)", "--layout", layout, "--matrix", matrix, "--range", range])
                        #expect(r2.status == 0, "\(r2.stderr)")
                        let decoded = try PNM.read(path: out)
                        let want = try expected.converted(to: back, matrix: m, range: r)
                        #expect(decoded.format == back && decoded.packedPlane(0) == want.packedPlane(0), "\(layout) → \(ext)")
                    }
                }
            }
            // .yuv → .yuv changes the layout losslessly.
            let yuv = dir.appendingPathComponent("o.yuv").path, other = dir.appendingPathComponent("p.yuv").path
            _ = try CLITests.run(["convert", ppm, yuv, "--layout", layout])
            let otherLayout = layout == "i420" ? "nv12" : "i420"
            let r3 = try CLITests.run(["convert", yuv, other, "--size", "\(w)x\(h)", "--layout", layout, "--output-layout", otherLayout])
            #expect(r3.status == 0, "\(r3.stderr)")
            let a = try RawYUV.read(path: yuv, width: w, height: h, format: format)
            let b = try RawYUV.read(path: other, width: w, height: h, format: format == .i420 ? .nv12 : .i420)
            let bAsA = try b.converted(to: format)
            for p in 0..<a.planeCount { #expect(a.packedPlane(p) == bAsA.packedPlane(p)) }
        }
    }

    @Test("rotate: PNM and raw .yuv, every orientation, output size follows")
    func rotate() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (9, 4)
        let src = try Self.image(w, h)
        let ppm = dir.appendingPathComponent("in.ppm").path, yuv = dir.appendingPathComponent("in.yuv").path
        try PNM.write(src, path: ppm)
        let nv12 = try src.converted(to: .nv12)
        try RawYUV.write(nv12, path: yuv)
        for o in Orientation.allCases {
            let out = dir.appendingPathComponent("r.ppm").path
            let r = try CLITests.run(["rotate", ppm, out, "--orientation", "\(o.exifValue)"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            let rotated = try PNM.read(path: out), want = try src.applying(o)
            #expect(rotated.width == want.width && rotated.packedPlane(0) == want.packedPlane(0), "PNM orientation \(o)")

            let outYUV = dir.appendingPathComponent("r.yuv").path
            let ry = try CLITests.run(["rotate", yuv, outYUV, "--orientation", "\(o.exifValue)", "--size", "\(w)x\(h)", "--layout", "nv12"])
            #expect(ry.status == 0, "\(ry.stderr)")
            let wantYUV = try nv12.applying(o)
            let got = try RawYUV.read(path: outYUV, width: wantYUV.width, height: wantYUV.height, format: .nv12)
            for p in 0..<2 { #expect(got.packedPlane(p) == wantYUV.packedPlane(p), "NV12 orientation \(o)") }
        }
    }

    @Test("errors: one line on stderr and a non-zero exit")
    func errors() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ppm = dir.appendingPathComponent("in.ppm").path
        try PNM.write(try Self.image(6, 4), path: ppm)
        let yuv = dir.appendingPathComponent("in.yuv").path
        try Data(repeating: 16, count: RawYUV.fileSize(width: 6, height: 4)).write(to: URL(fileURLWithPath: yuv))
        let out = dir.appendingPathComponent("o").path
        let cases: [[String]] = [
            ["convert", yuv, out + ".ppm"],                                    // no --size
            ["convert", yuv, out + ".ppm", "--size", "6x"],                    // bad size
            ["convert", yuv, out + ".ppm", "--size", "7x4"],                   // wrong size for the file
            ["convert", ppm, out + ".webp"],                                   // unknown output extension
            ["convert", ppm, out + ".yuv", "--layout", "yv12"],
            ["convert", ppm, out + ".yuv", "--matrix", "bt2020"],
            ["convert", ppm, out + ".yuv", "--range", "tv-ish"],
            ["rotate", ppm, out + ".ppm", "--orientation", "9"],
            ["rotate", ppm, out + ".ppm", "--orientation", "right"],
            ["rotate", yuv, out + ".yuv", "--orientation", "6"],               // no --size
            ["rotate", "/nonexistent.ppm", out + ".ppm", "--orientation", "1"],
        ]
        for args in cases {
            let r = try CLITests.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }
}
