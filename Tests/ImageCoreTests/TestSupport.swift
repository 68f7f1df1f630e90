import CImageCore
import Foundation
@testable import ImageCore
#if canImport(Glibc)
import Glibc
#endif

/// Serialises tests that change or assert on process-wide settings (the CPU mask, the
/// thread count). Tests that merely run kernels need not take it: results never depend
/// on those settings, only the code path and speed do.
enum ProcessSettings {
    private static let lock = NSLock()

    /// Runs `body` with the kernels restricted to `mask` (`0` = scalar reference paths) and
    /// `threads` threads (`nil` = unchanged), restoring both afterwards.
    static func with<R>(cpuMask mask: UInt32? = nil, threads: Int32? = nil, _ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        let oldMask = mask.map { ic_set_cpu_mask($0) }
        let oldThreads = ic_get_num_threads()
        if let threads { ic_set_num_threads(threads) }
        defer {
            if let oldMask { ic_set_cpu_mask(oldMask) }
            if threads != nil { ic_set_num_threads(oldThreads) }
        }
        return try body()
    }
}

/// Image planes each placed so that the plane's last byte is the last byte before a
/// PROT_NONE page (libyuv's trick): a kernel that reads or writes past the end of a plane
/// faults instead of passing. Strides are row bytes plus `padding`.
final class GuardedImage {
    let format: ic_format
    let width: Int32, height: Int32
    private(set) var image = ic_image()
    private var mappings: [(UnsafeMutableRawPointer, Int)] = []

    init(_ format: ic_format, _ width: Int, _ height: Int, padding: Int = 0, alpha: ic_alpha = IC_ALPHA_STRAIGHT) {
        self.format = format
        self.width = Int32(width)
        self.height = Int32(height)
        image.format = format
        image.alpha = alpha
        image.width = Int32(width)
        image.height = Int32(height)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for p in 0..<Int(ic_format_plane_count(format)) {
            var rowBytes = 0
            var rows: Int32 = 0
            precondition(ic_plane_geometry(format, Int32(width), Int32(height), Int32(p), &rowBytes, &rows) == IC_OK)
            let stride = rowBytes + padding
            let extent = stride * (Int(rows) - 1) + rowBytes
            let dataPages = (extent + page - 1) / page
            let total = (dataPages + 1) * page
            let base = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
            precondition(base != MAP_FAILED)
            precondition(mprotect(base + dataPages * page, page, PROT_NONE) == 0)
            mappings.append((base, total))
            let start = (base + dataPages * page - extent).assumingMemoryBound(to: UInt8.self)
            withUnsafeMutableBytes(of: &image.planes) { raw in
                raw.storeBytes(of: start, toByteOffset: p * MemoryLayout<ic_plane>.stride, as: UnsafeMutablePointer<UInt8>.self)
                raw.storeBytes(of: stride, toByteOffset: p * MemoryLayout<ic_plane>.stride + MemoryLayout<UnsafeMutablePointer<UInt8>>.stride, as: Int.self)
            }
        }
    }

    deinit { for (p, n) in mappings { munmap(p, n) } }

    /// Plane `p`'s pointer, stride, row bytes and rows.
    func plane(_ p: Int) -> (data: UnsafeMutablePointer<UInt8>, stride: Int, rowBytes: Int, rows: Int) {
        var rowBytes = 0
        var rows: Int32 = 0
        _ = ic_plane_geometry(format, width, height, Int32(p), &rowBytes, &rows)
        let pl = withUnsafeBytes(of: image.planes) { $0.load(fromByteOffset: p * MemoryLayout<ic_plane>.stride, as: ic_plane.self) }
        return (pl.data, pl.stride, rowBytes, Int(rows))
    }

    /// Fills every plane's pixels (not the padding) with deterministic pseudo-random bytes.
    func randomize(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for p in 0..<Int(ic_format_plane_count(format)) {
            let g = plane(p)
            for y in 0..<g.rows { for x in 0..<g.rowBytes { g.data[y * g.stride + x] = UInt8(truncatingIfNeeded: rng.next()) } }
        }
    }

    /// Plane `p`'s pixels as one packed array (row padding dropped).
    func packed(_ p: Int) -> [UInt8] {
        let g = plane(p)
        var out: [UInt8] = []
        out.reserveCapacity(g.rowBytes * g.rows)
        for y in 0..<g.rows { out.append(contentsOf: UnsafeBufferPointer(start: g.data + y * g.stride, count: g.rowBytes)) }
        return out
    }
}

/// A small deterministic PRNG for test data.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
