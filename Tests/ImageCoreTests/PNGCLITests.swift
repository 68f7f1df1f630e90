import Foundation
import Testing
@testable import ImageCore

/// PNG through the CLI: read by content, written by extension, thumbnails streamed.
@Suite("imagecore CLI: PNG")
struct PNGCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("info, convert PNG -> PPM/JPEG/PNG and back, resize to .png, thumbnails of a folder of PNGs")
    func commands() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try PNGFixtures.noise(width: 97, height: 61, seed: 4)
        let png = dir.appendingPathComponent("in.png").path
        try Data(try PNG.encode(source)).write(to: URL(fileURLWithPath: png))

        let info = try CLITests.run(["info", png])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("format: png") && info.stdout.contains("width: 97") && info.stdout.contains("color type: rgb"))

        // PNG -> PPM is lossless: the PPM holds the source pixels.
        let ppm = dir.appendingPathComponent("out.ppm").path
        #expect(try CLITests.run(["convert", png, ppm]).status == 0)
        #expect(JPEGFixtures.packed(try PNM.read(path: ppm), plane: 0) == JPEGFixtures.packed(source, plane: 0))
        // PPM -> PNG round trip, and a JPEG output.
        let back = dir.appendingPathComponent("back.png").path
        #expect(try CLITests.run(["convert", ppm, back]).status == 0)
        let decoded = try PNG.decode(try [UInt8](Data(contentsOf: URL(fileURLWithPath: back))), format: .rgb8)
        #expect(JPEGFixtures.packed(decoded, plane: 0) == JPEGFixtures.packed(source, plane: 0))
        let jpg = dir.appendingPathComponent("out.jpg").path
        #expect(try CLITests.run(["convert", png, jpg]).status == 0)
        #expect(try JPEG.info(try [UInt8](Data(contentsOf: URL(fileURLWithPath: jpg)))).width == 97)

        // Resize writes PNG by extension: RGB stays RGB (no alpha invented).
        let small = dir.appendingPathComponent("small.png").path
        let r = try CLITests.run(["resize", png, small, "--width", "40"])
        #expect(r.status == 0, "\(r.stderr)")
        let smallInfo = try PNG.info(try [UInt8](Data(contentsOf: URL(fileURLWithPath: small))))
        #expect(smallInfo.width == 40 && smallInfo.colorType == .rgb)

        // Thumbnails: a folder's PNGs are taken; .png and .jpg outputs.
        let folder = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: png, toPath: folder.appendingPathComponent("a.png").path)
        try Data(try PNGFixtures.bytes("rgb8-exif6")).write(to: folder.appendingPathComponent("b.png"))
        let out = dir.appendingPathComponent("thumbs")
        let t = try CLITests.run(["thumbnail", folder.path, "--size", "32", "-o", out.path])
        #expect(t.status == 0, "\(t.stderr)")
        let a = try JPEG.info(try [UInt8](Data(contentsOf: out.appendingPathComponent("a.thumb.jpg"))))
        #expect(a.width == 32 && a.height == 20)
        let b = try JPEG.info(try [UInt8](Data(contentsOf: out.appendingPathComponent("b.thumb.jpg"))))
        #expect(b.width == 11 && b.height == 13 && b.orientation == .up, "eXIf orientation 6 applied")
        let pngThumb = dir.appendingPathComponent("t.png").path
        #expect(try CLITests.run(["thumbnail", png, "--size", "16", "-o", pngThumb]).status == 0)
        #expect(try PNG.info(try [UInt8](Data(contentsOf: URL(fileURLWithPath: pngThumb)))).width == 16)
    }

    @Test("decode reads PNG and PNM by content: to PPM, PGM and PNG (gray kept gray), orientation applied, JPEG-only options refused")
    func decodeNonJPEG() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func file(_ name: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name)))) }
        for name in ["rgb8", "gray8", "palette8-trns", "rgb16"] {
            try Data(try PNGFixtures.bytes(name)).write(to: URL(fileURLWithPath: path("\(name).png")))
            let expected = try PNGFixtures.expectedRGBA(name)
            let r = try CLITests.run(["decode", path("\(name).png"), path("\(name).ppm")])
            #expect(r.status == 0, "\(r.stderr)")
            let ppm = try PNM.read(path: path("\(name).ppm"))
            #expect(ppm.format == .rgb8 && JPEGFixtures.packed(ppm, plane: 0) == PNGFixtures.reduce(expected, to: .rgb8), "\(name)")
            // PNM input: the PPM just written, to gray by extension (the library's one luma).
            #expect(try CLITests.run(["decode", path("\(name).ppm"), path("\(name).pgm")]).status == 0)
            let pgm = try PNM.read(path: path("\(name).pgm"))
            #expect(JPEGFixtures.packed(pgm, plane: 0) == PNGFixtures.reduce(PNGFixtures.reduce(expected, to: .rgb8).enumerated()
                .flatMap { $0.offset % 3 == 2 ? [$0.element, 255] : [$0.element] }, to: .gray8), "\(name)")
        }
        // A .png output keeps a gray PNG gray.
        #expect(try CLITests.run(["decode", path("gray8.png"), path("gray-out.png")]).status == 0)
        #expect(try PNG.info(try file("gray-out.png")).colorType == .gray)
        // eXIf orientation 6: the 13x11 stored image comes out upright, 11x13.
        try Data(try PNGFixtures.bytes("rgb8-exif6")).write(to: URL(fileURLWithPath: path("six.png")))
        #expect(try CLITests.run(["decode", path("six.png"), path("six.ppm")]).status == 0)
        let six = try PNM.read(path: path("six.ppm"))
        #expect(six.width == 11 && six.height == 13)
        // DCT scaling and the cropped decode are the JPEG decoder's: refused, nothing written.
        for option in [["--scale", "4/8"], ["--fit", "4x4"], ["--crop", "0,0,4,4"]] {
            let r = try CLITests.run(["decode", path("rgb8.png"), path("refused.ppm")] + option)
            #expect(r.status != 0 && r.stderr.contains("JPEG input only"), "\(option)")
            #expect(!FileManager.default.fileExists(atPath: path("refused.ppm")))
        }
    }

    @Test("a corrupt PNG is a one-line error naming the file")
    func corrupt() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = try PNGFixtures.bytes("rgb8")
        bytes[20] ^= 0xFF // inside IHDR: its CRC no longer matches
        let path = dir.appendingPathComponent("bad.png").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let r = try CLITests.run(["convert", path, dir.appendingPathComponent("x.ppm").path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("bad.png") && r.stderr.contains("corrupt"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.ppm").path))
    }

    @Test("the input's ICC profile is carried byte for byte through convert, resize, rotate and thumbnail (JPEG and PNG, both ways)")
    func iccCarried() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icc = try PNGFixtures.bytes("rgb8-icc", "icc") // an RGB profile (Little CMS's sRGB)
        let source = try PNGFixtures.noise(width: 64, height: 48, seed: 8)
        let png = dir.appendingPathComponent("in.png").path
        let jpg = dir.appendingPathComponent("in.jpg").path
        try Data(try PNG.encode(source, options: .init(iccProfile: icc))).write(to: URL(fileURLWithPath: png))
        try Data(try JPEG.encode(source, options: .init(iccProfile: icc))).write(to: URL(fileURLWithPath: jpg))
        func profile(_ path: String) throws -> [UInt8]? {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            return PNG.isPNG(bytes) ? try PNG.iccProfile(bytes) : try JPEG.iccProfile(bytes)
        }
        for input in [png, jpg] {
            for ext in ["png", "jpg"] {
                let o = { (name: String) in dir.appendingPathComponent("\(name)-\(input.hasSuffix("png") ? "p" : "j").\(ext)").path }
                let runs: [[String]] = [["convert", input, o("convert")], ["resize", input, o("resize"), "--width", "20"],
                                        ["rotate", input, o("rotate"), "--orientation", "6"],
                                        ["thumbnail", input, "--size", "16", "-o", o("thumb")]]
                for args in runs {
                    let r = try CLITests.run(args)
                    #expect(r.status == 0, "\(args): \(r.stderr)")
                    let out = args[0] == "thumbnail" ? args[5] : args[2]
                    #expect(try profile(out) == icc, "\(args)")
                }
            }
        }
    }

    @Test("--srgb: a Display P3 input is converted as Little CMS converts it, and the output carries no profile")
    func srgb() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p3 = ColorProfileTests.displayP3()
        let source = try PNGFixtures.noise(width: 45, height: 31, seed: 12)
        let png = dir.appendingPathComponent("p3.png").path
        try Data(try PNG.encode(source, options: .init(iccProfile: p3))).write(to: URL(fileURLWithPath: png))
        let out = dir.appendingPathComponent("srgb.png").path
        let r = try CLITests.run(["convert", png, out, "--srgb"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(try PNG.iccProfile(bytes) == nil)
        let expected = ColorProfileTests.lcms(p3, JPEGFixtures.packed(source, plane: 0), channels: 3)
        #expect(JPEGFixtures.packed(try PNG.decode(bytes, format: .rgb8), plane: 0) == expected)
        // Without --srgb the pixels and the profile pass through unchanged.
        let kept = dir.appendingPathComponent("kept.png").path
        #expect(try CLITests.run(["convert", png, kept]).status == 0)
        let keptBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kept)))
        #expect(try PNG.iccProfile(keptBytes) == p3)
        #expect(JPEGFixtures.packed(try PNG.decode(keptBytes, format: .rgb8), plane: 0) == JPEGFixtures.packed(source, plane: 0))
        // Thumbnails convert the small result.
        let thumb = dir.appendingPathComponent("t.jpg").path
        #expect(try CLITests.run(["thumbnail", png, "--size", "20", "-o", thumb, "--srgb"]).status == 0)
        #expect(try JPEG.iccProfile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: thumb)))) == nil)
    }
}
