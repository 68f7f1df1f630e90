import CImageCore

/// The sharpness score of an image: statistics of its 3×3 Laplacian response (the seed's
/// "variance of Laplacian"; the population standard deviation is the score).
///
/// The sums are exact integers; `mean`, `variance` and `standardDeviation` are derived from
/// them by ``init(count:sum:sumOfSquares:)``, so two scores with the same sums are identical to
/// the bit, whatever thread count or instruction set computed them.
public struct SharpnessScore: Sendable, Hashable, CustomStringConvertible {
    /// Pixels the response was summed over.
    public var count: Int
    /// Σ r.
    public var sum: Int64
    /// Σ r².
    public var sumOfSquares: UInt64
    /// Σ r / count.
    public var mean: Double
    /// Population variance, (count·Σr² − (Σr)²) / count², numerator exact in 128 bits.
    public var variance: Double
    /// √variance: the sharpness score (larger is sharper).
    public var standardDeviation: Double

    /// The score from raw sums (e.g. of several regions added together).
    /// - Throws: `.invalidArgument` when `count` < 1 or the sums are inconsistent.
    public init(count: Int, sum: Int64, sumOfSquares: UInt64) throws(ImageError) {
        var s = ic_laplacian_stats()
        s.count = Int64(count)
        s.sum = sum
        s.sum_squares = sumOfSquares
        try ImageError.check(ic_laplacian_stats_finish(&s), "count \(count), sum \(sum), sum of squares \(sumOfSquares)")
        self.init(s)
    }

    init(_ s: ic_laplacian_stats) {
        count = Int(s.count)
        sum = s.sum
        sumOfSquares = s.sum_squares
        mean = s.mean
        variance = s.variance
        standardDeviation = s.std_dev
    }

    public var description: String {
        "mean \(mean), variance \(variance), std-dev \(standardDeviation) over \(count) pixels"
    }
}

/// An owned plane of `Int16` values (a Laplacian response): one aligned allocation through
/// ``PixelAllocator``, freed when the plane's lifetime ends. Rows are `stride` bytes apart.
public struct Int16Plane: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: uniquely owned storage, as PixelBuffer.
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (a multiple of 64, ≥ 2·width).
    public let stride: Int
    @usableFromInline let storage: UnsafeMutableRawPointer
    let byteCount: Int
    let counter: PixelMemoryCounter

    /// Allocates an uninitialised plane.
    /// - Throws: `.invalidArgument` for sizes < 1, `.tooLarge` above 65535 a side,
    ///   `.outOfMemory`.
    public init(width: Int, height: Int) throws(ImageError) {
        guard width >= 1, height >= 1 else { throw ImageError(.invalidArgument, "size \(width)x\(height)") }
        guard width <= Int(IC_MAX_DIMENSION), height <= Int(IC_MAX_DIMENSION) else {
            throw ImageError(.tooLarge, "\(width)x\(height) exceeds \(IC_MAX_DIMENSION) pixels a side")
        }
        let stride = (2 * width + 63) / 64 * 64
        guard let (p, counter) = PixelAllocator.allocate(bytes: stride * height, alignment: 64) else {
            throw ImageError(.outOfMemory, "\(stride * height) bytes")
        }
        self.width = width
        self.height = height
        self.stride = stride
        self.storage = p
        self.byteCount = stride * height
        self.counter = counter
    }

    deinit { PixelAllocator.free(storage, bytes: byteCount, counter: counter) }

    /// The value at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> Int16 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) outside \(width)x\(height)")
        return storage.load(fromByteOffset: y * stride + 2 * x, as: Int16.self)
    }

    /// Lends row `y` as a span of exactly `width` values.
    public borrowing func withRow<R: ~Copyable, E: Error>(_ y: Int, _ body: (Span<Int16>) throws(E) -> R) throws(E) -> R {
        precondition(y >= 0 && y < height, "row \(y) outside 0..<\(height)")
        let p = (storage + y * stride).assumingMemoryBound(to: Int16.self)
        return try body(UnsafeBufferPointer(start: p, count: width).span)
    }

    /// Lends the C descriptor. Valid only during `body`.
    public mutating func withUnsafePlane<R: ~Copyable, E: Error>(_ body: (UnsafePointer<ic_plane_s16>) throws(E) -> R) throws(E) -> R {
        var d = ic_plane_s16(data: storage.assumingMemoryBound(to: Int16.self), stride: stride,
                             width: Int32(width), height: Int32(height))
        return try body(&d)
    }
}

// MARK: - Laplacian of a PixelBuffer

extension PixelBuffer {
    /// The C ROI for `roi` (nil = whole image), validated by the C core.
    private static func cROI(_ roi: PixelRect?) throws(ImageError) -> ic_rect? {
        guard let roi else { return nil }
        guard let r = roi.cValue else { throw ImageError(.invalidArgument, "ROI \(roi)") }
        return r
    }

    private static func withROI<R>(_ roi: ic_rect?, _ body: (UnsafePointer<ic_rect>?) -> R) -> R {
        guard var r = roi else { return body(nil) }
        return body(&r)
    }

    /// The fused sharpness score of a GRAY8 image, or of the Y plane of an I420/NV12 image:
    /// mean, variance and standard deviation of the 3×3 Laplacian response (−1 around, 8 in
    /// the centre; reflect-101 borders) over `roi` (nil = whole image), in one pass without
    /// writing the response anywhere. Inside a ROI, neighbours come from the real image where
    /// it has them; reflect-101 applies only at the image's own edges.
    ///
    /// - Throws: `.unsupported` for RGB(A) formats; `.invalidArgument` for a ROI that is empty
    ///   or not inside the image.
    public borrowing func laplacianScore(roi: PixelRect? = nil) throws(ImageError) -> SharpnessScore {
        let r = try Self.cROI(roi)
        var stats = ic_laplacian_stats()
        let status = withUnsafeImage { src in Self.withROI(r) { ic_laplacian_score(src, $0, &stats) } }
        try ImageError.check(status, "laplacian score of \(width)x\(height) \(format), roi \(roi.map { "\($0)" } ?? "all")")
        return SharpnessScore(stats)
    }

    /// Writes the signed int16 Laplacian response of `roi` (nil = whole image) into
    /// `response`, which must have the ROI's size.
    public borrowing func laplacian(into response: inout Int16Plane, roi: PixelRect? = nil) throws(ImageError) {
        let r = try Self.cROI(roi)
        let status = withUnsafeImage { src in
            response.withUnsafePlane { dst in Self.withROI(r) { ic_laplacian_s16(src, $0, dst) } }
        }
        try ImageError.check(status, "laplacian of \(width)x\(height) \(format) into \(response.width)x\(response.height)")
    }

    /// A new int16 plane holding the Laplacian response of `roi` (nil = whole image).
    public borrowing func laplacianResponse(roi: PixelRect? = nil) throws(ImageError) -> Int16Plane {
        var plane = try Int16Plane(width: roi?.width ?? width, height: roi?.height ?? height)
        try laplacian(into: &plane, roi: roi)
        return plane
    }

    /// Writes the response of `roi` clamped to 0…255 — the *signed* response clamped, as the
    /// seed's display path does, so the dark side of an edge shows black — into `destination`
    /// (GRAY8, the ROI's size), optionally through the seed's 1/2.2 display gamma.
    public borrowing func laplacianDisplay(into destination: inout PixelBuffer, roi: PixelRect? = nil,
                                           gamma: Bool = false) throws(ImageError) {
        let r = try Self.cROI(roi)
        let mode = gamma ? IC_LAPLACIAN_CLAMP_GAMMA : IC_LAPLACIAN_CLAMP
        let status = withUnsafeImage { src in
            destination.withUnsafeMutableImage { dst in Self.withROI(r) { ic_laplacian_u8(src, $0, dst, mode) } }
        }
        try ImageError.check(status, "laplacian display of \(width)x\(height) \(format)")
    }

    /// A new GRAY8 image of the clamped (and optionally gamma-mapped) response.
    public borrowing func laplacianDisplay(roi: PixelRect? = nil, gamma: Bool = false) throws(ImageError) -> PixelBuffer {
        var out = try PixelBuffer(width: roi?.width ?? width, height: roi?.height ?? height, format: .gray8)
        try laplacianDisplay(into: &out, roi: roi, gamma: gamma)
        return out
    }
}
