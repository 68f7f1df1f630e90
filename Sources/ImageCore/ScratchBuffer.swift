/// Scratch memory lent to a C call: one 64-byte-aligned block, allocated through
/// ``PixelAllocator`` (so memory tests and the bench count it) and freed in `deinit`.
/// Unlike a ``PixelBuffer`` it has no format or rows: it is bytes the C core lays out
/// itself (resize tables and rings, a decoded crop, enhancement cells). Its address is
/// handed out only inside ``withUnsafeBytes(_:)``, or for the lifetime of an owner that
/// keeps the buffer (``StreamingResizer``).
struct ScratchBuffer: ~Copyable {
    let base: UnsafeMutableRawPointer
    let count: Int
    private let counter: PixelMemoryCounter

    /// Allocates `bytes` bytes (at least 1), 64-byte aligned.
    /// - Throws: `.outOfMemory` when the system has none to give, `.tooLarge` for a size
    ///   that does not fit an `Int`.
    init(bytes: Int) throws(ImageError) {
        guard bytes >= 0 else { throw ImageError(.tooLarge, "scratch of \(bytes) bytes") }
        guard let made = PixelAllocator.allocate(bytes: max(bytes, 1), alignment: 64) else {
            throw ImageError(.outOfMemory, "scratch of \(bytes) bytes")
        }
        base = made.0
        count = max(bytes, 1)
        counter = made.1
    }

    /// Lends the block's bytes for the duration of `body`.
    func withUnsafeBytes<R: ~Copyable, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    deinit { PixelAllocator.free(base, bytes: count, counter: counter) }
}
