import CImageCore
import CLibJPEG
import CTurboJPEG
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// RGBA8 / RGB8 / GRAY8 decode against libjpeg-turbo's own output, pixel for pixel.
@Suite("JPEG decode: RGB, RGBA, gray")
struct JPEGDecodeTests {
    static let packedFormats: [(ic_format, TJPF, J_COLOR_SPACE)] = [
        (IC_FORMAT_RGBA8, TJPF_RGBA, JCS_EXT_RGBA), (IC_FORMAT_RGB8, TJPF_RGB, JCS_EXT_RGB), (IC_FORMAT_GRAY8, TJPF_GRAY, JCS_GRAYSCALE),
    ]
    static let subsamplings: [TJSAMP] = [TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411, TJSAMP_GRAY]

    /// Compares our decode of `jpeg` with TurboJPEG's (or, where TurboJPEG would pick another
    /// factor for the same output size, libjpeg's own) at every scale, format and flag set.
    static func checkAllScales(_ jpeg: [UInt8], flagSets: [(UInt32, Int32)] = [(0, 0)], label: String) throws {
        let info = try JPEG.info(jpeg)
        for m in 1...8 {
            let (sw, sh) = try JPEG.scaledSize(width: info.width, height: info.height, eighths: m)
            let tjAgrees = JPEGFixtures.tjChosenEighths(width: info.width, height: info.height, scaledWidth: sw, scaledHeight: sh) == m
            for (format, pf, space) in packedFormats {
                for (ours, theirs) in flagSets {
                    let got = JPEGFixtures.decodeGuarded(jpeg, format: format, options: JPEGFixtures.options(scale: m, flags: ours))
                    #expect(got.status == IC_OK, "\(label) \(m)/8 \(format): \(got.status)")
                    guard got.status == IC_OK else { continue }
                    #expect(got.result.width == sw && got.result.height == sh)
                    let reference: [UInt8]?
                    if tjAgrees {
                        reference = JPEGFixtures.tjDecode(jpeg, width: sw, height: sh, pf: pf, flags: theirs)
                    } else {
                        #expect(ours == 0, "libjpeg reference only for default flags")
                        reference = JPEGFixtures.libjpegDecode(jpeg, scale: m, space: space)
                    }
                    #expect(byteDiff(got.planes[0], reference) == "", "\(label) \(m)/8 format \(format.rawValue) flags \(ours)")
                }
            }
        }
    }

    @Test("every subsampling, baseline and progressive, sizes 1x1 to 333x217, every scale, TurboJPEG's flags")
    func matchesTurboJPEG() throws {
        let flags: [(UInt32, Int32)] = [
            (0, 0), (UInt32(IC_JPEG_FAST_UPSAMPLE.rawValue), Int32(TJFLAG_FASTUPSAMPLE)),
            (UInt32(IC_JPEG_FAST_DCT.rawValue), Int32(TJFLAG_FASTDCT)),
        ]
        for (w, h) in [(1, 1), (17, 9), (64, 48), (333, 217)] {
            for s in Self.subsamplings {
                for progressive in [false, true] {
                    let jpeg = JPEGFixtures.photo(width: w, height: h, subsampling: s, progressive: progressive)
                    try Self.checkAllScales(jpeg, flagSets: w == 1 ? [(0, 0)] : flags,
                                            label: "\(w)x\(h) samp \(s.rawValue) prog \(progressive)")
                }
            }
        }
    }

    @Test("an odd 4031x3023 photo, every scale, RGBA")
    func largeOdd() throws {
        let jpeg = JPEGFixtures.largeOdd
        let info = try JPEG.info(jpeg)
        #expect(info.width == 4031 && info.height == 3023)
        for m in 1...8 {
            let (sw, sh) = try JPEG.scaledSize(width: 4031, height: 3023, eighths: m)
            var image = try PixelBuffer(width: sw, height: sh, format: .rgba8)
            try JPEG.decode(jpeg, into: &image, options: .init(scale: .eighths(m)))
            let reference = JPEGFixtures.tjDecode(jpeg, width: sw, height: sh, pf: TJPF_RGBA)
            #expect(byteDiff(JPEGFixtures.packed(image, plane: 0), reference) == "", "4031x3023 at \(m)/8")
        }
    }

    @Test("restart markers and arithmetic coding decode as TurboJPEG does")
    func restartAndArithmetic() throws {
        let (w, h) = (75, 41)
        let px = JPEGFixtures.pixels(width: w, height: h, channels: 3)
        for (restart, arithmetic, progressive) in [(1, false, false), (3, false, false), (2, false, true), (0, true, false), (4, true, true)] {
            let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, sampling: [(2, 2), (1, 1), (1, 1)], progressive: progressive,
                                                  restartInterval: restart, arithmetic: arithmetic), px)
            let info = try JPEG.info(jpeg)
            #expect(info.restartInterval == restart && info.isArithmeticCoded == arithmetic && info.isProgressive == progressive)
            try Self.checkAllScales(jpeg, label: "restart \(restart) arith \(arithmetic)")
        }
    }

    /// The documented CMYK formula in floating point: light = (stored or 255 - stored) / 255.
    static func cmykReference(_ c: UInt8, _ m: UInt8, _ y: UInt8, _ k: UInt8, inverted: Bool) -> (Int, Int, Int) {
        func light(_ v: UInt8) -> Double { inverted ? Double(v) : 255 - Double(v) }
        let kk = light(k) / 255
        return (Int((light(c) * kk).rounded()), Int((light(m) * kk).rounded()), Int((light(y) * kk).rounded()))
    }

    @Test("CMYK and YCCK (Adobe and plain) decode to RGB by the documented formula")
    func cmyk() throws {
        let (w, h) = (37, 23)
        let px = JPEGFixtures.cmykPixels(width: w, height: h)
        let cases: [(J_COLOR_SPACE, Bool?, Bool, String)] = [
            (JCS_CMYK, nil, true, "Adobe CMYK"), (JCS_YCCK, nil, true, "Adobe YCCK"), (JCS_CMYK, false, false, "CMYK without Adobe marker"),
        ]
        for (space, adobe, inverted, label) in cases {
            for progressive in [false, true] {
                let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: space,
                                                      progressive: progressive, adobeMarker: adobe), px)
                let info = try JPEG.info(jpeg)
                #expect(info.components == 4 && info.hasAdobeMarker == inverted, "\(label)")
                #expect(info.colorSpace == (space == JCS_YCCK ? .ycck : .cmyk))
                for m in [8, 4, 3, 1] {
                    let (sw, sh) = try JPEG.scaledSize(width: w, height: h, eighths: m)
                    // TurboJPEG decodes the stored CMYK (it cannot make RGB of it); the formula
                    // applied to those samples in floating point is the reference.
                    let stored = try #require(JPEGFixtures.tjDecode(jpeg, width: sw, height: sh, pf: TJPF_CMYK))
                    // TurboJPEG itself cannot give RGB for these files (libjpeg has no CMYK-to-RGB).
                    #expect(JPEGFixtures.tjDecode(jpeg, width: sw, height: sh, pf: TJPF_RGB) == nil)
                    let rgb = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGB8, options: JPEGFixtures.options(scale: m))
                    let rgba = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_RGBA8, options: JPEGFixtures.options(scale: m))
                    let gray = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_GRAY8, options: JPEGFixtures.options(scale: m))
                    #expect(rgb.status == IC_OK && rgba.status == IC_OK && gray.status == IC_OK, "\(label)")
                    var worst = 0, grayWorst = 0
                    for i in 0..<(sw * sh) {
                        let (r, g, b) = Self.cmykReference(stored[4 * i], stored[4 * i + 1], stored[4 * i + 2], stored[4 * i + 3], inverted: inverted)
                        worst = max(worst, abs(Int(rgb.planes[0][3 * i]) - r), abs(Int(rgb.planes[0][3 * i + 1]) - g), abs(Int(rgb.planes[0][3 * i + 2]) - b))
                        #expect(Array(rgba.planes[0][(4 * i)..<(4 * i + 3)]) == Array(rgb.planes[0][(3 * i)..<(3 * i + 3)]) && rgba.planes[0][4 * i + 3] == 255)
                        let y = (0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b)).rounded()
                        grayWorst = max(grayWorst, abs(Int(gray.planes[0][i]) - Int(y)))
                    }
                    #expect(worst == 0, "\(label) \(m)/8: RGB off the float formula by \(worst)")
                    #expect(grayWorst <= 1, "\(label) \(m)/8: gray off BT.601 luma of the RGB by \(grayWorst)")
                }
                let yuv = JPEGFixtures.decodeGuarded(jpeg, format: IC_FORMAT_I420, options: JPEGFixtures.options())
                #expect(yuv.status == IC_ERR_UNSUPPORTED, "\(label): YUV from CMYK is documented as unsupported")
            }
        }
    }

    @Test("Swift API: new buffer, into a buffer, sizes, orientation, alpha, .fit")
    func swiftAPI() throws {
        let exif = JPEGFixtures.exif(bigEndian: true, entries: [JPEGFixtures.orientationEntry(6, bigEndian: true)])
        let jpeg = JPEGFixtures.insertSegment(JPEGFixtures.photo(width: 120, height: 80), marker: 0xE1, payload: exif)
        let image = try JPEG.decode(jpeg, format: .rgba8, options: .init(scale: .eighths(4)))
        #expect(image.width == 60 && image.height == 40 && image.orientation == .right && image.alphaMode == .opaque)
        let reference = JPEGFixtures.tjDecode(jpeg, width: 60, height: 40, pf: TJPF_RGBA)
        #expect(JPEGFixtures.packed(image, plane: 0) == reference)

        // The same bytes through every input form.
        let viaRaw = try jpeg.withUnsafeBytes { raw throws(ImageError) in JPEGFixtures.packed(try JPEG.decode(raw, format: .rgb8), plane: 0) }
        let viaSpan = try JPEG.decode(jpeg.span.bytes, format: .rgb8)
        #expect(viaRaw == JPEGFixtures.packed(viaSpan, plane: 0))
        #expect(viaRaw == JPEGFixtures.tjDecode(jpeg, width: 120, height: 80, pf: TJPF_RGB))

        var into = try PixelBuffer(width: 120, height: 80, format: .gray8)
        let report = try JPEG.decode(jpeg, into: &into)
        #expect(report.width == 120 && report.orientation == .right && report.warnings == 0 && into.orientation == .right)
        #expect(JPEGFixtures.packed(into, plane: 0) == JPEGFixtures.tjDecode(jpeg, width: 120, height: 80, pf: TJPF_GRAY))

        // Wrong destination sizes are refused before decoding.
        var small = try PixelBuffer(width: 119, height: 80, format: .rgba8)
        #expect(throws: ImageError.self) { try JPEG.decode(jpeg, into: &small) }
        do { try JPEG.decode(jpeg, into: &small); Issue.record("accepted") } catch { #expect(error.code == .bufferTooSmall) }
        var big = try PixelBuffer(width: 121, height: 80, format: .rgba8)
        do { try JPEG.decode(jpeg, into: &big); Issue.record("accepted") } catch { #expect(error.code == .invalidArgument) }

        // .fit picks the smallest covering eighth; minResidual leaves a factor for a resize.
        #expect(try JPEG.decodedSize(jpeg, options: .init(scale: .fit(width: 30, height: 0))) == (30, 20))
        #expect(try JPEG.decodedSize(jpeg, options: .init(scale: .fit(width: 30, height: 0, minResidual: 2))) == (60, 40))
        #expect(try JPEG.decodedSize(jpeg, options: .init(scale: .fit(width: 500, height: 500))) == (120, 80))
        do { _ = try JPEG.decode(jpeg, options: .init(scale: .eighths(9))); Issue.record("9/8 accepted") }
        catch { #expect(error.code == .invalidArgument) }
    }

    @Test("scale helpers: libjpeg's rounding, smallest covering factor, residual factor")
    func scaleHelpers() throws {
        for (w, h) in [(1, 1), (17, 9), (4031, 3023), (65535, 3)] {
            for m in 1...8 {
                let s = try JPEG.scaledSize(width: w, height: h, eighths: m)
                #expect(s.width == (w * m + 7) / 8 && s.height == (h * m + 7) / 8)
            }
        }
        for (w, h, tw, th, r) in [(4032, 3024, 256, 256, 1.0), (4032, 3024, 256, 256, 2.0), (4032, 3024, 1000, 0, 1.0),
                                  (4032, 3024, 0, 3024, 1.0), (4032, 3024, 5000, 5000, 1.0), (100, 100, 13, 13, 1.0), (100, 100, 12, 12, 1.0)] {
            let m = try JPEG.pickScale(width: w, height: h, targetWidth: tw, targetHeight: th, minResidual: r)
            // The picked factor covers the target (or is 8/8), and the next smaller one does not.
            let s = try JPEG.scaledSize(width: w, height: h, eighths: m)
            let covers = { (sw: Int, sh: Int) in Double(sw) >= Double(tw) * r && Double(sh) >= Double(th) * r }
            #expect(m == 8 || covers(s.width, s.height))
            if m > 1 {
                let t = try JPEG.scaledSize(width: w, height: h, eighths: m - 1)
                #expect(!covers(t.width, t.height), "\(w)x\(h) → \(tw)x\(th)×\(r): \(m - 1)/8 would do")
            }
        }
        #expect(try JPEG.pickScale(width: 4032, height: 3024, targetWidth: 256, targetHeight: 256) == 1)
        #expect(try JPEG.pickScale(width: 4032, height: 3024, targetWidth: 256, targetHeight: 256, minResidual: 2) == 2)
        #expect(try JPEG.pickScale(width: 4032, height: 3024, targetWidth: 1008, targetHeight: 756, minResidual: .nan) == 2)
        for bad in [(0, 10, 5, 5), (10, 10, -1, 5), (10, 10, 0, 0)] {
            #expect(throws: ImageError.self) { _ = try JPEG.pickScale(width: bad.0, height: bad.1, targetWidth: bad.2, targetHeight: bad.3) }
        }
    }
}

extension JPEGFixtures {
    /// A 4031 x 3023 4:2:0 JPEG (odd in both directions, like a cropped phone photo), made once:
    /// gradients, a hashed texture and hard edges, generated with a tight loop because the
    /// synthetic photo is slow in debug builds at this size.
    static let largeOdd: [UInt8] = {
        let (w, h) = (4031, 3023)
        var px = [UInt8](repeating: 0, count: w * h * 3)
        px.withUnsafeMutableBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    let i = (y * w + x) * 3
                    let t = UInt32(truncatingIfNeeded: (x &* 2_654_435_761) ^ (y &* 40_503)) >> 27 // 0…31
                    let edge = (x / 97 + y / 61) % 5 == 0 ? 60 : 0
                    p[i] = UInt8(truncatingIfNeeded: x / 16 + Int(t) + edge)
                    p[i + 1] = UInt8(truncatingIfNeeded: y / 12 + Int(t))
                    p[i + 2] = UInt8(truncatingIfNeeded: (x + y) / 28 + edge)
                }
            }
        }
        return tjCompress(px, width: w, height: h, pf: TJPF_RGB, subsampling: TJSAMP_420, quality: 85)
    }()
}
