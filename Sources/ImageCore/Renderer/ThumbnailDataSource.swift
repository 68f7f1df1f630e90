/// Gives the renderer the encoded bytes of an item.
///
/// Two shapes of storage are common and both fit:
/// - **prepared variants**: the server made small and large encodings of every photo
///   (75 px and 256 px JPEGs, say); return the one for the requested tier;
/// - **one full-size photo**: return the same bytes for every tier and let the decoder's
///   scaled decode make the small tier cheap.
///
/// ``ThumbnailSource`` builds either from a closure. Implement the protocol directly to
/// lend bytes without copying them (from a memory-mapped file, a database page…).
///
/// Called concurrently from the renderer's workers and from callers of
/// ``ThumbnailRenderer/image(for:)``; it must be thread-safe.
public protocol ThumbnailDataSource<Key>: Sendable {
    /// The item identifier.
    associatedtype Key: Hashable & Sendable

    /// Calls `body` with the encoded bytes to decode for `key` at `tier`. The bytes need to
    /// stay valid only during `body`.
    ///
    /// - Throws: ``ImageError`` (`.io` when the item cannot be read, for instance); the
    ///   renderer reports it as a failed item. Errors from `body` must be rethrown unchanged.
    func withEncodedBytes<R: ~Copyable>(
        for key: Key, tier: ThumbnailTier, _ body: (RawSpan) throws(ImageError) -> R
    ) throws(ImageError) -> R
}

/// A ``ThumbnailDataSource`` over a closure that returns an item's bytes as an array.
public struct ThumbnailSource<Key: Hashable & Sendable>: ThumbnailDataSource {
    private let load: @Sendable (Key, ThumbnailTier) throws(ImageError) -> [UInt8]

    /// Prepared variants: `load(key, tier)` returns the encoding made for that tier.
    public static func preparedVariants(
        _ load: @escaping @Sendable (Key, ThumbnailTier) throws(ImageError) -> [UInt8]
    ) -> ThumbnailSource {
        ThumbnailSource(load: load)
    }

    /// One full-size photo per item: `load(key)` returns it for every tier.
    public static func fullSizePhotos(
        _ load: @escaping @Sendable (Key) throws(ImageError) -> [UInt8]
    ) -> ThumbnailSource {
        ThumbnailSource(load: { (key, _) throws(ImageError) in try load(key) })
    }

    public func withEncodedBytes<R: ~Copyable>(
        for key: Key, tier: ThumbnailTier, _ body: (RawSpan) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        let bytes = try load(key, tier)
        return try body(bytes.span.bytes)
    }
}
