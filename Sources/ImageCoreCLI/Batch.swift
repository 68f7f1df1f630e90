import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Batch plumbing for the pipeline commands: inputs from files and directories, a bounded
/// worker pool (``WorkerPool``), a progress bar on a terminal (stderr is a TTY) and plain
/// lines otherwise, one line per failed file, and the failure count for the exit status.
enum Batch {
    /// The files named, with directories expanded to their `.jpg`/`.jpeg` files (sorted, not recursive).
    static func expand(_ paths: [String]) -> [String] {
        var out: [String] = []
        for p in paths {
            var st = stat()
            if stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                guard let dir = opendir(p) else { out.append(p); continue }
                var names: [String] = []
                while let e = readdir(dir) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if let x = ImageFiles.ext(name), x == "jpg" || x == "jpeg" { names.append(name) }
                }
                closedir(dir)
                out += names.sorted().map { p.hasSuffix("/") ? p + $0 : p + "/" + $0 }
            } else {
                out.append(p)
            }
        }
        return out
    }

    /// Thread-safe progress and error reporting.
    final class Progress: @unchecked Sendable {
        // @unchecked Sendable: all state is behind `lock`.
        private var lock = pthread_mutex_t()
        private var done = 0
        private(set) var failed = 0
        let total: Int
        let tty: Bool
        let verb: String
        init(total: Int, verb: String) {
            self.total = total
            self.verb = verb
            tty = isatty(2) != 0
            pthread_mutex_init(&lock, nil)
        }
        deinit { pthread_mutex_destroy(&lock) }

        /// Records one file's outcome: an error line on stderr, or (not a TTY) an "ok" line.
        func finish(_ path: String, error: ImageError?, note: String = "") {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            done += 1
            if tty { Batch.err("\r\u{1B}[K") }
            if let error {
                failed += 1
                Batch.err("imagecore: \(path): \(error)\n")
            } else if !tty, !note.isEmpty {
                Batch.err("\(verb) \(path)\(note)\n")
            }
            if tty {
                let width = 30, filled = total == 0 ? width : done * width / total
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                Batch.err("[\(bar)] \(done)/\(total)" + (done == total ? "\n" : ""))
            }
        }
    }

    /// Writes `text` to stderr (unbuffered).
    static func err(_ text: String) {
        var t = text
        t.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
    }

    /// Reads a whole file's bytes.
    static func read(_ path: String) throws(ImageError) -> [UInt8] { try FileBytes.read(path: path) }
}
