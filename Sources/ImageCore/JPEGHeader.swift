import CImageCore

/// Size, colour space and subsampling of a JPEG, read without decoding pixels: the
/// foundation's header type, kept for existing callers. ``JPEG/info(_:)-(UnsafeRawBufferPointer)``
/// returns everything the probe knows (progressive, restart interval, EXIF orientation, ICC).
public struct JPEGHeader: Sendable, Hashable {
    public typealias ColorSpace = JPEG.ColorSpace
    public typealias Subsampling = JPEG.Subsampling

    public var width: Int
    public var height: Int
    public var colorSpace: ColorSpace
    public var subsampling: Subsampling

    /// Reads the header of a JPEG stream.
    /// - Throws: `.corruptData` for empty, non-JPEG or unreadable input.
    public init(bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var h = ic_jpeg_header()
        try ImageError.check(ic_jpeg_read_header(bytes.bytePointer, bytes.count, &h), "not a readable JPEG header")
        width = Int(h.width)
        height = Int(h.height)
        colorSpace = ColorSpace(h.colorspace)
        subsampling = Subsampling(h.subsampling)
    }

    /// Reads the header of a JPEG stream held in an array.
    public init(bytes: [UInt8]) throws(ImageError) {
        self = try JPEG.withBytes(bytes) { raw throws(ImageError) in try JPEGHeader(bytes: raw) }
    }
}
