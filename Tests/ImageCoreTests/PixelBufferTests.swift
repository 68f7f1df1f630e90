import CImageCore
import Testing
@testable import ImageCore

@Suite("PixelBuffer")
struct PixelBufferTests {
    static let odd = [(1, 1), (1, 2), (2, 1), (3, 3), (17, 9), (67, 5), (4031, 3)]

    @Test("layout: planes, chroma sizes, aligned strides and offsets", arguments: PixelFormat.allCases)
    func layout(format: PixelFormat) throws {
        for (w, h) in Self.odd {
            let b = try PixelBuffer(width: w, height: h, format: format)
            #expect(b.planeCount == format.planeCount)
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            let expected: [(Int, Int)] = switch format {
            case .gray8: [(w, h)]
            case .rgb8: [(3 * w, h)]
            case .rgba8: [(4 * w, h)]
            case .i420: [(w, h), (cw, ch), (cw, ch)]
            case .nv12: [(w, h), (2 * cw, ch)]
            }
            var end = 0
            for p in 0..<b.planeCount {
                let g = b.plane(p)
                #expect(g.rowBytes == expected[p].0 && g.rows == expected[p].1, "\(format) \(w)x\(h) plane \(p)")
                #expect(g.stride >= g.rowBytes && g.stride % 64 == 0)
                #expect(b.planeOffset(p) % 64 == 0 && b.planeOffset(p) >= end)
                end = b.planeOffset(p) + g.byteCount
            }
            #expect(end <= b.byteCount)
        }
    }

    @Test("spans cover exactly the plane's bytes, and the descriptor points at them")
    func spans() throws {
        var b = try PixelBuffer(width: 17, height: 9, format: .nv12, alignment: 16)
        for p in 0..<2 {
            let g = b.plane(p)
            let count = b.withPlane(p) { $0.count }
            #expect(count == g.stride * g.rows)
            let mutableCount = b.withMutablePlane(p) { span in span.count }
            #expect(mutableCount == count)
        }
        b.withMutablePlane(1) { span in span[0] = 42 }
        let seen = b.withUnsafeImage { img in img.pointee.planes.1.data[0] }
        #expect(seen == 42)
        let valid = b.withUnsafeImage { ic_image_validate($0) }
        #expect(valid == IC_OK)
    }

    @Test("allocations are counted and return to zero when buffers end")
    func counting() throws {
        let (_, usage) = try PixelAllocator.measure {
            let a = try PixelBuffer(width: 100, height: 50, format: .rgba8)
            do {
                let b = try PixelBuffer(width: 33, height: 7, format: .i420)
                _ = b.width
            }
            _ = a.width
        }
        var l = ic_layout()
        #expect(ic_layout_compute(IC_FORMAT_RGBA8, 100, 50, 64, &l) == IC_OK)
        let rgba = l.total_size
        #expect(ic_layout_compute(IC_FORMAT_I420, 33, 7, 64, &l) == IC_OK)
        let yuv = l.total_size
        #expect(usage.liveBytes == 0)
        #expect(usage.allocations == 2)
        #expect(usage.allocatedBytes == rgba + yuv)
        #expect(usage.peakBytes == rgba + yuv)
    }

    @Test("a buffer moved out of a scope stays charged until it ends")
    func movedBuffer() throws {
        var kept: PixelBuffer? = nil
        let (_, usage) = try PixelAllocator.measure {
            kept = try PixelBuffer(width: 10, height: 10, format: .gray8)
        }
        var size = 0
        #expect(ic_image_size(IC_FORMAT_GRAY8, 10, 10, 64, &size) == IC_OK)
        #expect(usage.liveBytes == size)
        let keptWidth = kept?.width
        #expect(keptWidth == 10)
        let (_, after) = PixelAllocator.measure { kept = nil }
        #expect(after.liveBytes == 0)
    }

    @Test("duplicate is the one explicit copy: exactly one allocation of the same size")
    func duplicate() throws {
        var a = try PixelBuffer(width: 21, height: 11, format: .i420, orientation: .right)
        try a.fill([16, 128, 240])
        let (equal, usage) = try PixelAllocator.measure {
            let b = try a.duplicate()
            #expect(b.orientation == .right)
            return (0..<3).allSatisfy { p in
                a.withPlane(p) { x in b.withPlane(p) { y in
                    let g = a.plane(p)
                    return (0..<g.rows).allSatisfy { r in (0..<g.rowBytes).allSatisfy { x[r * g.stride + $0] == y[r * g.stride + $0] } }
                } }
            }
        }
        #expect(equal)
        #expect(usage.allocations == 1 && usage.allocatedBytes == a.byteCount && usage.liveBytes == 0)
    }

    @Test("copy honours padded strides: bytes beyond each row stay untouched", arguments: PixelFormat.allCases)
    func copyPadding(format: PixelFormat) throws {
        var src = try PixelBuffer(width: 17, height: 9, format: format, alignment: 64)
        var dst = try PixelBuffer(width: 17, height: 9, format: format, alignment: 64)
        for p in 0..<src.planeCount {
            src.withMutablePlane(p) { s in for i in s.indices { s[i] = UInt8(truncatingIfNeeded: i &* 31 &+ p) } }
            dst.withMutablePlane(p) { d in for i in d.indices { d[i] = 0xEE } }
        }
        try dst.copy(from: src)
        for p in 0..<src.planeCount {
            let g = src.plane(p)
            #expect(g.stride > g.rowBytes, "the test needs padding")
            src.withPlane(p) { s in dst.withPlane(p) { d in
                for r in 0..<g.rows {
                    for x in 0..<g.stride {
                        let i = r * g.stride + x
                        if x < g.rowBytes { #expect(d[i] == s[i]) } else { #expect(d[i] == 0xEE) }
                    }
                }
            } }
        }
    }

    @Test("copy refuses a different size or format")
    func copyMismatch() throws {
        let a = try PixelBuffer(width: 4, height: 4, format: .gray8)
        var b = try PixelBuffer(width: 4, height: 5, format: .gray8)
        var c = try PixelBuffer(width: 4, height: 4, format: .rgb8)
        do { try b.copy(from: a); Issue.record("expected an error") } catch { #expect(error.code == .invalidArgument) }
        do { try c.copy(from: a); Issue.record("expected an error") } catch { #expect(error.code == .invalidArgument) }
    }

    @Test("fill writes each plane's value and leaves padding alone", arguments: PixelFormat.allCases)
    func fill(format: PixelFormat) throws {
        var b = try PixelBuffer(width: 5, height: 3, format: format, zeroed: true)
        let value: [UInt8] = format == .gray8 ? [7] : format == .rgba8 ? [1, 2, 3, 4] : [9, 8, 7]
        try b.fill(value)
        for p in 0..<b.planeCount {
            let g = b.plane(p)
            let pattern: [UInt8] = switch format {
            case .gray8, .rgb8, .rgba8: value
            case .i420: [value[p]]
            case .nv12: p == 0 ? [value[0]] : [value[1], value[2]]
            }
            b.withPlane(p) { s in
                for r in 0..<g.rows {
                    for x in 0..<g.stride {
                        let v = s[r * g.stride + x]
                        #expect(v == (x < g.rowBytes ? pattern[x % pattern.count] : 0))
                    }
                }
            }
        }
        do { try b.fill([1, 2]); Issue.record("expected an error") } catch { #expect(error.code == .invalidArgument) }
    }

    @Test("bad sizes are refused before allocating")
    func badSizes() {
        let cases: [(Int, Int, PixelFormat, ImageError.Code)] = [
            (0, 1, .gray8, .invalidArgument), (1, 0, .rgba8, .invalidArgument), (-3, 4, .i420, .invalidArgument),
            (65536, 1, .gray8, .tooLarge), (65500, 65500, .rgba8, .tooLarge), (65535, 65535, .rgb8, .tooLarge),
        ]
        for (w, h, f, code) in cases {
            let (_, usage) = PixelAllocator.measure {
                do throws(ImageError) { _ = try PixelBuffer(width: w, height: h, format: f); Issue.record("\(w)x\(h) \(f) accepted") }
                catch { #expect(error.code == code, "\(w)x\(h) \(f)") }
            }
            #expect(usage.allocations == 0 && usage.peakBytes == 0)
        }
        do { _ = try PixelBuffer(width: 4, height: 4, format: .gray8, alignment: 48); Issue.record("alignment 48 accepted") }
        catch { #expect(error.code == .invalidArgument) }
    }

    @Test("buffers move between tasks")
    func sendable() async throws {
        let b = try PixelBuffer(width: 8, height: 8, format: .gray8, zeroed: true)
        let sum = await Task.detached { [b = consume b] in
            b.withPlane(0) { s in (0..<s.count).reduce(0) { $0 + Int(s[$1]) } }
        }.value
        #expect(sum == 0)
    }
}
