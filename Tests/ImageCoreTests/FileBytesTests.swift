import Foundation
import ImageCore
import Testing

@Suite("FileBytes")
struct FileBytesTests {
    /// A temporary file holding `bytes`, removed after `body`.
    func withFile(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-bytes-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test("reads a whole file, and its first bytes with a limit")
    func wholeAndLimited() throws {
        var rng = SplitMix64(seed: 42)
        // Sizes around the 64 KiB step of the non-regular path and an empty file.
        for size in [0, 1, 2, 65_535, 65_536, 200_003] {
            let data = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            try withFile(data) { path in
                let all = try FileBytes.read(path: path)
                let two = try FileBytes.read(path: path, limit: 2)
                let none = try FileBytes.read(path: path, limit: 0)
                let more = try FileBytes.read(path: path, limit: size + 10)
                #expect(all == data)
                #expect(two == Array(data.prefix(2)))
                #expect(none.isEmpty)
                #expect(more == data)
            }
        }
    }

    @Test("files that report no size (procfs) are read to their end")
    func procfs() throws {
        let bytes = try FileBytes.read(path: "/proc/self/status")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("Name:"))
        #expect(text.contains("VmRSS:") || text.contains("Pid:"))
    }

    @Test("a missing file, a directory and a negative limit are typed errors")
    func errors() throws {
        #expect(throws: ImageError.self) { try FileBytes.read(path: "/nonexistent/imagecore-\(UUID().uuidString)") }
        do {
            _ = try FileBytes.read(path: "/nonexistent/x.jpg")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
            #expect(error.detail?.contains("No such file") == true)
        }
        // A directory opens but cannot be read.
        do {
            _ = try FileBytes.read(path: FileManager.default.temporaryDirectory.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
        }
        try withFile([1, 2, 3]) { path in
            #expect(throws: ImageError.self) { try FileBytes.read(path: path, limit: -1) }
        }
    }
}
