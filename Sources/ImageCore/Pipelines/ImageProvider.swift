import CImageCore

/// What a consumer asks an ``ImageProvider`` for.
public struct ImageRequest: Sendable, Hashable {
    /// How large the result must be.
    public enum Size: Sendable, Hashable {
        /// The crop at full resolution.
        case full
        /// At least `width` × `height` (aspect kept): whatever is cheapest that covers it —
        /// a JPEG's smallest DCT scale, a buffer's own pixels. A side of 0 is unconstrained.
        case atLeast(width: Int, height: Int)
        /// Exactly `width` × `height` (reduced first where it is free, then resized, Lanczos-3).
        case exactly(width: Int, height: Int)
    }
    public var format: PixelFormat
    /// The region, in full-size stored pixels (`nil`: all of it).
    public var crop: PixelRect?
    public var size: Size
    public init(format: PixelFormat, crop: PixelRect? = nil, size: Size = .full) {
        self.format = format; self.crop = crop; self.size = size
    }
}

/// A source of pixels whose processing resolution is decided late (the seed's lazy image):
/// it reports its size and orientation without decoding, and makes a buffer only when a
/// consumer asks, at the size, crop and format the consumer needs — a JPEG decodes just that
/// (DCT scale, crop, YUV straight from the decoder), an in-memory buffer lends itself or
/// crops/resizes on demand.
///
/// Orientation is lazy: buffers are lent in stored orientation with ``PixelBuffer/orientation``
/// set, for the consumer to apply where it is free (composed into a rectify, or on a small
/// result).
public protocol ImageProvider: Sendable {
    /// Stored (not display-oriented) size.
    var width: Int { get }
    var height: Int { get }
    /// The orientation the pixels are to be shown in.
    var orientation: Orientation { get }
    /// Lends a buffer answering `request` to `body`. The buffer is valid only during `body`.
    func withBuffer<R: ~Copyable>(_ request: ImageRequest, _ body: (borrowing PixelBuffer) throws(ImageError) -> R) throws(ImageError) -> R
}

extension ImageProvider {
    /// The size as displayed (orientation applied).
    public var displaySize: (width: Int, height: Int) { orientation.displaySize(width: width, height: height) }

    /// A new buffer answering `request` (owned by the caller).
    public func buffer(_ request: ImageRequest) throws(ImageError) -> PixelBuffer {
        try withBuffer(request) { (b: borrowing PixelBuffer) throws(ImageError) -> PixelBuffer in
            var copy = try PixelBuffer(width: b.width, height: b.height, format: b.format, alphaMode: b.alphaMode,
                                       orientation: b.orientation)
            try copy.copy(from: b)
            return copy
        }
    }

    /// Checks a crop against the stored size; the whole image for `nil`.
    func resolve(_ crop: PixelRect?) throws(ImageError) -> PixelRect {
        guard let c = crop else { return PixelRect(x: 0, y: 0, width: width, height: height) }
        guard c.x >= 0, c.y >= 0, c.width >= 1, c.height >= 1, c.x + c.width <= width, c.y + c.height <= height else {
            throw ImageError(.invalidArgument, "crop \(c) outside \(width)x\(height)")
        }
        return c
    }
}
