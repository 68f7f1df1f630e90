import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// The CLI's batch contract: atomic outputs, templates, collisions, `--skip-existing`,
/// `--files-from`, `-r`, exit statuses, `--json`, warnings, `-` through pipes, limits.
@Suite("imagecore CLI: batches and safe outputs")
struct CLIBatchTests {
    static func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-batch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ bytes: [UInt8], _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Files under `dir` (relative paths), sorted.
    static func tree(_ dir: String) -> [String] {
        (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? [])
            .filter { var isDir: ObjCBool = false; _ = FileManager.default.fileExists(atPath: dir + "/" + $0, isDirectory: &isDir); return !isDir.boolValue }.sorted()
    }

    static func sh(_ script: String) throws -> CLITests.Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        p.environment = ProcessInfo.processInfo.environment.merging(["IC": CLITests.executable.path]) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return .init(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    @Test("a device node given as output is written in place and never deleted on failure")
    func deviceNodeKept() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jpeg = dir + "/in.jpg"
        try Self.write(JPEGFixtures.photo(width: 64, height: 48), jpeg)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let node = dir + "/out/full.ppm", jnode = dir + "/out/full.jpg"
        let devFull = dev_t((1 << 8) | 7) // makedev(1, 7): /dev/full
        #expect(mknod(node, S_IFCHR | 0o666, devFull) == 0, "mknod needs root (the tests run as root here)")
        #expect(mknod(jnode, S_IFCHR | 0o666, devFull) == 0)
        for args in [["decode", jpeg, node], ["convert", jpeg, node], ["thumbnail", jpeg, "-o", jnode], ["encode", jpeg, jnode]] {
            let r = try CLITests.run(args)
            #expect(r.status == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("No space left on device"), "\(r.stderr)")
            var st = stat()
            #expect(stat(node, &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "\(args): the device node is still there")
            #expect(stat(jnode, &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "\(args): the device node is still there")
        }
        #expect(Self.tree(dir + "/out") == ["full.jpg", "full.ppm"], "no temporary left behind")
    }

    @Test("-o folders are created; templates with -r mirror a tree; a re-run skips existing outputs and never re-reads outputs")
    func templatesAndTrees() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for rel in ["photos/a.jpg", "photos/x/b.jpg", "photos/x/y/c.JPG", "photos/x/notes.txt"] {
            try Self.write(JPEGFixtures.photo(width: 80, height: 60), dir + "/" + rel)
        }
        var r = try CLITests.run(["thumbnail", dir + "/photos", "-r", "--size", "32", "-o", dir + "/thumbs/{reldir}/{stem}_32.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.tree(dir + "/thumbs") == ["a_32.jpg", "x/b_32.jpg", "x/y/c_32.jpg"])
        let info = try JPEG.info(try Self.read(dir + "/thumbs/x/y/c_32.jpg"))
        #expect(info.width == 32 && info.height == 24)
        // -o DIR (no braces): DIR/{reldir}/{stem}.thumb.jpg, created.
        r = try CLITests.run(["thumbnail", dir + "/photos", "-r", "--size", "32", "-o", dir + "/deep/new/dir"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.tree(dir + "/deep/new/dir") == ["a.thumb.jpg", "x/b.thumb.jpg", "x/y/c.thumb.jpg"])
        // --skip-existing: nothing to do, each file reported as skipped.
        let before = try Self.read(dir + "/thumbs/a_32.jpg")
        r = try CLITests.run(["thumbnail", dir + "/photos", "-r", "--size", "64", "-o", dir + "/thumbs/{reldir}/{stem}_32.jpg", "--skip-existing", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(rows.count == 3 && rows.allSatisfy { $0["skipped"] as? Bool == true })
        #expect(try Self.read(dir + "/thumbs/a_32.jpg") == before)
        // Beside the inputs, twice: the second run does not take x.thumb.jpg as an input.
        for _ in 0..<2 {
            r = try CLITests.run(["thumbnail", dir + "/photos", "-r", "--size", "16", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == 3, "\(r.stdout)")
        }
        #expect(!Self.tree(dir + "/photos").contains { $0.contains(".thumb.thumb") }, "\(Self.tree(dir + "/photos"))")
    }

    @Test("two inputs mapping to one output are refused before any work (exit 2, nothing written)")
    func collisions() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.write(JPEGFixtures.photo(width: 40, height: 30), dir + "/a/IMG.jpg")
        try Self.write(JPEGFixtures.photo(width: 40, height: 30), dir + "/b/IMG.jpg")
        let r = try CLITests.run(["thumbnail", dir + "/a/IMG.jpg", dir + "/b/IMG.jpg", "-o", dir + "/out"])
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("would both write"), "\(r.stderr)")
        #expect(!Self.exists(dir + "/out"), "nothing touched")
        let ok = try CLITests.run(["thumbnail", dir + "/a/IMG.jpg", dir + "/b/IMG.jpg", "-o", dir + "/out/{dir}/{stem}.jpg"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test("bad arguments: exit 2 and one line, before any file is touched")
    func badArguments() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jpeg = dir + "/in.jpg", ppm = dir + "/in.ppm"
        try Self.write(JPEGFixtures.photo(width: 40, height: 30), jpeg)
        try Self.write(Array("P6\n4 4\n255\n".utf8) + [UInt8](repeating: 9, count: 48), ppm)
        let bad: [[String]] = [
            ["thumbnail", jpeg, "--size", "0"], ["thumbnail", jpeg, "--size=-5"], ["thumbnail", jpeg, "--workers=-1"],
            ["thumbnail", jpeg, "--quality", "101"], ["thumbnail", jpeg, "--bogus"], ["thumbnail", jpeg, "-o", dir + "/{nope}.jpg"],
            ["sharpest", jpeg, "--long-side", "0"], ["sharpest", jpeg, "--long-side", "-1"],
            ["resize", ppm, dir + "/big.ppm", "--width", "30000", "--height", "30000"],
            ["decode", jpeg, dir + "/o.yuv", "--format", "i420", "--crop", "1,2,8,8"],
            ["decode", jpeg], ["decode", jpeg, dir + "/o.ppm", "--max-memory", "lots"], ["nonsense"],
            ["decode", jpeg, dir + "/o.ppm", "--threads", "x"],
        ]
        for args in bad {
            let r = try CLITests.run(args)
            #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let crop = try CLITests.run(["decode", jpeg, dir + "/o.yuv", "--format", "i420", "--crop", "1,2,8,8"])
        #expect(crop.stderr.contains("must be even"), "a real message: \(crop.stderr)")
        #expect(Self.tree(dir) == ["in.jpg", "in.ppm"], "no file touched")
    }

    @Test("--json: one object per file with the fields; errors name the file; exit 1 when some fail")
    func json() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.write(JPEGFixtures.photo(width: 160, height: 120), dir + "/in/good.jpg")
        try Self.write([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A], dir + "/in/bad.jpg")
        let r = try CLITests.run(["thumbnail", dir + "/in", "--size", "40", "-o", dir + "/out", "--json"])
        #expect(r.status == 1)
        let rows = try r.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(rows.count == 2)
        let good = rows.first { ($0["input"] as! String).hasSuffix("good.jpg") }!
        #expect(good["output"] as? String == dir + "/out/good.thumb.jpg")
        #expect(good["width"] as? Int == 40 && good["height"] as? Int == 30 && good["scale"] as? Int == 2)
        #expect((good["warnings"] as? [Any])?.isEmpty == true && good["error"] is NSNull && good["ms"] is Double)
        let bad = rows.first { ($0["input"] as! String).hasSuffix("bad.jpg") }!
        #expect((bad["error"] as? String)?.contains("bad.jpg") == true && bad["output"] is NSNull)
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("imagecore: ") && $0.contains("bad.jpg") }.count == 1, "\(r.stderr)")
        #expect(!Self.exists(dir + "/out/bad.thumb.jpg"))
        let info = try CLITests.run(["info", dir + "/in/good.jpg", "--json"])
        let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
        #expect(obj["width"] as? Int == 160 && obj["format"] as? String == "jpeg" && obj["subsampling"] as? String == "4:2:0")
    }

    @Test("a truncated JPEG warns with the file name (counted in JSON and the summary); --strict makes it a failure; too little data fails unless --allow-truncated")
    func truncatedWarns() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = JPEGFixtures.photo(width: 320, height: 240, quality: 95)
        try Self.write(Array(full.prefix(full.count * 8 / 10)), dir + "/cut.jpg")
        try Self.write(Array(full.prefix(full.count / 5)), dir + "/stub.jpg")
        for command in [["decode", dir + "/stub.jpg", dir + "/stub.ppm"], ["thumbnail", dir + "/stub.jpg", "--size", "64"]] {
            let r = try CLITests.run(command)
            #expect(r.status == 1 && r.stderr.contains("stub.jpg"), "\(command): \(r.stderr)")
            let allowed = try CLITests.run(command + ["--allow-truncated"])
            #expect(allowed.status == 0 && allowed.stderr.hasPrefix("imagecore: warning: \(dir)/stub.jpg: "), "\(allowed.stderr)")
            let low = try CLITests.run(command + ["--min-valid", "0.1"])
            #expect(low.status == 0, "\(low.stderr)")
        }
        try Self.write(full, dir + "/whole.jpg")
        for command in [["decode", dir + "/cut.jpg", dir + "/cut.ppm"], ["thumbnail", dir + "/cut.jpg", "--size", "64"]] {
            let r = try CLITests.run(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("imagecore: warning: \(dir)/cut.jpg: "), "\(r.stderr)")
            let strict = try CLITests.run(command + ["--strict"])
            #expect(strict.status == 1 && strict.stderr.contains("cut.jpg"), "\(strict.stderr)")
        }
        let batch = try CLITests.run(["thumbnail", dir + "/cut.jpg", dir + "/whole.jpg", "-o", dir + "/t", "--json"])
        #expect(batch.status == 0)
        let rows = try batch.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(rows.map { ($0["warnings"] as! [Any]).count }.sorted() == [0, 1])
        #expect(batch.stderr.contains("1 with decoder warnings"), "\(batch.stderr)")
    }

    @Test("thumbnail streams a JPEG larger than its headers from the file: the pixels of the in-memory thumbnail; a cut one warns, and fails under --strict")
    func streamedFromFile() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = JPEGFixtures.photo(width: 1600, height: 1200, quality: 95)
        #expect(full.count > 3 * (128 << 10)) // streamed: more than the 128 KiB of headers read first
        try Self.write(full, dir + "/big.jpg")
        try Self.write(Array(full.prefix(full.count * 8 / 10)), dir + "/cut.jpg")
        let r = try CLITests.run(["thumbnail", dir + "/big.jpg", "-o", dir + "/big.png", "--size", "200"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let expected = try Thumbnailer.thumbnail(full, maxWidth: 200, maxHeight: 200).take()
        let written = try PNG.decode(try Self.read(dir + "/big.png"), format: .rgba8)
        #expect(written.width == expected.width && written.height == expected.height)
        #expect(JPEGFixtures.packed(written, plane: 0) == JPEGFixtures.packed(expected, plane: 0))
        let cut = try CLITests.run(["thumbnail", dir + "/cut.jpg", "-o", dir + "/cut.png", "--size", "200"])
        let lines = cut.stderr.split(separator: "\n")
        #expect(cut.status == 0 && lines.count == 1 && lines[0].hasPrefix("imagecore: warning: \(dir)/cut.jpg: "), "\(cut.stderr)")
        let strict = try CLITests.run(["thumbnail", dir + "/cut.jpg", "-o", dir + "/strict.png", "--size", "200", "--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("cut.jpg") && !Self.exists(dir + "/strict.png"), "\(strict.stderr)")
        // The streamed path reads the orientation and, with --keep-metadata, the EXIF from the headers.
        let turned = try JPEG.encode(try SyntheticImage.photo(width: 1600, height: 1200, seed: 8), options: .init(quality: 95, orientation: .right))
        #expect(turned.count > 128 << 10)
        try Self.write(turned, dir + "/turned.jpg")
        let k = try CLITests.run(["thumbnail", dir + "/turned.jpg", "-o", dir + "/turned.thumb.jpg", "--size", "200", "--keep-metadata"])
        #expect(k.status == 0, "\(k.stderr)")
        let info = try JPEG.info(try Self.read(dir + "/turned.thumb.jpg"))
        #expect(info.width == 150 && info.height == 200 && info.exifRange != nil && info.orientation == .up)
    }

    @Test("--files-from (lines, NUL-separated, stdin) and '-' through pipes")
    func filesFromAndPipes() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for n in ["a", "b", "c"] { try Self.write(JPEGFixtures.photo(width: 48, height: 32), "\(dir)/\(n).jpg") }
        try Data("\(dir)/a.jpg\n\(dir)/b.jpg\n".utf8).write(to: URL(fileURLWithPath: dir + "/list.txt"))
        var r = try CLITests.run(["thumbnail", "--files-from", dir + "/list.txt", "-o", dir + "/l/{stem}.jpg", "--size", "16"])
        #expect(r.status == 0 && Self.tree(dir + "/l") == ["a.jpg", "b.jpg"], "\(r.stderr)")
        r = try Self.sh("printf '%s\\0' \(dir)/b.jpg \(dir)/c.jpg | \"$IC\" thumbnail --files-from - -o \(dir)/z/{stem}.jpg --size 16")
        #expect(r.status == 0 && Self.tree(dir + "/z") == ["b.jpg", "c.jpg"], "\(r.stderr)")
        // JPEG in on stdin, PPM out on stdout, into info on stdin.
        r = try Self.sh("\"$IC\" decode - - --scale 4/8 < \(dir)/a.jpg | \"$IC\" info -")
        #expect(r.status == 0 && r.stdout.contains("width: 24") && r.stdout.contains("height: 16"), "\(r.stdout) \(r.stderr)")
        r = try Self.sh("\"$IC\" thumbnail - -o - --size 12 < \(dir)/a.jpg > \(dir)/t.jpg")
        #expect(r.status == 0, "\(r.stderr)")
        let t = try JPEG.info(try Self.read(dir + "/t.jpg"))
        #expect(t.width == 12 && t.height == 8)
    }

    @Test("extension and format agree: .pgm gets gray, .ppm RGB; JPEG bytes never land in a .png")
    func extensions() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pam = Array("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
        pam += [UInt8](repeating: 200, count: 24)
        try Self.write(pam, dir + "/x.pam")
        var r = try CLITests.run(["convert", dir + "/x.pam", dir + "/y.pgm"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PNM.read(path: dir + "/y.pgm").format == .gray8)
        r = try CLITests.run(["convert", dir + "/y.pgm", dir + "/z.ppm"])
        #expect(try PNM.read(path: dir + "/z.ppm").format == .rgb8)
        r = try CLITests.run(["encode", dir + "/x.pam", dir + "/x.png"])
        #expect(r.status == 1 && r.stderr.contains("x.png") && r.stderr.contains(".jpg"), "\(r.stderr)")
        #expect(!Self.exists(dir + "/x.png"))
    }

    @Test("limits: --max-pixels and IC_MAX_PIXELS refuse inputs, --max-memory refuses before allocating")
    func limits() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.write(JPEGFixtures.photo(width: 200, height: 100), dir + "/in.jpg")
        var r = try CLITests.run(["decode", dir + "/in.jpg", dir + "/o.ppm", "--max-pixels", "10000"])
        #expect(r.status == 1 && r.stderr.contains("in.jpg"), "\(r.stderr)")
        r = try Self.sh("IC_MAX_PIXELS=10000 \"$IC\" rotate \(dir)/in.jpg \(dir)/o.ppm --orientation 6")
        #expect(r.status == 1 && r.stderr.contains("too large"), "\(r.stderr)")
        r = try CLITests.run(["rotate", dir + "/in.jpg", dir + "/o.ppm", "--orientation", "6", "--max-memory", "100K"])
        #expect(r.status == 1 && r.stderr.contains("budget"), "\(r.stderr)")
        r = try CLITests.run(["rotate", dir + "/in.jpg", dir + "/o.ppm", "--orientation", "6", "--max-memory", "1M"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.tree(dir) == ["in.jpg", "o.ppm"])
    }

    @Test("help, completions and man page come from the declarations")
    func generated() throws {
        let help = try CLITests.run(["thumbnail", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--skip-existing") && help.stdout.contains("EXIT STATUS: 0"))
        for shell in ["bash", "zsh", "fish"] {
            let s = try CLITests.run(["--generate-completion-script", shell])
            #expect(s.status == 0 && s.stdout.contains("skip-existing") && s.stdout.contains("contact-sheet"), "\(shell)")
        }
        let man = try CLITests.run(["--generate-manual"])
        #expect(man.stdout.hasPrefix(".TH IMAGECORE 1") && man.stdout.contains("\\-\\-files\\-from"))
    }
}
