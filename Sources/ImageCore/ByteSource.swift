/// Contiguous bytes that a decoder, probe or pipeline can read in place: the one input type of
/// every byte-taking entry point (``JPEG``, ``PNG``, ``PNM``, ``Thumbnailer``, ``Scanner``,
/// ``BurstRanking``, ``PixelBuffer/convertToSRGB(from:intent:)``).
///
/// The requirement is that ``withBytes(_:)`` lends the source's own storage — never a copy —
/// for the duration of `body`. The library's conformances all do: `[UInt8]`,
/// `ArraySlice<UInt8>`, `ContiguousArray<UInt8>`, `UnsafeRawBufferPointer`,
/// `UnsafeMutableRawBufferPointer`, `UnsafeBufferPointer<UInt8>`, `RawSpan` and `Span<UInt8>`.
/// A type of your own (a memory-mapped file, a network buffer) conforms the same way; a source
/// whose bytes are not contiguous should not conform (gather them into an array first, where
/// the copy is visible).
///
/// ```swift
/// let file: [UInt8] = try FileBytes.read(path: "photo.jpg")
/// let info = try JPEG.info(file)                     // the array, in place
/// let tail = try PNG.isPNG(file[8...])                // a slice, in place
/// let same = try file.withUnsafeBytes { raw throws(ImageError) in try JPEG.info(raw) }
/// ```
public protocol ByteSource: ~Copyable, ~Escapable {
    /// Calls `body` with the source's bytes in place (no copy). The pointer is valid only
    /// during the call.
    func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R
}

// Arrays and slices lend their storage through `span` (the typed-throws, non-copyable-result
// form of `withUnsafeBytes`); `Array.withUnsafeBytes` itself only rethrows untyped errors.

extension Array: ByteSource where Element == UInt8 {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try span.withUnsafeBytes(body)
    }
}

extension ArraySlice: ByteSource where Element == UInt8 {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try span.withUnsafeBytes(body)
    }
}

extension ContiguousArray: ByteSource where Element == UInt8 {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try span.withUnsafeBytes(body)
    }
}

extension UnsafeRawBufferPointer: ByteSource {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(self)
    }
}

extension UnsafeMutableRawBufferPointer: ByteSource {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(self))
    }
}

extension UnsafeBufferPointer: ByteSource where Element == UInt8 {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(self))
    }
}

extension RawSpan: ByteSource {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes(body)
    }
}

extension Span: ByteSource where Element == UInt8 {
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes(body)
    }
}

extension UnsafeRawBufferPointer {
    /// The base address as bytes (nil for an empty buffer without storage).
    var bytePointer: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
