#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImageCore

/// Monotonic time in seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Times of the repetitions of one measured body.
struct Timing {
    var seconds: [Double]
    var median: Double {
        let s = seconds.sorted()
        let n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }
    var min: Double { seconds.min() ?? 0 }
}

/// Runs `body` `warmup` times untimed, then `repetitions` times timed.
func measure(repetitions: Int, warmup: Int, _ body: () throws -> Void) rethrows -> Timing {
    for _ in 0..<warmup { try body() }
    var t: [Double] = []
    t.reserveCapacity(repetitions)
    for _ in 0..<max(1, repetitions) {
        let start = now()
        try body()
        t.append(now() - start)
    }
    return Timing(seconds: t)
}

/// Resident-set figures from the kernel.
enum RSS {
    /// Process peak RSS in bytes since start (getrusage; kilobytes on Linux, bytes on macOS).
    static var processPeak: Int {
        var u = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &u)
        #else
        getrusage(RUSAGE_SELF, &u)
        #endif
        #if os(Linux)
        return Int(u.ru_maxrss) * 1024
        #else
        return Int(u.ru_maxrss)
        #endif
    }

    /// Resets the kernel's high-water mark (Linux ≥ 4.0: "5" into clear_refs) so the next
    /// ``highWaterMark`` covers only what follows. Returns false where unsupported.
    @discardableResult
    static func resetHighWaterMark() -> Bool {
        #if os(Linux)
        guard let f = fopen("/proc/self/clear_refs", "w") else { return false }
        let ok = fputs("5", f) >= 0
        return fclose(f) == 0 && ok
        #else
        return false
        #endif
    }

    /// VmHWM in bytes (Linux), or the process peak elsewhere.
    static var highWaterMark: Int {
        #if os(Linux)
        if let v = statusField("VmHWM:") { return v }
        #endif
        return processPeak
    }

    /// VmRSS in bytes (Linux), or 0.
    static var current: Int { statusField("VmRSS:") ?? 0 }

    static func statusField(_ name: String) -> Int? {
        guard let f = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix(name) {
                let digits = s.dropFirst(name.count).filter(\.isNumber)
                return Int(digits).map { $0 * 1024 }
            }
        }
        return nil
    }
}
