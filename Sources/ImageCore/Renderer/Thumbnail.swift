/// A rendered thumbnail: an immutable, reference-counted handle on pixels the renderer owns.
///
/// The pixels live in a ``PixelBuffer`` (`~Copyable`), stored once, inside this object.
/// Readers never get a copy: they either keep the handle (cheap, reference-counted) or
/// borrow the buffer for the duration of a closure with ``withPixelBuffer(_:)``.
///
/// A thumbnail is immutable after it is created, which is what makes it `Sendable`: any
/// number of threads may read its pixels at once.
///
/// **Lifetime and the cache budget.** The renderer's cache holds one reference. When the
/// cache evicts a thumbnail that a consumer still holds, the pixels are *not* freed under
/// the consumer — the handle keeps them alive until the last reference goes — but the
/// bytes stop counting toward the cache budget at the moment of eviction. So the pixel
/// memory in use is at most the cache budget plus whatever consumers choose to keep.
public final class Thumbnail: Sendable {
    /// Which tier this is.
    public let tier: ThumbnailTier
    private let buffer: PixelBuffer

    /// The decoder's warnings for this item (recovered corruption: the picture may be partly
    /// grey); none when the decoder reports none.
    public let warnings: JPEG.Warnings

    /// Wraps a freshly decoded buffer; the thumbnail takes ownership of it.
    public init(tier: ThumbnailTier, pixels: consuming PixelBuffer, warnings: JPEG.Warnings = .init()) {
        self.tier = tier
        self.buffer = pixels
        self.warnings = warnings
    }

    /// Stored width in pixels.
    public var width: Int { buffer.width }
    /// Stored height in pixels.
    public var height: Int { buffer.height }
    /// The pixel layout.
    public var format: PixelFormat { buffer.format }
    /// How the stored pixels must be transformed to display upright.
    public var orientation: Orientation { buffer.orientation }
    /// The exact bytes of the pixel allocation (``PixelBuffer/byteCount``): what the
    /// thumbnail costs in the cache budget.
    public var byteCount: Int { buffer.byteCount }

    /// Lends the pixel buffer, read-only, for the duration of `body`. No copy is made.
    public func withPixelBuffer<R: ~Copyable, E: Error>(
        _ body: (borrowing PixelBuffer) throws(E) -> R
    ) throws(E) -> R {
        try body(buffer)
    }
}
