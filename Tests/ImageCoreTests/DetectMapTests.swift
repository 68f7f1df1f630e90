import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// The learned boundary and inside maps: the C inference against the training framework's own
/// output on fixed inputs (its exact model of the integer network, and the float network
/// within the quantization's bound), and the scalar reference against the AVX2 and AVX-512
/// kernels.
@Suite("Page detection: boundary map")
struct DetectMapTests {
    /// One fixed input of `Fixtures/detect-map-reference.bin` (written by
    /// scripts/detector/export.py: quantize.py's exact model of the integer network's arithmetic,
    /// on PyTorch's convolutions of the same integers).
    struct Reference {
        var width: Int, height: Int, rgb: [UInt8]
        var mapWidth: Int, mapHeight: Int, probabilities: [Float], inside: [Float]
    }

    static func references(_ file: String = "detect-map-reference.bin") throws -> [Reference] {
        let data = try Data(contentsOf: DetectTests.fixtures.appendingPathComponent(file))
        var at = 0
        func int32() -> Int {
            defer { at += 4 }
            return Int(Int32(littleEndian: data.subdata(in: at..<at + 4).withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        }
        var out: [Reference] = []
        while at < data.count {
            let w = int32(), h = int32()
            let rgb = [UInt8](data[at..<at + 3 * w * h])
            at += 3 * w * h
            let mw = int32(), mh = int32()
            func floats() -> [Float] {
                defer { at += 4 * mw * mh }
                return data.subdata(in: at..<at + 4 * mw * mh).withUnsafeBytes { raw in
                    (0..<mw * mh).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
                }
            }
            let p = floats(), inside = floats()
            out.append(Reference(width: w, height: h, rgb: rgb, mapWidth: mw, mapHeight: mh, probabilities: p, inside: inside))
        }
        return out
    }

    static func image(_ r: Reference) throws -> PixelBuffer {
        var img = try PixelBuffer(width: r.width, height: r.height, format: .rgb8)
        let stride = img.plane(0).stride
        img.withMutablePlane(0) { s in
            for y in 0..<r.height { for x in 0..<3 * r.width { s[y * stride + x] = r.rgb[y * 3 * r.width + x] } }
        }
        return img
    }

    /// Stated tolerance: 1e-6 in probability. Every sum is an exact integer and every later
    /// step the same float32 operation in both (export.py checks that its model of fmaf is
    /// exact), so the logits are equal; only the final sigmoid differs (float64 in the
    /// reference, `expf` in the C core), by float32 rounding.
    @Test("C inference matches the training framework's model of it on the fixed inputs (|dp| <= 1e-6)")
    func matchesFramework() throws {
        let refs = try Self.references()
        #expect(refs.count == 3)
        for r in refs {
            let img = try Self.image(r)
            let maps = try PageDetector().maps(of: img)
            #expect(maps.width == r.mapWidth && maps.height == r.mapHeight)
            #expect(maps.boundary.count == r.probabilities.count && maps.inside.count == r.inside.count)
            #expect(try PageDetector().boundaryMap(of: img).values == maps.boundary)
            for (name, c, ref) in [("boundary", maps.boundary, r.probabilities), ("inside", maps.inside, r.inside)] {
                var worst: Float = 0
                for i in 0..<min(c.count, ref.count) { worst = max(worst, abs(c[i] - ref[i])) }
                print("\(name) map \(r.width)x\(r.height) vs the reference: worst |dp| \(worst)")
                #expect(worst <= 1e-6, "\(name) \(r.width)x\(r.height): worst |dp| \(worst)")
            }
            // the fixed scene has a page: the inside map must say so somewhere and not everywhere
            #expect(r.inside.contains { $0 > 0.5 } && r.inside.contains { $0 < 0.5 })
        }
    }

    /// The integer network against the trained float network (`detect-map-float-reference.bin`,
    /// export.py): the quantization's error. Stated bound: mean |dp| <= 0.02 and worst <= 0.25
    /// a map on these synthetic inputs (measured 0.002-0.012 and 0.11-0.23: a scene unlike the
    /// photos the activations' scales were measured on; on validation photos the mean is
    /// 0.0006, quantize.py).
    @Test("the integer network stays within the quantization's bound of the float network")
    func nearFloatNetwork() throws {
        let refs = try Self.references(), floats = try Self.references("detect-map-float-reference.bin")
        #expect(refs.count == 3 && floats.count == 3)
        for (r, f) in zip(refs, floats) {
            #expect(r.rgb == f.rgb && r.mapWidth == f.mapWidth && r.mapHeight == f.mapHeight)
            let maps = try PageDetector().maps(of: try Self.image(r))
            for (name, c, ref) in [("boundary", maps.boundary, f.probabilities), ("inside", maps.inside, f.inside)] {
                var worst: Float = 0, sum: Double = 0
                for i in 0..<min(c.count, ref.count) {
                    worst = max(worst, abs(c[i] - ref[i]))
                    sum += Double(abs(c[i] - ref[i]))
                }
                let mean = sum / Double(max(1, ref.count))
                print("\(name) map \(r.width)x\(r.height) vs the float network: mean |dp| \(mean), worst \(worst)")
                #expect(mean <= 0.02 && worst <= 0.25, "\(name) \(r.width)x\(r.height): mean \(mean), worst \(worst)")
                #expect(mean > 0, "\(name): identical to the float network (is the reference the integer one?)")
            }
        }
    }

    @Test("scalar, AVX2 and AVX-512 kernels give the same map, bit for bit, in every format")
    func scalarEqualsVector() throws {
        let r = try Self.references()[1]
        let rgb = try Self.image(r)
        let rgba = try rgb.converted(to: .rgba8)
        let big = try rgba.resized(width: 611, height: 397, filter: .triangle) // k = 2: the reduction's box
        let nv12 = try big.converted(to: .nv12)
        let gray = try big.converted(to: .gray8)
        // the widest kernels the CPU has, then AVX2 alone (AVX-512 masked off), then scalar
        func three(_ body: () -> [Float]) -> (widest: [Float], avx2: [Float], scalar: [Float]) {
            let (widest, scalar) = scalarAndVector(body)
            let avx2 = ProcessSettings.with(cpuMask: ImageCoreRuntime.CPUFeatures.all.subtracting(.avx512).rawValue) { body() }
            return (widest, avx2, scalar)
        }
        for (name, values) in [
            ("rgb", three { try! PageDetector().boundaryMap(of: rgb).values }),
            ("rgb inside", three { try! PageDetector().maps(of: rgb).inside }),
            ("nv12 inside", three { try! PageDetector().maps(of: nv12).inside }),
            ("rgba", three { try! PageDetector().boundaryMap(of: rgba).values }),
            ("rgba 611x397", three { try! PageDetector().boundaryMap(of: big).values }),
            ("nv12", three { try! PageDetector().boundaryMap(of: nv12).values }),
            ("gray", three { try! PageDetector().boundaryMap(of: gray).values }),
            ("work 100", three { try! PageDetector(workSize: 100).boundaryMap(of: big).values }),
            ("work 384", three { try! PageDetector(workSize: 384).boundaryMap(of: big).values }),
        ] {
            #expect(values.widest.map(\.bitPattern) == values.scalar.map(\.bitPattern), "\(name)")
            #expect(values.avx2.map(\.bitPattern) == values.scalar.map(\.bitPattern), "\(name)")
            #expect(values.widest.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(name)")
        }
    }

    @Test("a reduction box taller than 257 rows (its sums folded into 32 bits) gives the same working image")
    func tallBox() throws {
        // 258 x 258 blocks of one value reduce to that value whatever the path: the big image's
        // map (k = 258 at work size 64, 32-bit sums) equals the small one's (k = 1, 16-bit)
        let bw = 64, bh = 4, f = 258
        var small = try PixelBuffer(width: bw, height: bh, format: .gray8)
        var big = try PixelBuffer(width: bw * f, height: bh * f, format: .gray8)
        var seed: UInt32 = 12345
        let ss = small.plane(0).stride, gs = big.plane(0).stride
        small.withMutablePlane(0) { p in
            for y in 0..<bh { for x in 0..<bw { seed = seed &* 1_103_515_245 &+ 12345; p[y * ss + x] = UInt8(truncatingIfNeeded: seed >> 16) } }
        }
        small.withPlane(0) { p in
            big.withMutablePlane(0) { g in
                for y in 0..<bh * f { for x in 0..<bw * f { g[y * gs + x] = p[(y / f) * ss + x / f] } }
            }
        }
        let detector = PageDetector(workSize: 64)
        let a = try detector.boundaryMap(of: small), b = try detector.boundaryMap(of: big)
        #expect(a.width == b.width && a.height == b.height && a.width == bw / 2)
        #expect(a.values.map(\.bitPattern) == b.values.map(\.bitPattern))
    }
}
