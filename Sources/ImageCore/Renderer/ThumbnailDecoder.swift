/// Turns an item's encoded bytes into a thumbnail: the one place where the renderer meets
/// a codec.
///
/// The renderer does the scheduling, caching and bookkeeping; a decoder does the pixel
/// work. A JPEG implementation decodes with DCT scaling to the smallest scale at least as
/// large as the target (cheap even from a full-size photo) and then resizes so that the
/// long side is at most `maxPixelSize`.
///
/// Requirements:
/// - Thread-safe: the renderer calls it from its background workers and from the threads
///   that ask for small thumbnails, concurrently (never twice at once for the same item
///   and tier).
/// - The returned buffer's long side (`max(width, height)`) must be at most
///   `maxPixelSize`; the renderer treats a larger result as an error for that item.
/// - It may return any ``PixelFormat``; the renderer does not look at the pixels.
/// - Long calls are fine: the renderer runs them on dedicated threads, not on the Swift
///   concurrency pool.
public protocol ThumbnailDecoder: Sendable {
    /// Decodes `bytes` into a new buffer whose long side is at most `maxPixelSize`.
    ///
    /// - Parameters:
    ///   - bytes: the encoded image, valid only during the call.
    ///   - maxPixelSize: the bound on `max(width, height)` of the result, ≥ 1.
    /// - Throws: any ``ImageError``; the renderer reports it as a failed item.
    func thumbnail(from bytes: RawSpan, maxPixelSize: Int) throws(ImageError) -> PixelBuffer

    /// ``thumbnail(from:maxPixelSize:)`` that also adds the decoder's warnings (recovered
    /// corruption, such as a truncated file whose missing rows decode grey) to `warnings`;
    /// the renderer keeps them in ``Thumbnail/warnings``. The default reports none.
    func thumbnail(from bytes: RawSpan, maxPixelSize: Int, warnings: inout JPEG.Warnings) throws(ImageError) -> PixelBuffer
}

extension ThumbnailDecoder {
    public func thumbnail(from bytes: RawSpan, maxPixelSize: Int, warnings: inout JPEG.Warnings) throws(ImageError) -> PixelBuffer {
        try thumbnail(from: bytes, maxPixelSize: maxPixelSize)
    }
}
