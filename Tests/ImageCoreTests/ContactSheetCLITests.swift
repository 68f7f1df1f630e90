import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

@Suite("imagecore contact-sheet")
struct ContactSheetCLITests {
    @Test("a grid of the folder's JPEGs; a corrupt file gets one stderr line and a non-zero exit")
    func sheet() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-sheet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, (w, h)) in [(320, 200), (150, 300), (64, 64)].enumerated() {
            let photo = try SyntheticImage.photo(width: w, height: h, seed: UInt32(i + 1))
            try Data(try JPEG.encode(photo)).write(to: dir.appendingPathComponent("p\(i).jpg"))
        }
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]).write(to: dir.appendingPathComponent("z-broken.jpg"))
        // A PNG (RGB, eXIf orientation 6: shown 100x160 upright) takes the fourth cell.
        let png = try SyntheticImage.photo(width: 160, height: 100, format: .rgb8, seed: 9)
        try Data(try PNG.encode(png, options: .init(orientation: .right))).write(to: dir.appendingPathComponent("q.png"))
        try Data("not a photo".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let out = dir.appendingPathComponent("sheet.jpg").path
        let r = try CLITests.run(["contact-sheet", dir.path, out, "--columns", "2", "--size", "100"])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("z-broken.jpg"), "\(r.stderr)")
        // 5 files → 2 columns × 3 rows of (100 + 8) px cells, plus the outer margin.
        let sheet = try JPEG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: out))), format: .rgb8)
        #expect(sheet.width == 2 * 108 + 8 && sheet.height == 3 * 108 + 8)
        // The PNG's cell (row 1, column 1) holds it upright: 63x100, centred, so its left edge
        // column is background and a column inside it is not.
        let x0 = 8 + 108, y0 = 8 + 108, st = sheet.plane(0).stride
        let outside = sheet.withPlane(0) { s in Int(s[(y0 + 50) * st + (x0 + 10) * 3]) }
        let inside = sheet.withPlane(0) { s in (0..<3).map { Int(s[(y0 + 50) * st + (x0 + 50) * 3 + $0]) } }
        #expect(abs(outside - 32) <= 3, "left of the upright PNG is background")
        #expect(inside.contains { abs($0 - 32) > 3 }, "the PNG is drawn")
        // The first cell holds the 320x200 photo scaled to 100x63, centred: its centre is not background.
        let centre = sheet.withPlane(0) { s in Int(s[(8 + 50) * sheet.plane(0).stride + (8 + 50) * 3]) }
        let corner = sheet.withPlane(0) { s in Int(s[(8 + 2) * sheet.plane(0).stride + (8 + 50) * 3]) }
        #expect(abs(corner - 32) <= 3, "cell margin is background")
        #expect(abs(centre - 32) > 3, "cell centre shows the photo")
    }
}

@Suite("imagecore contact-sheet and scan: decoder warnings")
struct DamagedPhotoCLITests {
    @Test("a truncated photo still drawn gets one warning line naming it and counts in the summary; --strict fails it")
    func contactSheetWarns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-sheet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(JPEGFixtures.photo(width: 320, height: 240, seed: 2)).write(to: dir.appendingPathComponent("a.jpg"))
        let full = JPEGFixtures.photo(width: 640, height: 480, quality: 95, seed: 3)
        try Data(full.prefix(full.count * 8 / 10)).write(to: dir.appendingPathComponent("b-cut.jpg"))
        let out = dir.appendingPathComponent("sheet.jpg").path
        let r = try CLITests.run(["contact-sheet", dir.path, out, "--size", "64"])
        let lines = r.stderr.split(separator: "\n")
        #expect(r.status == 0 && lines.count == 1 && lines[0].hasPrefix("imagecore: warning: \(dir.path)/b-cut.jpg: "), "\(r.stderr)")
        #expect(r.stdout.contains("2 of 2 photos") && r.stdout.contains("1 with decoder warnings"), "\(r.stdout)")
        let strict = try CLITests.run(["contact-sheet", dir.path, out, "--size", "64", "--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("b-cut.jpg"), "\(strict.stderr)")
    }

    @Test("scan reports its crop decode's warnings with the file name; --strict fails")
    func scanWarns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = JPEGFixtures.photo(width: 640, height: 480, quality: 95, seed: 4)
        let cut = dir.appendingPathComponent("cut.jpg").path
        try Data(full.prefix(full.count * 8 / 10)).write(to: URL(fileURLWithPath: cut))
        // The page covers the whole picture: its crop decode reaches the cut rows.
        let args = ["scan", cut, dir.appendingPathComponent("page.jpg").path, "--corners", "2,2,637,2,637,477,2,477",
                    "--size", "200x150", "--json"]
        let r = try CLITests.run(args)
        let lines = r.stderr.split(separator: "\n")
        #expect(r.status == 0 && lines.count == 1 && lines[0].hasPrefix("imagecore: warning: \(cut): "), "\(r.stderr)")
        let row = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect((row["warnings"] as? [Any])?.count == 1, "\(r.stdout)")
        let strict = try CLITests.run(args + ["--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("cut.jpg"), "\(strict.stderr)")
        // In the library: ScanResult.warnings counts the crop decode's.
        let s = try Scanner.scan(Array(full.prefix(full.count * 8 / 10)),
                                 options: .init(corners: Quad(topLeft: Point(x: 2, y: 2), topRight: Point(x: 637, y: 2), bottomRight: Point(x: 637, y: 477), bottomLeft: Point(x: 2, y: 477)),
                                                size: .pixels(width: 200, height: 150), limits: .init(minValidShare: 0)))
        #expect(s.warnings.count > 0 && s.warnings.last != nil)
    }
}

@Suite("JPEGThumbnailDecoder")
struct JPEGThumbnailDecoderTests {
    @Test("long side within the bound, EXIF orientation applied, close to decode-full-then-resize")
    func decoder() throws {
        let photo = try SyntheticImage.photo(width: 640, height: 480, seed: 5)
        let jpeg = try JPEG.encode(photo, options: .init(quality: 95, orientation: .right))
        let thumb = try JPEGThumbnailDecoder().thumbnail(from: jpeg.span.bytes, maxPixelSize: 100)
        // Orientation 6 turns 640x480 into a 480x640 display: 75x100 at 100 px.
        #expect(thumb.width == 75 && thumb.height == 100 && thumb.orientation == .up && thumb.format == .rgba8)
        // Reference: full decode, Lanczos-3 to 100x75, then rotate; PSNR over RGB.
        let full = try JPEG.decode(jpeg, format: .rgba8)
        let reference = try full.resized(width: 100, height: 75).upright()
        var se = 0.0, n = 0.0
        thumb.withPlane(0) { a in reference.withPlane(0) { b in
            for y in 0..<100 { for x in 0..<75 { for c in 0..<3 {
                let d = Double(a[y * thumb.plane(0).stride + 4 * x + c]) - Double(b[y * reference.plane(0).stride + 4 * x + c])
                se += d * d; n += 1
            } } }
        } }
        let psnr = 10 * log10(255 * 255 / max(se / n, 1e-9))
        #expect(psnr > 30, "PSNR \(psnr) dB")
        do { _ = try JPEGThumbnailDecoder().thumbnail(from: [UInt8](repeating: 7, count: 40).span.bytes, maxPixelSize: 100); Issue.record("garbage accepted") }
        catch { #expect(error.code == .corruptData) }
    }
}
