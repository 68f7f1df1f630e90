import CImageCore
import CLcms2
import Foundation
import Testing
@testable import ImageCore

/// Conversion to sRGB against Little CMS's own transform of the same pixels, with a Display P3
/// profile made by Little CMS in the test (P3 primaries, D65, the sRGB tone curve).
@Suite("ICC conversion to sRGB")
struct ColorProfileTests {
    /// Display P3 as an ICC profile: DCI-P3 primaries with the D65 white point and the sRGB
    /// transfer curve (parametric type 4), saved to bytes by Little CMS.
    static func displayP3() -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1),
                                        Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
                                        Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        let params: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = params.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) }!
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }!
        defer { cmsCloseProfile(profile) }
        var size: UInt32 = 0
        _ = cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        _ = cmsSaveProfileToMem(profile, &bytes, &size)
        return bytes
    }

    /// Little CMS's own transform (default flags, one call over packed rows): what tificc does.
    static func lcms(_ icc: [UInt8], _ pixels: [UInt8], channels: Int, intent: UInt32 = 0) -> [UInt8] {
        let input = icc.withUnsafeBufferPointer { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }!
        let srgb = cmsCreate_sRGBProfile()!
        defer { cmsCloseProfile(input); cmsCloseProfile(srgb) }
        let type: UInt32 = channels == 4 ? UInt32((4 << 16) | (3 << 3) | 1 | (1 << 7)) : UInt32((4 << 16) | (3 << 3) | 1)
        // TYPE_RGBA_8 = COLORSPACE_SH(PT_RGB) | EXTRA_SH(1) | CHANNELS_SH(3) | BYTES_SH(1); TYPE_RGB_8 without EXTRA.
        let flags: UInt32 = channels == 4 ? 0x0400_0000 : 0 // cmsFLAGS_COPY_ALPHA
        let t = cmsCreateTransform(input, type, srgb, type, intent, flags)!
        defer { cmsDeleteTransform(t) }
        var out = [UInt8](repeating: 0, count: pixels.count)
        cmsDoTransform(t, pixels, &out, UInt32(pixels.count / channels))
        return out
    }

    @Test("Display P3 -> sRGB equals Little CMS's own transform of the same pixels (RGB and RGBA, odd sizes, padded strides)",
          arguments: [(PixelFormat.rgb8, 3), (.rgba8, 4)])
    func displayP3ToSRGB(format: PixelFormat, channels: Int) throws {
        let icc = Self.displayP3()
        #expect(icc.count > 300)
        for (w, h) in [(1, 1), (67, 13), (301, 97)] {
            var image = try PixelBuffer(width: w, height: h, format: format, alignment: 64)
            var rng = SplitMix64(seed: UInt64(w * h))
            image.withMutablePlane(0) { span in for i in span.indices { span[i] = UInt8(truncatingIfNeeded: rng.next()) } }
            let before = JPEGFixtures.packed(image, plane: 0)
            let expected = Self.lcms(icc, before, channels: channels)
            try ProcessSettings.with(threads: 2) { try image.convertToSRGB(from: icc) }
            let after = JPEGFixtures.packed(image, plane: 0)
            let worst = zip(after, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst == 0, "\(w)x\(h) \(format): worst |ours - lcms| = \(worst)")
            if channels == 4 {
                #expect(stride(from: 3, to: after.count, by: 4).allSatisfy { after[$0] == before[$0] }, "alpha unchanged")
            }
        }
        // Against float64 colour science: decode the sRGB curve, P3 -> sRGB linear matrix
        // (D65 both; the published matrix), clip, re-encode. In-gamut colours only.
        func curve(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encode(_ v: Double) -> Double { let c = min(max(v, 0), 1); return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055 }
        let m: [[Double]] = [[1.224940, -0.224940, 0], [-0.042057, 1.042057, 0], [-0.019638, -0.078636, 1.098274]]
        for p3 in [[200, 100, 50], [128, 128, 128], [30, 200, 120], [90, 60, 220]] as [[Int]] {
            var px = try PixelBuffer(width: 1, height: 1, format: .rgb8)
            try px.fill(p3.map { UInt8($0) })
            try px.convertToSRGB(from: icc)
            let ours = JPEGFixtures.packed(px, plane: 0)
            let lin = p3.map { curve(Double($0) / 255) }
            for c in 0..<3 {
                let exact = encode(m[c][0] * lin[0] + m[c][1] * lin[1] + m[c][2] * lin[2]) * 255
                #expect(abs(Double(ours[c]) - exact) <= 1.5, "P3 \(p3) channel \(c): \(ours[c]) vs \(exact)")
            }
        }
    }

    @Test("the sRGB profile itself is (nearly) the identity; bad profiles and formats are refused")
    func identityAndRefusals() throws {
        let srgb = try PNGFixtures.bytes("rgb8-icc", "icc")
        var image = try PNGFixtures.noise(width: 40, height: 30, seed: 2)
        let before = JPEGFixtures.packed(image, plane: 0)
        try image.convertToSRGB(from: srgb)
        let worst = zip(JPEGFixtures.packed(image, plane: 0), before).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1)
        let e1 = #expect(throws: ImageError.self) { try image.convertToSRGB(from: [1, 2, 3, 4]) }
        #expect(e1?.code == .corruptData)
        var gray = try PixelBuffer(width: 4, height: 4, format: .gray8)
        let e2 = #expect(throws: ImageError.self) { try gray.convertToSRGB(from: srgb) }
        #expect(e2?.code == .unsupported)
        var premultiplied = try PixelBuffer(width: 4, height: 4, format: .rgba8, alphaMode: .premultiplied)
        let e3 = #expect(throws: ImageError.self) { try premultiplied.convertToSRGB(from: srgb) }
        #expect(e3?.code == .unsupported)
    }
}
