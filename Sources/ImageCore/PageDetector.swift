import CImageCore

/// Finds the quadrilateral of a document page in a photo.
///
/// A small network gives, on a working image of 288 px on the long side (luma and chroma),
/// each cell's probability of lying on a page boundary; Hough lines of that map (and the
/// frame's edges, for a page cut by the photo's edge) make candidate quadrilaterals scored
/// by the probability along their sides; the best is refined in the full image and reported
/// with a calibrated confidence: the estimated probability that every corner is within
/// 1.5 % of the image diagonal. See `imagecore/detect.h` and the README ("Page detection")
/// for the method and the figures measured on the held-out split.
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
/// ``scratchSize(width:height:)`` bytes (about 2.0 MB for 12 MP at 288 px), allocated for the call, or
/// lent by the caller with ``detect(in:scratch:)`` to reuse it across frames.
public struct PageDetector: Sendable, Hashable {
    /// Long side of the working image, 64…1024 (the confidence was calibrated at the default,
    /// ``defaultWorkSize``; the network's last training stage saw 192 and 288). The reduction
    /// box is the integer nearest to the long side / `workSize`, so the working image's long
    /// side is the nearest to `workSize` an integer box gives.
    public var workSize: Int
    /// Smallest page area as a fraction of the image, in (0, 1).
    public var minimumArea: Double
    /// Smallest confidence reported as found, in (0, 1]; negative reports the best candidate
    /// whatever its confidence.
    public var minimumConfidence: Double
    /// 0 (the default): one run. Otherwise 64…1024, a second working size: when the first run
    /// has candidates and its best has a confidence below `IC_DETECT_SECOND_RUN_BELOW` (0.97),
    /// and the two sizes' boxes differ, the detection runs again at this size and answers from
    /// the run whose best candidate scores higher — more pages found right (with
    /// ``recommendedSecondWorkSize`` after the default size: the design splits' 3 183 → 3 270
    /// of 3 506 pages, the held-out split's 89.8 → 94.8 %; the CLI's and ``Scanner``'s
    /// default) for a second run on the doubtful photos (the first run's pass over the
    /// image already wrote its working image; a 1600 px photo about 1.5 × one run's time on
    /// average, a page-less 12 MP one about 2 ×). ``boundaryMap(of:)`` and ``maps(of:)`` stay
    /// those of ``workSize``.
    public var secondWorkSize: Int

    /// The second working size measured with the default one (`IC_DETECT_SECOND_WORK_SIZE`, 384):
    /// `PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize)` for a slower,
    /// surer detection.
    public static var recommendedSecondWorkSize: Int { Int(IC_DETECT_SECOND_WORK_SIZE) }

    /// The default ``minimumConfidence``: chosen on the validation split when the network and
    /// the ranker were trained (the lowest of 0.05, 0.10, … 0.90 with at most 1 % false pages on
    /// its plain and hard page-less photos at 1600 and 360 px, detected at two working sizes).
    public static var defaultMinimumConfidence: Double { ic_detect_default_min_confidence() }

    /// The default ``workSize`` (`IC_DETECT_DEFAULT_WORK_SIZE`, 288).
    public static var defaultWorkSize: Int { Int(IC_DETECT_DEFAULT_WORK_SIZE) }

    public init(workSize: Int = PageDetector.defaultWorkSize, minimumArea: Double = 0.005,
                minimumConfidence: Double = PageDetector.defaultMinimumConfidence, secondWorkSize: Int = 0) {
        self.workSize = workSize
        self.minimumArea = minimumArea
        self.minimumConfidence = minimumConfidence
        self.secondWorkSize = secondWorkSize
    }

    /// Edges of the photo that a detected page runs out of (that edge is the page's side).
    public struct FrameEdges: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let top = FrameEdges(rawValue: 1)
        public static let right = FrameEdges(rawValue: 2)
        public static let bottom = FrameEdges(rawValue: 4)
        public static let left = FrameEdges(rawValue: 8)
    }

    /// Everything a detection reports.
    public struct Detection: Sendable, Hashable {
        /// The page's corners (clockwise from the top-left), or `nil` when not found.
        public var quad: Quad?
        /// The estimated probability that every corner is within 1.5 % of the diagonal.
        public var confidence: Double
        /// Frame edges that are a side of the page (the page is cut by the photo's edge).
        public var cutEdges: FrameEdges
        /// The best candidate's raw score (also when not found; 0 without a candidate).
        public var score: Double
    }

    /// What a detection found. "Not found" is a result, not an error.
    public enum Result: Sendable, Hashable {
        /// The page's corners in the image's pixel coordinates, clockwise from the top-left,
        /// and a confidence in 0…1 (the estimated probability that every corner is within
        /// 1.5 % of the image diagonal).
        case found(Quad, confidence: Double)
        /// No page-shaped quadrilateral reached the minimum confidence.
        case notFound

        /// The quad, if found.
        public var quad: Quad? {
            if case let .found(q, _) = self { return q }
            return nil
        }
    }

    var options: ic_detect_options {
        ic_detect_options(work_size: Int32(clamping: workSize), min_area: minimumArea, min_confidence: minimumConfidence,
                          second_work_size: Int32(clamping: secondWorkSize))
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
        let d = try detection(in: image, scratch: scratch)
        return d.quad.map { .found($0, confidence: d.confidence) } ?? .notFound
    }

    /// Detects the page and reports everything: corners, confidence, cut edges, raw score.
    public func detection(in image: borrowing PixelBuffer) throws(ImageError) -> Detection {
        let bytes = try scratchSize(width: image.width, height: image.height)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        return try detection(in: image, scratch: scratch)
    }

    /// ``detection(in:)`` with caller-provided scratch memory.
    public func detection(in image: borrowing PixelBuffer, scratch: UnsafeMutableRawBufferPointer) throws(ImageError) -> Detection {
        var o = options
        var out = ic_page_detection()
        let st = image.withUnsafeImage { img in ic_detect_page(img, &o, scratch.baseAddress, scratch.count, &out) }
        try ImageError.check(st, "page detection in \(image.width)x\(image.height) \(image.format)")
        return Detection(quad: out.found != 0 ? Quad(out.quad) : nil, confidence: out.confidence,
                         cutEdges: FrameEdges(rawValue: Int(out.cut_edges)), score: out.score)
    }

    /// One of the best candidate pages (``candidates(in:)``).
    public struct Candidate: Sendable, Hashable {
        /// Its corners (clockwise from the top-left), refined as a detection's are.
        public var quad: Quad
        /// The calibrated confidence (as ``Detection/confidence``), whatever the threshold.
        public var confidence: Double
        /// Frame edges that are a side of it.
        public var cutEdges: FrameEdges
        /// The ranker's raw score (log-odds before calibration).
        public var score: Double
        /// The ranker's inputs (their meaning: detect_quad.c's `candidate_features`; they may
        /// change between versions), for training it (scripts/detector/ranker.py).
        public var features: [Double]
    }

    /// The best candidate pages in `image`, best first, with no confidence threshold (at most
    /// 8): alternatives to offer when the detected page is wrong. The first is the page
    /// ``detection(in:)`` reports when its confidence reaches ``minimumConfidence``.
    public func candidates(in image: borrowing PixelBuffer) throws(ImageError) -> [Candidate] {
        let bytes = try scratchSize(width: image.width, height: image.height)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        var o = options
        var out = [ic_detect_candidate](repeating: ic_detect_candidate(), count: Int(IC_DETECT_MAX_CANDIDATES))
        var n: Int32 = 0
        let st = out.withUnsafeMutableBufferPointer { c in
            image.withUnsafeImage { img in
                ic_detect_candidates(img, &o, scratch.baseAddress, scratch.count, c.baseAddress, Int32(c.count), &n)
            }
        }
        try ImageError.check(st, "page candidates in \(image.width)x\(image.height) \(image.format)")
        return out.prefix(Int(n)).map { c in
            var f = c.features
            let features = withUnsafeBytes(of: &f) { Array($0.bindMemory(to: Double.self)) }
            return Candidate(quad: Quad(c.quad), confidence: c.confidence, cutEdges: FrameEdges(rawValue: Int(c.cut_edges)),
                             score: c.score, features: features)
        }
    }

    /// The learned boundary map of `image`: per cell (half the working resolution), the
    /// probability that it lies on a page boundary; `width` × `height` cells, row-major.
    public func boundaryMap(of image: borrowing PixelBuffer) throws(ImageError) -> (width: Int, height: Int, values: [Float]) {
        let m = try maps(of: image, inside: false)
        return (m.width, m.height, m.boundary)
    }

    /// Both outputs of the detection network for `image`, from one run: the boundary map (as
    /// ``boundaryMap(of:)``) and the inside map (per cell, the probability that it lies inside a
    /// page), `width` × `height` cells each, row-major.
    public func maps(of image: borrowing PixelBuffer) throws(ImageError) -> (width: Int, height: Int, boundary: [Float], inside: [Float]) {
        try maps(of: image, inside: true)
    }

    private func maps(of image: borrowing PixelBuffer, inside wantInside: Bool) throws(ImageError)
        -> (width: Int, height: Int, boundary: [Float], inside: [Float])
    {
        var o = options
        var mw: Int32 = 0, mh: Int32 = 0
        try ImageError.check(ic_detect_map_size(Int32(clamping: image.width), Int32(clamping: image.height), &o, &mw, &mh),
                             "boundary map size for \(image.width)x\(image.height)")
        let bytes = try scratchSize(width: image.width, height: image.height)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        let cells = Int(mw) * Int(mh)
        var boundary = [Float](repeating: 0, count: cells)
        var inside = [Float](repeating: 0, count: wantInside ? cells : 0)
        let st = boundary.withUnsafeMutableBufferPointer { b in
            inside.withUnsafeMutableBufferPointer { i in
                image.withUnsafeImage { img in
                    ic_detect_maps(img, &o, scratch.baseAddress, scratch.count, b.baseAddress, wantInside ? i.baseAddress : nil, Int(mw))
                }
            }
        }
        try ImageError.check(st, "detection maps of \(image.width)x\(image.height) \(image.format)")
        return (Int(mw), Int(mh), boundary, inside)
    }
}
