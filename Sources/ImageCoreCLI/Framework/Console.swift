#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output (results) and standard error (diagnostics, progress), written whole lines
/// at a time under one lock, so lines from worker threads never interleave.
enum Console {
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let p = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(p, nil)
        return p
    }()

    /// One result line on stdout.
    static func out(_ line: String) { emit(1, line + "\n") }

    /// One diagnostic line on stderr.
    static func err(_ line: String) { emit(2, line + "\n") }

    /// Raw text on stderr (progress bars).
    static func errRaw(_ text: String) { emit(2, text) }

    static let stderrIsTerminal = isatty(2) != 0

    private static func emit(_ fd: Int32, _ text: String) {
        var t = text
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        t.withUTF8 { p in
            var done = 0
            while done < p.count {
                let n = write(fd, p.baseAddress! + done, p.count - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
    }
}

/// One JSON object, built field by field with the standard library (no Foundation).
struct JSONObject {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String?) { fields.append("\(JSON.quote(key)): \(value.map(JSON.quote) ?? "null")") }
    mutating func add(_ key: String, _ value: Int) { fields.append("\(JSON.quote(key)): \(value)") }
    mutating func add(_ key: String, _ value: Double) { fields.append("\(JSON.quote(key)): \(JSON.number(value))") }
    mutating func add(_ key: String, _ value: Bool) { fields.append("\(JSON.quote(key)): \(value)") }
    /// A value that is already JSON (an array or object).
    mutating func addRaw(_ key: String, _ json: String) { fields.append("\(JSON.quote(key)): \(json)") }

    var text: String { "{" + fields.joined(separator: ", ") + "}" }
}

enum JSON {
    static func quote(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    /// A finite double as JSON (non-finite as null).
    static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "null" }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }
}

/// Fixed-point text for figures (no `String(format:)`, which needs Foundation).
func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "\(v)" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let scaled = (abs(v) * p).rounded()
    let whole = Int(scaled / p)
    let frac = Int(scaled - Double(whole) * p)
    var fracText = String(frac)
    fracText = String(repeating: "0", count: max(0, digits - fracText.count)) + fracText
    return (v < 0 && scaled != 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + fracText : "")
}

/// Monotonic milliseconds.
func nowMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}
