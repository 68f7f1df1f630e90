import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// `imagecore scan`, `sharpest` and `thumbnail`.
@Suite("imagecore pipeline commands")
struct PipelineCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Three good JPEGs (different sharpness) and one corrupt file in a directory.
    static func batch(_ dir: URL) throws -> [String] {
        var paths: [String] = []
        for (i, q) in [95, 30, 70].enumerated() {
            var img = try SyntheticImage.photo(width: 400 + 40 * i, height: 300, format: .rgba8, seed: 3)
            img.orientation = .up
            let p = dir.appendingPathComponent("img\(i).jpg").path
            try Data(try JPEG.encode(img, options: .init(quality: q, orientation: i == 1 ? .right : .up))).write(to: URL(fileURLWithPath: p))
            paths.append(p)
        }
        let bad = dir.appendingPathComponent("broken.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A]).write(to: URL(fileURLWithPath: bad))
        paths.append(bad)
        return paths
    }

    @Test("thumbnail: a corrupt file among good ones is reported on one line; the rest succeed; exit 1")
    func thumbnailBatch() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try Self.batch(dir)
        let out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let r = try CLITests.run(["thumbnail", dir.path, "--size", "128", "-o", out, "--workers", "2"])
        #expect(r.status != 0)
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("imagecore:") }
        #expect(errors.count == 1 && errors[0].contains("broken.jpg"), "\(r.stderr)")
        for (i, _) in files.dropLast().enumerated() {
            let t = try JPEG.info([UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/img\(i).thumb.jpg"))))
            // img1 is tagged "right": its thumbnail is upright, so portrait.
            #expect(i == 1 ? (t.height == 128 && t.width < 128) : (t.width == 128 && t.height < 128), "img\(i): \(t.width)x\(t.height)")
        }
    }

    @Test("sharpest: ranks the good files, reports the corrupt one, exit 1; JSON and Laplacian views")
    func sharpestBatch() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try Self.batch(dir)
        let views = dir.appendingPathComponent("views").path
        try FileManager.default.createDirectory(atPath: views, withIntermediateDirectories: true)
        let r = try CLITests.run(["sharpest"] + files + ["--laplacian-dir", views])
        #expect(r.status != 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(r.stdout)")
        let scores = lines.map { Double($0.split(separator: " ")[0])! }
        #expect(scores == scores.sorted(by: >))
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("imagecore:") && $0.contains("broken.jpg") }.count == 1, "\(r.stderr)")
        let v1 = try JPEG.info([UInt8](try Data(contentsOf: URL(fileURLWithPath: views + "/img1.laplacian.jpg"))))
        #expect(v1.width == 300 && v1.height == 440, "the view of the 'right'-tagged file is upright")
        let j = try CLITests.run(["sharpest", "--json"] + files.dropLast())
        #expect(j.status == 0)
        let rows = try j.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(rows.count == 3)
        #expect(rows.map { $0["rank"] as! Int } == [1, 2, 3])
        #expect(zip(rows.map { $0["score"] as! Double }, scores).allSatisfy { abs($0 - $1) < 1e-4 }, "the JSON ranking is the text ranking")
    }

    @Test("scan: given corners, paper size, gray mode; bad input is one line and exit 1")
    func scan() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try ScanComposite.photo()
        let input = dir.appendingPathComponent("photo.jpg").path, output = dir.appendingPathComponent("page.jpg").path
        try Data(try JPEG.encode(photo, options: .init(quality: 92))).write(to: URL(fileURLWithPath: input))
        let q = ScanComposite.quad.corners.map { "\($0.x),\($0.y)" }.joined(separator: ",")
        let r = try CLITests.run(["scan", input, output, "--corners", q, "--paper", "a5", "--dpi", "100", "--mode", "gray"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("peak pixel bytes"))
        let info = try JPEG.info([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        let expected = try ScanComposite.quad.rectifiedSize(.paper(.a5, dpi: 100))
        #expect(info.width == expected.width && info.height == expected.height && info.components == 1)
        // Automatic corners: the storm composite (the learned detector finds no page on the
        // wood one; see PipelineScannerTests.detection).
        let stormInput = dir.appendingPathComponent("storm.jpg").path
        try Data(try JPEG.encode(try ScanComposite.photo(background: "background-storm.pgm"), options: .init(quality: 92)))
            .write(to: URL(fileURLWithPath: stormInput))
        let s = try CLITests.run(["scan", stormInput, output, "--size", "300x420"])
        #expect(s.status == 0, "\(s.stderr)")
        let bad = try CLITests.run(["scan", input + ".missing", output])
        #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }
}
