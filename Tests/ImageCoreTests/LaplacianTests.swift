import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// The 3×3 Laplacian: response, display, fused score and ROI, against a reference written
/// here (the response is an exact integer, so "float64 reference" means exact equality).
@Suite("Laplacian")
struct LaplacianTests {
    // MARK: reference

    /// Reflect-101 of i into [0, n) (n == 1: the pixel itself).
    static func reflect(_ i: Int, _ n: Int) -> Int {
        if n == 1 { return 0 }
        if i < 0 { return -i }
        if i >= n { return 2 * n - 2 - i }
        return i
    }

    /// The response of a `w`×`h` plane given as packed bytes, at (x, y).
    static func response(_ p: [UInt8], _ w: Int, _ h: Int, _ x: Int, _ y: Int) -> Int {
        var r = 0
        for dy in -1...1 {
            for dx in -1...1 {
                let v = Int(p[reflect(y + dy, h) * w + reflect(x + dx, w)])
                r += (dx == 0 && dy == 0) ? 8 * v : -v
            }
        }
        return r
    }

    /// Reference response of a ROI, row-major.
    static func referenceResponse(_ p: [UInt8], _ w: Int, _ h: Int, _ roi: ic_rect) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(Int(roi.width * roi.height))
        for y in Int(roi.y)..<Int(roi.y + roi.height) {
            for x in Int(roi.x)..<Int(roi.x + roi.width) { out.append(response(p, w, h, x, y)) }
        }
        return out
    }

    /// The int16 response through the C API into a guarded plane (its last byte before a
    /// PROT_NONE page) with a padded stride.
    static func s16(_ img: GuardedImage, roi: ic_rect?, padding: Int = 6) -> [Int]? {
        let w = Int(roi?.width ?? img.width), h = Int(roi?.height ?? img.height)
        let dst = GuardedImage(IC_FORMAT_GRAY8, 2 * w, h, padding: padding) // bytes for int16
        let g = dst.plane(0)
        var d = ic_plane_s16(data: UnsafeMutableRawPointer(g.data).assumingMemoryBound(to: Int16.self),
                             stride: g.stride, width: Int32(w), height: Int32(h))
        var image = img.image
        var r = roi ?? ic_rect()
        let st = roi == nil ? ic_laplacian_s16(&image, nil, &d) : ic_laplacian_s16(&image, &r, &d)
        guard st == IC_OK else { return nil }
        var out: [Int] = []
        for y in 0..<h {
            let row = UnsafeRawPointer(g.data + y * g.stride).assumingMemoryBound(to: Int16.self)
            for x in 0..<w { out.append(Int(row[x])) }
        }
        return out
    }

    static func score(_ img: GuardedImage, roi: ic_rect?) -> ic_laplacian_stats {
        var image = img.image
        var s = ic_laplacian_stats()
        var r = roi ?? ic_rect()
        let st = roi == nil ? ic_laplacian_score(&image, nil, &s) : ic_laplacian_score(&image, &r, &s)
        #expect(st == IC_OK)
        return s
    }

    static func sums(_ r: [Int]) -> (Int64, UInt64) {
        var s: Int64 = 0
        var q: UInt64 = 0
        for v in r { s += Int64(v); q += UInt64(v * v) }
        return (s, q)
    }

    /// Runs `body` with the scalar reference kernels, then with every CPU feature allowed.
    static func bothPaths<R>(_ body: () -> R) -> (scalar: R, simd: R) {
        let scalar = ProcessSettings.with(cpuMask: 0) { body() }
        let simd = ProcessSettings.with(cpuMask: .max) { body() }
        return (scalar, simd)
    }

    // MARK: tests

    static let sizes: [(Int, Int)] = {
        var s: [(Int, Int)] = []
        for w in 1...67 { for h in [1, 2, 3, 17] { s.append((w, h)) } }
        for h in 1...67 { for w in [1, 2, 5, 33] { s.append((w, h)) } }
        return s + [(1001, 3), (3, 1001), (257, 131), (4099, 2)]
    }()

    @Test("response = reference for sizes 1…67 both ways and large odd sizes; scalar == SIMD; guarded, padded")
    func responseSizes() {
        var seed: UInt64 = 1
        for (w, h) in Self.sizes {
            let img = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: (w * 7) % 13)
            seed += 1
            img.randomize(seed: seed)
            let ref = Self.referenceResponse(img.packed(0), w, h, ic_rect(x: 0, y: 0, width: Int32(w), height: Int32(h)))
            let (scalar, simd) = Self.bothPaths { Self.s16(img, roi: nil) }
            #expect(scalar == ref, "\(w)x\(h) scalar")
            #expect(simd == ref, "\(w)x\(h) simd")
        }
    }

    @Test("fused score: exact sums of the response; bit-identical for 1, 2, 7 threads and scalar/SIMD")
    func fusedScore() throws {
        var seed: UInt64 = 100
        for (w, h) in [(1, 1), (2, 3), (67, 45), (1001, 3), (3, 1001), (640, 480), (1031, 1029)] {
            let img = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: 3)
            seed += 1
            img.randomize(seed: seed)
            let ref = Self.referenceResponse(img.packed(0), w, h, ic_rect(x: 0, y: 0, width: Int32(w), height: Int32(h)))
            let (sum, sq) = Self.sums(ref)
            var results: [ic_laplacian_stats] = []
            for threads: Int32 in [1, 2, 7] {
                for mask: UInt32 in [0, .max] {
                    results.append(ProcessSettings.with(cpuMask: mask, threads: threads) { Self.score(img, roi: nil) })
                }
            }
            let first = results[0]
            #expect(first.count == Int64(w * h) && first.sum == sum && first.sum_squares == sq, "\(w)x\(h)")
            for r in results {
                #expect(r.sum == first.sum && r.sum_squares == first.sum_squares)
                #expect(r.mean.bitPattern == first.mean.bitPattern)
                #expect(r.variance.bitPattern == first.variance.bitPattern)
                #expect(r.std_dev.bitPattern == first.std_dev.bitPattern)
            }
            // == the score of the int16 response image (written by ic_laplacian_s16), bit for bit.
            let image = try #require(ProcessSettings.with(cpuMask: .max) { Self.s16(img, roi: nil) })
            let (imageSum, imageSq) = Self.sums(image)
            #expect(imageSum == sum && imageSq == sq)
            let fromImage = try SharpnessScore(count: w * h, sum: imageSum, sumOfSquares: imageSq)
            #expect(fromImage.standardDeviation.bitPattern == first.std_dev.bitPattern)
            #expect(fromImage.variance.bitPattern == first.variance.bitPattern)
            #expect(fromImage.mean.bitPattern == first.mean.bitPattern)
            // and the float64 moments of the response.
            let n = Double(w * h)
            let mean = ref.reduce(0.0) { $0 + Double($1) } / n
            let variance = ref.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / n
            #expect(abs(first.mean - mean) <= 1e-9 * max(1, abs(mean)))
            #expect(abs(first.variance - variance) <= 1e-9 * max(1, variance))
        }
    }

    @Test("ROI: inner neighbours from the image, reflect-101 only at true edges; score over the ROI")
    func roi() {
        var rng = SplitMix64(seed: 7)
        for (w, h) in [(1, 1), (1, 9), (9, 1), (2, 2), (37, 23), (67, 67), (300, 41)] {
            let img = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: 5)
            img.randomize(seed: UInt64(w * 1000 + h))
            let packed = img.packed(0)
            for _ in 0..<12 {
                let rw = Int(rng.next() % UInt64(w)) + 1, rh = Int(rng.next() % UInt64(h)) + 1
                let rx = Int(rng.next() % UInt64(w - rw + 1)), ry = Int(rng.next() % UInt64(h - rh + 1))
                let roi = ic_rect(x: Int32(rx), y: Int32(ry), width: Int32(rw), height: Int32(rh))
                let ref = Self.referenceResponse(packed, w, h, roi)
                let (scalar, simd) = Self.bothPaths { Self.s16(img, roi: roi) }
                #expect(scalar == ref && simd == ref, "\(w)x\(h) roi \(roi)")
                let (sum, sq) = Self.sums(ref)
                let (s0, s1) = Self.bothPaths { Self.score(img, roi: roi) }
                #expect(s0.sum == sum && s0.sum_squares == sq && s1.sum == sum && s1.sum_squares == sq && s0.count == Int64(rw * rh))
            }
            // Bad ROIs are refused.
            var image = img.image
            var s = ic_laplacian_stats()
            for bad in [ic_rect(x: 0, y: 0, width: 0, height: 1), ic_rect(x: -1, y: 0, width: 1, height: 1),
                        ic_rect(x: Int32(w), y: 0, width: 1, height: 1), ic_rect(x: 0, y: 0, width: Int32(w) + 1, height: 1),
                        ic_rect(x: 0, y: Int32(h - 1), width: 1, height: 2), ic_rect(x: Int32.max, y: 0, width: 2, height: 1)] {
                var r = bad
                #expect(ic_laplacian_score(&image, &r, &s) == IC_ERR_INVALID_ARGUMENT, "\(bad)")
            }
        }
    }

    @Test("Y plane of I420 and NV12, padded and guarded")
    func yuvLuma() {
        for format in [IC_FORMAT_I420, IC_FORMAT_NV12] {
            for (w, h) in [(1, 1), (5, 3), (33, 17), (130, 67)] {
                let img = GuardedImage(format, w, h, padding: 9)
                img.randomize(seed: UInt64(w + h))
                let ref = Self.referenceResponse(img.packed(0), w, h, ic_rect(x: 0, y: 0, width: Int32(w), height: Int32(h)))
                let (scalar, simd) = Self.bothPaths { Self.s16(img, roi: nil) }
                #expect(scalar == ref && simd == ref, "\(format) \(w)x\(h)")
                #expect(Self.score(img, roi: nil).sum == Self.sums(ref).0)
            }
        }
    }

    @Test("a constant image scores 0")
    func constant() throws {
        for (w, h) in [(1, 1), (1, 7), (7, 1), (64, 48), (1001, 3)] {
            for v: UInt8 in [0, 1, 128, 255] {
                var buffer = try PixelBuffer(width: w, height: h, format: .gray8)
                try buffer.fill([v])
                let s = try buffer.laplacianScore()
                #expect(s.sum == 0 && s.sumOfSquares == 0 && s.mean == 0 && s.variance == 0 && s.standardDeviation == 0)
            }
        }
    }

    @Test("closed forms: an impulse and a checkerboard")
    func closedForms() throws {
        // A single impulse v away from the border: r = 8v at it, -v at its 8 neighbours.
        for (w, h, v) in [(5, 5, 1), (9, 7, 200), (100, 50, 255)] {
            var b = try PixelBuffer(width: w, height: h, format: .gray8, zeroed: true)
            let stride = b.plane(0).stride
            b.withMutablePlane(0) { $0[(h / 2) * stride + w / 2] = UInt8(v) }
            let s = try b.laplacianScore()
            let n = Double(w * h)
            #expect(s.sum == 0)
            #expect(s.sumOfSquares == UInt64(72 * v * v))
            #expect(s.mean == 0)
            #expect(abs(s.variance - Double(72 * v * v) / n) <= 1e-12 * s.variance)
            #expect(abs(s.standardDeviation - (Double(72 * v * v) / n).squareRoot()) <= 1e-12 * s.standardDeviation)
        }
        // A 1-pixel checkerboard of 0 and 255, w, h >= 2: reflect-101 keeps the parity at the
        // borders, so every pixel sees 4 opposite and 4 equal neighbours: r = ±1020.
        for (w, h) in [(2, 2), (3, 3), (8, 5), (67, 66)] {
            var b = try PixelBuffer(width: w, height: h, format: .gray8)
            let stride = b.plane(0).stride
            b.withMutablePlane(0) { p in
                for y in 0..<h { for x in 0..<w { p[y * stride + x] = (x + y) % 2 == 0 ? 255 : 0 } }
            }
            let white = (w * h + 1) / 2, black = w * h / 2
            let s = try b.laplacianScore()
            let n = Double(w * h)
            let mean = Double((white - black) * 1020) / n
            #expect(s.sum == Int64((white - black) * 1020))
            #expect(s.sumOfSquares == UInt64(w * h * 1020 * 1020))
            #expect(abs(s.mean - mean) <= 1e-12)
            #expect(abs(s.variance - (1020.0 * 1020.0 - mean * mean)) <= 1e-9)
        }
    }

    @Test("display: signed response clamped to 0…255, optional 1/2.2 gamma table")
    func display() throws {
        let lut = (0..<256).map { UInt8((255 * pow(Double($0) / 255, 1 / 2.2)).rounded()) }
        for (w, h) in [(1, 1), (17, 3), (67, 67), (129, 5)] {
            let img = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: 2)
            img.randomize(seed: UInt64(3 * w + h))
            let ref = Self.referenceResponse(img.packed(0), w, h, ic_rect(x: 0, y: 0, width: Int32(w), height: Int32(h)))
            for gamma in [false, true] {
                let (scalar, simd) = Self.bothPaths { () -> [UInt8] in
                    let dst = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: 3)
                    var src = img.image
                    var d = dst.image
                    #expect(ic_laplacian_u8(&src, nil, &d, gamma ? IC_LAPLACIAN_CLAMP_GAMMA : IC_LAPLACIAN_CLAMP) == IC_OK)
                    return dst.packed(0)
                }
                let want = ref.map { r -> UInt8 in
                    let c = UInt8(min(255, max(0, r)))
                    return gamma ? lut[Int(c)] : c
                }
                #expect(scalar == want && simd == want, "\(w)x\(h) gamma \(gamma)")
            }
        }
        // The Swift convenience writes a GRAY8 image of the ROI's size.
        var b = try PixelBuffer(width: 20, height: 10, format: .gray8)
        try b.fill([9])
        let out = try b.laplacianDisplay(roi: PixelRect(x: 2, y: 3, width: 5, height: 4), gamma: true)
        #expect(out.width == 5 && out.height == 4 && out.format == .gray8)
    }

    @Test("Swift API: response plane, score and errors")
    func swiftAPI() throws {
        let w = 45, h = 31
        var b = try PixelBuffer(width: w, height: h, format: .gray8)
        var rng = SplitMix64(seed: 99)
        let stride = b.plane(0).stride
        var packed = [UInt8](repeating: 0, count: w * h)
        b.withMutablePlane(0) { p in
            for y in 0..<h { for x in 0..<w { let v = UInt8(truncatingIfNeeded: rng.next()); p[y * stride + x] = v; packed[y * w + x] = v } }
        }
        let roi = PixelRect(x: 3, y: 4, width: 20, height: 11)
        var made: Int16Plane? = nil
        let (_, usage) = try PixelAllocator.measure { made = try b.laplacianResponse(roi: roi) }
        let plane = made.take()!
        #expect(usage.allocations == 1 && plane.width == 20 && plane.height == 11)
        let ref = Self.referenceResponse(packed, w, h, roi.cValue!)
        for y in 0..<11 { for x in 0..<20 { #expect(Int(plane[x, y]) == ref[y * 20 + x]) } }
        let score = try b.laplacianScore(roi: roi)
        #expect(score.count == 220 && score.sum == Self.sums(ref).0)

        var rgb = try PixelBuffer(width: 4, height: 4, format: .rgb8)
        try rgb.fill([1, 2, 3])
        let e0 = #expect(throws: ImageError.self) { _ = try rgb.laplacianScore() }
        #expect(e0?.code == .unsupported)
        var wrong = try Int16Plane(width: 3, height: 3)
        let e = #expect(throws: ImageError.self) { try b.laplacian(into: &wrong, roi: nil) }
        #expect(e?.code == .invalidArgument)
        let e2 = #expect(throws: ImageError.self) { _ = try b.laplacianScore(roi: PixelRect(x: 40, y: 0, width: 10, height: 1)) }
        #expect(e2?.code == .invalidArgument)
        #expect(throws: ImageError.self) { _ = try SharpnessScore(count: 0, sum: 0, sumOfSquares: 0) }
    }
}
