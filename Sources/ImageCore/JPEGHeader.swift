import CImageCore

/// What a JPEG header says, read without decoding pixels. (The codec extends this with
/// EXIF orientation, ICC presence, progressive mode and restart interval.)
public struct JPEGHeader: Sendable, Hashable {
    /// Colour space of the stored components.
    public enum ColorSpace: Sendable, Hashable { case gray, yCbCr, rgb, cmyk, ycck, unknown }
    /// Chroma subsampling.
    public enum Subsampling: String, Sendable, Hashable { case s444 = "4:4:4", s422 = "4:2:2", s420 = "4:2:0", gray = "gray", s440 = "4:4:0", s411 = "4:1:1", unknown = "unknown" }

    public var width: Int
    public var height: Int
    public var colorSpace: ColorSpace
    public var subsampling: Subsampling

    /// Reads the header of a JPEG stream.
    /// - Throws: `.corruptData` for empty, non-JPEG or unreadable input.
    public init(bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var h = ic_jpeg_header()
        try ImageError.check(
            ic_jpeg_read_header(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &h),
            "not a readable JPEG header")
        width = Int(h.width)
        height = Int(h.height)
        colorSpace = switch h.colorspace {
        case IC_JPEG_CS_GRAY: .gray
        case IC_JPEG_CS_YCBCR: .yCbCr
        case IC_JPEG_CS_RGB: .rgb
        case IC_JPEG_CS_CMYK: .cmyk
        case IC_JPEG_CS_YCCK: .ycck
        default: .unknown
        }
        subsampling = switch h.subsampling {
        case IC_JPEG_SUBSAMP_444: .s444
        case IC_JPEG_SUBSAMP_422: .s422
        case IC_JPEG_SUBSAMP_420: .s420
        case IC_JPEG_SUBSAMP_GRAY: .gray
        case IC_JPEG_SUBSAMP_440: .s440
        case IC_JPEG_SUBSAMP_411: .s411
        default: .unknown
        }
    }

    /// Reads the header of a JPEG stream held in an array.
    public init(bytes: [UInt8]) throws(ImageError) {
        var result: Result<JPEGHeader, ImageError> = .failure(ImageError(.internalError))
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(ImageError) in try JPEGHeader(bytes: raw) }
        }
        self = try result.get()
    }
}
