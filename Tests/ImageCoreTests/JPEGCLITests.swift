import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// `imagecore decode`, `encode` and the extended `info`, run as a subprocess.
@Suite("imagecore CLI: JPEG")
struct JPEGCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-jpeg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("decode to PNM and YUV (format, scale, fit, crop) equals the library's decode")
    func decode() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = JPEGFixtures.insertSegment(JPEGFixtures.photo(width: 120, height: 90), marker: 0xE1,
                                              payload: JPEGFixtures.exif(bigEndian: false, entries: [JPEGFixtures.orientationEntry(8, bigEndian: false)]))
        let input = dir.appendingPathComponent("in.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: input))

        let cases: [(String, [String], PixelFormat, JPEG.DecodeOptions)] = [
            ("a.ppm", [], .rgb8, .init()),
            ("b.pgm", ["--scale", "3/8"], .gray8, .init(scale: .eighths(3))),
            ("c.pam", ["--format", "rgba", "--crop", "10,20,33,17"], .rgba8, .init(crop: .init(x: 10, y: 20, width: 33, height: 17))),
            ("d.pnm", ["--fit", "40x0", "--format", "gray"], .gray8, .init(scale: .fit(width: 40, height: 0))),
            ("e.yuv", ["--format", "nv12", "--scale", "4/8", "--crop", "2,4,31,21"], .nv12, .init(scale: .eighths(4), crop: .init(x: 2, y: 4, width: 31, height: 21))),
            ("f.yuv", [], .i420, .init()),
        ]
        for (name, args, format, options) in cases {
            let output = dir.appendingPathComponent(name).path
            // Stored pixels, as the library decodes them (OrientationCLITests covers the default upright output).
            let r = try CLITests.run(["decode", input, output, "--no-auto-orient"] + args)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(name): \(r.stderr)")
            #expect(r.stdout.contains("orientation 8"))
            let expected = try JPEG.decode(jpeg, format: format, options: options)
            let written = try Array(Data(contentsOf: URL(fileURLWithPath: output)))
            if format.isYUV {
                let planes = (0..<expected.planeCount).flatMap { JPEGFixtures.packed(expected, plane: $0) }
                #expect(written == planes, "\(name)")
            } else {
                #expect(written == (try PNM.encode(expected)), "\(name)")
            }
        }
    }

    @Test("encode PNM and raw YUV; info shows the probe")
    func encodeAndInfo() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = try SyntheticImage.photo(width: 64, height: 48, format: .rgb8)
        let ppm = dir.appendingPathComponent("in.ppm").path
        try PNM.write(image, path: ppm)
        let out = dir.appendingPathComponent("out.jpg").path
        var r = try CLITests.run(["encode", ppm, out, "--quality", "77", "--subsampling", "444", "--progressive", "--orientation", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try Array(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(written == (try JPEG.encode(image, options: .init(quality: 77, subsampling: .s444, progressive: true, orientation: .down))))
        r = try CLITests.run(["info", out])
        for line in ["width: 64", "height: 48", "components: 3", "subsampling: 4:4:4", "progressive: true", "orientation: 3", "exif: true", "icc profile: none"] {
            #expect(r.stdout.contains(line), "missing \(line) in \(r.stdout)")
        }

        // Raw NV12 in, straight to libjpeg's raw input.
        var nv12 = try JPEG.decode(written, format: .nv12)
        nv12.orientation = .up // a raw .yuv file carries no orientation
        let yuv = dir.appendingPathComponent("in.yuv").path
        try RawYUV.write(nv12, path: yuv)
        let out2 = dir.appendingPathComponent("yuv.jpg").path
        r = try CLITests.run(["encode", yuv, out2, "--size", "64x48", "--layout", "nv12"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: out2))) == (try JPEG.encode(nv12)))
    }

    @Test("errors: one line on stderr and a non-zero exit")
    func errors() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpegPath = dir.appendingPathComponent("in.jpg").path
        let jpeg = JPEGFixtures.photo(width: 40, height: 30)
        try Data(jpeg).write(to: URL(fileURLWithPath: jpegPath))
        let broken = dir.appendingPathComponent("broken.jpg").path
        try Data(Array(jpeg.prefix(40))).write(to: URL(fileURLWithPath: broken))
        let text = dir.appendingPathComponent("t.txt").path
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: text))
        let o = { (name: String) in dir.appendingPathComponent(name).path }
        let bad: [[String]] = [
            ["decode", jpegPath, o("a.ppm"), "--scale", "9/8"],
            ["decode", jpegPath, o("a.ppm"), "--scale", "4/8", "--fit", "10x10"],
            ["decode", jpegPath, o("a.ppm"), "--crop", "30,0,20,20"],
            ["decode", jpegPath, o("a.ppm"), "--crop", "1,2,3"],
            ["decode", jpegPath, o("a.yuv"), "--format", "rgb"],
            ["decode", jpegPath, o("a.yuv"), "--format", "i420", "--crop", "1,1,4,4"],
            ["decode", broken, o("a.ppm")],
            ["decode", text, o("a.ppm")],
            ["decode", "/nonexistent.jpg", o("a.ppm")],
            ["decode", jpegPath, o("a.ppm"), "--max-pixels", "1000"],
            ["encode", o("missing.ppm"), o("x.jpg")],
            ["encode", text, o("x.jpg")],
            ["encode", o("in.yuv"), o("x.jpg")],
            ["encode", o("in.yuv"), o("x.jpg"), "--size", "0x4", "--layout", "nv12"],
            ["info", broken],
        ]
        for args in bad {
            let r = try CLITests.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }
}
