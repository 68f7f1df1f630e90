#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Reads a whole file (a JPEG, say) into memory with one allocation of the file's size,
/// filled by `read(2)` straight into it: no growing chunk list, no `Data` to `[UInt8]` copy.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "photo.jpg")
/// let image = try JPEG.decode(bytes, format: .rgba8)
/// ```
///
/// **Input is bounded** (issue #12: `/dev/zero` grew the process to 4 GB). Every read stops at
/// ``maxBytes`` (default 256 MiB, settable per process or per call): a larger regular file is
/// refused from its size before anything is allocated, and a stream that goes on past the
/// cap fails with `.tooLarge` having held at most the cap.
///
/// **What kind of file** is decided on purpose, after a non-blocking `open`:
/// - regular files are read by their size (files that report size 0, as procfs does, are
///   read to their end, up to the cap);
/// - pipes, standard input and sockets are read to their end, up to the cap;
/// - a named pipe (FIFO) must deliver its first byte within ``pipeWait`` (default 30 s):
///   `open` never blocks waiting for a writer, and a FIFO nobody writes to is an `.io`
///   error ("no data … no writer?"), never a hang;
/// - directories and device nodes (`/dev/zero`, a terminal) are refused with
///   `.invalidArgument` naming the kind.
public enum FileBytes {
    /// The default cap of every read, in bytes: 256 MiB (a 100 MP JPEG is a few tens of MB).
    public static let defaultMaxBytes = 256 << 20

    private static let maxBytesSetting = Atomic<Int>(defaultMaxBytes)
    private static let pipeWaitMilliseconds = Atomic<Int>(30_000)

    /// The cap reads use when the call names none; process-wide, safe to set from any thread.
    public static var maxBytes: Int {
        get { maxBytesSetting.load(ordering: .relaxed) }
        set { maxBytesSetting.store(max(0, newValue), ordering: .relaxed) }
    }

    /// How long a named pipe (or a pipe on standard input) may take to deliver its first
    /// byte, in seconds; process-wide. Default 30.
    public static var pipeWait: Double {
        get { Double(pipeWaitMilliseconds.load(ordering: .relaxed)) / 1000 }
        set { pipeWaitMilliseconds.store(Int((max(0, min(newValue, 86_400)) * 1000).rounded()), ordering: .relaxed) }
    }

    /// The first `limit` bytes of the file at `path` (all of it by default), reading at most
    /// `maxBytes` (``maxBytes`` when `nil`).
    ///
    /// - Throws: ``ImageError`` `.tooLarge` when the file holds more than `maxBytes` bytes
    ///   and more than `limit` were asked for; `.invalidArgument` for a directory, a device
    ///   node or a negative `limit`; `.io` when the file cannot be opened or read (with the
    ///   system's reason) or a pipe stays silent for ``pipeWait``.
    public static func read(path: String, limit: Int = .max, maxBytes: Int? = nil) throws(ImageError) -> [UInt8] {
        guard limit >= 0 else { throw ImageError(.invalidArgument, "\(path): negative read limit \(limit)") }
        let cap = max(0, maxBytes ?? Self.maxBytes)
        // Non-blocking, so that a FIFO without a writer cannot block open(2); cleared below.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw PlaneFileIO.openError(path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PlaneFileIO.openError(path) }
        let kind = st.st_mode & S_IFMT
        switch kind {
        case S_IFDIR: throw ImageError(.invalidArgument, "\(path): is a directory")
        case S_IFCHR, S_IFBLK:
            throw ImageError(.invalidArgument, "\(path): is a device (\(kind == S_IFCHR ? "character" : "block") special file), not an image file")
        default: break
        }
        if kind == S_IFIFO {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            var ready: Int32
            repeat { ready = poll(&p, 1, Int32(pipeWaitMilliseconds.load(ordering: .relaxed))) } while ready < 0 && errno == EINTR
            if ready == 0 {
                throw ImageError(.io, "\(path): no data within \(pipeWait) s (a pipe with no writer?)")
            }
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw PlaneFileIO.openError(path) }
        let want = min(limit, cap)          // bytes we may keep
        let tooLarge = ImageError(.tooLarge, "\(path): larger than the read limit of \(cap) bytes")
        if kind == S_IFREG && st.st_size > 0 { // procfs files report size 0: read those to their end below
            if Int(st.st_size) > cap && limit > cap { throw tooLarge } // before allocating
            let size = min(Int(st.st_size), want)
            var failed: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
                count = readFully(fd, buf.baseAddress, size, &failed)
            }
            if failed != 0 { throw readError(path, failed) }
            return bytes // shorter than the size if the file shrank meanwhile
        }
        // A stream: read to its end, or one byte past the cap to tell "exactly the cap" from more.
        let probe = limit > cap ? 1 : 0
        var out: [UInt8] = []
        while out.count < want + probe {
            let step = min(1 << 16, want + probe - out.count)
            let start = out.count
            var failed: Int32 = 0, got = 0
            out.append(contentsOf: repeatElement(0, count: step))
            out.withUnsafeMutableBufferPointer { buf in
                got = readFully(fd, buf.baseAddress! + start, step, &failed)
            }
            out.removeLast(step - got)
            if failed != 0 { throw readError(path, failed) }
            if got < step { break }
        }
        if out.count > want { throw tooLarge }
        return out
    }

    /// Reads up to `count` bytes into `p`, retrying after interruptions and short reads;
    /// returns how many arrived before the end of the file or an error (`errno` in `failed`).
    private static func readFully(_ fd: Int32, _ p: UnsafeMutablePointer<UInt8>?, _ count: Int, _ failed: inout Int32) -> Int {
        guard let p else { return 0 }
        var done = 0
        while done < count {
            let n = sysRead(fd, p + done, count - done)
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failed = errno }
            break
        }
        return done
    }

    private static func readError(_ path: String, _ code: Int32) -> ImageError {
        ImageError(.io, "\(path): \(String(cString: strerror(code)))")
    }
}

/// `read(2)` (the name is taken inside ``FileBytes``).
private func sysRead(_ fd: Int32, _ p: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, p, count)
    #elseif canImport(Darwin)
    return Darwin.read(fd, p, count)
    #else
    return Musl.read(fd, p, count)
    #endif
}
