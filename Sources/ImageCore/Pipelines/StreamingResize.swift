import CImageCore

/// A separable resize (Lanczos-3 by default) that consumes source rows one at a time, top to
/// bottom, as a streamed decode delivers them
/// (``JPEG/decodeStream(_:format:options:_:)``), and writes
/// each output row as soon as the last source row it needs has arrived.
///
/// A thin wrapper over the C core's row-push resize (`ic_resize_stream_*` in
/// `imagecore/resize.h`): each pushed row is filtered horizontally (AVX2 where the CPU has
/// it) into a ring of int16 intermediate rows, and each completed output row is filtered
/// vertically straight into the destination. The numbers are those of ``ResizePlan`` and
/// ``PixelBuffer/resize(into:filter:)`` — 14-bit fixed point, clamp borders, box
/// pre-reduction for factors ≥ 4, within 1 LSB of a float64 reference — and the destination
/// receives exactly the bytes a one-shot resize of the whole source would give.
///
/// Memory: the destination, plus one scratch block (``scratchBytes``) holding the coefficient
/// tables and the ring — ``ringRows`` rows of `width × channels` int16 values (plus one
/// source-width int16 row for premultiplied or pre-reduced sources). The scratch comes from
/// the counting allocator (``PixelAllocator``), which sees it like pixel memory. The source
/// is never held: a pushed row is only read during the push.
///
/// GRAY8, RGB8 and RGBA8. RGBA is filtered as ``AlphaMode/opaque`` (four independent
/// channels) unless another alpha mode is given.
public struct StreamingResizer: ~Copyable {
    public let sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
    /// The pixel format of the source rows and the destination.
    public let format: PixelFormat
    /// How the alpha channel of RGBA8 rows is read (see ``ResizePlan``).
    public let alphaMode: AlphaMode
    /// The intermediate rows the ring holds: the largest vertical filter window.
    public let ringRows: Int
    /// The C stream's memory: tables, ring and row scratch.
    let scratch: ScratchBuffer
    /// The C stream, inside `scratch` (owned by this value, so it lives as long as the
    /// pointer is used, and never moves).
    let stream: OpaquePointer
    /// The next source row expected (rows pushed so far).
    public private(set) var nextRow = 0
    /// Output rows written so far: rows `0 ..< rowsWritten` of the destination are final.
    public private(set) var rowsWritten = 0

    /// A resizer from `sourceWidth`×`sourceHeight` to `width`×`height` for `format`.
    /// - Parameters:
    ///   - alphaMode: for RGBA8, how alpha is read; the default treats the image as opaque.
    ///   - filter: the resampling filter (Lanczos-3 by default).
    ///   - preReduce: whether large downscales first average integer blocks (see ``ResizePlan``).
    ///   - linearLight: filter in linear light (``ResizeOptions/linearLight``).
    /// - Throws: `.unsupported` for formats other than GRAY8, RGB8 and RGBA8 (and linear light
    ///   on premultiplied RGBA); `.invalidArgument` for sizes < 1, `.tooLarge` above the core's limits.
    public init(format: PixelFormat, alphaMode: AlphaMode = .opaque, sourceWidth: Int, sourceHeight: Int,
                width: Int, height: Int, filter: ResizeFilter = .lanczos3, preReduce: Bool = true,
                linearLight: Bool = false) throws(ImageError) {
        let detail = "streaming resize \(sourceWidth)x\(sourceHeight) -> \(width)x\(height) \(format)"
        guard format == .gray8 || format == .rgb8 || format == .rgba8 else {
            throw ImageError(.unsupported, "streaming resize of \(format)")
        }
        guard sourceWidth >= 1, sourceHeight >= 1, width >= 1, height >= 1 else {
            throw ImageError(.invalidArgument, detail)
        }
        var p = ResizePlan.cValue(format: format, alphaMode: alphaMode, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                   width: width, height: height,
                                   options: ResizeOptions(filter: filter, preReduce: preReduce, linearLight: linearLight),
                                   maxThreads: 1)
        var size = 0
        try ImageError.check(ic_resize_stream_size(&p, &size), detail)
        let sc = try ScratchBuffer(bytes: size)
        var made: OpaquePointer? = nil
        try ImageError.check(ic_resize_stream_init(sc.base, sc.count, &p, &made), detail)
        var ring: Int32 = 0
        _ = ic_resize_stream_ring_rows(made, &ring)
        self.sourceWidth = sourceWidth; self.sourceHeight = sourceHeight
        self.width = width; self.height = height
        self.format = format
        self.alphaMode = alphaMode
        self.ringRows = Int(ring)
        self.scratch = sc
        self.stream = made!
    }

    /// Bytes of the scratch block (tables, ring and row scratch): the only pixel memory
    /// besides the destination.
    public var scratchBytes: Int { scratch.count }

    /// Whether every source row has been pushed (and so every output row written).
    public var isComplete: Bool { nextRow == sourceHeight }

    /// Adds source row ``nextRow`` (`sourceWidth` pixels of the format at `row`) and writes
    /// every output row it completes into `destination` (`width`×`height`, same format, any
    /// stride; pass the same buffer to every push).
    /// - Throws: `.invalidArgument` (nothing consumed) when all rows have been pushed already
    ///   or the destination does not match.
    public mutating func push(row: UnsafePointer<UInt8>, into destination: inout PixelBuffer) throws(ImageError) {
        try push(rows: row, stride: 0, count: 1, into: &destination)
    }

    /// Adds `count` consecutive source rows, `stride` bytes apart, starting at ``nextRow`` (a
    /// decoder's band) — as `count` calls of ``push(row:into:)``, checked once.
    /// - Throws: `.invalidArgument` (nothing consumed) for `count` < 1, a stride below the
    ///   row's bytes, more rows than remain, or a destination that does not match.
    public mutating func push(rows: UnsafePointer<UInt8>, stride: Int, count: Int,
                              into destination: inout PixelBuffer) throws(ImageError) {
        guard count >= 1, stride >= 0, count <= sourceHeight - nextRow else {
            throw ImageError(.invalidArgument, "streaming resize: \(count) rows at row \(nextRow) of \(sourceHeight)")
        }
        let s = stream, w = Int32(sourceWidth)
        var written: Int32 = 0
        let status = destination.withUnsafeMutableImage { dst in
            ic_resize_stream_push_rows(s, rows, stride, Int32(count), w, dst, &written)
        }
        try ImageError.check(status, "streaming resize \(sourceWidth)x\(sourceHeight) -> \(width)x\(height) \(format): "
                             + "\(count) rows at row \(nextRow), destination \(destination.width)x\(destination.height) \(destination.format)")
        nextRow += count
        rowsWritten = Int(written)
    }

    /// Starts over for the next image of the same geometry, keeping the tables.
    public mutating func reset() {
        _ = ic_resize_stream_reset(stream)
        nextRow = 0
        rowsWritten = 0
    }
}
