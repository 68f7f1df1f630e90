#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Reads a whole file (a JPEG, say) into memory with one allocation of the file's size,
/// filled by `read(2)` straight into it: no growing chunk list, no `Data` to `[UInt8]` copy.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "photo.jpg")
/// let image = try JPEG.decode(bytes, format: .rgba8)
/// ```
public enum FileBytes {
    /// The first `limit` bytes of the file at `path` (all of it by default).
    ///
    /// A regular file is read into an array of exactly its size (or `limit`); a pipe or a
    /// device is read until its end, in 64 KiB steps.
    /// - Throws: ``ImageError`` `.io` when the file cannot be opened or read (with the
    ///   system's reason), `.invalidArgument` for a negative `limit`.
    public static func read(path: String, limit: Int = .max) throws(ImageError) -> [UInt8] {
        guard limit >= 0 else { throw ImageError(.invalidArgument, "\(path): negative read limit \(limit)") }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw PlaneFileIO.openError(path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PlaneFileIO.openError(path) }
        let regular = (st.st_mode & S_IFMT) == S_IFREG
        if regular && st.st_size > 0 { // procfs files report size 0: read those to their end below
            let want = min(Int(st.st_size), limit)
            var failed: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: want) { buf, count in
                count = readFully(fd, buf.baseAddress, want, &failed)
            }
            if failed != 0 { throw readError(path, failed) }
            return bytes // shorter than the size if the file shrank meanwhile
        }
        var out: [UInt8] = []
        while out.count < limit {
            let step = min(1 << 16, limit - out.count)
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
