import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output being written: a temporary file created by us in the target's folder, renamed
/// over the final name only when complete (`commit`), so a final name never holds a partial
/// file — also when the process is interrupted (SIGINT, SIGTERM, SIGHUP: `TempFiles` removes
/// the temporaries, then the signal takes its default course). On failure only the
/// temporary is removed: nothing the tool did not create is ever deleted.
///
/// Special cases: `-` is standard output; an existing non-regular file (a device node, a
/// FIFO) is written in place and never renamed over or removed.
final class OutputFile {
    let path: String
    /// The descriptor to write to.
    let fd: Int32
    private let tempPath: String?
    private var slot: Int?
    private var done = false

    init(_ path: String) throws(ImageError) {
        self.path = path
        if path == "-" {
            fd = 1; tempPath = nil
            return
        }
        var st = stat()
        if stat(path, &st) == 0 {
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR { throw ImageError(.io, "\(path): is a directory") }
            if type != S_IFREG {
                let f = open(path, O_WRONLY | O_CLOEXEC)
                guard f >= 0 else { throw OutputFile.error(path) }
                fd = f; tempPath = nil
                return
            }
        }
        try Folders.create(Folders.parent(of: path))
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let dir = Folders.parent(of: path)
        var attempt = 0
        while true {
            let temp = (dir == "." && !path.hasPrefix("./") ? "" : dir + "/") + ".\(name).\(getpid()).\(OutputFile.nextSerial()).part"
            // Registered before it exists: a signal between open and registration would
            // otherwise leave the temporary behind (seen when xargs -P was killed mid-run).
            // The name is ours alone (dot, name, pid, serial, .part), so the handler can only
            // ever remove a temporary of this scheme.
            let reserved = TempFiles.register(temp)
            let f = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if f >= 0 {
                fd = f; tempPath = temp; slot = reserved
                return
            }
            let failure = errno
            if let reserved { TempFiles.unregister(reserved) }
            attempt += 1
            guard failure == EEXIST, attempt < 100 else { errno = failure; throw OutputFile.error(path) }
        }
    }

    deinit { if !done { abandon() } }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var off = 0
        while off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n > 0 { off += n } else if n < 0 && errno == EINTR { continue } else { throw OutputFile.error(path) }
        }
    }

    func write(_ bytes: [UInt8]) throws(ImageError) {
        var failure: ImageError? = nil
        bytes.withUnsafeBytes { raw in
            do throws(ImageError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Closes the file and moves it to its final name.
    func commit() throws(ImageError) {
        done = true
        if fd == 1 { return }
        if close(fd) != 0 { let e = OutputFile.error(path); removeTemp(); throw e }
        guard let tempPath else { return }
        if rename(tempPath, path) != 0 { let e = OutputFile.error(path); removeTemp(); throw e }
        if let slot { TempFiles.unregister(slot) }
    }

    /// Closes and removes the temporary (the final name is untouched).
    func abandon() {
        guard !done else { return }
        done = true
        if fd != 1 { close(fd) }
        removeTemp()
    }

    private func removeTemp() {
        if let tempPath { unlink(tempPath) }
        if let slot { TempFiles.unregister(slot); self.slot = nil }
    }

    nonisolated(unsafe) private static var serial = 0
    private static let serialLock = PosixLock()
    private static func nextSerial() -> Int { serialLock.locked { serial += 1; return serial } }

    static func error(_ path: String) -> ImageError { ImageError(.io, "\(path): \(String(cString: strerror(errno)))") }
}

/// Writes an output through `body`, committing it when `body` returns and abandoning it
/// when `body` throws.
func writeOutput(_ path: String, _ body: (OutputFile) throws(ImageError) -> Void) throws(ImageError) {
    let out = try OutputFile(path)
    do {
        try body(out)
        try out.commit()
    } catch {
        out.abandon()
        throw error
    }
}

/// The temporaries alive now, removed by the signal handler. A fixed table of C strings, so
/// the handler only reads memory and calls `unlink` (async-signal-safe).
enum TempFiles {
    static let capacity = 4096
    nonisolated(unsafe) static let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let t = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        t.initialize(repeating: nil, count: capacity)
        return t
    }()
    private static let lock = PosixLock()
    nonisolated(unsafe) private static var installed = false

    static func register(_ path: String) -> Int? {
        lock.locked { () -> Int? in
            if !installed { install(); installed = true }
            for i in 0..<capacity where table[i] == nil {
                table[i] = strdup(path)
                return i
            }
            return nil
        }
    }

    static func unregister(_ slot: Int) {
        lock.locked {
            let p = table[slot]
            table[slot] = nil
            free(p)
        }
    }

    private static func install() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { s in
                for i in 0..<TempFiles.capacity { if let p = TempFiles.table[i] { unlink(p) } }
                signal(s, SIG_DFL)
                raise(s)
            }
        }
    }
}

/// A pthread mutex for the CLI's few shared counters.
final class PosixLock: @unchecked Sendable {
    private let m: UnsafeMutablePointer<pthread_mutex_t>
    init() {
        m = .allocate(capacity: 1)
        pthread_mutex_init(m, nil)
    }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        return try body()
    }
}

/// Folder helpers: parent of a path, `mkdir -p`.
enum Folders {
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let p = String(path[..<slash])
        return p.isEmpty ? "/" : p
    }

    /// Creates `dir` and its missing parents.
    static func create(_ dir: String) throws(ImageError) {
        if dir == "." || dir == "/" || dir.isEmpty { return }
        var st = stat()
        if stat(dir, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw ImageError(.io, "\(dir): not a directory") }
            return
        }
        try create(parent(of: dir))
        if mkdir(dir, 0o777) != 0 && errno != EEXIST { throw OutputFile.error(dir) }
    }

    static func join(_ dir: String, _ name: String) -> String {
        dir.isEmpty || dir == "." ? name : (dir.hasSuffix("/") ? dir + name : dir + "/" + name)
    }
}
