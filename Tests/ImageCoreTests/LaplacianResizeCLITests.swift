import Foundation
import Testing
@testable import ImageCore

/// `imagecore laplacian` and `imagecore resize`, run as a process (see CLITests).
@Suite("imagecore laplacian / resize")
struct LaplacianResizeCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A P5 (gray) or P6 (RGB) file with deterministic pixels.
    static func pnm(_ w: Int, _ h: Int, channels: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        let header = Array("\(channels == 1 ? "P5" : "P6")\n\(w) \(h)\n255\n".utf8)
        return header + (0..<(w * h * channels)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    @Test("laplacian: prints mean, variance, std-dev equal to the API's and writes the clipped response")
    func laplacian() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.pgm").path, output = dir.appendingPathComponent("lap.pgm").path
        try Data(Self.pnm(37, 21, channels: 1, seed: 3)).write(to: URL(fileURLWithPath: input))
        for args in [["laplacian", input, output], ["laplacian", input, output, "--gamma"]] {
            let r = try CLITests.run(args)
            #expect(r.status == 0, "\(r.stderr)")
            let score = try PNM.read(path: input).laplacianScore()
            #expect(r.stdout.contains("mean: \(score.mean)"))
            #expect(r.stdout.contains("variance: \(score.variance)"))
            #expect(r.stdout.contains("std-dev: \(score.standardDeviation)"))
            let out = try PNM.read(path: output)
            #expect(out.width == 37 && out.height == 21 && out.format == .gray8)
            let want = try PNM.read(path: input).laplacianDisplay(gamma: args.contains("--gamma"))
            let stride = out.plane(0).stride
            let same = out.withPlane(0) { a in want.withPlane(0) { b in (0..<21).allSatisfy { y in (0..<37).allSatisfy { a[y * stride + $0] == b[y * stride + $0] } } } }
            #expect(same)
        }
        // A ROI, and RGB input (scored on its luma).
        let rgb = dir.appendingPathComponent("in.ppm").path
        try Data(Self.pnm(20, 10, channels: 3, seed: 4)).write(to: URL(fileURLWithPath: rgb))
        let r = try CLITests.run(["laplacian", rgb, output, "--roi", "2,3,10,5"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try PNM.read(path: output)
        #expect(out.width == 10 && out.height == 5)
    }

    @Test("resize: --width, --height, both, --fit, every filter; PNM formats kept")
    func resize() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.ppm").path
        try Data(Self.pnm(64, 48, channels: 3, seed: 5)).write(to: URL(fileURLWithPath: input))
        let cases: [([String], Int, Int)] = [
            (["--width", "16"], 16, 12), (["--height", "96"], 128, 96), (["--width", "7", "--height", "5"], 7, 5),
            (["--fit", "30x30"], 30, 23), (["--fit", "100x10"], 13, 10),
        ]
        for (i, (opts, w, h)) in cases.enumerated() {
            for filter in ResizeFilter.allCases {
                let output = dir.appendingPathComponent("out\(i).ppm").path
                let r = try CLITests.run(["resize", input, output] + opts + ["--filter", filter.rawValue])
                #expect(r.status == 0, "\(opts) \(filter): \(r.stderr)")
                let out = try PNM.read(path: output)
                #expect(out.width == w && out.height == h && out.format == .rgb8, "\(opts)")
                // Same bytes as the API.
                let want = try PNM.read(path: input).resized(width: w, height: h, filter: filter)
                let s = out.plane(0).stride
                let same = out.withPlane(0) { a in want.withPlane(0) { b in (0..<h).allSatisfy { y in (0..<(3 * w)).allSatisfy { a[y * s + $0] == b[y * s + $0] } } } }
                #expect(same, "\(opts) \(filter)")
            }
        }
    }

    @Test("resize --linear and thumbnail --linear: the library's linear-light bytes")
    func linear() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.ppm").path
        try Data(Self.pnm(64, 48, channels: 3, seed: 6)).write(to: URL(fileURLWithPath: input))
        let output = dir.appendingPathComponent("out.ppm").path
        let r = try CLITests.run(["resize", input, output, "--width", "20", "--linear"])
        #expect(r.status == 0, "\(r.stderr)")
        let want = try PNM.read(path: input).resized(width: 20, height: 15, options: ResizeOptions(linearLight: true))
        let plain = try PNM.read(path: input).resized(width: 20, height: 15)
        let out = try PNM.read(path: output)
        #expect(out.packedPlane(0) == want.packedPlane(0))
        #expect(out.packedPlane(0) != plain.packedPlane(0))
        // A thumbnail: the same pixels as Thumbnailer's linear-light thumbnail (PNG output, lossless).
        let png = dir.appendingPathComponent("in.png").path
        let rgb = try PNM.read(path: input)
        try Data(PNG.encode(rgb)).write(to: URL(fileURLWithPath: png))
        let thumb = dir.appendingPathComponent("thumb.png").path
        let t = try CLITests.run(["thumbnail", png, "-o", thumb, "--size", "16", "--linear"])
        #expect(t.status == 0, "\(t.stderr)")
        let got = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: thumb))), format: .rgba8)
        let expected = try Thumbnailer.thumbnail(png: PNG.encode(rgb), maxWidth: 16, maxHeight: 16, linearLight: true)
        #expect(got.packedPlane(0) == expected.image.packedPlane(0))
    }

    @Test("errors: one line on stderr, non-zero exit")
    func errors() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.pgm").path
        try Data(Self.pnm(8, 8, channels: 1, seed: 6)).write(to: URL(fileURLWithPath: input))
        let jpeg = dir.appendingPathComponent("x.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: jpeg))
        let out = dir.appendingPathComponent("o.pgm").path
        for args in [["resize", input, out], ["resize", input, out, "--width", "0"], ["resize", input, out, "--fit", "3y4"],
                     ["resize", input, out, "--fit", "3x4", "--width", "2"], ["resize", input, out, "--width", "4", "--filter", "gauss"],
                     ["resize", input, dir.appendingPathComponent("o.bmp").path, "--width", "4"], ["resize", jpeg, out, "--width", "4"],
                     ["resize", "/nonexistent.pgm", out, "--width", "4"], ["laplacian", input, out, "--roi", "1,2,3"],
                     ["laplacian", input, out, "--roi", "6,6,4,4"], ["laplacian", "/nonexistent.pgm", out]] {
            let r = try CLITests.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }
}
