import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// The row-push resize (`ic_resize_stream_*`): its output must be the one-shot plan's, byte
/// for byte (the one-shot is computed separately by `ResizeTests.run`), and so within the
/// float64 reference's bound; rows arrive one at a time in buffers that end at a page
/// boundary, so reading past a row faults.
@Suite("Resize stream")
struct ResizeStreamTests {
    typealias Kind = ResizeTests.Kind

    /// The interleaved kinds a stream carries.
    static let kinds: [Kind] = [ResizeTests.kinds[0], ResizeTests.kinds[1], ResizeTests.kinds[2],
                                ResizeTests.kinds[3], ResizeTests.kinds[4]]

    /// Stream memory from mmap, ending at a page boundary followed by a PROT_NONE page, so a
    /// write past the reported size faults.
    final class GuardedMemory {
        let base: UnsafeMutableRawPointer, total: Int
        let memory: UnsafeMutableRawPointer

        init(bytes: Int) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let rounded = (bytes + 63) / 64 * 64
            let dataPages = max(1, (rounded + page - 1) / page)
            total = (dataPages + 1) * page
            base = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
            precondition(base != MAP_FAILED)
            precondition(mprotect(base + dataPages * page, page, PROT_NONE) == 0)
            memory = base + dataPages * page - rounded
        }

        deinit { munmap(base, total) }
    }

    static func params(_ format: ic_format, _ alpha: ic_alpha, _ w: Int, _ h: Int, _ ow: Int, _ oh: Int,
                       _ filter: ic_resize_filter = IC_RESIZE_LANCZOS3, prereduce: Bool = true) -> ic_resize_params {
        var p = ic_resize_params()
        p.format = format
        p.alpha = alpha
        p.src_width = Int32(w)
        p.src_height = Int32(h)
        p.dst_width = Int32(ow)
        p.dst_height = Int32(oh)
        p.filter = filter
        p.flags = prereduce ? 0 : UInt32(IC_RESIZE_NO_PREREDUCE.rawValue)
        return p
    }

    /// A stream in guarded memory of exactly the reported size.
    static func make(_ p: ic_resize_params) -> (GuardedMemory, OpaquePointer)? {
        var p = p
        var size = 0
        guard ic_resize_stream_size(&p, &size) == IC_OK else { return nil }
        let mem = GuardedMemory(bytes: size)
        var s: OpaquePointer? = nil
        guard ic_resize_stream_init(mem.memory, size, &p, &s) == IC_OK, let s else { return nil }
        return (mem, s)
    }

    struct Result {
        var pixels: [UInt8]
        /// Output rows complete after each push (per source row for single-row pushes).
        var written: [Int]
        /// Whether every output row not yet reported written was still untouched (zero).
        var unwrittenUntouched: Bool
    }

    /// Streams `src` into a guarded destination: `band` 0 pushes each row from its own
    /// one-row guarded buffer; otherwise bands of 1, band, 2 band, ... rows straight from
    /// `src` (cycling).
    static func stream(_ src: GuardedImage, _ ow: Int, _ oh: Int, _ filter: ic_resize_filter,
                       prereduce: Bool = true, band: Int = 0, padding: Int = 5) -> Result? {
        let p = params(src.format, src.image.alpha, Int(src.width), Int(src.height), ow, oh, filter, prereduce: prereduce)
        guard let (mem, s) = make(p) else { return nil }
        defer { withExtendedLifetime(mem) {} }
        let dst = GuardedImage(src.format, ow, oh, padding: padding, alpha: src.image.alpha)
        var d = dst.image
        let g = src.plane(0), dg = dst.plane(0)
        var written: [Int] = [], untouched = true
        func check(_ n: Int32) {
            written.append(Int(n))
            // Spot-check that the next unwritten row is still all zero.
            if Int(n) < oh {
                let row = UnsafeBufferPointer(start: dg.data + Int(n) * dg.stride, count: dg.rowBytes)
                if row.contains(where: { $0 != 0 }) { untouched = false }
            }
        }
        if band == 0 {
            let rowBuf = GuardedImage(src.format, Int(src.width), 1)
            let rb = rowBuf.plane(0)
            for y in 0..<g.rows {
                rb.data.update(from: g.data + y * g.stride, count: g.rowBytes)
                var n: Int32 = -1
                guard ic_resize_stream_push(s, rb.data, src.width, &d, &n) == IC_OK else { return nil }
                check(n)
            }
        } else {
            var y = 0, k = 0
            while y < g.rows {
                let count = min(g.rows - y, [1, band, 2 * band][k % 3])
                k += 1
                var n: Int32 = -1
                guard ic_resize_stream_push_rows(s, g.data + y * g.stride, g.stride, Int32(count), src.width, &d, &n) == IC_OK
                else { return nil }
                check(n)
                y += count
            }
        }
        return Result(pixels: dst.packed(0), written: written, unwrittenUntouched: untouched)
    }

    /// Sizes: plain down/up, 1-pixel edges, the thumbnail's 504x378 -> 256x192, vertical
    /// box pre-reduction (ky 3, 5 with a 1-row last block, 275 > 257 rows), horizontal block
    /// means above the fold limit (kx > 16).
    static let sizes: [(Int, Int, Int, Int)] = [
        (61, 47, 13, 9), (13, 9, 61, 47), (67, 67, 67, 67), (45, 2, 7, 1), (97, 83, 11, 19), (1, 1, 1, 1),
        (1, 40, 3, 7), (33, 1, 5, 1), (200, 61, 33, 10), (40, 257, 13, 25), (259, 1031, 17, 101),
        (3, 1100, 2, 2), (1800, 5, 50, 3), (504, 378, 256, 192),
    ]

    @Test("equals the one-shot plan byte for byte: every streamed format, every filter, pre-reduced or not, scalar and SIMD, rows or bands",
          arguments: [0, 1, 2, 3, 4])
    func matchesOneShot(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        for (i, (w, h, ow, oh)) in Self.sizes.enumerated() {
            let big = w * h > 100_000
            for (j, f) in ResizeTests.filters.enumerated() where !big || j == (i + kindIndex) % 5 {
                let src = GuardedImage(kind.format, w, h, padding: (w + 3 * j) % 9, alpha: kind.alpha)
                src.randomize(seed: UInt64(i * 100 + j * 7 + kindIndex))
                for prereduce in [true, false] {
                    for mask: UInt32 in [0, .max] {
                        let label = "\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(f.rawValue) prereduce \(prereduce) mask \(mask)"
                        ProcessSettings.with(cpuMask: mask) {
                            let oneShot = ResizeTests.run(src, ow, oh, f, prereduce: prereduce)
                            let rows = Self.stream(src, ow, oh, f, prereduce: prereduce)
                            let bands = Self.stream(src, ow, oh, f, prereduce: prereduce, band: 1 + (i + j) % 7)
                            guard let oneShot, let rows, let bands else { Issue.record("\(label): failed"); return }
                            #expect(rows.pixels == oneShot[0], "\(label): row pushes differ from the one-shot")
                            #expect(bands.pixels == oneShot[0], "\(label): band pushes differ from the one-shot")
                            #expect(rows.written.last == oh && bands.written.last == oh, "\(label)")
                            #expect(rows.written == rows.written.sorted(), "\(label): written count went back")
                            #expect(rows.unwrittenUntouched && bands.unwrittenUntouched, "\(label): a row was written early")
                        }
                    }
                }
            }
        }
    }

    @Test("within the float64 reference's bound (1 LSB; the straight-alpha rules of resize.h)", arguments: [0, 1, 2, 3, 4])
    func reference(kindIndex: Int) {
        let kind = Self.kinds[kindIndex]
        for (i, (w, h, ow, oh)) in [(61, 47, 13, 9), (13, 9, 61, 47), (200, 61, 33, 10), (40, 257, 13, 25), (67, 5, 67, 5)].enumerated() {
            for (j, f) in ResizeTests.filters.enumerated() {
                for prereduce in [true, false] {
                    let src = GuardedImage(kind.format, w, h, padding: 3, alpha: kind.alpha)
                    src.randomize(seed: UInt64(7000 + i * 10 + j))
                    guard let r = Self.stream(src, ow, oh, f, prereduce: prereduce, band: j) else {
                        Issue.record("\(kind) \(w)x\(h): failed"); continue
                    }
                    let ch = ResizeTests.planes(kind, w, h, ow, oh)[0].ch
                    let ref = ResizeReference.plane(src.packed(0), ch: ch, w: w, h: h, outW: ow, outH: oh, mode: kind.mode,
                                                    filter: f, prereduce: prereduce)
                    let (e, failures) = ResizeReference.compare(r.pixels, ref, ch: ch, mode: kind.mode)
                    #expect(failures == 0, "\(kind) \(w)x\(h) -> \(ow)x\(oh) filter \(f.rawValue): \(failures) values out of bounds, max \(e)")
                }
            }
        }
    }

    @Test("each output row is written once its last source row (of non-zero weight) has arrived, and not before")
    func latency() {
        for (w, h, ow, oh, f) in [(90, 97, 30, 29, IC_RESIZE_LANCZOS3), (30, 40, 30, 113, IC_RESIZE_CATMULL_ROM),
                                  (20, 64, 20, 32, IC_RESIZE_TRIANGLE), (9, 50, 9, 50, IC_RESIZE_BOX)] {
            let src = GuardedImage(IC_FORMAT_GRAY8, w, h)
            src.randomize(seed: UInt64(w + h))
            guard let r = Self.stream(src, ow, oh, f, prereduce: false) else { Issue.record("failed"); continue }
            // The reference's windows, trimmed to non-zero weights: output y needs source rows
            // up to last[y].
            let last = ResizeReference.weights(f, h, oh, 1).map { $0.0 + $0.1.count - 1 }
            for y in 0..<h {
                let needed = last.filter { $0 <= y }.count   // outputs whose data is all in
                // Allowed: the C window may keep one clamped zero-weight row at its end.
                let ready = last.filter { $0 <= y - 1 }.count
                #expect(r.written[y] <= needed, "\(w)x\(h) -> \(ow)x\(oh): \(r.written[y]) rows written after source row \(y), data for \(needed)")
                #expect(r.written[y] >= ready, "\(w)x\(h) -> \(ow)x\(oh): only \(r.written[y]) rows written after source row \(y), \(ready) ready")
            }
        }
    }

    @Test("typed errors: formats, sizes, memory, row width, destination, too many rows, pushes after completion")
    func errors() throws {
        var size = 0
        var p = Self.params(IC_FORMAT_RGBA8, IC_ALPHA_OPAQUE, 50, 10, 20, 4)
        // parameters
        for f in [IC_FORMAT_I420, IC_FORMAT_NV12] {
            var q = p; q.format = f
            #expect(ic_resize_stream_size(&q, &size) == IC_ERR_UNSUPPORTED)
        }
        var q = p; q.format = ic_format(rawValue: 99)
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_UNSUPPORTED)
        q = p; q.src_width = 0
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        q = p; q.dst_height = -3
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        q = p; q.src_height = 70000
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_TOO_LARGE)
        q = p; q.filter = ic_resize_filter(rawValue: 17)
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        q = p; q.alpha = ic_alpha(rawValue: 9)
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        q = p; q.flags = 0x80
        #expect(ic_resize_stream_size(&q, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_size(nil, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_size(&p, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_size(&p, &size) == IC_OK && size > 0)
        // memory
        let mem = GuardedMemory(bytes: size + 64)
        var s: OpaquePointer? = nil
        #expect(ic_resize_stream_init(mem.memory, size - 1, &p, &s) == IC_ERR_BUFFER_TOO_SMALL)
        #expect(ic_resize_stream_init(mem.memory + 8, size, &p, &s) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_init(nil, size, &p, &s) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_init(mem.memory, size, &p, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(s == nil)
        #expect(ic_resize_stream_init(mem.memory, size, &p, &s) == IC_OK)
        var back = ic_resize_params()
        #expect(ic_resize_stream_params(s, &back) == IC_OK && back.src_width == 50 && back.dst_height == 4)
        var ring: Int32 = 0
        #expect(ic_resize_stream_ring_rows(s, &ring) == IC_OK && ring >= 1)

        let src = GuardedImage(IC_FORMAT_RGBA8, 50, 10, padding: 4, alpha: IC_ALPHA_OPAQUE)
        src.randomize(seed: 3)
        let dst = GuardedImage(IC_FORMAT_RGBA8, 20, 4, alpha: IC_ALPHA_OPAQUE)
        var d = dst.image
        let g = src.plane(0)
        var pushed: Int32 = -1, written: Int32 = -1
        func progress() -> (Int32, Int32) {
            _ = ic_resize_stream_progress(s, &pushed, &written)
            return (pushed, written)
        }
        // bad pushes consume nothing
        #expect(ic_resize_stream_push(s, g.data, 49, &d, nil) == IC_ERR_INVALID_ARGUMENT)   // row width
        #expect(ic_resize_stream_push(s, g.data, 51, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_push(s, nil, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_push(nil, g.data, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_push(s, g.data, 50, nil, nil) == IC_ERR_INVALID_ARGUMENT)
        let wrongSize = GuardedImage(IC_FORMAT_RGBA8, 21, 4)
        var ws = wrongSize.image
        #expect(ic_resize_stream_push(s, g.data, 50, &ws, nil) == IC_ERR_INVALID_ARGUMENT)
        let wrongFormat = GuardedImage(IC_FORMAT_RGB8, 20, 4)
        var wf = wrongFormat.image
        #expect(ic_resize_stream_push(s, g.data, 50, &wf, nil) == IC_ERR_INVALID_ARGUMENT)
        var badStride = d; badStride.planes.0.stride = 3
        #expect(ic_resize_stream_push(s, g.data, 50, &badStride, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_push(s, dst.plane(0).data, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT) // overlaps dst
        #expect(ic_resize_stream_push_rows(s, g.data, g.stride, 0, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_push_rows(s, g.data, 199, 2, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT) // stride < row
        #expect(ic_resize_stream_push_rows(s, g.data, g.stride, 11, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT) // > height
        #expect(progress() == (0, 0))
        // 7 rows, then 4 is one too many (nothing consumed), then the last 3
        #expect(ic_resize_stream_push_rows(s, g.data, g.stride, 7, 50, &d, &written) == IC_OK)
        #expect(progress().0 == 7)
        #expect(ic_resize_stream_push_rows(s, g.data + 7 * g.stride, g.stride, 4, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(progress().0 == 7)
        #expect(ic_resize_stream_push_rows(s, g.data + 7 * g.stride, g.stride, 3, 50, &d, &written) == IC_OK)
        #expect(written == 4 && progress() == (10, 4))
        // complete: any further push fails and changes nothing
        let before = dst.packed(0)
        #expect(ic_resize_stream_push(s, g.data, 50, &d, nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(progress() == (10, 4) && dst.packed(0) == before)
        #expect(before == ResizeTests.run(src, 20, 4, IC_RESIZE_LANCZOS3)?[0])
        // reset: a second image through the same stream equals its one-shot
        #expect(ic_resize_stream_reset(s) == IC_OK && progress() == (0, 0))
        src.randomize(seed: 4)
        for y in 0..<10 { #expect(ic_resize_stream_push(s, g.data + y * g.stride, 50, &d, nil) == IC_OK) }
        #expect(dst.packed(0) == ResizeTests.run(src, 20, 4, IC_RESIZE_LANCZOS3)?[0])
        #expect(ic_resize_stream_reset(nil) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_resize_stream_progress(nil, &pushed, nil) == IC_ERR_INVALID_ARGUMENT)
        withExtendedLifetime(mem) {}
    }
}
