import CImageCore
import Testing
@testable import ImageCore

/// Helpers shared by the YUV and rotate kernel tests.
extension GuardedImage {
    /// A copy of the descriptor, to pass where the C API wants a mutable pointer.
    var cValue: ic_image { image }

    /// Whether every padding byte (between a row's pixels and the stride) is still 0, as
    /// mmap left it: kernels must not write padding.
    func paddingUntouched() -> Bool {
        for p in 0..<Int(ic_format_plane_count(format)) {
            let g = plane(p)
            for y in 0..<g.rows - 1 where g.stride > g.rowBytes {
                for x in g.rowBytes..<g.stride where g.data[y * g.stride + x] != 0 { return false }
            }
        }
        return true
    }

    /// Overwrites plane `p`'s pixels with a packed array (no padding).
    func load(_ p: Int, _ bytes: [UInt8]) {
        let g = plane(p)
        precondition(bytes.count == g.rowBytes * g.rows)
        bytes.withUnsafeBufferPointer { b in
            for y in 0..<g.rows { (g.data + y * g.stride).update(from: b.baseAddress! + y * g.rowBytes, count: g.rowBytes) }
        }
    }

    /// All planes packed, one array per plane.
    func allPlanes() -> [[UInt8]] { (0..<Int(ic_format_plane_count(format))).map { packed($0) } }
}

/// The sizes every kernel is run at: all widths 1…67 with short heights, all heights
/// 1…67 with widths around the vector block sizes (32/64 bytes) and the odd edge.
enum KernelSizes {
    static let small: [(w: Int, h: Int)] = {
        var s: [(Int, Int)] = []
        for w in 1...67 { for h in [1, 2, 3, 4] { s.append((w, h)) } }
        for h in 5...67 { for w in [1, 2, 3, 8, 17, 33, 34, 35, 66, 67] { s.append((w, h)) } }
        return s
    }()

    /// Larger odd sizes, each dimension past several vector blocks and tiles.
    static let large: [(w: Int, h: Int)] = [(1001, 777), (4033, 3), (3, 2049), (513, 1031)]

    /// Stride padding cycled through the sizes (0 = packed rows).
    static let paddings = [0, 1, 3, 7, 32, 64, 5]
}

/// Runs `body` once with the vector paths and once forced scalar; returns both results.
func scalarAndVector<R>(_ body: () throws -> R) rethrows -> (vector: R, scalar: R) {
    let v = try body()
    let s = try ProcessSettings.with(cpuMask: 0) { try body() }
    return (v, s)
}

extension ic_format {
    var name: String { PixelFormat(self).map(\.description) ?? "format \(rawValue)" }
}

extension PixelBuffer {
    /// Plane `p`'s pixels, rows packed (padding dropped: it is never initialised).
    func packedPlane(_ p: Int) -> [UInt8] {
        let g = plane(p)
        return withPlane(p) { span in
            span.withUnsafeBufferPointer { b in
                (0..<g.rows).flatMap { y in Array(b[y * g.stride ..< y * g.stride + g.rowBytes]) }
            }
        }
    }
}
