import CImageCore
import Testing
@testable import ImageCore

/// The reference of ic_image_orient: the source pixel each output pixel copies (the table
/// in rotate.h), applied plane by plane with the plane's element size.
enum RotateReference {
    static let formats = [IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12]

    static func sourcePixel(_ o: Int, _ w: Int, _ h: Int, _ x: Int, _ y: Int) -> (Int, Int) {
        switch o {
        case 1: (x, y)
        case 2: (w - 1 - x, y)
        case 3: (w - 1 - x, h - 1 - y)
        case 4: (x, h - 1 - y)
        case 5: (y, x)
        case 6: (y, h - 1 - x)
        case 7: (w - 1 - y, h - 1 - x)
        default: (w - 1 - y, x)
        }
    }

    static func elementSize(_ f: ic_format, _ p: Int) -> Int {
        switch f {
        case IC_FORMAT_RGB8: 3
        case IC_FORMAT_RGBA8: 4
        case IC_FORMAT_NV12: p == 0 ? 1 : 2
        default: 1
        }
    }

    /// Plane `p` of `src` with orientation `o` applied, packed.
    static func expected(_ src: GuardedImage, _ p: Int, _ o: Int) -> [UInt8] {
        let g = src.plane(p), e = elementSize(src.format, p)
        let pw = g.rowBytes / e, ph = g.rows
        let (ow, oh) = o >= 5 ? (ph, pw) : (pw, ph)
        var out = [UInt8](repeating: 0, count: ow * oh * e)
        out.withUnsafeMutableBufferPointer { d in
            for y in 0..<oh {
                for x in 0..<ow {
                    let (sx, sy) = sourcePixel(o, pw, ph, x, y)
                    for k in 0..<e { d[(y * ow + x) * e + k] = g.data[sy * g.stride + sx * e + k] }
                }
            }
        }
        return out
    }

    static func size(_ o: Int, _ w: Int, _ h: Int) -> (Int, Int) { o >= 5 ? (h, w) : (w, h) }

    /// Applies `o` with the C API into a new guarded image.
    static func orient(_ src: GuardedImage, _ o: Int, padding: Int = 0) -> GuardedImage {
        let (ow, oh) = size(o, Int(src.width), Int(src.height))
        let dst = GuardedImage(src.format, ow, oh, padding: padding)
        var s = src.cValue, d = dst.cValue
        #expect(ic_image_orient(&s, &d, ic_orientation(UInt32(o))) == IC_OK)
        return dst
    }
}

@Suite("Orientation: rotate and flip")
struct RotateTests {
    typealias R = RotateReference

    @Test("every format and orientation against the reference, scalar = AVX2, sizes 1…67, padding, guard pages",
          arguments: RotateReference.formats)
    func reference(format: ic_format) {
        let sizes = KernelSizes.small + (1...67).map { (w: $0, h: 37) }
        var failures = 0
        for (i, size) in sizes.enumerated() {
            let pad = KernelSizes.paddings[i % KernelSizes.paddings.count]
            let src = GuardedImage(format, size.w, size.h, padding: pad)
            src.randomize(seed: UInt64(i))
            for o in 1...8 {
                let (vector, scalar) = scalarAndVector { R.orient(src, o, padding: (pad + o) % 9) }
                let planes = vector.allPlanes()
                let ok = planes.indices.allSatisfy { planes[$0] == R.expected(src, $0, o) }
                let same = planes == scalar.allPlanes()
                if !ok || !same || !vector.paddingUntouched() || !scalar.paddingUntouched() {
                    failures += 1
                    Issue.record("\(format.name) \(size.w)x\(size.h) pad \(pad) orientation \(o): reference \(ok), scalar==vector \(same)")
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("large odd sizes, every orientation", arguments: KernelSizes.large)
    func large(size: (w: Int, h: Int)) {
        for (k, format) in R.formats.enumerated() {
            let src = GuardedImage(format, size.w, size.h, padding: 11)
            src.randomize(seed: UInt64(k + size.w))
            for o in [2, 3, 5, 6, 7, 8] where (o + k) % 2 == 0 || format == IC_FORMAT_NV12 || format == IC_FORMAT_RGBA8 {
                let (vector, scalar) = scalarAndVector { R.orient(src, o, padding: 5) }
                let planes = vector.allPlanes()
                #expect(planes.indices.allSatisfy { planes[$0] == R.expected(src, $0, o) }, "\(format.name) \(size) o\(o)")
                #expect(planes == scalar.allPlanes())
                #expect(vector.paddingUntouched())
            }
        }
    }

    @Test("group laws for every format: four 90° turns, o then o⁻¹, and the composition table")
    func groupLaws() {
        for format in R.formats {
            for (w, h) in [(13, 7), (16, 10), (33, 18), (1, 5)] {
                let src = GuardedImage(format, w, h, padding: 3)
                src.randomize(seed: UInt64(w * h))
                let original = src.allPlanes()
                var turned = src
                for _ in 0..<4 { turned = R.orient(turned, 6) }
                #expect(turned.allPlanes() == original, "\(format.name) \(w)x\(h): four 90° turns")
                var ccw = src
                for _ in 0..<4 { ccw = R.orient(ccw, 8) }
                #expect(ccw.allPlanes() == original)
                for a in 1...8 {
                    let oa = ic_orientation(UInt32(a))
                    let once = R.orient(src, a)
                    #expect(R.orient(once, Int(ic_orientation_inverse(oa).rawValue)).allPlanes() == original,
                            "\(format.name) \(w)x\(h): \(a) then its inverse")
                    for b in 1...8 {
                        let c = Int(ic_orientation_compose(oa, ic_orientation(UInt32(b))).rawValue)
                        #expect(R.orient(once, b).allPlanes() == R.orient(src, c).allPlanes(),
                                "\(format.name) \(w)x\(h): \(a) then \(b) = \(c)")
                    }
                }
            }
        }
    }

    @Test("in place (2, 3, 4 and 1) equals out of place, every format, padding, guard pages")
    func inPlace() {
        let sizes = KernelSizes.small.enumerated().filter { $0.offset % 3 == 0 }.map(\.element) + KernelSizes.large
        for (i, size) in sizes.enumerated() {
            let format = R.formats[i % R.formats.count], pad = KernelSizes.paddings[i % KernelSizes.paddings.count]
            let src = GuardedImage(format, size.w, size.h, padding: pad)
            src.randomize(seed: UInt64(i + 99))
            for o in 1...4 {
                let expected = R.orient(src, o).allPlanes()
                let (vector, scalar) = scalarAndVector { () -> GuardedImage in
                    let img = GuardedImage(format, size.w, size.h, padding: pad)
                    for p in 0..<Int(ic_format_plane_count(format)) { img.load(p, src.packed(p)) }
                    var d = img.cValue
                    #expect(ic_image_orient_in_place(&d, ic_orientation(UInt32(o))) == IC_OK)
                    return img
                }
                #expect(vector.allPlanes() == expected, "\(format.name) \(size) o\(o)")
                #expect(scalar.allPlanes() == expected)
                #expect(vector.paddingUntouched() && scalar.paddingUntouched())
            }
        }
    }

    /// The documented 4:2:0 rule: chroma planes are transformed like the luma, which equals
    /// converting the transformed RGB exactly when every dimension the orientation
    /// reverses is even; otherwise the partial edge block moves to the opposite edge.
    @Test("rotating I420/NV12 vs converting the rotated RGB, odd and even sizes")
    func chromaFollowsRGB() {
        for format in [IC_FORMAT_I420, IC_FORMAT_NV12] {
            for (w, h) in [(10, 6), (11, 6), (10, 7), (11, 7), (1, 1), (67, 34)] {
                let rgb = GuardedImage(IC_FORMAT_RGB8, w, h)
                rgb.randomize(seed: UInt64(w + 3 * h))
                let yuv = GuardedImage(format, w, h)
                var s = rgb.cValue, d = yuv.cValue
                #expect(ic_rgb_to_yuv(&s, &d, IC_YUV_BT601, IC_YUV_RANGE_FULL) == IC_OK)
                for o in 1...8 {
                    let rotatedYUV = R.orient(yuv, o)
                    let rotatedRGB = R.orient(rgb, o)
                    let (ow, oh) = R.size(o, w, h)
                    let converted = GuardedImage(format, ow, oh)
                    var rs = rotatedRGB.cValue, cd = converted.cValue
                    #expect(ic_rgb_to_yuv(&rs, &cd, IC_YUV_BT601, IC_YUV_RANGE_FULL) == IC_OK)
                    #expect(rotatedYUV.packed(0) == converted.packed(0), "luma always follows")
                    let reversesW = [2, 3, 7, 8].contains(o), reversesH = [3, 4, 6, 7].contains(o)
                    let aligned = !(reversesW && w % 2 == 1) && !(reversesH && h % 2 == 1)
                    let sameChroma = rotatedYUV.allPlanes().dropFirst() == converted.allPlanes().dropFirst()
                    if aligned {
                        #expect(sameChroma, "\(format.name) \(w)x\(h) o\(o): chroma should equal the converted rotated RGB")
                    } else if w > 1 && h > 1 {
                        #expect(!sameChroma, "\(format.name) \(w)x\(h) o\(o): the chroma grid is documented to shift")
                    }
                }
            }
        }
    }

    @Test("orientation algebra: C and Swift agree; identity, inverses, associativity")
    func algebra() {
        #expect(ic_orientation_compose(IC_ORIENTATION_INVALID, IC_ORIENTATION_UP) == IC_ORIENTATION_INVALID)
        #expect(ic_orientation_compose(IC_ORIENTATION_UP, ic_orientation(9)) == IC_ORIENTATION_INVALID)
        #expect(ic_orientation_inverse(ic_orientation(0)) == IC_ORIENTATION_INVALID)
        #expect(Orientation.right.inverse == .left && Orientation.left.inverse == .right)
        #expect(Orientation.upMirrored.followed(by: .right) == .rightMirrored)
        #expect(Orientation.right.followed(by: .upMirrored) == .leftMirrored)
        #expect(Orientation.right.followed(by: .right) == .down)
        for a in Orientation.allCases {
            #expect(a.followed(by: .up) == a && Orientation.up.followed(by: a) == a)
            #expect(a.followed(by: a.inverse) == .up && a.inverse.followed(by: a) == .up)
            #expect(a.inverse.inverse == a)
            for b in Orientation.allCases {
                #expect(a.followed(by: b).rawValue == UInt8(ic_orientation_compose(a.cValue, b.cValue).rawValue))
                for c in Orientation.allCases {
                    #expect(a.followed(by: b).followed(by: c) == a.followed(by: b.followed(by: c)))
                }
            }
            var w: Int32 = 0, h: Int32 = 0
            #expect(ic_oriented_size(a.cValue, 640, 480, &w, &h) == IC_OK)
            let (sw, sh) = a.displaySize(width: 640, height: 480)
            #expect(Int(w) == sw && Int(h) == sh)
        }
        var w: Int32 = 0, h: Int32 = 0
        #expect(ic_oriented_size(ic_orientation(9), 4, 4, &w, &h) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_oriented_size(IC_ORIENTATION_RIGHT, 0, 4, &w, &h) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_oriented_size(IC_ORIENTATION_RIGHT, 70000, 4, &w, &h) == IC_ERR_TOO_LARGE)
        #expect(ic_oriented_size(IC_ORIENTATION_RIGHT, 4, 4, nil, &h) == IC_ERR_INVALID_ARGUMENT)
    }

    @Test("errors: size and format mismatch, overlap, bad orientation, in place 5…8")
    func errors() {
        let src = GuardedImage(IC_FORMAT_RGBA8, 8, 6), same = GuardedImage(IC_FORMAT_RGBA8, 8, 6)
        let turned = GuardedImage(IC_FORMAT_RGBA8, 6, 8), gray = GuardedImage(IC_FORMAT_GRAY8, 6, 8)
        var s = src.cValue, sm = same.cValue, t = turned.cValue, g = gray.cValue
        #expect(ic_image_orient(&s, &sm, IC_ORIENTATION_RIGHT) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient(&s, &t, IC_ORIENTATION_DOWN) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient(&s, &g, IC_ORIENTATION_RIGHT) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient(&s, &sm, ic_orientation(0)) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient(&s, &sm, ic_orientation(9)) == IC_ERR_INVALID_ARGUMENT)
        var alias = s
        #expect(ic_image_orient(&s, &alias, IC_ORIENTATION_DOWN) == IC_ERR_INVALID_ARGUMENT, "overlapping planes")
        var shifted = s
        shifted.planes.0.data += 4 // overlaps the source by all but one pixel
        shifted.width = 7
        var narrow = s
        narrow.width = 7
        #expect(ic_image_orient(&narrow, &shifted, IC_ORIENTATION_UP_MIRRORED) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient(nil, &sm, IC_ORIENTATION_UP) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient_in_place(&s, IC_ORIENTATION_RIGHT) == IC_ERR_UNSUPPORTED)
        #expect(ic_image_orient_in_place(&s, ic_orientation(0)) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_image_orient_in_place(nil, IC_ORIENTATION_DOWN) == IC_ERR_INVALID_ARGUMENT)
    }

    @Test("Swift API: applying, apply(into:), in place, upright, metadata")
    func swiftAPI() throws {
        var image = try PixelBuffer(width: 21, height: 10, format: .nv12, orientation: .up)
        image.withMutablePlane(0) { span in for i in span.indices { span[i] = UInt8(truncatingIfNeeded: i &* 7) } }
        image.withMutablePlane(1) { span in for i in span.indices { span[i] = UInt8(truncatingIfNeeded: i &* 13) } }
        let turned = try image.applying(.right)
        #expect(turned.width == 10 && turned.height == 21 && turned.orientation == .up)
        var into = try PixelBuffer(width: 10, height: 21, format: .nv12)
        try image.apply(.right, into: &into)
        for p in 0..<2 { #expect(into.packedPlane(p) == turned.packedPlane(p)) }
        // In place equals out of place; 5...8 refuse.
        for t in [Orientation.upMirrored, .down, .downMirrored] {
            var copy = try image.duplicate()
            try copy.apply(t)
            let out = try image.applying(t)
            for p in 0..<2 { #expect(copy.packedPlane(p) == out.packedPlane(p)) }
        }
        do {
            try image.apply(.left)
            Issue.record("in-place 90° accepted")
        } catch {
            #expect(error.code == .unsupported)
        }
        do {
            var wrong = try PixelBuffer(width: 21, height: 10, format: .nv12)
            try image.apply(.right, into: &wrong)
            Issue.record("wrong destination size accepted")
        } catch {
            #expect(error.code == .invalidArgument)
        }
        // Metadata: transforming the pixels transforms the displayed picture, whatever the
        // stored orientation; upright() bakes the orientation in.
        for o in Orientation.allCases {
            image.orientation = o
            let upright = try image.upright()
            #expect(upright.orientation == .up)
            let (dw, dh) = o.displaySize(width: 21, height: 10)
            #expect(upright.width == dw && upright.height == dh)
            for t in Orientation.allCases {
                let a = try image.applying(t).upright(), b = try upright.applying(t)
                #expect(a.width == b.width && a.packedPlane(0) == b.packedPlane(0) && a.packedPlane(1) == b.packedPlane(1), "stored \(o), transform \(t)")
            }
        }
    }
}
