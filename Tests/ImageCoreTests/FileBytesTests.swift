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
        // A directory is refused by kind (it used to open and fail to read).
        do {
            _ = try FileBytes.read(path: FileManager.default.temporaryDirectory.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidArgument && (error.detail ?? "").contains("directory"))
        }
        try withFile([1, 2, 3]) { path in
            #expect(throws: ImageError.self) { try FileBytes.read(path: path, limit: -1) }
        }
    }

    // MARK: bounded input and non-regular files (issue #12, defects 2 and 6)

    @Test("a regular file above the cap is refused from its size; a prefix read below it works")
    func capRegular() throws {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try withFile(data) { path in
            do throws(ImageError) { _ = try FileBytes.read(path: path, maxBytes: 9_999); Issue.record("accepted") }
            catch { #expect(error.code == .tooLarge && (error.detail ?? "").contains("9999"), "\(error)") }
            let whole = try FileBytes.read(path: path, maxBytes: 10_000)
            let prefix = try FileBytes.read(path: path, limit: 2, maxBytes: 100)
            #expect(whole == data)
            #expect(prefix == Array(data.prefix(2)))
        }
        #expect(FileBytes.maxBytes == FileBytes.defaultMaxBytes)
    }

    @Test("an endless pipe stops at the cap with a typed error")
    func endlessPipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // 32 MiB, far past the 3 MiB cap: endless as far as the reader can tell. The test
        // drains the rest afterwards, so the writer never meets a closed pipe (SIGPIPE).
        let thread = Thread {
            let chunk = [UInt8](repeating: 0, count: 1 << 16)
            for _ in 0..<512 { _ = chunk.withUnsafeBytes { Foundation.write(writeEnd, $0.baseAddress, $0.count) } }
            close(writeEnd)
        }
        thread.start()
        // No wall-time bound here (timing is the bench's job): without the cap the read takes all
        // 32 MiB and returns, which the "accepted" record catches.
        do throws(ImageError) { _ = try FileBytes.read(path: "/proc/self/fd/\(readEnd)", maxBytes: 3 << 20); Issue.record("accepted") }
        catch { #expect(error.code == .tooLarge, "\(error)") }
        var sink = [UInt8](repeating: 0, count: 1 << 16)
        while sink.withUnsafeMutableBytes({ Foundation.read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        close(readEnd)
        // The same pipe below the cap is read whole, to its end.
        #expect(pipe(&fds) == 0)
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let (readEnd2, writeEnd2) = (fds[0], fds[1])
        _ = payload.withUnsafeBytes { Foundation.write(writeEnd2, $0.baseAddress, 60_000) }
        let rest = Thread { _ = payload.withUnsafeBytes { Foundation.write(writeEnd2, $0.baseAddress! + 60_000, 40_000) }; close(writeEnd2) }
        rest.start()
        #expect(try FileBytes.read(path: "/proc/self/fd/\(readEnd2)") == payload)
        close(readEnd2)
    }

    @Test("directories and device nodes are refused by kind; /dev/zero never grows the process")
    func kinds() throws {
        for (path, word) in [("/tmp", "directory"), ("/dev/zero", "device"), ("/dev/null", "device")] {
            do throws(ImageError) { _ = try FileBytes.read(path: path); Issue.record("\(path) accepted") }
            catch { #expect(error.code == .invalidArgument && (error.detail ?? "").contains(word), "\(path): \(error)") }
        }
    }

    @Test("a FIFO without a writer is an error after pipeWait, never a hang; with a writer it is read")
    func fifo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let saved = FileBytes.pipeWait
        FileBytes.pipeWait = 0.3
        defer { FileBytes.pipeWait = saved }
        let clock = ContinuousClock()
        let start = clock.now
        do throws(ImageError) { _ = try FileBytes.read(path: path); Issue.record("accepted") }
        catch { #expect(error.code == .io && (error.detail ?? "").contains("no writer"), "\(error)") }
        #expect(clock.now - start < .seconds(30))
        // A writer that connects (its open blocks until a reader exists) and writes.
        FileBytes.pipeWait = 10
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            if fd >= 0 { _ = [UInt8](repeating: 7, count: 5000).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, 5000) }; close(fd) }
        }
        writer.start()
        #expect(try FileBytes.read(path: path) == [UInt8](repeating: 7, count: 5000))
    }
}
