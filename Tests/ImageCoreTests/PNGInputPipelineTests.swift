import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// PNG and PNM inputs (by content) in `Scanner`, `BurstRanking` and the `scan`, `detect` and
/// `sharpest` commands; `scan`'s PNG output.
@Suite("PNG and PNM inputs: scan, detect, sharpest")
struct PNGInputPipelineTests {
    static let size = RectifiedSize.pixels(width: ScanComposite.pageWidth, height: ScanComposite.pageHeight)

    /// PSNR of a page (GRAY8, or its luma) against the ground truth turned by `o`.
    static func psnrToPage(_ out: borrowing PixelBuffer, _ o: Orientation = .up) throws -> Double {
        let expected = try ScanComposite.page().applying(o)
        #expect(out.width == expected.width && out.height == expected.height)
        let gray = out.format == .gray8 ? JPEGFixtures.packed(out, plane: 0) : JPEGFixtures.packed(try out.converted(to: .gray8), plane: 0)
        return JPEGFixtures.psnr(gray, JPEGFixtures.packed(expected, plane: 0))
    }

    @Test("a PNG page photo (eXIf orientation) scans to an upright page above 24 dB; PNG and JPEG outputs",
          arguments: [Orientation.up, .right, .downMirrored, .leftMirrored])
    func pngScan(_ o: Orientation) throws {
        var photo = try ScanComposite.photo()
        photo.orientation = .up
        let png = try PNG.encode(photo, options: .init(compressionLevel: 1, orientation: o))
        for format in [Scanner.FileFormat.png, .jpeg] {
            let r = try Scanner.scan(png, options: .init(corners: ScanComposite.quad, size: Self.size, mode: .gray, enhance: false,
                                                         quality: 95, fileFormat: format))
            #expect(!r.detected && r.orientation == o && r.plan.scale == 8)
            let out = format == .png ? try PNG.decode(r.encoded, format: .gray8) : try JPEG.decode(r.encoded, format: .gray8)
            #expect(out.orientation == .up, "no orientation tag on the upright page")
            #expect(out.width == r.width && out.height == r.height)
            let p = try Self.psnrToPage(out, o)
            #expect(p > 24, "\(o) \(format): PSNR \(p)")
        }
    }

    @Test("JPEG input to a PNG page equals the JPEG path's pixels; colour pages are RGB PNGs")
    func jpegToPNG() throws {
        let jpeg = try JPEG.encode(try ScanComposite.photo(), options: .init(quality: 92))
        let options = Scanner.Options(corners: ScanComposite.quad, size: Self.size, mode: .color, enhance: false, quality: 100)
        var asPNG = options
        asPNG.fileFormat = .png
        let p = try Scanner.scan(jpeg, options: asPNG)
        let info = try PNG.info(p.encoded)
        #expect(info.colorType == .rgb && info.width == ScanComposite.pageWidth && info.height == ScanComposite.pageHeight)
        // The same NV12 page encoded as a quality-100 JPEG decodes within a few levels of the PNG.
        let fromPNG = try PNG.decode(p.encoded, format: .gray8)
        let fromJPEG = try JPEG.decode(try Scanner.scan(jpeg, options: options).encoded, format: .gray8)
        let same = JPEGFixtures.psnr(JPEGFixtures.packed(fromPNG, plane: 0), JPEGFixtures.packed(fromJPEG, plane: 0))
        #expect(same > 40, "PNG vs JPEG page: \(same) dB")
        #expect(try Self.psnrToPage(fromPNG) > 24)
    }

    @Test("PNM inputs (PPM colour, PGM gray) scan like the PNG; detection on a PNG finds the page")
    func pnmAndDetection() throws {
        let photo = try ScanComposite.photo()
        let ppm = try PNM.encode(try photo.converted(to: .rgb8))
        let pgm = try PNM.encode(try photo.converted(to: .gray8))
        for bytes in [ppm, pgm] {
            let r = try Scanner.scan(bytes, options: .init(corners: ScanComposite.quad, size: Self.size, mode: .gray, enhance: false))
            let p = try Self.psnrToPage(try JPEG.decode(r.encoded, format: .gray8))
            #expect(p > 24, "PNM \(bytes[1]): PSNR \(p)")
        }
        let storm = try PNG.encode(try ScanComposite.photo(background: "background-storm.pgm"), options: .init(compressionLevel: 1))
        let d = try Scanner.scan(storm, options: .init(size: Self.size, mode: .gray, enhance: false, fileFormat: .png))
        #expect(d.detected)
        // Detected corners are within a few pixels (worst 4.8 px here, 0.24 % of the diagonal;
        // the detector's stated accuracy is 1.5 %); the page rectified from them stays close
        // to the truth, though below the 24 dB that exact corners give above (a text page
        // loses 5-7 dB to a 4-5 px shift of one corner: 16.8 dB here).
        let err = DocumentComposite.cornerError(d.corners, ScanComposite.quad)
        #expect(err < 8, "corner error \(err) px: \(d.corners)")
        let psnr = try Self.psnrToPage(try PNG.decode(d.encoded, format: .gray8))
        #expect(psnr > 15, "PSNR \(psnr) dB, corner error \(err) px: \(d.corners)")
    }

    @Test("hostile PNG/PNM inputs to scan and sharpest: typed errors, pixel limit before allocation")
    func hostile() throws {
        let png = try PNG.encode(try SyntheticImage.photo(width: 300, height: 200, format: .rgba8, seed: 2))
        for cut in [8, 33, 60, png.count / 2] {
            #expect(throws: ImageError.self) {
                _ = try Scanner.scan(Array(png.prefix(cut)), options: .init(corners: Quad(width: 100, height: 100),
                                                                            limits: .init(minValidShare: 1)))
            }
        }
        var small = JPEG.DecodeOptions()
        small.maxPixels = 1000
        let (_, usage) = PixelAllocator.measure { () -> Void in
            #expect(throws: ImageError.self) { _ = try Scanner.scan(png, options: .init(corners: Quad(width: 100, height: 100), limits: small)) }
            #expect(throws: ImageError.self) { _ = try BurstRanking.score(png, limits: small) }
            let pgm = Array("P5\n300 200\n255\n".utf8) + [UInt8](repeating: 7, count: 300 * 200)
            #expect(throws: ImageError.self) { _ = try BurstRanking.score(pgm, limits: small) }
        }
        #expect(usage.peakBytes == 0, "refused before any pixel buffer: \(usage.peakBytes)")
        // A page quad outside the PNG is an invalid argument, not a crash.
        #expect(throws: ImageError.self) { _ = try Scanner.scan(png, options: .init(corners: ScanComposite.quad)) }
    }

    @Test("sharpness of a PNG and a PNM: the luma resized to the scale a JPEG would decode at, scored")
    func sharpnessReference() throws {
        var img = try SyntheticImage.photo(width: 2600, height: 1700, format: .rgba8, seed: 4)
        img.orientation = .up
        let png = try PNG.encode(img, options: .init(compressionLevel: 1, orientation: .right))
        let s = try BurstRanking.score(png, targetLongSide: 1280)
        let n = BurstRanking.scale(width: 2600, height: 1700, targetLongSide: 1280)
        #expect(n == 4 && s.scale == 4)
        // Reference: the whole GRAY8 decode resized (Lanczos-3) to the n/8 size, then scored.
        let size = try JPEG.scaledSize(width: 2600, height: 1700, eighths: n)
        let gray = try PNG.decode(png, format: .gray8).resized(width: size.width, height: size.height)
        let ref = try gray.laplacianScore()
        #expect(abs(s.score.standardDeviation - ref.standardDeviation) < 1e-3 * ref.standardDeviation,
                "\(s.score.standardDeviation) vs \(ref.standardDeviation)")
        #expect(s.width == size.height && s.height == size.width, "scored upright")
        let ppm = try PNM.encode(try img.converted(to: .rgb8))
        let t = try BurstRanking.score(ppm, targetLongSide: 1280)
        #expect(abs(t.score.standardDeviation - ref.standardDeviation) < 1e-3 * ref.standardDeviation)
        // A blurred copy ranks below.
        let blurred = try img.resized(width: 650, height: 425).resized(width: 2600, height: 1700)
        let ranking = BurstRanking.rank([try PNG.encode(blurred, options: .init(compressionLevel: 1)), png])
        #expect(ranking.order == [1, 0])
    }

    @Test("CLI: scan a.png to .png and .jpg (profile carried), detect a.png, sharpest PNG + PNM + JPEG")
    func cli() throws {
        let dir = try PipelineCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icc = ColorProfileTests.displayP3()
        let input = dir.appendingPathComponent("photo.png").path
        let photo = try ScanComposite.photo(background: "background-storm.pgm")
        try Data(try PNG.encode(photo, options: .init(compressionLevel: 1, iccProfile: icc))).write(to: URL(fileURLWithPath: input))
        let q = ScanComposite.quad.corners.map { "\($0.x),\($0.y)" }.joined(separator: ",")
        let outPNG = dir.appendingPathComponent("page.png").path, outJPG = dir.appendingPathComponent("page.jpg").path
        let r = try CLITests.run(["scan", input, outPNG, "--corners", q, "--size", "600x840", "--no-enhance"])
        #expect(r.status == 0, "\(r.stderr)")
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: outPNG)))
        #expect(try PNG.iccProfile(png) == icc, "the RGB profile is carried to the colour page")
        #expect(try Self.psnrToPage(try PNG.decode(png, format: .rgba8)) > 24)
        let j = try CLITests.run(["scan", input, outJPG, "--corners", q, "--size", "600x840", "--mode", "gray"])
        #expect(j.status == 0, "\(j.stderr)")
        let jpg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: outJPG)))
        #expect(try JPEG.info(jpg).components == 1 && (try JPEG.iccProfile(jpg)) == nil, "no RGB profile on a gray page")
        let bad = try CLITests.run(["scan", input, dir.appendingPathComponent("page.ppm").path, "--corners", q])
        #expect(bad.status != 0 && bad.stderr.contains("scan writes .jpg or .png"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("page.ppm").path))

        let d = try CLITests.run(["detect", input, "--json"])
        let row = try JSONSerialization.jsonObject(with: Data(d.stdout.utf8)) as! [String: Any]
        #expect(d.status == 0 && row["found"] as? String == "true" || row["found"] as? Bool == true, "\(d.stdout)")
        let corners = (row["corners"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) }
        #expect(DocumentComposite.cornerError(Quad(corners), ScanComposite.quad) < 16)

        var img = try SyntheticImage.photo(width: 640, height: 480, format: .rgba8, seed: 6)
        img.orientation = .up
        let sharp = dir.appendingPathComponent("sharp.png").path, soft = dir.appendingPathComponent("soft.pgm").path
        let mid = dir.appendingPathComponent("mid.jpg").path
        try Data(try PNG.encode(img)).write(to: URL(fileURLWithPath: sharp))
        let blurred = try img.resized(width: 160, height: 120).resized(width: 640, height: 480)
        try Data(try PNM.encode(try blurred.converted(to: .gray8))).write(to: URL(fileURLWithPath: soft))
        let half = try img.resized(width: 320, height: 240).resized(width: 640, height: 480)
        try Data(try JPEG.encode(half, options: .init(quality: 98))).write(to: URL(fileURLWithPath: mid))
        let s = try CLITests.run(["sharpest", soft, mid, sharp])
        #expect(s.status == 0 && s.stderr.contains("3 ranked"), "\(s.stderr)")
        #expect(s.stdout.split(separator: "\n").map { String($0.split(separator: " ")[1]) } == [sharp, mid, soft], "\(s.stdout)")
        // Folders give their .png files too.
        let f = try CLITests.run(["sharpest", dir.path])
        #expect(f.stdout.contains("sharp.png") && f.stdout.contains("mid.jpg") && f.stdout.contains("page.png"), "\(f.stdout)")
    }
}
