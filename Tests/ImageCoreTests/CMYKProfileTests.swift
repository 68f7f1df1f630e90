import CImageCore
import CLcms2
import CLibJPEG
import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore

/// CMYK and YCCK JPEGs converted to sRGB through their CMYK profile
/// (`ic_jpeg_decode_options.cmyk_profile`, `JPEG.DecodeOptions.cmykProfile`, the CLI by default),
/// against Little CMS's own transform of the same stored samples.
@Suite("JPEG: CMYK through the file's profile")
struct CMYKProfileTests {
    /// A real CMYK output profile from a Debian package `make test` installs (libgs-common,
    /// scripts/deps.sh): Ghostscript's default CMYK profile.
    static let profilePath = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    static func profile() throws -> [UInt8] {
        let bytes = try #require(FileManager.default.contents(atPath: profilePath), "\(profilePath): install libgs-common (scripts/deps.sh)")
        return [UInt8](bytes)
    }

    /// The profile as APP2 "ICC_PROFILE" chunks (65 519 bytes of profile each).
    static func iccMarkers(_ icc: [UInt8]) -> [(Int32, [UInt8])] {
        let chunk = 65_519
        let count = (icc.count + chunk - 1) / chunk
        return (0..<count).map { i in
            let part = icc[(i * chunk)..<min(icc.count, (i + 1) * chunk)]
            return (Int32(JPEG_APP0 + 2), Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(count)] + part)
        }
    }

    /// Little CMS's transform of stored CMYK samples (inverted: Adobe storage) to sRGB RGB8,
    /// perceptual, default flags: what jpgicc runs.
    static func lcms(_ icc: [UInt8], _ cmyk: [UInt8], inverted: Bool) throws -> [UInt8] {
        let input = try #require(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        let srgb = cmsCreate_sRGBProfile()
        defer { cmsCloseProfile(input); cmsCloseProfile(srgb) }
        // TYPE_CMYK_8 = COLORSPACE_SH(PT_CMYK) | CHANNELS_SH(4) | BYTES_SH(1); _REV adds FLAVOR_SH(1).
        let cmyk8: cmsUInt32Number = (6 << 16) | (4 << 3) | 1
        let rgb8: cmsUInt32Number = (4 << 16) | (3 << 3) | 1
        let t = try #require(cmsCreateTransform(input, inverted ? cmyk8 | (1 << 13) : cmyk8, srgb, rgb8, 0, 0))
        defer { cmsDeleteTransform(t) }
        var out = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
        cmyk.withUnsafeBytes { src in out.withUnsafeMutableBytes { dst in
            cmsDoTransform(t, src.baseAddress, dst.baseAddress, cmsUInt32Number(cmyk.count / 4))
        } }
        return out
    }

    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let sum: Int = 9798 * Int(r) + 19235 * Int(g) + 3735 * Int(b) + 16384
        return UInt8(sum >> 15)
    }

    @Test("Adobe CMYK, Adobe YCCK and plain CMYK: RGB8 / RGBA8 equal Little CMS's transform, GRAY8 its luma; progressive and scaled too")
    func matchesLittleCMS() throws {
        let icc = try Self.profile()
        #expect(String(decoding: icc[16..<20], as: UTF8.self) == "CMYK")
        let (w, h) = (53, 29)
        let px = JPEGFixtures.cmykPixels(width: w, height: h)
        let cases: [(J_COLOR_SPACE, Bool?, Bool, String)] = [
            (JCS_CMYK, nil, true, "Adobe CMYK"), (JCS_YCCK, nil, true, "Adobe YCCK"), (JCS_CMYK, false, false, "CMYK without Adobe marker"),
        ]
        for (space, adobe, inverted, label) in cases {
            for (progressive, scale) in [(false, 8), (true, 8), (false, 4)] {
                let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: space,
                                                      progressive: progressive, adobeMarker: adobe, markers: Self.iccMarkers(icc)), px)
                #expect(try JPEG.iccProfile(jpeg) == icc)
                let (sw, sh) = try JPEG.scaledSize(width: w, height: h, eighths: scale)
                let stored = try #require(JPEGFixtures.tjDecode(jpeg, width: sw, height: sh, pf: TJPF_CMYK))
                let reference = try Self.lcms(icc, stored, inverted: inverted)
                var options = JPEG.DecodeOptions(scale: .eighths(scale))
                options.cmykProfile = icc
                let rgb = JPEGFixtures.packed(try JPEG.decode(jpeg, format: .rgb8, options: options), plane: 0)
                #expect(rgb == reference, "\(label) \(scale)/8 progressive \(progressive)")
                let rgba = JPEGFixtures.packed(try JPEG.decode(jpeg, format: .rgba8, options: options), plane: 0)
                var expectedRGBA: [UInt8] = []
                for i in 0..<(sw * sh) { expectedRGBA += reference[(3 * i)..<(3 * i + 3)]; expectedRGBA.append(255) }
                #expect(rgba == expectedRGBA, "\(label): RGBA is the RGB with opaque alpha")
                let gray = JPEGFixtures.packed(try JPEG.decode(jpeg, format: .gray8, options: options), plane: 0)
                #expect(gray == (0..<(sw * sh)).map { Self.luma(reference[3 * $0], reference[3 * $0 + 1], reference[3 * $0 + 2]) }, "\(label) gray")
                // Without the profile: the formula, which is far from the profile's colours.
                let formula = JPEGFixtures.packed(try JPEG.decode(jpeg, format: .rgb8, options: .init(scale: .eighths(scale))), plane: 0)
                let mean = zip(formula, reference).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(formula.count)
                #expect(mean > 5, "\(label): the profile changes the colours (mean difference \(mean))")
                // Streamed bands give the same pixels.
                var streamed: [UInt8] = []
                try JPEG.decodeStream(jpeg, format: .rgb8, options: options) { (band: borrowing JPEG.Band) throws(ImageError) in
                    let stride = band.plane(0).stride
                    band.withPlane(0) { (s: Span<UInt8>) in
                        for r in 0..<band.rowCount { for x in 0..<(sw * 3) { streamed.append(s[r * stride + x]) } }
                    }
                }
                #expect(streamed == reference, "\(label): stream")
            }
        }
    }

    @Test("a profile that is not CMYK, or not a profile, is a typed error; RGB files ignore the option")
    func badProfiles() throws {
        let (w, h) = (16, 16)
        let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: JCS_CMYK),
                                        JPEGFixtures.cmykPixels(width: w, height: h))
        var options = JPEG.DecodeOptions()
        options.cmykProfile = ColorProfileTests.displayP3()
        let notCMYK = #expect(throws: ImageError.self) { _ = try JPEG.decode(jpeg, format: .rgb8, options: options) }
        #expect(notCMYK?.code == .unsupported && (notCMYK?.detail ?? "").contains("not CMYK"), "\(String(describing: notCMYK))")
        options.cmykProfile = [UInt8](repeating: 7, count: 300)
        let garbage = #expect(throws: ImageError.self) { _ = try JPEG.decode(jpeg, format: .rgb8, options: options) }
        #expect(garbage?.code == .corruptData && (garbage?.detail ?? "").contains("CMYK profile"), "\(String(describing: garbage))")
        let rgb = JPEGFixtures.photo(width: 40, height: 30)
        options.cmykProfile = try Self.profile()
        #expect(JPEGFixtures.packed(try JPEG.decode(rgb, format: .rgb8, options: options), plane: 0)
                == JPEGFixtures.packed(try JPEG.decode(rgb, format: .rgb8), plane: 0))
    }

    @Test("CLI: a CMYK JPEG with its profile converts through it by default (convert to PNG), no CMYK profile written")
    func cli() throws {
        let icc = try Self.profile()
        let (w, h) = (40, 24)
        let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: JCS_YCCK,
                                              markers: Self.iccMarkers(icc)), JPEGFixtures.cmykPixels(width: w, height: h))
        let dir = try PipelineCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("cmyk.jpg").path, output = dir.appendingPathComponent("out.png").path
        try Data(jpeg).write(to: URL(fileURLWithPath: input))
        let r = try CLITests.run(["convert", input, output])
        #expect(r.status == 0, "\(r.stderr)")
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(try PNG.iccProfile(png) == nil, "the CMYK profile is not carried: the pixels are sRGB now")
        let stored = try #require(JPEGFixtures.tjDecode(jpeg, width: w, height: h, pf: TJPF_CMYK))
        let reference = try Self.lcms(icc, stored, inverted: true)
        let out = JPEGFixtures.packed(try PNG.decode(png, format: .rgb8), plane: 0)
        #expect(out == reference)
    }

    @Test("thumbnails: Thumbnailer, the renderer's decoder and the CLI's thumbnail (read whole, and streamed from the descriptor above 128 KiB) convert through the profile (== profile decode + resize)",
          arguments: [(320, 200), (1400, 1000)])
    func thumbnails(w: Int, h: Int) throws {
        let icc = try Self.profile()
        let jpeg = JPEGFixtures.libjpeg(.init(width: w, height: h, inputComponents: 4, inputSpace: JCS_CMYK, jpegSpace: JCS_YCCK,
                                              markers: Self.iccMarkers(icc)), JPEGFixtures.cmykPixels(width: w, height: h))
        var limits = JPEG.DecodeOptions()
        limits.cmykProfile = icc
        let t = try Thumbnailer.thumbnail(jpeg, maxWidth: 64, maxHeight: 64, format: .rgba8, limits: limits)
        let scale = t.scale
        // Reference: the profile decode at the thumbnail's scale, resized (Lanczos-3) in one shot.
        var o = limits
        o.scale = .eighths(scale)
        let decoded = try JPEG.decode(jpeg, format: .rgba8, options: o)
        let image = t.take()
        let reference = try decoded.resized(width: image.width, height: image.height)
        #expect(JPEGFixtures.packed(image, plane: 0) == JPEGFixtures.packed(reference, plane: 0))
        // Without the profile the thumbnail differs: the option reached the decode.
        let formula = try Thumbnailer.thumbnail(jpeg, maxWidth: 64, maxHeight: 64, format: .rgba8).take()
        #expect(JPEGFixtures.packed(formula, plane: 0) != JPEGFixtures.packed(image, plane: 0))
        // The renderer's decoder finds the photo's own profile.
        let r = try JPEGThumbnailDecoder(useEmbeddedThumbnails: false).thumbnail(from: jpeg.span.bytes, maxPixelSize: 64)
        #expect(JPEGFixtures.packed(r, plane: 0) == JPEGFixtures.packed(image, plane: 0))
        // The CLI's thumbnail as PNG (the larger file is over ImageFiles.headerBytes: streamed).
        #expect(w < 1000 || jpeg.count > 128 << 10, "\(jpeg.count) bytes")
        let dir = try PipelineCLITests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("cmyk.jpg").path, output = dir.appendingPathComponent("t.png").path
        try Data(jpeg).write(to: URL(fileURLWithPath: input))
        let c = try CLITests.run(["thumbnail", input, "--size", "64", "-o", output])
        #expect(c.status == 0, "\(c.stderr)")
        let png = try PNG.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))), format: .rgba8)
        #expect(JPEGFixtures.packed(png, plane: 0) == JPEGFixtures.packed(image, plane: 0))
    }
}
