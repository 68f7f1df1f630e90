import CTurboJPEG
import Testing
@testable import ImageCore
import ImageCoreSynthetic

@Suite("Metadata, JPEG header, synthetic images")
struct MetadataTests {
    @Test("orientation: EXIF values, swapped dimensions")
    func orientation() {
        for o in Orientation.allCases {
            #expect(Orientation(exifValue: o.exifValue) == o)
            #expect(o.swapsDimensions == (o.exifValue >= 5))
            let s = o.displaySize(width: 40, height: 30)
            #expect(o.swapsDimensions ? (s.width == 30 && s.height == 40) : (s.width == 40 && s.height == 30))
        }
        #expect(Orientation(exifValue: 0) == nil && Orientation(exifValue: 9) == nil)
        #expect(Orientation.right.exifValue == 6 && Orientation.left.exifValue == 8)
    }

    /// A JPEG made by libjpeg-turbo itself, the reference for the header reader.
    static func makeJPEG(width: Int, height: Int, subsampling: TJSAMP, gray: Bool = false) -> [UInt8] {
        let channels = gray ? 1 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 7) }
        let h = tjInitCompress()!
        defer { tjDestroy(h) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let rc = tjCompress2(h, pixels, Int32(width), 0, Int32(height), Int32((gray ? TJPF_GRAY : TJPF_RGB).rawValue),
                             &out, &size, Int32(subsampling.rawValue), 90, 0)
        precondition(rc == 0)
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    @Test("JPEG header: size, colour space and subsampling as libjpeg-turbo wrote them")
    func jpegHeader() throws {
        let cases: [(Int, Int, TJSAMP, Bool, JPEG.Subsampling, JPEG.ColorSpace)] = [
            (17, 9, TJSAMP_420, false, .s420, .yCbCr), (1, 1, TJSAMP_444, false, .s444, .yCbCr),
            (33, 20, TJSAMP_422, false, .s422, .yCbCr), (8, 8, TJSAMP_GRAY, true, .gray, .gray),
        ]
        for (w, h, s, gray, sub, cs) in cases {
            let bytes = Self.makeJPEG(width: w, height: h, subsampling: s, gray: gray)
            let header = try JPEG.info(bytes)
            #expect(header.width == w && header.height == h && header.subsampling == sub && header.colorSpace == cs)
        }
    }

    @Test("JPEG header: empty, short, non-JPEG and truncated input are corrupt data")
    func jpegHeaderHostile() {
        let good = Self.makeJPEG(width: 16, height: 16, subsampling: TJSAMP_420)
        for bytes in [[], [0xFF], [0xFF, 0xD8, 0xFF], Array("hello world".utf8), Array(good.prefix(20))] as [[UInt8]] {
            do throws(ImageError) {
                _ = try JPEG.info(bytes)
                Issue.record("accepted \(bytes.count) bytes")
            } catch { #expect(error.code == .corruptData) }
        }
    }

    @Test("synthetic photo: deterministic, varied, opaque")
    func synthetic() throws {
        let a = try SyntheticImage.photo(width: 203, height: 151)
        let b = try SyntheticImage.photo(width: 203, height: 151)
        let c = try SyntheticImage.photo(width: 203, height: 151, seed: 2)
        let g = a.plane(0)
        var histogram = [Int](repeating: 0, count: 256)
        var same = true, differs = false, opaque = true
        a.withPlane(0) { x in b.withPlane(0) { y in c.withPlane(0) { z in
            for r in 0..<g.rows {
                for i in 0..<g.rowBytes {
                    let k = r * g.stride + i
                    if x[k] != y[k] { same = false }
                    if x[k] != z[k] { differs = true }
                    if i % 4 == 3 { opaque = opaque && x[k] == 255 } else { histogram[Int(x[k])] += 1 }
                }
            }
        } } }
        #expect(same && differs && opaque)
        // Photo-like: most of the range is used, no value dominates.
        #expect(histogram.filter { $0 > 0 }.count > 200)
        #expect(histogram.max()! < 203 * 151 * 3 / 20)
        let gray = try SyntheticImage.photo(width: 20, height: 10, format: .gray8)
        #expect(gray.format == .gray8)
        do { _ = try SyntheticImage.photo(width: 4, height: 4, format: .nv12); Issue.record("NV12 accepted") }
        catch { #expect(error.code == .unsupported) }
    }
}
