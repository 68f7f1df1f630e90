import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

@Suite("Pipelines: burst ranking")
struct PipelineBurstTests {
    static func fixture(_ name: String) throws -> PixelBuffer {
        let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return try PNM.read(path: url.appendingPathComponent(name).path)
    }

    /// A float64 Gaussian blur (separable, radius ⌈4σ⌉, clamped borders, rounded to bytes).
    static func blur(_ src: [UInt8], width w: Int, height h: Int, sigma: Double) -> [UInt8] {
        if sigma == 0 { return src }
        let r = Int((4 * sigma).rounded(.up))
        var k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = k.reduce(0, +); k = k.map { $0 / sum }
        var tmp = [Double](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            var a = 0.0
            for i in -r...r { a += k[i + r] * Double(src[y * w + min(w - 1, max(0, x + i))]) }
            tmp[y * w + x] = a
        } }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            var a = 0.0
            for i in -r...r { a += k[i + r] * tmp[min(h - 1, max(0, y + i)) * w + x] }
            out[y * w + x] = UInt8(max(0, min(255, a.rounded())))
        } }
        return out
    }

    /// The population standard deviation of the 3×3 Laplacian (8 centre, −1 around,
    /// reflect-101 borders) of packed GRAY8 bytes, in float64.
    static func referenceScore(_ p: [UInt8], width w: Int, height h: Int) -> Double {
        func rf(_ i: Int, _ n: Int) -> Int { n == 1 ? 0 : (i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i)) }
        var s = 0.0, ss = 0.0
        for y in 0..<h { for x in 0..<w {
            var v = 9 * Double(p[y * w + x])
            for dy in -1...1 { for dx in -1...1 { v -= Double(p[rf(y + dy, h) * w + rf(x + dx, w)]) } }
            s += v; ss += v * v
        } }
        let n = Double(w * h), mean = s / n
        return (ss / n - mean * mean).squareRoot()
    }

    @Test("a real photo blurred with increasing σ ranks exactly in order; scores equal a float64 reference")
    func blurOrder() throws {
        let photo = try Self.fixture("background-ladybird.pgm")
        let w = photo.width, h = photo.height
        let packed = JPEGFixtures.packed(photo, plane: 0)
        let sigmas = [0.0, 0.7, 1.2, 1.8, 2.6, 3.6]
        var jpegs: [[UInt8]] = []
        for s in sigmas {
            let px = Self.blur(packed, width: w, height: h, sigma: s)
            let buf = JPEGFixtures.buffer(px, width: w, height: h, format: .gray8)
            jpegs.append(try JPEG.encode(buf, options: .init(quality: 95)))
        }
        // Shuffle the input so the order cannot come from the positions.
        let perm = [3, 0, 5, 1, 4, 2]
        let ranking = BurstRanking.rank(perm.map { jpegs[$0] }, options: .init(workers: 2))
        #expect(ranking.order.map { perm[$0] } == Array(0..<sigmas.count), "\(ranking.order)")
        for e in ranking.entries {
            let score = try e.result.get()
            let luma = try JPEG.decode(perm.map { jpegs[$0] }[e.index], format: .gray8, options: .init(scale: .eighths(e.scale)))
            let ref = Self.referenceScore(JPEGFixtures.packed(luma, plane: 0), width: luma.width, height: luma.height)
            #expect(abs(score.standardDeviation - ref) <= 1e-9 * max(1, ref), "\(score.standardDeviation) vs \(ref)")
        }
    }

    @Test("the decode scale is the n/8 nearest a 1280 px long side")
    func scaleChoice() {
        #expect(BurstRanking.scale(width: 4032, height: 3024, targetLongSide: 1280) == 3) // 1512 vs 1008
        #expect(BurstRanking.scale(width: 5120, height: 3840, targetLongSide: 1280) == 2) // 1280
        #expect(BurstRanking.scale(width: 640, height: 400, targetLongSide: 1280) == 8)
        #expect(BurstRanking.scale(width: 3000, height: 4000, targetLongSide: 1280) == 3) // 1500 vs 1000
    }

    @Test("memory: at most 2 decoded frames per worker, Laplacian views included")
    func memory() throws {
        let jpeg = PipelineFixtures.photo12MP
        let views = PosixMutex(0)
        let ranking = BurstRanking.rank(count: 4, options: .init(workers: 2), load: { _ in jpeg },
                                        display: { _, v in views.withLock { $0 += 1 }; _ = v.width })
        #expect(ranking.order.count == 4 && views.withLock { $0 } == 4)
        let e = ranking.entries[0]
        let frame = try PixelBuffer(width: e.width, height: e.height, format: .gray8).byteCount
        #expect(e.scale == 3)
        #expect(ranking.peakPixelBytes <= 2 * 2 * frame, "peak \(ranking.peakPixelBytes), frame \(frame)")
        #expect(ranking.peakPixelBytes >= frame)
    }

    @Test("a corrupt image gets an error entry; the others are ranked")
    func corrupt() throws {
        let good = JPEGFixtures.photo(width: 320, height: 240)
        let ranking = BurstRanking.rank([good, [0xFF, 0xD8, 0xFF, 0xE0], good])
        #expect(ranking.order == [0, 2])
        if case .success = ranking.entries[1].result { Issue.record("the corrupt file was scored") }
    }
}
