#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CImageCore

/// The speed limits each workload is compared with, measured in the same run on the same
/// number of bytes: plain single-threaded `memcpy`, and ImageCore's parallel plane copy.
final class Limits {
    private var memcpyCache: [Int: Double] = [:]
    private var planeCopyCache: [String: Double] = [:]
    let repetitions: Int

    init(repetitions: Int) { self.repetitions = repetitions }

    /// Median seconds of one `memcpy` of `bytes` bytes (warm, page-faulted buffers).
    func memcpyTime(bytes: Int) -> Double {
        if let t = memcpyCache[bytes] { return t }
        let t = withBuffers(bytes) { src, dst in
            measure(repetitions: repetitions, warmup: 1) { memcpy(dst, src, bytes) }.median
        }
        memcpyCache[bytes] = t
        return t
    }

    /// Median seconds of `ic_plane_copy` of `bytes` contiguous bytes at `threads` threads.
    func planeCopyTime(bytes: Int, threads: Int) -> Double {
        let key = "\(bytes)/\(threads)"
        if let t = planeCopyCache[key] { return t }
        let t = withBuffers(bytes) { src, dst in
            measure(repetitions: repetitions, warmup: 1) {
                _ = ic_plane_copy(src.assumingMemoryBound(to: UInt8.self), bytes,
                                  dst.assumingMemoryBound(to: UInt8.self), bytes, bytes, 1)
            }.median
        }
        planeCopyCache[key] = t
        return t
    }

    private func withBuffers<R>(_ bytes: Int, _ body: (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> R) -> R {
        let src = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
        let dst = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
        defer { src.deallocate(); dst.deallocate() }
        memset(src, 0x5a, bytes)
        memset(dst, 0, bytes)
        return body(src, dst)
    }
}
