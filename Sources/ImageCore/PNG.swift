import CImageCore

/// The PNG codec: chunk probe, decode (whole or streamed in row bands; GRAY8, RGB8, RGBA8) and
/// encode, on libspng. It mirrors ``JPEG``: inputs are bytes read in place
/// (`UnsafeRawBufferPointer`, `[UInt8]` or `RawSpan`), decodes write into ``PixelBuffer``s, and
/// the C core allocates no pixel memory of its own.
///
/// ```swift
/// let info = try PNG.info(bytes)                        // no pixels decoded
/// let image = try PNG.decode(bytes, format: .rgba8)      // palette, tRNS, 16-bit, Adam7 handled
/// try PNG.decodeStream(bytes, format: .rgb8) { band in /* rows */ }
/// let png = try PNG.encode(image, options: .init(compressionLevel: 6))
/// ```
public enum PNG {
    /// The colour type stored in a PNG file's IHDR.
    public enum ColorType: Sendable, Hashable {
        case gray, rgb, palette, grayAlpha, rgba
    }

    /// What a PNG file's chunks before the image data say, read without decoding pixels
    /// (``PNG/info(_:)``).
    public struct Info: Sendable, Hashable {
        public var width: Int
        public var height: Int
        /// Bits per sample: 1, 2, 4, 8 or 16 (per palette index for `.palette`).
        public var bitDepth: Int
        public var colorType: ColorType
        /// Adam7 interlacing (such files cannot be streamed row by row).
        public var isInterlaced: Bool
        /// An alpha channel or a tRNS chunk.
        public var hasAlpha: Bool
        /// A tRNS chunk (palette alpha, or one transparent colour).
        public var hasTransparencyChunk: Bool
        public var hasICCProfile: Bool
        /// Bytes of the inflated ICC profile (0 without one).
        public var iccProfileSize: Int
        /// The sRGB chunk's rendering intent (0…3), `nil` without the chunk.
        public var sRGBIntent: Int?
        /// The gAMA chunk's value (0.45455 for 1/2.2), `nil` without the chunk.
        public var gamma: Double?
        public var hasEXIF: Bool
        /// The EXIF orientation from eXIf (`.up` without a valid tag).
        public var orientation: Orientation
        /// Where the eXIf chunk's data (a TIFF structure) is in the file, `nil` without one:
        /// the bytes ``EncodeOptions/exif`` takes.
        public var exifRange: Range<Int>?

        init(_ c: ic_png_info) {
            width = Int(c.width)
            height = Int(c.height)
            bitDepth = Int(c.bit_depth)
            colorType = switch c.color_type {
            case IC_PNG_COLOR_GRAY: .gray
            case IC_PNG_COLOR_RGB: .rgb
            case IC_PNG_COLOR_PALETTE: .palette
            case IC_PNG_COLOR_GRAY_ALPHA: .grayAlpha
            default: .rgba
            }
            isInterlaced = c.interlaced != 0
            hasAlpha = c.has_alpha != 0
            hasTransparencyChunk = c.has_trns != 0
            hasICCProfile = c.has_icc != 0
            iccProfileSize = Int(c.icc_size)
            sRGBIntent = c.has_srgb != 0 ? Int(c.srgb_intent) : nil
            gamma = c.has_gamma != 0 ? Double(c.gamma) / 100_000 : nil
            hasEXIF = c.has_exif != 0
            orientation = Orientation(exifValue: Int(c.orientation)) ?? .up
            exifRange = c.exif_length == 0 ? nil : Int(c.exif_offset)..<Int(c.exif_offset) + Int(c.exif_length)
        }
    }

    /// Whether `bytes` start with the PNG signature (a content check, not a validation).
    public static func isPNG(_ bytes: borrowing some ByteSource & ~Escapable) -> Bool {
        bytes.withBytes { (bytes) in
            let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            return bytes.count >= 8 && zip(bytes.prefix(8), signature).allSatisfy { $0 == $1 }
        }
    }

    // MARK: probe

    /// Reads IHDR and the chunks before the image data (tRNS, iCCP, sRGB, gAMA, eXIf).
    /// No pixels are decoded; the ICC profile is inflated (within the 64 MiB metadata cap) to
    /// learn its size.
    /// - Throws: `.corruptData` for empty, non-PNG or malformed headers; `.tooLarge` for
    ///   metadata beyond the chunk limits (a zlib bomb in iCCP).
    public static func info(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> Info {
        try bytes.withBytes { (bytes) throws(ImageError) -> Info in
            var c = ic_png_info()
            try ImageError.check(ic_png_probe(bytes.bytePointer, bytes.count, &c), "not a readable PNG header")
            return Info(c)
        }
    }

    /// The file's ICC profile (the inflated iCCP chunk), byte for byte; `nil` without one.
    public static func iccProfile(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> [UInt8]? {
        try bytes.withBytes { (bytes) throws(ImageError) -> [UInt8]? in
            var size = 0
            let first = ic_png_icc_profile(bytes.bytePointer, bytes.count, nil, 0, &size)
            if first == IC_OK { return nil } // no profile
            guard first == IC_ERR_BUFFER_TOO_SMALL else { try ImageError.check(first, "ICC profile of a PNG"); return nil }
            var profile = [UInt8](repeating: 0, count: size)
            let status = profile.withUnsafeMutableBufferPointer { out in
                ic_png_icc_profile(bytes.bytePointer, bytes.count, out.baseAddress, out.count, &size)
            }
            try ImageError.check(status, "ICC profile of a PNG")
            return profile
        }
    }
}
