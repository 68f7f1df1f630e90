import CImageCore

/// Geometry of one plane of a ``PixelBuffer``.
public struct PlaneLayout: Sendable, Hashable {
    /// Bytes of pixels in one row.
    public var rowBytes: Int
    /// Number of rows.
    public var rows: Int
    /// Bytes from one row to the next (≥ `rowBytes`, a multiple of the buffer's alignment).
    public var stride: Int
    /// Bytes the plane occupies: `stride * rows`.
    public var byteCount: Int { stride * rows }
}

/// An image that owns its pixels: one aligned allocation holding every plane.
///
/// `PixelBuffer` is `~Copyable`: it cannot be duplicated by accident, so a pipeline holds
/// each image exactly once. Operations borrow sources and take destinations `inout`;
/// the memory is lent out only inside closures (``withPlane(_:_:)``,
/// ``withUnsafeImage(_:)``), so no pointer outlives the borrow. The allocation goes
/// through ``PixelAllocator`` and is freed when the buffer's lifetime ends.
///
/// Rows are padded to a stride that is a multiple of the alignment (64 bytes by default),
/// and each plane starts on an aligned boundary.
public struct PixelBuffer: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: the storage is uniquely owned (the type is ~Copyable), so moving a
    // buffer to another thread moves the only reference to its memory.

    /// The pixel layout.
    public let format: PixelFormat
    /// How RGBA8 alpha is to be read; ignored for other formats.
    public var alphaMode: AlphaMode
    /// Stored width in pixels (before ``orientation`` is applied).
    public let width: Int
    /// Stored height in pixels (before ``orientation`` is applied).
    public let height: Int
    /// How the stored pixels must be transformed to display upright. Metadata only: no
    /// operation applies it implicitly.
    public var orientation: Orientation

    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let layout: ic_layout
    let counter: PixelMemoryCounter

    /// Allocates a buffer. Its pixels are uninitialised unless `zeroed` is true.
    ///
    /// - Parameters:
    ///   - alignment: stride and plane alignment in bytes, a power of two from 1 to 4096.
    /// - Throws: `.invalidArgument` for sizes < 1 or a bad alignment; `.tooLarge` above
    ///   65535 pixels a side or 4 GiB in all (checked before allocating);
    ///   `.outOfMemory` when the system refuses the allocation.
    public init(
        width: Int, height: Int, format: PixelFormat, alphaMode: AlphaMode = .straight,
        orientation: Orientation = .up, alignment: Int = 64, zeroed: Bool = false
    ) throws(ImageError) {
        guard width >= 1, height >= 1, alignment >= 1 else { throw ImageError(.invalidArgument, "size \(width)x\(height), alignment \(alignment)") }
        guard width <= Int(IC_MAX_DIMENSION), height <= Int(IC_MAX_DIMENSION) else {
            throw ImageError(.tooLarge, "\(width)x\(height) exceeds \(IC_MAX_DIMENSION) pixels a side")
        }
        var l = ic_layout()
        try ImageError.check(
            ic_layout_compute(format.cValue, Int32(width), Int32(height), alignment, &l),
            "\(width)x\(height) \(format)")
        try PixelAllocator.checkLimits(width: width, height: height, bytes: l.total_size)
        guard let (p, counter) = PixelAllocator.allocate(bytes: l.total_size, alignment: l.alignment) else {
            throw ImageError(.outOfMemory, "\(l.total_size) bytes")
        }
        if zeroed { p.initializeMemory(as: UInt8.self, repeating: 0, count: l.total_size) }
        self.storage = p
        self.layout = l
        self.counter = counter
        self.format = format
        self.alphaMode = alphaMode
        self.width = width
        self.height = height
        self.orientation = orientation
    }

    deinit {
        PixelAllocator.free(storage, bytes: layout.total_size, counter: counter)
    }

    /// Number of planes (1 for gray and RGB(A), 2 for NV12, 3 for I420).
    public var planeCount: Int { Int(layout.plane_count) }

    /// Bytes of the whole allocation (all planes, padding included).
    public var byteCount: Int { layout.total_size }

    /// Stride and plane alignment in bytes.
    public var alignment: Int { layout.alignment }

    /// The geometry of plane `index` (0 ..< ``planeCount``).
    public func plane(_ index: Int) -> PlaneLayout {
        precondition(index >= 0 && index < planeCount, "plane \(index) out of range 0..<\(planeCount)")
        return PlaneLayout(
            rowBytes: Self.element(layout.row_bytes, index), rows: Int(Self.element(layout.rows, index)),
            stride: Self.element(layout.stride, index))
    }

    @usableFromInline
    func planeOffset(_ index: Int) -> Int { Self.element(layout.offset, index) }

    @inline(__always) @usableFromInline
    static func element<T>(_ tuple: (T, T, T), _ i: Int) -> T {
        switch i {
        case 0: tuple.0
        case 1: tuple.1
        default: tuple.2
        }
    }

    /// Lends plane `index` as a read-only span of exactly ``PlaneLayout/byteCount`` bytes
    /// (row `y` starts at `y * stride`).
    public borrowing func withPlane<R: ~Copyable, E: Error>(
        _ index: Int, _ body: (Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let g = plane(index)
        let buffer = UnsafeBufferPointer(
            start: (storage + planeOffset(index)).assumingMemoryBound(to: UInt8.self), count: g.byteCount)
        return try body(buffer.span)
    }

    /// Lends plane `index` as a mutable span of exactly ``PlaneLayout/byteCount`` bytes.
    public mutating func withMutablePlane<R: ~Copyable, E: Error>(
        _ index: Int, _ body: (inout MutableSpan<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let g = plane(index)
        let buffer = UnsafeMutableBufferPointer(
            start: (storage + planeOffset(index)).assumingMemoryBound(to: UInt8.self), count: g.byteCount)
        var span = buffer.mutableSpan
        return try body(&span)
    }

    /// The C descriptor of this buffer.
    @usableFromInline
    var cValue: ic_image {
        var image = ic_image()
        var l = layout
        _ = ic_image_init(&image, format.cValue, alphaMode.cValue, Int32(width), Int32(height),
                          storage.assumingMemoryBound(to: UInt8.self), &l)
        return image
    }

    /// Lends the C descriptor for a read-only call into the C core. The pointer and the
    /// plane pointers inside it are valid only during `body`, and the planes must not be
    /// written through them.
    public borrowing func withUnsafeImage<R: ~Copyable, E: Error>(
        _ body: (UnsafePointer<ic_image>) throws(E) -> R
    ) throws(E) -> R {
        var image = cValue
        return try body(&image)
    }

    /// Lends the C descriptor for a call that writes the planes. Valid only during `body`;
    /// changes the callee makes to the descriptor itself are discarded.
    public mutating func withUnsafeMutableImage<R: ~Copyable, E: Error>(
        _ body: (UnsafeMutablePointer<ic_image>) throws(E) -> R
    ) throws(E) -> R {
        var image = cValue
        return try body(&image)
    }
}
