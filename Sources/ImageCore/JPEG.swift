import CImageCore

/// The JPEG codec: header probe, decode (full, scaled, cropped, streamed; RGBA8, RGB8, GRAY8,
/// I420, NV12) and encode, on libjpeg-turbo.
///
/// Inputs are bytes read in place: every function takes an `UnsafeRawBufferPointer`, and has
/// overloads for `[UInt8]` and `RawSpan` that lend their storage without copying. Decodes write
/// into ``PixelBuffer``s; the C core allocates no pixel memory of its own.
///
/// ```swift
/// let info = try JPEG.info(bytes)                                  // no pixels decoded
/// var thumb = try JPEG.decode(bytes, format: .rgba8,
///                             options: .init(scale: .fit(width: 256, height: 256, minResidual: 2)))
/// let yuv = try JPEG.decode(bytes, format: .nv12)                  // straight from the decoder
/// let jpeg = try JPEG.encode(thumb, options: .init(quality: 85))
/// ```
public enum JPEG {
    /// Colour space of a JPEG file's stored components.
    public enum ColorSpace: Sendable, Hashable { case gray, yCbCr, rgb, cmyk, ycck, unknown }

    /// Chroma subsampling of a JPEG file, or the one to encode with.
    public enum Subsampling: String, Sendable, Hashable, CaseIterable {
        case s444 = "4:4:4", s422 = "4:2:2", s420 = "4:2:0", gray = "gray", s440 = "4:4:0", s411 = "4:1:1", unknown = "unknown"
    }

    /// What a JPEG header says, read without decoding pixels (``JPEG/info(_:)``).
    public struct Info: Sendable, Hashable {
        public var width: Int
        public var height: Int
        /// 1 (gray), 3 (YCbCr or RGB) or 4 (CMYK or YCCK).
        public var components: Int
        public var colorSpace: ColorSpace
        public var subsampling: Subsampling
        public var isProgressive: Bool
        public var isArithmeticCoded: Bool
        /// MCUs between restart markers; 0 when there are none.
        public var restartInterval: Int
        /// The EXIF orientation (`.up` when the file has no valid tag).
        public var orientation: Orientation
        public var hasEXIF: Bool
        public var hasICCProfile: Bool
        /// Bytes of ICC profile data (0 without a profile).
        public var iccProfileSize: Int
        /// Whether an Adobe APP14 marker is present (CMYK data is then stored inverted).
        public var hasAdobeMarker: Bool
        /// The EXIF (IFD1) JPEG thumbnail, when the file carries a well-formed one.
        public var exifThumbnail: EmbeddedThumbnail?
        /// Where the first APP1 "Exif" segment's TIFF structure is in the file (after the
        /// "Exif\0\0" prefix), `nil` without one: the bytes ``EncodeOptions/exif`` takes.
        public var exifRange: Range<Int>?

        /// An EXIF thumbnail as the header reports it (see ``JPEG/exifThumbnail(_:)``
        /// for whether it is usable and where its picture is).
        public struct EmbeddedThumbnail: Sendable, Hashable {
            /// Its JPEG bytes: `offset ..< offset + length` of the file.
            public var offset: Int
            public var length: Int
            /// Its stored size (0 × 0 when its header is unreadable).
            public var width: Int
            public var height: Int
            /// Its aspect ratio is the main image's within a pixel of rounding.
            public var hasSameShape: Bool
        }

        init(_ c: ic_jpeg_info) {
            width = Int(c.width)
            height = Int(c.height)
            components = Int(c.components)
            colorSpace = ColorSpace(c.colorspace)
            subsampling = Subsampling(c.subsampling)
            isProgressive = c.progressive != 0
            isArithmeticCoded = c.arithmetic != 0
            restartInterval = Int(c.restart_interval)
            orientation = Orientation(exifValue: Int(c.orientation)) ?? .up
            hasEXIF = c.has_exif != 0
            hasICCProfile = c.has_icc != 0
            iccProfileSize = Int(c.icc_size)
            hasAdobeMarker = c.adobe != 0
            exifRange = c.exif_length == 0 ? nil : Int(c.exif_offset)..<Int(c.exif_offset) + Int(c.exif_length)
            exifThumbnail = c.thumbnail_length == 0 ? nil
                : EmbeddedThumbnail(offset: Int(c.thumbnail_offset), length: Int(c.thumbnail_length), width: Int(c.thumbnail_width),
                                    height: Int(c.thumbnail_height), hasSameShape: c.thumbnail_same_shape != 0)
        }
    }

    /// An EXIF thumbnail checked to show the main image (``JPEG/exifThumbnail(_:)``).
    public struct ExifThumbnail: Sendable, Hashable {
        /// Its JPEG bytes: `offset ..< offset + length` of the file.
        public var offset: Int
        public var length: Int
        /// Its stored size, in the main image's stored orientation.
        public var width: Int
        public var height: Int
        /// The picture inside it, in its pixels: the whole thumbnail, or the part between
        /// letterbox (or pillarbox) bars.
        public var content: PixelRect
        /// Whether bars were found and left out of ``content``.
        public var isLetterboxed: Bool
    }

    /// The file's EXIF thumbnail if it is a smaller copy of the main image: the same shape
    /// within a pixel of rounding, or that shape between dark bars (found by decoding the
    /// thumbnail's luma in bands). `nil` when there is none or it is not usable (another shape
    /// without bars, unreadable, above 16 MP). Decode it with ``DecodeOptions/exifThumbnail``.
    /// - Throws: as ``info(_:)`` for the main file.
    public static func exifThumbnail(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> ExifThumbnail? {
        var c = ic_jpeg_exif_thumbnail()
        let st = bytes.withBytes { raw in ic_jpeg_find_exif_thumbnail(raw.bytePointer, raw.count, &c) }
        if st == IC_ERR_UNSUPPORTED { return nil }
        try ImageError.check(st, "not a readable JPEG header")
        return ExifThumbnail(offset: Int(c.offset), length: Int(c.length), width: Int(c.width), height: Int(c.height),
                             content: PixelRect(x: Int(c.content_x), y: Int(c.content_y), width: Int(c.content_width),
                                           height: Int(c.content_height)),
                             isLetterboxed: c.letterboxed != 0)
    }

    /// The scale of a decode.
    public enum Scale: Sendable, Hashable {
        /// The stored size.
        case full
        /// `n`/8 of the stored size, n = 1…8 (libjpeg's DCT scaling: fast, slightly soft).
        case eighths(Int)
        /// The smallest n/8 whose output covers `width` × `height` times `minResidual`
        /// (``JPEG/pickScale(width:height:targetWidth:targetHeight:minResidual:)``). A side of 0
        /// is unconstrained. The target is in stored orientation.
        case fit(width: Int, height: Int, minResidual: Double = 1)
    }

    // MARK: probe

    /// Reads a JPEG header: size, components, colour space, subsampling, progressive mode,
    /// restart interval, EXIF orientation and ICC presence. No pixels are decoded.
    /// - Throws: `.corruptData` for empty, non-JPEG or unreadable input; `.unsupported` for
    ///   files libjpeg-turbo cannot decode (12-bit, lossless).
    public static func info(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> Info {
        var c = ic_jpeg_info()
        let status = bytes.withBytes { raw in ic_jpeg_probe(raw.bytePointer, raw.count, &c) }
        try ImageError.check(status, "not a readable JPEG header")
        return Info(c)
    }

    // MARK: scale

    /// The smallest of 1/8, 1/4 and 1/2 at which a `width` × `height` JPEG's long side is at
    /// least `longSide`, else 8/8 (the whole image), in eighths: the scales libjpeg-turbo's
    /// inverse DCT has SIMD code for (its 3/8 to 7/8 are scalar, and 7/8 of a 1920 px photo
    /// took longer than the whole decode). The scanner's and `imagecore detect`'s detection
    /// decodes.
    public static func fastScale(width: Int, height: Int, longSideAtLeast longSide: Int) -> Int {
        let long = max(width, height)
        return [1, 2, 4].first { (long * $0 + 7) / 8 >= longSide } ?? 8
    }

    /// The size of a `width` × `height` image decoded at `scale`/8 (libjpeg rounds up).
    public static func scaledSize(width: Int, height: Int, eighths scale: Int) throws(ImageError) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        try ImageError.check(ic_jpeg_scaled_size(Int32(clamping: width), Int32(clamping: height), Int32(clamping: scale), &w, &h),
                             "scaled size of \(width)x\(height) at \(scale)/8")
        return (Int(w), Int(h))
    }

    /// The smallest scale n/8 (n = 1…8) whose decoded size still covers the target times
    /// `minResidual`, or 8. `minResidual` ≥ 1 leaves that factor to a final resize (2 is what
    /// libvips uses: block-scaled output is slightly soft). A target side of 0 is unconstrained.
    public static func pickScale(width: Int, height: Int, targetWidth: Int, targetHeight: Int,
                                 minResidual: Double = 1) throws(ImageError) -> Int {
        var m: Int32 = 0
        try ImageError.check(ic_jpeg_pick_scale(Int32(clamping: width), Int32(clamping: height),
                                                Int32(clamping: targetWidth), Int32(clamping: targetHeight), minResidual, &m),
                             "scale for \(width)x\(height) to fit \(targetWidth)x\(targetHeight)")
        return Int(m)
    }
}

extension JPEG.ColorSpace {
    init(_ c: ic_jpeg_colorspace) {
        self = switch c {
        case IC_JPEG_CS_GRAY: .gray
        case IC_JPEG_CS_YCBCR: .yCbCr
        case IC_JPEG_CS_RGB: .rgb
        case IC_JPEG_CS_CMYK: .cmyk
        case IC_JPEG_CS_YCCK: .ycck
        default: .unknown
        }
    }
}

extension JPEG.Subsampling {
    init(_ c: ic_jpeg_subsampling) {
        self = switch c {
        case IC_JPEG_SUBSAMP_444: .s444
        case IC_JPEG_SUBSAMP_422: .s422
        case IC_JPEG_SUBSAMP_420: .s420
        case IC_JPEG_SUBSAMP_GRAY: .gray
        case IC_JPEG_SUBSAMP_440: .s440
        case IC_JPEG_SUBSAMP_411: .s411
        default: .unknown
        }
    }

    var cValue: ic_jpeg_subsampling {
        switch self {
        case .s444: IC_JPEG_SUBSAMP_444
        case .s422: IC_JPEG_SUBSAMP_422
        case .s420: IC_JPEG_SUBSAMP_420
        case .gray: IC_JPEG_SUBSAMP_GRAY
        case .s440: IC_JPEG_SUBSAMP_440
        case .s411: IC_JPEG_SUBSAMP_411
        case .unknown: IC_JPEG_SUBSAMP_UNKNOWN
        }
    }
}
