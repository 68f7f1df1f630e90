import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// Orientation everywhere (issue 15): every command that writes pixels applies the input's
/// EXIF orientation by default and writes no tag; `--no-auto-orient` keeps the stored pixels
/// and their tag. Fixtures: an asymmetric picture P as displayed, stored turned by the inverse
/// of each of the 8 orientations and tagged with it (our own encoders' orientation option), so
/// a viewer shows P; a command's output must show P processed, whatever the tag was.
@Suite("Orientation applied by every command")
struct OrientationCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-orient-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// P: 48 x 32 RGB, red rising left to right, green top to bottom, a blue top-left block, so
    /// every one of the 8 orientations of it differs from P by far more than rounding.
    static func picture(width w: Int = 48, height h: Int = 32) throws -> PixelBuffer {
        var p = try PixelBuffer(width: w, height: h, format: .rgb8)
        let stride = p.plane(0).stride
        p.withMutablePlane(0) { d in
            for y in 0..<h {
                for x in 0..<w {
                    d[y * stride + 3 * x] = UInt8(x * 255 / (w - 1))
                    d[y * stride + 3 * x + 1] = UInt8(y * 255 / (h - 1))
                    d[y * stride + 3 * x + 2] = x < w / 3 && y < h / 3 ? 230 : 20
                }
            }
        }
        return p
    }

    /// The stored pixels of P under orientation `o`: applying `o` to them gives P.
    static func stored(_ p: borrowing PixelBuffer, _ o: Orientation) throws -> PixelBuffer {
        var s = try p.applying(o.inverse)
        s.orientation = o
        return s
    }

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Mean absolute difference of two images of the same size and format (infinity otherwise).
    static func meanError(_ a: borrowing PixelBuffer, _ b: borrowing PixelBuffer) -> Double {
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return .infinity }
        let x = a.packedPlane(0), y = b.packedPlane(0)
        return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
    }

    /// A written JPEG or PNG decoded as RGB, with its tag.
    struct Written: ~Copyable {
        var image: PixelBuffer
        var tag: Orientation
    }

    static func read(_ path: String) throws -> Written {
        let b = try bytes(path)
        if PNG.isPNG(b) { return Written(image: try PNG.decode(b, format: .rgb8), tag: try PNG.info(b).orientation) }
        return Written(image: try JPEG.decode(b, format: .rgb8), tag: try JPEG.info(b).orientation)
    }

    @Test("PNG (eXIf) inputs, all 8 orientations: convert, rotate, resize, thumbnail, enhance, laplacian, rectify come out upright with no tag; --no-auto-orient keeps pixels and tag")
    func png() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = try Self.picture()
        let rgba = try p.converted(to: .rgba8)
        for o in Orientation.allCases {
            let s = try Self.stored(p, o)
            let input = dir.appendingPathComponent("in\(o.exifValue).png").path
            try Data(try PNG.encode(s, options: .init(orientation: o))).write(to: URL(fileURLWithPath: input))
            func out(_ name: String, _ ext: String = "png") -> String { dir.appendingPathComponent("\(name)\(o.exifValue).\(ext)").path }
            func run(_ args: [String]) throws {
                let r = try CLITests.run(args)
                #expect(r.status == 0, "\(args): \(r.stderr)")
            }

            // convert: exactly P, no tag; kept: exactly the stored pixels and tag.
            try run(["convert", input, out("convert")])
            var got = try Self.read(out("convert"))
            #expect(got.image.packedPlane(0) == p.packedPlane(0) && got.tag == .up, "convert \(o)")
            try run(["convert", input, out("kept"), "--no-auto-orient"])
            got = try Self.read(out("kept"))
            #expect(got.image.packedPlane(0) == s.packedPlane(0) && got.tag == o, "convert --no-auto-orient \(o)")

            // rotate 6: P turned right, no tag; kept: stored pixels turned, with a tag that shows P turned right.
            try run(["rotate", input, out("rotate"), "--orientation", "6"])
            got = try Self.read(out("rotate"))
            let right = try p.applying(.right)
            #expect(got.image.packedPlane(0) == right.packedPlane(0) && got.tag == .up, "rotate \(o)")
            try run(["rotate", input, out("rotatekept"), "--orientation", "6", "--no-auto-orient"])
            got = try Self.read(out("rotatekept"))
            let shown = try got.image.applying(got.tag)
            #expect(shown.packedPlane(0) == right.packedPlane(0), "rotate --no-auto-orient \(o): shown twice turned")

            // resize (fused: the small result is turned): P's own resize within rounding.
            try run(["resize", input, out("resize"), "--width", "24"])
            got = try Self.read(out("resize"))
            let small = try p.resized(width: 24, height: 16)
            #expect(got.tag == .up && Self.meanError(got.image, small) < 1, "resize \(o): error \(Self.meanError(got.image, small))")
            try run(["resize", input, out("resizekept"), "--width", "24", "--no-auto-orient"])
            got = try Self.read(out("resizekept"))
            #expect(got.tag == o && got.image.width == 24, "resize --no-auto-orient \(o)")

            // thumbnail (streamed PNG, then turned).
            try run(["thumbnail", input, "--size", "24", "-o", out("thumb")])
            got = try Self.read(out("thumb"))
            #expect(got.tag == .up && Self.meanError(got.image, small) < 1, "thumbnail \(o): error \(Self.meanError(got.image, small))")

            // enhance: P enhanced (the document kernels read RGBA).
            try run(["enhance", input, out("enhance")])
            var e = try p.converted(to: .rgba8)
            try e.enhance(mode: .color, neutralChroma: true)
            let eb = try Self.bytes(out("enhance"))
            #expect(try PNG.decode(eb, format: .rgba8).packedPlane(0) == e.packedPlane(0) && PNG.info(eb).orientation == .up, "enhance \(o)")

            // laplacian: the response of P's gray.
            try run(["laplacian", input, out("lap", "pgm")])
            let lap = try PNM.read(path: out("lap", "pgm"))
            #expect(lap.packedPlane(0) == (try p.converted(to: .gray8).laplacianDisplay()).packedPlane(0), "laplacian \(o)")

            // rectify the whole stored frame: the orientation is composed into the mapping.
            try run(["rectify", input, out("rectify"), "--corners", "0,0,\(s.width),0,\(s.width),\(s.height),0,\(s.height)",
                     "--size", "\(s.width)x\(s.height)"])
            let rb = try Self.bytes(out("rectify"))
            let rect = try PNG.decode(rb, format: .rgba8)
            #expect(try PNG.info(rb).orientation == .up && Self.meanError(rect, rgba) < 2, "rectify \(o): error \(Self.meanError(rect, rgba))")
        }
    }

    @Test("JPEG (EXIF) inputs, all 8 orientations: convert, decode, resize, thumbnail and scan come out upright with no tag")
    func jpeg() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = try Self.picture(width: 64, height: 40)
        let small = try p.resized(width: 32, height: 20)
        for o in Orientation.allCases {
            let s = try Self.stored(p, o)
            let jpeg = try JPEG.encode(s, options: .init(quality: 98, subsampling: .s444, orientation: o))
            let input = dir.appendingPathComponent("in\(o.exifValue).jpg").path
            try Data(jpeg).write(to: URL(fileURLWithPath: input))
            func out(_ name: String, _ ext: String = "jpg") -> String { dir.appendingPathComponent("\(name)\(o.exifValue).\(ext)").path }
            func run(_ args: [String]) throws {
                let r = try CLITests.run(args)
                #expect(r.status == 0, "\(args): \(r.stderr)")
            }
            // The decoded stored pixels, turned: what every full-size output must equal.
            let upright = try JPEG.decode(jpeg, format: .rgb8).upright()
            #expect(Self.meanError(upright, p) < 3, "fixture \(o)")

            try run(["decode", input, out("decode", "ppm")])
            #expect(try PNM.read(path: out("decode", "ppm")).packedPlane(0) == upright.packedPlane(0), "decode \(o)")
            let kept = try CLITests.run(["decode", input, out("decodekept", "ppm"), "--no-auto-orient"])
            #expect(kept.stdout.contains("orientation \(o.exifValue)"), "decode --no-auto-orient \(o)")

            try run(["convert", input, out("convert", "png")])
            var got = try Self.read(out("convert", "png"))
            #expect(got.tag == .up && got.image.packedPlane(0) == upright.packedPlane(0), "convert \(o)")
            try run(["convert", input, out("convertkept")])
            got = try Self.read(out("convertkept"))
            #expect(got.tag == .up && Self.meanError(got.image, p) < 4, "convert to JPEG \(o)")

            try run(["resize", input, out("resize"), "--width", "32"])
            got = try Self.read(out("resize"))
            #expect(got.tag == .up && Self.meanError(got.image, small) < 4, "resize \(o): \(Self.meanError(got.image, small))")

            try run(["thumbnail", input, "--size", "32", "-o", out("thumb")])
            got = try Self.read(out("thumb"))
            #expect(got.tag == .up && Self.meanError(got.image, small) < 4, "thumbnail \(o): \(Self.meanError(got.image, small))")

            try run(["scan", input, out("scan"), "--corners", "0,0,\(s.width),0,\(s.width),\(s.height),0,\(s.height)",
                     "--size", "\(s.width)x\(s.height)", "--no-enhance"])
            got = try Self.read(out("scan"))
            #expect(got.tag == .up && Self.meanError(got.image, p) < 4, "scan \(o): \(Self.meanError(got.image, p))")
        }
    }

    @Test("--keep-metadata: the input's EXIF (orientation tag set to the output's) and ICC reach JPEG and PNG outputs; by default only the profile")
    func keepMetadata() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icc = try PNGFixtures.bytes("rgb8-icc", "icc")
        // EXIF with orientation 6 and a second entry (Make, ASCII "ACME") that must survive.
        let tiff = JPEGFixtures.exif(bigEndian: false, entries: [(0x010F, 2, 4, Array("ACM".utf8) + [0]),
                                                                 JPEGFixtures.orientationEntry(6, bigEndian: false)], header: false)
        var upright = tiff
        let set = upright.withUnsafeMutableBufferPointer { ic_exif_set_orientation($0.baseAddress, $0.count, 1) }
        #expect(set != 0 && upright != tiff)
        let p = try Self.picture()
        let s = try Self.stored(p, .right)
        let jpg = dir.appendingPathComponent("in.jpg").path, png = dir.appendingPathComponent("in.png").path
        let jpeg = try JPEG.encode(s, options: .init(quality: 95, orientation: .right, iccProfile: icc, exif: tiff))
        try Data(jpeg).write(to: URL(fileURLWithPath: jpg))
        try Data(try PNG.encode(s, options: .init(orientation: .right, iccProfile: icc, exif: tiff))).write(to: URL(fileURLWithPath: png))
        // The probes say where the EXIF is.
        #expect(try JPEG.info(jpeg).exifRange.map { Array(jpeg[$0]) } == tiff)
        let pngBytes = try Self.bytes(png)
        #expect(try PNG.info(pngBytes).exifRange.map { Array(pngBytes[$0]) } == tiff)

        func metadata(_ path: String) throws -> (exif: [UInt8]?, icc: [UInt8]?, tag: Orientation) {
            let b = try Self.bytes(path)
            if PNG.isPNG(b) { let i = try PNG.info(b); return (i.exifRange.map { Array(b[$0]) }, try PNG.iccProfile(b), i.orientation) }
            let i = try JPEG.info(b)
            return (i.exifRange.map { Array(b[$0]) }, try JPEG.iccProfile(b), i.orientation)
        }
        for input in [jpg, png] {
            for ext in ["jpg", "png"] {
                let name = "\(input.hasSuffix("png") ? "p" : "j")-\(ext)"
                let o = { (cmd: String) in dir.appendingPathComponent("\(cmd)-\(name).\(ext)").path }
                let runs: [[String]] = [["convert", input, o("convert")], ["resize", input, o("resize"), "--width", "20"],
                                        ["rotate", input, o("rotate"), "--orientation", "3"],
                                        ["thumbnail", input, "--size", "16", "-o", o("thumb")]]
                for args in runs {
                    let out = args[0] == "thumbnail" ? args[5] : args[2]
                    #expect(try CLITests.run(args).status == 0, "\(args)")
                    var m = try metadata(out)
                    #expect(m.exif == nil && m.icc == icc && m.tag == .up, "\(args): default keeps the profile only")
                    #expect(try CLITests.run(args + ["--keep-metadata"]).status == 0, "\(args) --keep-metadata")
                    m = try metadata(out)
                    #expect(m.exif == upright && m.icc == icc && m.tag == .up, "\(args) --keep-metadata")
                }
                // Stored orientation kept: the tag stays 6.
                #expect(try CLITests.run(["convert", input, o("kept"), "--keep-metadata", "--no-auto-orient"]).status == 0)
                let m = try metadata(o("kept"))
                #expect(m.exif == tiff && m.tag == .right, "\(name) --keep-metadata --no-auto-orient")
            }
        }
    }

    @Test("scan carries the photo's RGB profile byte for byte to a colour page, and none to a gray one")
    func scanProfile() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icc = try PNGFixtures.bytes("rgb8-icc", "icc")
        let jpg = dir.appendingPathComponent("in.jpg").path
        try Data(try JPEG.encode(try Self.picture(width: 64, height: 40), options: .init(quality: 95, iccProfile: icc)))
            .write(to: URL(fileURLWithPath: jpg))
        for (mode, want) in [("color", icc), ("gray", nil)] as [(String, [UInt8]?)] {
            let out = dir.appendingPathComponent("\(mode).jpg").path
            let r = try CLITests.run(["scan", jpg, out, "--corners", "4,4,60,4,60,36,4,36", "--size", "40x30", "--mode", mode])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try JPEG.iccProfile(try Self.bytes(out)) == want, "\(mode)")
        }
    }
}
