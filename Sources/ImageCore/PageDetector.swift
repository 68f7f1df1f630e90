import CImageCore

/// Finds the quadrilateral of a document page in a photo.
///
/// Works on a small luma image (by default 512 px on the long side): edges, Hough lines
/// voted along each edge's own direction, and the best convex quadrilateral by the edge
/// support along its sides (one polarity, or alternating where the surface behind the page
/// changes from darker to brighter), less support that runs on past its corners. See
/// `imagecore/detect.h` (95.8 % of the bench's 240 generated document photos within 1.5 %
/// of the diagonal, 6.7 ms per detection).
///
/// ```swift
/// let detector = PageDetector()
/// switch try detector.detect(in: photo) {
/// case let .found(quad, confidence): print(quad, confidence)
/// case .notFound: print("no page")
/// }
/// ```
///
/// A detector holds only its options; each call uses scratch memory of
/// ``scratchSize(width:height:)`` bytes (about 3.7 MB at 512 px), allocated for the call, or
/// lent by the caller with ``detect(in:scratch:)`` to reuse it across frames.
public struct PageDetector: Sendable, Hashable {
    /// Long side of the working image, 64…1024.
    public var workSize: Int
    /// Smallest page area as a fraction of the image, in (0, 1).
    public var minimumArea: Double

    public init(workSize: Int = 512, minimumArea: Double = 0.08) {
        self.workSize = workSize
        self.minimumArea = minimumArea
    }

    /// What a detection found. "Not found" is a result, not an error.
    public enum Result: Sendable, Hashable {
        /// The page's corners in the image's pixel coordinates, clockwise from the top-left,
        /// and a confidence in 0…1 (the share of the sides supported by edges).
        case found(Quad, confidence: Double)
        /// No convex page-sized quadrilateral with enough edge support.
        case notFound

        /// The quad, if found.
        public var quad: Quad? {
            if case let .found(q, _) = self { return q }
            return nil
        }
    }

    var options: ic_detect_options {
        ic_detect_options(work_size: Int32(clamping: workSize), min_area: minimumArea)
    }

    /// Bytes of scratch memory a detection in a `width` × `height` image needs.
    public func scratchSize(width: Int, height: Int) throws(ImageError) -> Int {
        var o = options
        var bytes = 0
        try ImageError.check(ic_detect_scratch_size(Int32(clamping: width), Int32(clamping: height), &o, &bytes),
                             "detection scratch for \(width)x\(height)")
        return bytes
    }

    /// Detects the page in `image` (GRAY8, RGB8, RGBA8, I420 or NV12), with scratch memory
    /// allocated for the call.
    public func detect(in image: borrowing PixelBuffer) throws(ImageError) -> Result {
        let bytes = try scratchSize(width: image.width, height: image.height)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        return try detect(in: image, scratch: scratch)
    }

    /// Detects the page using caller-provided scratch memory of at least
    /// ``scratchSize(width:height:)`` bytes (reusable across calls; not shared between
    /// concurrent calls).
    public func detect(in image: borrowing PixelBuffer, scratch: UnsafeMutableRawBufferPointer) throws(ImageError) -> Result {
        var o = options
        var out = ic_page_detection()
        let st = image.withUnsafeImage { img in ic_detect_page(img, &o, scratch.baseAddress, scratch.count, &out) }
        try ImageError.check(st, "page detection in \(image.width)x\(image.height) \(image.format)")
        return out.found != 0 ? .found(Quad(out.quad), confidence: out.confidence) : .notFound
    }
}
