import CImageCore
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Page enhancement: flattening, contrast, modes and formats.
@Suite("Page enhancement")
struct EnhanceTests {
    /// A rendered page under a strong lighting gradient (gain 0.2 at the top-left to 1.1 at
    /// the bottom-right) and a soft shadow band, with noise; and its paper / ink masks.
    struct LitPage: ~Copyable {
        var image: PixelBuffer
        var paper: [Bool]
        var ink: [Bool]
    }

    static func litPage(width: Int = 620, height: Int = 877, seed: UInt64 = 9) throws -> LitPage {
        let page = try DocumentComposite.renderPage(width: width, height: height, seed: seed)
        var lit = try PixelBuffer(width: width, height: height, format: .gray8)
        var paperMask = [Bool](repeating: false, count: width * height), inkMask = paperMask
        var rng = SplitMix64(seed: seed)
        let ps = page.plane(0).stride, ls = lit.plane(0).stride
        page.withPlane(0) { src in
            var paperTone: UInt8 = 0, inkTone: UInt8 = 255
            for y in 0..<height { for x in 0..<width { paperTone = max(paperTone, src[y * ps + x]); inkTone = min(inkTone, src[y * ps + x]) } }
            lit.withMutablePlane(0) { dst in
                for y in 0..<height {
                    for x in 0..<width {
                        let v = src[y * ps + x]
                        paperMask[y * width + x] = v == paperTone
                        inkMask[y * width + x] = v == inkTone
                        let t = (Double(x) / Double(width) + Double(y) / Double(height)) / 2
                        var gain = 0.2 + 0.9 * t
                        let band = (Double(x) - 0.6 * Double(width) + 0.3 * Double(y)) / 25
                        gain *= 1 - 0.3 / (1 + exp(-band)) // a soft shadow over the right part
                        let noise = Double(Int64(bitPattern: rng.next() % 7) - 3)
                        dst[y * ls + x] = UInt8(max(0, min(255, (Double(v) * gain + noise).rounded())))
                    }
                }
            }
        }
        return LitPage(image: lit, paper: paperMask, ink: inkMask)
    }

    static func values(_ b: borrowing PixelBuffer, plane: Int = 0, channels: Int = 1) -> [UInt8] {
        let g = b.plane(plane), w = g.rowBytes / channels
        return b.withPlane(plane) { s in
            var out = [UInt8]()
            out.reserveCapacity(w * g.rows)
            for y in 0..<g.rows { for x in 0..<w { out.append(s[y * g.stride + x * channels]) } }
            return out
        }
    }

    static func percentile(_ v: [UInt8], _ p: Double) -> Int {
        let s = v.sorted()
        return Int(s[min(s.count - 1, Int(Double(s.count) * p))])
    }

    @Test("a strong lighting gradient and a shadow become a uniform background, text keeps its contrast")
    func flattening() throws {
        var lp = try Self.litPage()
        let paper = lp.paper, ink = lp.ink
        let before = Self.values(lp.image)
        let paperBefore = zip(before, paper).filter(\.1).map(\.0), inkBefore = zip(before, ink).filter(\.1).map(\.0)
        try lp.image.enhance(mode: .gray)
        let after = Self.values(lp.image)
        let paperAfter = zip(after, paper).filter(\.1).map(\.0), inkAfter = zip(after, ink).filter(\.1).map(\.0)
        let spreadBefore = Self.percentile(paperBefore, 0.95) - Self.percentile(paperBefore, 0.05)
        let spreadAfter = Self.percentile(paperAfter, 0.95) - Self.percentile(paperAfter, 0.05)
        let contrastBefore = Double(paperBefore.map(Int.init).reduce(0, +)) / Double(paperBefore.count) - Double(inkBefore.map(Int.init).reduce(0, +)) / Double(inkBefore.count)
        let contrastAfter = Double(paperAfter.map(Int.init).reduce(0, +)) / Double(paperAfter.count) - Double(inkAfter.map(Int.init).reduce(0, +)) / Double(inkAfter.count)
        print("enhance: paper 5-95 % spread \(spreadBefore) -> \(spreadAfter); paper - ink \(Int(contrastBefore)) -> \(Int(contrastAfter)); paper median \(Self.percentile(paperAfter, 0.5)), ink 95th \(Self.percentile(inkAfter, 0.95))")
        // Before: the lit paper's 95th percentile is at least twice its 5th. After: within 20
        // levels (noise amplified in the darkest corner is what remains).
        #expect(Self.percentile(paperBefore, 0.95) >= 2 * Self.percentile(paperBefore, 0.05))
        #expect(spreadAfter <= 20, "paper spread after \(spreadAfter)")
        #expect(Self.percentile(paperAfter, 0.05) >= 230)
        #expect(contrastAfter >= 180 && contrastAfter >= contrastBefore)
        #expect(Self.percentile(inkAfter, 0.95) <= 90, "ink stays dark")
        if let dir = ProcessInfo.processInfo.environment["IC_TEST_DUMP"] {
            var orig = try Self.litPage()
            try PNM.write(orig.image, path: dir + "/enhance-before.pgm")
            try PNM.write(lp.image, path: dir + "/enhance-gray.pgm")
            try orig.image.enhance(mode: .bw)
            try PNM.write(orig.image, path: dir + "/enhance-bw.pgm")
        }
    }

    /// The documented algorithm in float64, from the header's prose.
    static func reference(_ lum: [UInt8], width w: Int, height h: Int, cell c: Int) -> [Double] {
        let gw = (w + c - 1) / c, gh = (h + c - 1) / c
        var p90 = [Double](repeating: 0, count: gw * gh), p2 = p90
        for j in 0..<gh {
            for i in 0..<gw {
                var s = [Int]()
                for y in stride(from: j * c, to: min(h, (j + 1) * c), by: 2) { for x in stride(from: i * c, to: min(w, (i + 1) * c), by: 2) { s.append(Int(lum[y * w + x])) } }
                s.sort()
                let n = s.count
                p2[j * gw + i] = Double(s[(n * 2 + 99) / 100 - 1])
                p90[j * gw + i] = Double(s[(n * 90 + 99) / 100 - 1])
            }
        }
        func at(_ g: [Double], _ i: Int, _ j: Int) -> Double { g[min(max(j, 0), gh - 1) * gw + min(max(i, 0), gw - 1)] }
        var mx = p90, bg = p90
        for j in 0..<gh { for i in 0..<gw { var m = 0.0; for dj in -1...1 { for di in -1...1 { m = max(m, at(p90, i + di, j + dj)) } }; mx[j * gw + i] = m } }
        let k = [0.25, 0.5, 0.25]
        for j in 0..<gh { for i in 0..<gw { var s = 0.0; for dj in -1...1 { for di in -1...1 { s += k[dj + 1] * k[di + 1] * at(mx, i + di, j + dj) } }; bg[j * gw + i] = max(1, s) } }
        let inv = bg.map { 1 / $0 }
        let hiRatios = zip(p90, inv).map { $0 * $1 }.sorted(), loRatios = zip(p2, inv).map { $0 * $1 }.sorted()
        var white = 0.98 * hiRatios[hiRatios.count / 2], black = min(0.5, loRatios[loRatios.count / 10])
        white = min(white, 1.2)
        if white - black < 0.2 { black = white - 0.2 }
        black = max(0, black)
        func pos(_ p: Int, _ n: Int) -> (Int, Int, Double) {
            let g = (Double(p) + 0.5) / Double(c) - 0.5
            if g <= 0 { return (0, 0, 0) }
            let i = Int(g)
            if i >= n - 1 { return (n - 1, n - 1, 0) }
            return (i, i + 1, g - Double(i))
        }
        var out = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            let (j0, j1, fy) = pos(y, gh)
            for x in 0..<w {
                let (i0, i1, fx) = pos(x, gw)
                let r0 = inv[j0 * gw + i0] + (inv[j1 * gw + i0] - inv[j0 * gw + i0]) * fy
                let r1 = inv[j0 * gw + i1] + (inv[j1 * gw + i1] - inv[j0 * gw + i1]) * fy
                let iv = r0 + (r1 - r0) * fx
                out[y * w + x] = min(255, max(0, (Double(lum[y * w + x]) * iv - black) * 255 / (white - black)))
            }
        }
        return out
    }

    @Test("gray mode matches a float64 reference of the documented method (within 1), on padded guard-page buffers")
    func againstReference() throws {
        for (w, h, cellOpt) in [(203, 151, 0), (96, 300, 10), (61, 47, 8), (640, 480, 0)] {
            var lp = try Self.litPage(width: w, height: h, seed: UInt64(w))
            let lum = Self.values(lp.image)
            let longest = max(w, h)
            var cell = cellOpt == 0 ? longest / 64 : cellOpt
            cell = max(cell, (longest + 511) / 512, 8)
            cell += cell & 1
            let ref = Self.reference(lum, width: w, height: h, cell: cell)
            // the same pixels in a guard-page image with padded rows
            let g = GuardedImage(IC_FORMAT_GRAY8, w, h, padding: 5)
            let pl = g.plane(0)
            for y in 0..<h { for x in 0..<w { pl.data[y * pl.stride + x] = lum[y * w + x] } }
            g.setPadding(0x5A)
            var o = ic_enhance_options()
            o.mode = IC_ENHANCE_GRAY
            o.cell = Int32(cellOpt)
            var bytes = 0
            #expect(ic_enhance_scratch_size(Int32(w), Int32(h), &o, &bytes) == IC_OK)
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 1)
            defer { scratch.deallocate() }
            scratch.initializeMemory(as: UInt8.self, repeating: 0xEE)
            var image = g.image
            #expect(ic_enhance_page(&image, &o, scratch.baseAddress, bytes) == IC_OK)
            #expect(g.paddingIs(0x5A))
            let got = g.packed(0)
            var worst = 0.0
            for i in 0..<(w * h) { worst = max(worst, abs(Double(got[i]) - ref[i])) }
            #expect(worst <= 1.0, "\(w)x\(h) cell \(cell): worst \(worst)")
            // the Swift API gives the same bytes
            try lp.image.enhance(mode: .gray, cellSize: cellOpt == 0 ? nil : cellOpt)
            #expect(Self.values(lp.image) == got)
        }
    }

    @Test("GRAY8, RGBA8 and NV12/I420 agree on the luminance; colour keeps gray gray and scales chroma")
    func formats() throws {
        let lp = try Self.litPage(width: 300, height: 420)
        let gray = lp.image
        let w = gray.width, h = gray.height
        let lum = Self.values(gray)
        var rgba = try PixelBuffer(width: w, height: h, format: .rgba8)
        var nv12 = try PixelBuffer(width: w, height: h, format: .nv12)
        var i420 = try PixelBuffer(width: w, height: h, format: .i420)
        let rs = rgba.plane(0).stride, ys = nv12.plane(0).stride, ys2 = i420.plane(0).stride
        rgba.withMutablePlane(0) { d in for y in 0..<h { for x in 0..<w { for c in 0..<3 { d[y * rs + 4 * x + c] = lum[y * w + x] }; d[y * rs + 4 * x + 3] = 77 } } }
        nv12.withMutablePlane(0) { d in for y in 0..<h { for x in 0..<w { d[y * ys + x] = lum[y * w + x] } } }
        i420.withMutablePlane(0) { d in for y in 0..<h { for x in 0..<w { d[y * ys2 + x] = lum[y * w + x] } } }
        // chroma: a colour patch (U 90, V 170) in the top half, neutral below
        let cs = nv12.plane(1).stride, us = i420.plane(1).stride
        nv12.withMutablePlane(1) { d in for y in 0..<(h + 1) / 2 { for x in 0..<(w + 1) / 2 { d[y * cs + 2 * x] = y < h / 4 ? 90 : 128; d[y * cs + 2 * x + 1] = y < h / 4 ? 170 : 128 } } }
        i420.withMutablePlane(1) { d in for y in 0..<(h + 1) / 2 { for x in 0..<(w + 1) / 2 { d[y * us + x] = y < h / 4 ? 90 : 128 } } }
        i420.withMutablePlane(2) { d in for y in 0..<(h + 1) / 2 { for x in 0..<(w + 1) / 2 { d[y * us + x] = y < h / 4 ? 170 : 128 } } }
        var g2 = try gray.duplicate()
        try g2.enhance(mode: .gray)
        let expected = Self.values(g2)
        for mode in EnhanceMode.allCases where mode != .bw {
            var r = try rgba.duplicate()
            try r.enhance(mode: mode)
            #expect(Self.values(r, channels: 4) == expected, "rgba \(mode) R")
            let alpha = r.withPlane(0) { s in (0..<h).allSatisfy { y in (0..<w).allSatisfy { s[y * rs + 4 * $0 + 3] == 77 } } }
            #expect(alpha, "alpha untouched")
            let grayRGB = r.withPlane(0) { s in (0..<h).allSatisfy { y in (0..<w).allSatisfy { s[y * rs + 4 * $0] == s[y * rs + 4 * $0 + 1] && s[y * rs + 4 * $0] == s[y * rs + 4 * $0 + 2] } } }
            #expect(grayRGB)
            var n = try nv12.duplicate()
            try n.enhance(mode: mode)
            #expect(Self.values(n) == expected, "nv12 \(mode) Y")
            var i = try i420.duplicate()
            try i.enhance(mode: mode)
            #expect(Self.values(i) == expected, "i420 \(mode) Y")
            let before = Self.values(nv12, plane: 1), after = Self.values(n, plane: 1), afterI = Self.values(i, plane: 1)
            if mode == .gray {
                #expect(after == before && afterI == Self.values(i420, plane: 1), "luminance modes touch Y only")
            } else {
                // Neutral stays neutral; elsewhere chroma keeps its sign and its distance
                // from 128 moves the way its 2 x 2 luma block did (the local factor Y'/Y).
                let yb = lum, ya = Self.values(n)
                let cw = (w + 1) / 2
                var checked = 0
                for (k, (b, a)) in zip(before, after).enumerated() {
                    if b == 128 { #expect(a == 128); continue }
                    let cx = (k / 2) % cw, cy = (k / 2) / cw
                    var sb = 0, sa = 0
                    for dy in 0..<2 where 2 * cy + dy < h { for dx in 0..<2 where 2 * cx + dx < w { sb += Int(yb[(2 * cy + dy) * w + 2 * cx + dx]); sa += Int(ya[(2 * cy + dy) * w + 2 * cx + dx]) } }
                    let db = abs(Int(b) - 128), da = abs(Int(a) - 128)
                    #expect((Int(a) - 128).signum() == (Int(b) - 128).signum() || a == 128, "chroma sign at \(k)")
                    let expected = Double(db) * Double(sa + 2) / Double(sb + 2)
                    #expect(abs(Double(da) - expected) <= 1.0 || a == 0 || a == 255, "chroma \(b) -> \(a) with luma \(sb) -> \(sa)")
                    checked += 1
                }
                #expect(checked > 0)
                #expect(afterI == Self.values(n, plane: 1).enumerated().filter { $0.offset % 2 == 0 }.map(\.element), "I420 U = NV12 U")
            }
        }
        var n = try nv12.duplicate()
        try n.enhance(mode: .gray, neutralChroma: true)
        #expect(Self.values(n, plane: 1).allSatisfy { $0 == 128 })
    }

    @Test("black and white: only 0 and 255, ink black, paper white")
    func blackAndWhite() throws {
        var lp = try Self.litPage()
        let paper = lp.paper, ink = lp.ink
        try lp.image.enhance(mode: .bw)
        let v = Self.values(lp.image)
        #expect(v.allSatisfy { $0 == 0 || $0 == 255 })
        let paperWhite = zip(v, paper).filter { $0.1 }.filter { $0.0 == 255 }.count, paperCount = paper.filter { $0 }.count
        let inkBlack = zip(v, ink).filter { $0.1 }.filter { $0.0 == 0 }.count, inkCount = ink.filter { $0 }.count
        print("bw: paper white \(paperWhite)/\(paperCount), ink black \(inkBlack)/\(inkCount)")
        #expect(Double(paperWhite) >= 0.99 * Double(paperCount))
        #expect(Double(inkBlack) >= 0.95 * Double(inkCount))
    }

    @Test("scalar reference and AVX2 row kernels agree (within 1) for every format and mode")
    func scalarVersusVector() throws {
        let lp = try Self.litPage(width: 333, height: 251, seed: 12)
        let w = lp.image.width, h = lp.image.height
        let lum = Self.values(lp.image)
        var rgba = try PixelBuffer(width: w, height: h, format: .rgba8)
        let rs = rgba.plane(0).stride
        rgba.withMutablePlane(0) { d in for y in 0..<h { for x in 0..<w { let v = Int(lum[y * w + x]); d[y * rs + 4 * x] = UInt8(min(255, v + 20)); d[y * rs + 4 * x + 1] = UInt8(v); d[y * rs + 4 * x + 2] = UInt8(v / 2); d[y * rs + 4 * x + 3] = UInt8(x % 256) } } }
        for mode in EnhanceMode.allCases {
            for source in 0..<2 {
                var outs = [[UInt8]]()
                for mask: UInt32? in [0, nil] {
                    var img = source == 0 ? try lp.image.duplicate() : try rgba.duplicate()
                    try ProcessSettings.with(cpuMask: mask) { try img.enhance(mode: mode) }
                    let g = img.plane(0)
                    outs.append(img.withPlane(0) { s in (0..<g.rows).flatMap { y in (0..<g.rowBytes).map { s[y * g.stride + $0] } } })
                }
                let worst = zip(outs[0], outs[1]).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "\(mode) \(source == 0 ? "gray" : "rgba"): \(worst)")
            }
        }
    }

    @Test("results do not depend on the thread count; hostile arguments are refused")
    func threadsAndHostile() throws {
        let lp = try Self.litPage(width: 500, height: 700)
        let img = lp.image
        var outs = [[UInt8]]()
        for t: Int32 in [1, 2, 7] {
            var c = try img.duplicate()
            try ProcessSettings.with(threads: t) { try c.enhance(mode: .bw) }
            outs.append(Self.values(c))
        }
        #expect(outs[0] == outs[1] && outs[1] == outs[2])
        var rgb = try PixelBuffer(width: 20, height: 20, format: .rgb8)
        #expect(throws: ImageError.self) { try rgb.enhance() }
        var g = try img.duplicate()
        #expect(throws: ImageError.self) { try g.enhance(cellSize: 4) }
        #expect(throws: ImageError.self) { try g.enhance(blackWhiteOffset: 300) }
        var o = ic_enhance_options()
        var bytes = 0
        #expect(ic_enhance_scratch_size(500, 700, &o, &bytes) == IC_OK)
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes - 1, alignment: 1)
        defer { small.deallocate() }
        let st = g.withUnsafeMutableImage { ic_enhance_page($0, &o, small.baseAddress, bytes - 1) }
        #expect(st == IC_ERR_BUFFER_TOO_SMALL)
        o.mode = ic_enhance_mode(rawValue: 9)
        #expect(ic_enhance_scratch_size(500, 700, &o, &bytes) == IC_ERR_INVALID_ARGUMENT)
        // tiny images work
        for (w, h) in [(1, 1), (3, 2), (9, 1)] {
            var t = try PixelBuffer(width: w, height: h, format: .nv12)
            try t.fill([100, 90, 160])
            try t.enhance(mode: .color)
            try t.enhance(mode: .bw)
        }
    }
}
