import CLibJPEG
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// One component's DCT coefficients as libjpeg reads them (`jpeg_read_coefficients`),
/// dequantized (coefficient × its quantization step, natural order), so files whose tables a
/// transform transposed compare directly.
struct Coefficients: Equatable {
    var widthInBlocks: Int
    var heightInBlocks: Int
    var values: [Int32] // block-row-major, 64 per block

    func block(_ bx: Int, _ by: Int) -> ArraySlice<Int32> {
        let i = (by * widthInBlocks + bx) * 64
        return values[i..<i + 64]
    }

    static func read(_ jpeg: [UInt8]) -> [Coefficients] {
        return JPEGFixtures.withLibjpegDecompressor(jpeg) { cinfo -> [Coefficients] in
            _ = jpeg_read_header(cinfo, 1)
            guard let arrays = jpeg_read_coefficients(cinfo) else { return [] }
            var out: [Coefficients] = []
            for ci in 0..<Int(cinfo.pointee.num_components) {
                let comp = cinfo.pointee.comp_info[ci]
                let wb = Int(comp.width_in_blocks), hb = Int(comp.height_in_blocks)
                let q = withUnsafeBytes(of: comp.quant_table.pointee.quantval) { Array($0.bindMemory(to: UInt16.self)) }
                var values = [Int32](repeating: 0, count: wb * hb * 64)
                for by in 0..<hb {
                    let rows = cinfo.pointee.mem.pointee.access_virt_barray(UnsafeMutablePointer(OpaquePointer(cinfo)), arrays[ci], JDIMENSION(by), 1, 0)!
                    let row = rows[0]!
                    for bx in 0..<wb {
                        withUnsafeBytes(of: row[bx]) { raw in
                            let c = raw.bindMemory(to: Int16.self)
                            for k in 0..<64 { values[(by * wb + bx) * 64 + k] = Int32(c[k]) * Int32(q[k]) }
                        }
                    }
                }
                out.append(Coefficients(widthInBlocks: wb, heightInBlocks: hb, values: values))
            }
            jpeg_finish_decompress(cinfo)
            return out
        }
    }

    /// What orientation `o` does to these coefficients, restricted to the first `keptWidth` ×
    /// `keptHeight` blocks: blocks move as pixels do (`o` on the block grid), and inside a block
    /// a transpose swaps the frequencies u, v and a mirror negates the odd ones of its axis.
    func transformed(_ o: Orientation, keptWidth w: Int, keptHeight h: Int) -> Coefficients {
        let (ow, oh) = o.displaySize(width: w, height: h)
        var values = [Int32](repeating: 0, count: ow * oh * 64)
        let transposes = o.swapsDimensions
        // After the transpose (if any): mirror left-right / top-bottom in the output frame.
        let (mx, my): (Bool, Bool) = switch o {
        case .up: (false, false)
        case .upMirrored: (true, false)
        case .down: (true, true)
        case .downMirrored: (false, true)
        case .leftMirrored: (false, false)
        case .right: (true, false)
        case .rightMirrored: (true, true)
        case .left: (false, true)
        }
        for by in 0..<h { for bx in 0..<w {
            var (x, y) = transposes ? (by, bx) : (bx, by)
            if mx { x = ow - 1 - x }
            if my { y = oh - 1 - y }
            let src = block(bx, by)
            for u in 0..<8 { for v in 0..<8 {
                var c = transposes ? src[src.startIndex + v * 8 + u] : src[src.startIndex + u * 8 + v]
                if mx && v % 2 == 1 { c = -c }
                if my && u % 2 == 1 { c = -c }
                values[(y * ow + x) * 64 + u * 8 + v] = c
            } }
        } }
        return Coefficients(widthInBlocks: ow, heightInBlocks: oh, values: values)
    }
}

/// `JPEG.transform` / `ic_jpeg_transform` (lossless rotate through tjTransform) and
/// `imagecore rotate --lossless`.
@Suite("JPEG lossless transform")
struct JPEGTransformTests {
    static func source(width: Int, height: Int, subsampling: JPEG.Subsampling, progressive: Bool = false,
                       orientation: Orientation? = nil, icc: [UInt8]? = nil) throws -> [UInt8] {
        var img = try SyntheticImage.photo(width: width, height: height, format: subsampling == .gray ? .gray8 : .rgba8, seed: 9)
        img.orientation = .up
        return try JPEG.encode(img, options: .init(quality: 90, subsampling: subsampling == .gray ? nil : subsampling,
                                                   progressive: progressive, orientation: orientation, iccProfile: icc))
    }

    /// The decoded pixels, packed, as RGBA8 (or GRAY8 for gray), in stored orientation.
    static func decoded(_ jpeg: [UInt8], gray: Bool) throws -> PixelBuffer {
        var o = JPEG.DecodeOptions()
        o.strict = true
        var image = try JPEG.decode(jpeg, format: gray ? .gray8 : .rgba8, options: o)
        image.orientation = .up
        return image
    }

    @Test("perfect sizes: every orientation moves the coefficients exactly (lossless); the decode is the turned decode within the IDCT's rounding",
          arguments: [(JPEG.Subsampling.s444, 64, 40, false), (.s420, 96, 64, false), (.gray, 40, 24, false),
                      (.s422, 48, 32, true), (.s440, 32, 48, false)])
    func perfect(subsampling: JPEG.Subsampling, width: Int, height: Int, progressive: Bool) throws {
        let src = try Self.source(width: width, height: height, subsampling: subsampling, progressive: progressive)
        let gray = subsampling == .gray
        let reference = try Self.decoded(src, gray: gray)
        for o in Orientation.allCases {
            let t = try JPEG.transform(src, options: .init(orientation: o))
            let expected = try reference.applying(o)
            #expect(t.width == expected.width && t.height == expected.height && t.droppedColumns == 0 && t.droppedRows == 0)
            let info = try JPEG.info(t.jpeg)
            #expect(info.isProgressive == progressive, "\(o): progressive kept")
            // Lossless: every component's coefficients are the source's, moved and sign-flipped.
            let before = Coefficients.read(src), after = Coefficients.read(t.jpeg)
            #expect(before.count == (gray ? 1 : 3) && after.count == before.count)
            for (b, a) in zip(before, after) {
                #expect(a == b.transformed(o, keptWidth: b.widthInBlocks, keptHeight: b.heightInBlocks), "\(subsampling) \(o)")
            }
            // Pixels: libjpeg's integer IDCT rounds (x + 2^(n-1)) >> n, which is not symmetric under
            // the sign flips of a mirror nor exact under a transpose (rows and columns are passed in
            // the other order), so the decode of the turned file may differ from the turned decode
            // by a level or two; that is decoding, not the file.
            let out = try Self.decoded(t.jpeg, gray: gray)
            let a = JPEGFixtures.packed(out, plane: 0), b = JPEGFixtures.packed(expected, plane: 0)
            let diff = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(a.count == b.count && diff <= 3, "\(subsampling) \(o): max difference \(diff)")
        }
    }

    @Test("a moved edge shorter than one iMCU is refused, trim or not (found by jpeg_fuzz: the trim would leave nothing)")
    func smallerThanOneIMCU() throws {
        let src = try Self.source(width: 16, height: 12, subsampling: .s420) // one 16x16 iMCU, 12 rows high
        for o in Orientation.allCases {
            let movesBottom = [3, 4, 6, 7].contains(o.exifValue)
            for trim in [false, true] {
                do {
                    let t = try JPEG.transform(src, options: .init(orientation: o, trim: trim))
                    #expect(!movesBottom, "\(o) trim \(trim) should be refused")
                    #expect(t.width == o.displaySize(width: 16, height: 12).width && t.height == o.displaySize(width: 16, height: 12).height)
                } catch {
                    #expect(movesBottom && error.code == .unsupported && (error.detail ?? "").contains("shorter than one 16x16 iMCU"),
                            "\(o) trim \(trim): \(error)")
                }
            }
        }
    }

    @Test("odd sizes: moved partial iMCUs refused (typed, what a trim drops in the detail); --trim drops exactly those edges",
          arguments: [(JPEG.Subsampling.s420, 67, 45), (.s444, 61, 30), (.s422, 50, 21)])
    func imperfect(subsampling: JPEG.Subsampling, width: Int, height: Int) throws {
        let src = try Self.source(width: width, height: height, subsampling: subsampling)
        let reference = try Self.decoded(src, gray: false)
        let (iw, ih) = subsampling == .s420 ? (16, 16) : subsampling == .s422 ? (16, 8) : (8, 8)
        for o in Orientation.allCases {
            let movesRight = [2, 3, 7, 8].contains(o.exifValue), movesBottom = [3, 4, 6, 7].contains(o.exifValue)
            let dc = movesRight ? width % iw : 0, dr = movesBottom ? height % ih : 0
            if dc > 0 || dr > 0 {
                do {
                    _ = try JPEG.transform(src, options: .init(orientation: o))
                    Issue.record("\(o) of \(width)x\(height) \(subsampling) should be refused")
                } catch {
                    #expect(error.code == .unsupported && (error.detail ?? "").contains("trim drops \(dc) right columns, \(dr) bottom rows"),
                            "\(error)")
                }
            }
            let t = try JPEG.transform(src, options: .init(orientation: o, trim: true))
            #expect(t.droppedColumns == dc && t.droppedRows == dr && t.imcuWidth == iw && t.imcuHeight == ih)
            #expect(t.width == o.displaySize(width: width - dc, height: height - dr).width
                    && t.height == o.displaySize(width: width - dc, height: height - dr).height, "\(o)")
            // The kept blocks' coefficients, moved: the trim drops the partial iMCUs and nothing else.
            let before = Coefficients.read(src), after = Coefficients.read(t.jpeg)
            #expect(before.count == 3 && after.count == 3)
            for (ci, (b, a)) in zip(before, after).enumerated() {
                let (hs, vs) = ci == 0 ? (iw / 8, ih / 8) : (1, 1) // chroma blocks per iMCU
                let kw = dc > 0 ? (width - dc) / iw * hs : b.widthInBlocks
                let kh = dr > 0 ? (height - dr) / ih * vs : b.heightInBlocks
                #expect(a == b.transformed(o, keptWidth: kw, keptHeight: kh), "\(subsampling) \(o) component \(ci)")
            }
            // Pixels of the kept region, turned back: within the IDCT's rounding (see `perfect`) away
            // from a cut edge, where chroma upsampling no longer sees the dropped samples.
            let back = try Self.decoded(t.jpeg, gray: false).applying(o.inverse)
            let kw = width - dc, kh = height - dr
            #expect(back.width == kw && back.height == kh)
            let px = JPEGFixtures.packed(back, plane: 0), ref = JPEGFixtures.packed(reference, plane: 0)
            let mx = dc > 0 ? kw - 2 : kw, my = dr > 0 ? kh - 2 : kh
            var diff = 0
            for y in 0..<my { for x in 0..<mx * 4 { diff = max(diff, abs(Int(px[y * kw * 4 + x]) - Int(ref[y * width * 4 + x]))) } }
            #expect(diff <= 3, "\(subsampling) \(o): max difference \(diff) in the kept region")
        }
    }

    @Test("EXIF and ICC markers copied, orientation tag rewritten in place; hostile input refused without a crash")
    func markersAndHostile() throws {
        let icc = ICCTests.profile(3000)
        let src = try Self.source(width: 64, height: 48, subsampling: .s420, orientation: .right, icc: icc)
        #expect(try JPEG.info(src).orientation == .right)
        let t = try JPEG.transform(src, options: .init(orientation: .right, exifOrientation: .up))
        #expect(t.exifRewritten && t.width == 48 && t.height == 64)
        #expect(try JPEG.info(t.jpeg).orientation == .up)
        #expect(try JPEG.iccProfile(t.jpeg) == icc)
        // Everything but the tag's value is the source's EXIF.
        let a = try JPEG.info(src), b = try JPEG.info(t.jpeg)
        let ea = Array(src[a.exifRange!]), eb = Array(t.jpeg[b.exifRange!])
        #expect(ea.count == eb.count && zip(ea, eb).filter { $0 != $1 }.count == 1, "only the tag's value byte differs")
        // Hostile: cuts, flips, limits.
        var rng = SystemRandomNumberGenerator()
        for cut in [0, 2, 20, src.count / 3, src.count - 2] {
            #expect(throws: ImageError.self) { _ = try JPEG.transform(Array(src.prefix(cut)), options: .init(orientation: .right)) }
        }
        for _ in 0..<200 {
            var bad = src
            for _ in 0..<4 { bad[Int.random(in: 2..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            do { _ = try JPEG.transform(bad, options: .init(orientation: .left, trim: true)) } catch {
                #expect([.corruptData, .unsupported, .tooLarge].contains(error.code), "\(error)")
            }
        }
        #expect(throws: ImageError.self) { _ = try JPEG.transform(src, options: .init(orientation: .right, maxPixels: 64 * 48 - 1)) }
        #expect(throws: ImageError.self) { _ = try JPEG.transform(src, options: .init(orientation: .right, maxMemory: 1000)) }
        #expect(throws: ImageError.self) { _ = try JPEG.transform([UInt8](repeating: 0, count: 100), options: .init(orientation: .up)) }
    }

    @Test("CLI rotate --lossless: upright by default (tag 1), --no-auto-orient keeps the displayed picture; odd size needs --trim")
    func cli() throws {
        let dir = try PipelineCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jpg").path, output = dir.appendingPathComponent("out.jpg").path
        let src = try Self.source(width: 64, height: 48, subsampling: .s420, orientation: .right)
        try Data(src).write(to: URL(fileURLWithPath: input))
        let r = try CLITests.run(["rotate", input, output, "--orientation", "3", "--lossless"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(try JPEG.info(out).orientation == .up)
        // The stored 'right' applied, then 180°: the re-encoding path's picture, without its loss.
        let turned = Coefficients.read(src).map { $0.transformed(Orientation.right.followed(by: .down), keptWidth: $0.widthInBlocks,
                                                                 keptHeight: $0.heightInBlocks) }
        #expect(Coefficients.read(out) == turned)
        // --no-auto-orient: only the 180° turn; the tag stays 'right' (displayed picture turned 180°).
        let k = try CLITests.run(["rotate", input, output, "--orientation", "3", "--lossless", "--no-auto-orient"])
        #expect(k.status == 0, "\(k.stderr)")
        let kept = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(try JPEG.info(kept).orientation == Orientation.down.inverse.followed(by: .right).followed(by: .down))
        // Odd size: refused with a message naming --trim, no output left; --trim reports the cut.
        let odd = dir.appendingPathComponent("odd.jpg").path, oddOut = dir.appendingPathComponent("odd-out.jpg").path
        try Data(try Self.source(width: 67, height: 45, subsampling: .s420)).write(to: URL(fileURLWithPath: odd))
        let refused = try CLITests.run(["rotate", odd, oddOut, "--orientation", "6", "--lossless"])
        #expect(refused.status != 0 && refused.stderr.contains("trim drops 0 right columns, 13 bottom rows"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: oddOut))
        let trimmed = try CLITests.run(["rotate", odd, oddOut, "--orientation", "6", "--lossless", "--trim"])
        #expect(trimmed.status == 0 && trimmed.stdout.contains("trimmed 0 right columns, 13 bottom rows"), "\(trimmed.stdout)")
        let ti = try JPEG.info([UInt8](try Data(contentsOf: URL(fileURLWithPath: oddOut))))
        #expect(ti.width == 32 && ti.height == 67)
        // Not a JPEG, or a PNG output: a clear refusal.
        let png = dir.appendingPathComponent("a.png").path
        try Data(try PNG.encode(try SyntheticImage.photo(width: 16, height: 16, format: .rgba8, seed: 1))).write(to: URL(fileURLWithPath: png))
        let notJPEG = try CLITests.run(["rotate", png, output, "--orientation", "6", "--lossless"])
        #expect(notJPEG.status != 0 && notJPEG.stderr.contains("--lossless needs a JPEG input"), "\(notJPEG.stderr)")
        let toPNG = try CLITests.run(["rotate", input, dir.appendingPathComponent("b.png").path, "--orientation", "6", "--lossless"])
        #expect(toPNG.status != 0 && toPNG.stderr.contains("--lossless writes .jpg"), "\(toPNG.stderr)")
    }
}
