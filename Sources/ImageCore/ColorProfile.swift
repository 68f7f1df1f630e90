import CImageCore

/// ICC rendering intents.
public enum RenderingIntent: Sendable, Hashable {
    /// Little CMS's tificc / jpgicc default.
    case perceptual
    case relativeColorimetric
    case saturation
    case absoluteColorimetric

    var cValue: ic_icc_intent {
        switch self {
        case .perceptual: IC_ICC_PERCEPTUAL
        case .relativeColorimetric: IC_ICC_RELATIVE_COLORIMETRIC
        case .saturation: IC_ICC_SATURATION
        case .absoluteColorimetric: IC_ICC_ABSOLUTE_COLORIMETRIC
        }
    }
}

extension PixelBuffer {
    /// Converts the pixels in place from the colour space of the ICC profile `profile` (the
    /// bytes ``JPEG/iccProfile(_:)`` or ``PNG/iccProfile(_:)`` return, or any ``ByteSource``)
    /// to sRGB, with Little CMS, in
    /// parallel bands. RGB8 and RGBA8 (straight or opaque alpha, copied unchanged) with an RGB
    /// profile; the result is what Little CMS's own 8-bit transform of the same pixels gives.
    /// - Throws: `.corruptData` for a profile Little CMS cannot use; `.unsupported` for other
    ///   formats, premultiplied alpha, or a non-RGB profile (gray, CMYK).
    public mutating func convertToSRGB(from profile: borrowing some ByteSource & ~Escapable,
                                       intent: RenderingIntent = .perceptual) throws(ImageError) {
        let (status, size) = profile.withBytes { icc in
            (withUnsafeMutableImage { image in ic_icc_convert_to_srgb(icc.bytePointer, icc.count, image, intent.cValue) }, icc.count)
        }
        try ImageError.check(status, "conversion to sRGB from a \(size)-byte ICC profile (\(format))")
    }
}
