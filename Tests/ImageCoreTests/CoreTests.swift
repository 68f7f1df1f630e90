import CImageCore
import Synchronization
import Testing
@testable import ImageCore

/// The C core's basics, through the same header Swift and C hosts use.
@Suite("C core")
struct CoreTests {
    /// A valid descriptor over a fresh buffer, for the validation cases to break.
    static func descriptor(_ f: ic_format, _ w: Int32, _ h: Int32, base: UnsafeMutablePointer<UInt8>) -> ic_image {
        var l = ic_layout()
        var img = ic_image()
        #expect(ic_layout_compute(f, w, h, 64, &l) == IC_OK)
        #expect(ic_image_init(&img, f, IC_ALPHA_STRAIGHT, w, h, base, &l) == IC_OK)
        return img
    }

    @Test("descriptor validation: sizes, strides, null planes, enums, overflow")
    func validation() {
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        defer { base.deallocate() }
        for f in [IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12] {
            var img = Self.descriptor(f, 17, 9, base: base)
            #expect(ic_image_validate(&img) == IC_OK)
            for (w, h, want) in [(0, 9, IC_ERR_INVALID_ARGUMENT), (17, 0, IC_ERR_INVALID_ARGUMENT), (-1, 9, IC_ERR_INVALID_ARGUMENT),
                                 (65536, 9, IC_ERR_TOO_LARGE), (17, 70000, IC_ERR_TOO_LARGE)] {
                var bad = img
                bad.width = Int32(w); bad.height = Int32(h)
                #expect(ic_image_validate(&bad) == want, "\(f) \(w)x\(h)")
            }
            for p in 0..<Int(ic_format_plane_count(f)) {
                var nullPlane = img
                var shortStride = img
                withUnsafeMutableBytes(of: &nullPlane.planes) { $0.storeBytes(of: nil as UnsafeMutablePointer<UInt8>?, toByteOffset: p * MemoryLayout<ic_plane>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
                var rowBytes = 0
                var rows: Int32 = 0
                #expect(ic_plane_geometry(f, 17, 9, Int32(p), &rowBytes, &rows) == IC_OK)
                withUnsafeMutableBytes(of: &shortStride.planes) {
                    $0.storeBytes(of: rowBytes - 1, toByteOffset: p * MemoryLayout<ic_plane>.stride + MemoryLayout<UnsafeMutablePointer<UInt8>>.stride, as: Int.self)
                }
                #expect(ic_image_validate(&nullPlane) == IC_ERR_INVALID_ARGUMENT, "\(f) null plane \(p)")
                #expect(ic_image_validate(&shortStride) == IC_ERR_INVALID_ARGUMENT, "\(f) short stride plane \(p)")
            }
            var badAlpha = img
            badAlpha.alpha = ic_alpha(rawValue: 9)
            #expect(ic_image_validate(&badAlpha) == IC_ERR_INVALID_ARGUMENT)
        }
        var badFormat = Self.descriptor(IC_FORMAT_GRAY8, 4, 4, base: base)
        badFormat.format = ic_format(rawValue: 77)
        #expect(ic_image_validate(&badFormat) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_validate(nil) == IC_ERR_INVALID_ARGUMENT)
        // A stride so large that the plane's extent overflows the address space.
        var huge = Self.descriptor(IC_FORMAT_GRAY8, 4, 65535, base: base)
        huge.planes.0.stride = Int.max / 1000
        #expect(ic_image_validate(&huge) == IC_ERR_TOO_LARGE)
    }

    @Test("odd I420/NV12 sizes have ceil(w/2) x ceil(h/2) chroma")
    func oddChroma() {
        for (w, h) in [(1, 1), (3, 5), (17, 9), (4031, 3023)] {
            var rb = 0
            var rows: Int32 = 0
            #expect(ic_plane_geometry(IC_FORMAT_I420, Int32(w), Int32(h), 1, &rb, &rows) == IC_OK)
            #expect(rb == (w + 1) / 2 && Int(rows) == (h + 1) / 2)
            #expect(ic_plane_geometry(IC_FORMAT_NV12, Int32(w), Int32(h), 1, &rb, &rows) == IC_OK)
            #expect(rb == 2 * ((w + 1) / 2) && Int(rows) == (h + 1) / 2)
            #expect(ic_plane_geometry(IC_FORMAT_NV12, Int32(w), Int32(h), 2, &rb, &rows) == IC_ERR_INVALID_ARGUMENT)
        }
    }

    @Test("size helpers answer 'too large' instead of wrapping")
    func sizeOverflow() {
        var size = 0
        #expect(ic_image_size(IC_FORMAT_RGBA8, 65500, 65500, 64, &size) == IC_ERR_TOO_LARGE)
        #expect(ic_image_size(IC_FORMAT_GRAY8, 65500, 65500, 64, &size) == IC_OK)
        #expect(size == 65536 * 65500) // 65500 rounded up to 64 is 65536
        #expect(ic_image_size(IC_FORMAT_GRAY8, 8, 8, 3, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_size(IC_FORMAT_GRAY8, 8, 8, 8192, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_size(IC_FORMAT_INVALID, 8, 8, 64, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_max_image_bytes() == 1 << 32)
    }

    @Test("every status has a name and maps to one ImageError code")
    func statuses() {
        var names = Set<String>()
        for code in ImageError.Code.allCases {
            let status = ic_status(rawValue: code.rawValue)
            let e = ImageError(status: status)
            #expect(e?.code == code)
            names.insert(String(cString: ic_status_string(status)))
        }
        #expect(names.count == ImageError.Code.allCases.count)
        #expect(ImageError(status: IC_OK) == nil)
        #expect(String(cString: ic_status_string(ic_status(rawValue: -1000))) == "unknown status")
        #expect(ImageError(status: ic_status(rawValue: -1000))?.code == .internalError)
        #expect(ImageError(.tooLarge, "x").description == "too large: x")
    }

    @Test("version")
    func version() {
        let v = ic_version()
        #expect(ImageCoreRuntime.version == "\(v / 10000).\(v / 100 % 100).\(v % 100)")
    }

    @Test("image copy and fill stop at the plane ends (guard pages), every format, odd sizes")
    func guardPages() {
        for f in [IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12] {
            for (w, h) in [(1, 1), (3, 5), (67, 33)] {
                for padding in [0, 5] {
                    let src = GuardedImage(f, w, h, padding: padding), dst = GuardedImage(f, w, h, padding: padding)
                    src.randomize(seed: UInt64(w * 1000 + h))
                    var s = src.image, d = dst.image
                    #expect(ic_image_copy(&s, &d) == IC_OK)
                    for p in 0..<Int(ic_format_plane_count(f)) { #expect(src.packed(p) == dst.packed(p)) }
                    #expect(ic_image_fill(&d, [1, 2, 3, 4]) == IC_OK)
                }
            }
        }
    }

    @Test("plane copy: strides honoured, overlap and bad arguments refused")
    func planeCopy() {
        let n = 4096
        let src = UnsafeMutablePointer<UInt8>.allocate(capacity: n), dst = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        defer { src.deallocate(); dst.deallocate() }
        for i in 0..<n { src[i] = UInt8(truncatingIfNeeded: i * 7 + 3); dst[i] = 0xEE }
        #expect(ic_plane_copy(src, 61, dst, 67, 53, 40) == IC_OK)
        for y in 0..<40 {
            for x in 0..<67 {
                let want: UInt8 = x < 53 ? src[y * 61 + x] : 0xEE
                if dst[y * 67 + x] != want { Issue.record("row \(y) byte \(x)"); return }
            }
        }
        #expect(ic_plane_copy(src, 64, src + 32, 64, 64, 4) == IC_ERR_INVALID_ARGUMENT) // overlap
        #expect(ic_plane_copy(src, 10, dst, 64, 64, 4) == IC_ERR_INVALID_ARGUMENT) // stride < row
        #expect(ic_plane_copy(nil, 64, dst, 64, 64, 4) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_plane_copy(nil, 64, dst, 64, 64, 0) == IC_OK)
        #expect(ic_plane_copy(src, 64, dst, 64, 64, -1) == IC_ERR_INVALID_ARGUMENT)
        let pattern: [UInt8] = [1, 2, 3]
        #expect(ic_plane_fill(dst, 64, 64, 2, pattern, 3) == IC_ERR_INVALID_ARGUMENT) // 64 % 3 != 0
        #expect(ic_plane_fill(dst, 64, 63, 2, pattern, 3) == IC_OK)
        #expect(dst[62] == 3 && dst[63] == 0xEE && dst[64] == 1)
        #expect(ic_plane_fill(dst, 64, 64, 1, pattern, 0) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_plane_fill(dst, 64, 64, 1, pattern, 17) == IC_ERR_INVALID_ARGUMENT)
    }
}

/// Tests that change process-wide settings (thread count, CPU mask) run one at a time, and
/// hold `ProcessSettings`' lock so that tests elsewhere that do the same cannot interleave.
@Suite("Process-wide settings", .serialized)
struct ProcessSettingsTests {
    /// Records every chunk ic_parallel_for hands out.
    final class Visits: @unchecked Sendable {
        let counts: UnsafeMutableBufferPointer<Atomic<Int32>>
        init(_ n: Int) {
            counts = .allocate(capacity: max(n, 1))
            for i in 0..<max(n, 1) { (counts.baseAddress! + i).initialize(to: Atomic(0)) }
        }
        deinit { counts.deallocate() }
    }

    @Test("ic_parallel_for visits every index exactly once", arguments: [1, 2, 7])
    func parallelFor(threads: Int32) { ProcessSettings.with(threads: threads) {
        #expect(ic_get_num_threads() == threads)
        for count in [0, 1, 7, 1000, 100_003] {
            for grain in [1, 3, 1000] {
                let v = Visits(count)
                let status = ic_parallel_for(Int64(count), Int64(grain), { ctx, begin, end in
                    let v = Unmanaged<Visits>.fromOpaque(ctx!).takeUnretainedValue()
                    for i in Int(begin)..<Int(end) { v.counts[i].add(1, ordering: .relaxed) }
                }, Unmanaged.passUnretained(v).toOpaque())
                #expect(status == IC_OK)
                let ok = (0..<count).allSatisfy { v.counts[$0].load(ordering: .relaxed) == 1 }
                #expect(ok, "threads \(threads) count \(count) grain \(grain)")
            }
        }
        #expect(ic_parallel_for(10, 1, nil, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_parallel_for(-1, 1, { _, _, _ in }, nil) == IC_ERR_INVALID_ARGUMENT)
    } }

    /// Collects the chunks handed out, without touching every index.
    final class Ranges: @unchecked Sendable {
        let list = Mutex<[(Int64, Int64)]>([])
    }

    @Test("ic_parallel_for near INT64_MAX: chunks tile the range, nothing overflows", arguments: [1, 2, 7])
    func parallelForHuge(threads: Int32) { ProcessSettings.with(threads: threads) {
        let count = Int64.max - 3
        for grain in [Int64.max / 16, Int64.max / 3, 1 << 40] {
            let r = Ranges()
            let status = ic_parallel_for(count, grain, { ctx, begin, end in
                let r = Unmanaged<Ranges>.fromOpaque(ctx!).takeUnretainedValue()
                r.list.withLock { $0.append((begin, end)) }
            }, Unmanaged.passUnretained(r).toOpaque())
            #expect(status == IC_OK)
            let sorted = r.list.withLock { $0 }.sorted { $0.0 < $1.0 }
            var next: Int64 = 0
            for (b, e) in sorted { #expect(b == next && e > b); next = e }
            #expect(next == count, "grain \(grain)")
        }
    } }

    @Test("thread count: explicit, default, and the runtime setting")
    func threadCount() { ProcessSettings.with(threads: 1) {
        ImageCoreRuntime.threads = 3
        #expect(ImageCoreRuntime.threads == 3)
        ImageCoreRuntime.threads = 0
        #expect(ImageCoreRuntime.threads >= 1)
        #if os(Linux)
        #expect(ImageCoreRuntime.parallelBackend == "omp-runtime")
        #endif
    } }

    @Test("the CPU mask can force the scalar paths")
    func cpuMask() { ProcessSettings.with(cpuMask: 0xffff_ffff) {
        let detected = ImageCoreRuntime.detectedCPUFeatures
        #expect(detected.isSuperset(of: ImageCoreRuntime.cpuFeatures))
        #if arch(x86_64)
        #expect(detected.contains(.sse2))
        #endif
        let old = ic_set_cpu_mask(0)
        #expect(ic_cpu_features() == 0)
        #expect(ImageCoreRuntime.cpuMask == [])
        #expect(ic_set_cpu_mask(old) == 0)
        #expect(ImageCoreRuntime.cpuFeatures == detected.intersection(ImageCoreRuntime.CPUFeatures(rawValue: old)))
    } }

    @Test("large contiguous copy and fill are exact with 1 and 2 threads", arguments: [1, 2])
    func largeCopy(threads: Int32) throws { try ProcessSettings.with(threads: threads) {
        var a = try PixelBuffer(width: 1999, height: 1001, format: .rgb8, alignment: 1) // stride == row bytes
        var b = try PixelBuffer(width: 1999, height: 1001, format: .rgb8, alignment: 1)
        #expect(a.plane(0).stride == a.plane(0).rowBytes)
        a.withMutablePlane(0) { s in for i in s.indices { s[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) } }
        try b.copy(from: a)
        let same = a.withPlane(0) { x in b.withPlane(0) { y in (0..<x.count).allSatisfy { x[$0] == y[$0] } } }
        #expect(same)
        try b.fill([1, 2, 3])
        let filled = b.withPlane(0) { y in (0..<y.count).allSatisfy { y[$0] == UInt8($0 % 3 + 1) } }
        #expect(filled)
    } }
}
