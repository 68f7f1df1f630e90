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
