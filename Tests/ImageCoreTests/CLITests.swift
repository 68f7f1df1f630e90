import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore

/// Runs the built `imagecore` executable (built beside the test bundle by
/// `swift build --build-tests`, which `make test` runs first).
@Suite("imagecore CLI")
struct CLITests {
    struct Output { var status: Int32; var stdout: String; var stderr: String }

    /// The `imagecore` built beside the tests, or `IMAGECORE_CLI` (the installed, statically
    /// linked binary: `make install-check` runs the CLI suites against it).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["IMAGECORE_CLI"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("imagecore")
    }

    static func run(_ args: [String]) throws -> Output {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Runs the executable with its output thrown away; its exit status and peak resident
    /// memory (the kernel's accounting of that one child, `wait4`).
    static func peakMemory(_ args: [String]) throws -> (status: Int32, kib: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable.path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard rc == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw CocoaError(.executableLoad) }
        return ((status >> 8) & 0xff, usage.ru_maxrss)
    }

    /// A batch's peak memory does not grow with its length: the CLI has glibc serve large
    /// buffers from mmap (main.swift). Without it, `detect` over 2 copies of a 1600 x 1200 JPEG
    /// peaked at 44 MiB, over 16 at 78 MiB (debug build): each file's freed buffers raised the heap's threshold.
    @Test("a batch's peak memory does not grow with the number of files")
    func batchMemoryFlat() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = Data(JPEGFixtures.photo(width: 1600, height: 1200))
        var files: [String] = []
        for i in 0..<10 {
            let path = dir.appendingPathComponent("p\(i).jpg").path
            try jpeg.write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let two = try Self.peakMemory(["detect", "--workers", "1"] + files.prefix(2))
        let ten = try Self.peakMemory(["detect", "--workers", "1"] + files)
        #expect(two.status == 0 && ten.status == 0)
        #expect(ten.kib - two.kib < 8 * 1024, "peak \(two.kib) KiB for 2 files, \(ten.kib) KiB for 10")
    }

    @Test("the executable exists")
    func exists() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build it with swift build --build-tests")
    }

    @Test("info and convert on PNM; info on JPEG")
    func infoConvert() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.pam").path, output = dir.appendingPathComponent("out.pam").path
        let bytes = PNMTests.expectedFile(31, 7, .rgba8)
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let info = try Self.run(["info", input])
        #expect(info.status == 0)
        #expect(info.stdout.contains("width: 31") && info.stdout.contains("height: 7") && info.stdout.contains("pixel format: rgba8"))
        let convert = try Self.run(["convert", input, output])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: output))) == bytes)

        let jpeg = dir.appendingPathComponent("a.jpg").path
        try Data(MetadataTests.makeJPEG(width: 40, height: 24, subsampling: TJSAMP_420)).write(to: URL(fileURLWithPath: jpeg))
        let jinfo = try Self.run(["info", jpeg])
        #expect(jinfo.status == 0 && jinfo.stdout.contains("width: 40") && jinfo.stdout.contains("4:2:0"))
    }

    @Test("errors: one line on stderr and a non-zero exit")
    func errors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let truncated = dir.appendingPathComponent("t.ppm").path
        try Data(Array("P6\n9 9\n255\n".utf8) + [1, 2]).write(to: URL(fileURLWithPath: truncated))
        let text = dir.appendingPathComponent("x.txt").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        for args in [["info", "/nonexistent.jpg"], ["info", text], ["convert", truncated, dir.appendingPathComponent("o.ppm").path]] {
            let r = try Self.run(args)
            #expect(r.status != 0, "\(args)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }
}
