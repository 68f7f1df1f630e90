import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// `imagecore detect`, `rectify` and `enhance` (the executable built beside the tests).
@Suite("imagecore document commands")
struct DocumentCLITests {
    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A composite photo written as PGM (and as raw NV12 with neutral chroma), and its page.
    static func composite(_ dir: URL) throws -> (pgm: String, yuv: String, quad: Quad, width: Int, height: Int) {
        let bg = try DetectTests.load("background-storm.pgm")
        let sample = try DocumentComposite.compose(page: try DocumentComposite.renderPage(width: 420, height: 594, seed: 5), background: bg, seed: 77)
        let pgm = dir.appendingPathComponent("photo.pgm").path, yuv = dir.appendingPathComponent("photo.yuv").path
        try PNM.write(sample.image, path: pgm)
        let w = sample.image.width, h = sample.image.height
        var nv12 = try PixelBuffer(width: w, height: h, format: .nv12)
        try nv12.fill([0, 128, 128])
        let gs = sample.image.plane(0).stride, ys = nv12.plane(0).stride
        sample.image.withPlane(0) { g in nv12.withMutablePlane(0) { d in for y in 0..<h { for x in 0..<w { d[y * ys + x] = g[y * gs + x] } } } }
        try RawYUV.write(nv12, path: yuv)
        return (pgm, yuv, sample.quad, w, h)
    }

    @Test("detect prints the corners (text and JSON), also from raw NV12")
    func detect() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Self.composite(dir)
        let text = try CLITests.run(["detect", c.pgm])
        #expect(text.status == 0, "\(text.stderr)")
        let pairs = text.stdout.split(separator: "\n")[0].split(separator: " ").map { $0.split(separator: ",").map { Double($0)! } }
        #expect(pairs.count == 4)
        let found = Quad(pairs.map { Point(x: $0[0], y: $0[1]) })
        let diag = Double(c.width * c.width + c.height * c.height).squareRoot()
        #expect(DocumentComposite.cornerError(found, c.quad) <= 0.015 * diag)
        let json = try CLITests.run(["detect", c.pgm, "--json"])
        let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(obj["found"] as? Bool == true && (obj["corners"] as? [[Double]])?.count == 4 && obj["width"] as? Int == c.width)
        #expect(obj["cut_edges"] as? [String] == [], "\(json.stdout)")
        let raw = try CLITests.run(["detect", c.yuv, "--size", "\(c.width)x\(c.height)", "--layout", "nv12"])
        #expect(raw.status == 0 && raw.stdout == text.stdout, "\(raw.stderr)")
        var flat = try PixelBuffer(width: 64, height: 48, format: .gray8)
        try flat.fill([90])
        let flatPath = dir.appendingPathComponent("flat.pgm").path
        try PNM.write(flat, path: flatPath)
        let none = try CLITests.run(["detect", flatPath, "--json"])
        #expect(none.status == 0 && none.stdout.contains("\"found\": false"))
    }

    /// The proxy-split card cut by the photo's top edge (DetectTests.cutCardFromInsideRegion):
    /// detect names the edge in its text and JSON, and scan says its page is the visible part.
    @Test("a page cut by the frame: detect and scan name the edge")
    func cutPageNamed() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = DetectTests.fixtures.appendingPathComponent("detect-proxy-cut-card.jpg").path
        let text = try CLITests.run(["detect", photo])
        #expect(text.status == 0 && text.stdout.hasSuffix("cut by the frame: top\n"), "\(text.stdout) \(text.stderr)")
        let json = try CLITests.run(["detect", photo, "--json"])
        let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(obj["found"] as? Bool == true && obj["cut_edges"] as? [String] == ["top"], "\(json.stdout)")
        let out = dir.appendingPathComponent("page.jpg").path
        let scan = try CLITests.run(["scan", photo, out, "--json"])
        let sobj = try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as! [String: Any]
        #expect(scan.status == 0 && sobj["detected"] as? Bool == true && sobj["cut_edges"] as? [String] == ["top"], "\(scan.stdout) \(scan.stderr)")
        let plain = try CLITests.run(["scan", photo, out])
        #expect(plain.status == 0 && plain.stdout.contains("(detected, cut by the frame: top, the visible part only)"), "\(plain.stdout)")
        let given = try CLITests.run(["scan", photo, out, "--corners", "160,22,188,0,401,0,245,127", "--json"])
        #expect(given.status == 0 && given.stdout.contains("\"cut_edges\": []"), "\(given.stdout) \(given.stderr)")
    }

    /// The CLI's detection (detect, rectify and scan without corners) is the library's two-size
    /// detection unless `--fast` (one size; `--thorough`, the default, is still accepted, not
    /// with `--fast`). The photos' pages are found only by the second run
    /// (DetectTests.secondWorkSize, PipelineScannerTests.secondWorkSize).
    @Test("detect, rectify and scan: two working sizes unless --fast")
    func thorough() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = DetectTests.fixtures.appendingPathComponent("detect-proxy-two-sizes.jpg").path
        let fast = try CLITests.run(["detect", photo, "--fast"])
        #expect(fast.status == 0 && fast.stdout == "not found\n", "\(fast.stdout) \(fast.stderr)")
        let want = try PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize).detection(in: DetectTests.photo("detect-proxy-two-sizes.jpg"))
        let wq = try #require(want.quad)
        for args in [[String](), ["--thorough"]] {
            let two = try CLITests.run(["detect", photo, "--json"] + args)
            let tobj = try JSONSerialization.jsonObject(with: Data(two.stdout.utf8)) as! [String: Any]
            let got = try #require(tobj["corners"] as? [[Double]], "\(two.stdout) \(two.stderr)")
            #expect(zip(got, wq.corners).allSatisfy { abs($0[0] - $1.x) <= 0.005 && abs($0[1] - $1.y) <= 0.005 }, "\(args): \(got) \(wq)")
            #expect(tobj["confidence"] as? Double == (want.confidence * 100).rounded() / 100)
        }
        let both = try CLITests.run(["detect", photo, "--fast", "--thorough"])
        #expect(both.status != 0 && both.stderr.contains("--fast and --thorough"), "\(both.stderr)")
        let out = dir.appendingPathComponent("r.pgm").path
        let none = try CLITests.run(["rectify", photo, out, "--fast", "--long-side", "200"])
        #expect(none.status != 0 && none.stderr.contains("no page found") && !FileManager.default.fileExists(atPath: out), "\(none.stderr)")
        let rect = try CLITests.run(["rectify", photo, out, "--long-side", "200"])
        #expect(rect.status == 0 && FileManager.default.fileExists(atPath: out), "\(rect.stderr)")
        // scan: a photo whose page only the second run finds at the scan's decode
        // (PipelineScannerTests.secondWorkSize)
        let small = DetectTests.fixtures.appendingPathComponent("scan-proxy-two-sizes.jpg").path
        let page = dir.appendingPathComponent("page.jpg").path
        let noScan = try CLITests.run(["scan", small, page, "--fast"])
        #expect(noScan.status != 0 && noScan.stderr.contains("no page found") && !FileManager.default.fileExists(atPath: page), "\(noScan.stderr)")
        let scan = try CLITests.run(["scan", small, page, "--json"])
        let sobj = try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as! [String: Any]
        let lib = try Scanner.scan(try [UInt8](Data(contentsOf: URL(fileURLWithPath: small))))
        let corners = try #require(sobj["corners"] as? [[Double]], "\(scan.stdout) \(scan.stderr)")
        #expect(scan.status == 0 && sobj["detected"] as? Bool == true && FileManager.default.fileExists(atPath: page))
        #expect(zip(corners, lib.corners.corners).allSatisfy { abs($0[0] - $1.x) <= 0.005 && abs($0[1] - $1.y) <= 0.005 }, "\(corners) \(lib.corners)")
    }

    /// `detect` decodes a large JPEG at 1/2 when that is at least 1600 px (JSON `"scale"`) and
    /// reports the size and the corners in the file's stored pixels: the proxy form
    /// (DetectTests.formFromInsideRegion) drawn 4 times larger, its page within 1.5 % of the
    /// diagonal of the truth, as the library finds it in the whole decode.
    @Test("detect: a large JPEG decoded at n/8, corners in stored pixels")
    func detectScaledDecode() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let small = try DetectTests.photo("detect-proxy-form.jpg")
        let big = try small.resized(width: 4 * small.width, height: 4 * small.height)
        let jpeg = try JPEG.encode(big)
        let path = dir.appendingPathComponent("big.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        let out = try CLITests.run(["detect", path, "--json"])
        let o = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as! [String: Any]
        #expect(o["scale"] as? Int == 4 && o["width"] as? Int == big.width && o["height"] as? Int == big.height, "\(out.stdout)")
        let truth = [[538.749, 37.067], [588.126, 59.697], [569.596, 129.185], [518.719, 114.488]].map { Point(x: 4 * $0[0], y: 4 * $0[1]) }
        let diag = (Double(big.width * big.width + big.height * big.height)).squareRoot()
        let got = try #require(o["corners"] as? [[Double]], "\(out.stdout) \(out.stderr)")
        #expect(got.count == 4)
        let cli = Quad(got.map { Point(x: $0[0], y: $0[1]) })
        #expect(DocumentComposite.cornerError(cli, Quad(truth)) <= 0.015 * diag, "\(cli)")
        let whole = try #require(PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize).detection(in: JPEG.decode(jpeg, format: .rgba8)).quad)
        #expect(DocumentComposite.cornerError(whole, Quad(truth)) <= 0.015 * diag, "\(whole)")
    }

    @Test("rectify writes the requested size and orientation; enhance writes the mode")
    func rectifyEnhance() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Self.composite(dir)
        let corners = c.quad.corners.flatMap { [$0.x, $0.y] }.map { String(format: "%.3f", $0) }.joined(separator: ",")
        let out = dir.appendingPathComponent("page.pgm").path
        var r = try CLITests.run(["rectify", c.pgm, out, "--corners", corners, "--size", "200x283", "--interpolation", "bicubic"])
        #expect(r.status == 0, "\(r.stderr)")
        var hdr = try PNM.readHeader(path: out)
        #expect(hdr.width == 200 && hdr.height == 283)
        r = try CLITests.run(["rectify", c.pgm, out, "--corners", corners, "--paper", "a5", "--dpi", "50"])
        hdr = try PNM.readHeader(path: out)
        #expect(r.status == 0 && hdr.width == 291 && hdr.height == 413, "\(r.stderr)")
        r = try CLITests.run(["rectify", c.pgm, out, "--corners", corners, "--paper", "a5", "--dpi", "50", "--orientation", "6"])
        hdr = try PNM.readHeader(path: out)
        #expect(r.status == 0 && hdr.width == 413 && hdr.height == 291, "\(r.stderr)")
        // without corners the page is detected; raw NV12 in and out
        let yuvOut = dir.appendingPathComponent("page.yuv").path
        r = try CLITests.run(["rectify", c.yuv, yuvOut, "--input-size", "\(c.width)x\(c.height)", "--layout", "nv12", "--long-side", "300"])
        #expect(r.status == 0, "\(r.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: yuvOut)[.size] as? Int) ?? 0
        // a page is taller than wide here: 300 high, the width from the aspect ratio
        #expect((1...300).contains { RawYUV.fileSize(width: $0, height: 300) == size }, "\(size) bytes")
        // enhance: bw gives only black and white
        let bw = dir.appendingPathComponent("bw.pgm").path
        r = try CLITests.run(["enhance", out, bw, "--mode", "bw"])
        #expect(r.status == 0, "\(r.stderr)")
        let img = try PNM.read(path: bw)
        let g = img.plane(0)
        let binary = img.withPlane(0) { s in (0..<g.rows).allSatisfy { y in (0..<g.rowBytes).allSatisfy { s[y * g.stride + $0] == 0 || s[y * g.stride + $0] == 255 } } }
        #expect(binary)
        r = try CLITests.run(["enhance", out, dir.appendingPathComponent("c.ppm").path, "--mode", "color"])
        #expect(r.status == 0, "\(r.stderr)")
        let magic = try PNM.readHeader(path: dir.appendingPathComponent("c.ppm").path).magic
        #expect(magic == "P6")
    }

    @Test("errors: one line on stderr, non-zero exit, nothing on stdout")
    func errors() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Self.composite(dir)
        let o = dir.appendingPathComponent("o.pgm").path
        let jpeg = dir.appendingPathComponent("x.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]).write(to: URL(fileURLWithPath: jpeg))
        let cases: [[String]] = [
            ["rectify", c.pgm, o, "--corners", "1,2,3"],
            ["rectify", c.pgm, o, "--corners", "0,0,100,0,10,10,0,100"], // not convex
            ["rectify", c.pgm, o, "--corners", "0,0,100,0,100,100,0,100", "--paper", "a4", "--size", "10x10"],
            ["rectify", c.pgm, o, "--corners", "0,0,100,0,100,100,0,100", "--orientation", "9"],
            ["rectify", c.pgm, o, "--corners", "0,0,100,0,100,100,0,100", "--interpolation", "nearest"],
            ["rectify", c.pgm, dir.appendingPathComponent("o.bmp").path, "--corners", "0,0,100,0,100,100,0,100"],
            ["enhance", c.pgm, o, "--mode", "sepia"],
            ["detect", jpeg],
            ["detect", c.yuv],
            ["detect", c.yuv, "--size", "10x10", "--layout", "nv12"],
            ["detect", "/nonexistent.pgm"],
        ]
        for args in cases {
            let r = try CLITests.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
        let notConvex = try CLITests.run(["rectify", c.pgm, o, "--corners", "0,0,100,0,10,10,0,100"])
        #expect(notConvex.stderr.contains("not convex"))
    }
}
