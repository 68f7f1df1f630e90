import CImageCore

/// A point in continuous pixel coordinates: the image covers `0...width` × `0...height`
/// and the centre of pixel `(i, j)` is at `(i + 0.5, j + 0.5)`; y points down.
public struct Point: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }

    var cValue: ic_point { ic_point(x: x, y: y) }
    init(_ p: ic_point) { self.init(x: p.x, y: p.y) }
}

/// A quadrilateral such as a page in a photo.
///
/// The corner order is the order in which the corners become the corners of a rectified
/// image: top-left, top-right, bottom-right, bottom-left (clockwise on screen). Listing them
/// counter-clockwise is legal and rectifies to a mirror image; ``ordered()`` sorts corners
/// that come in no particular order.
public struct Quad: Sendable, Hashable, CustomStringConvertible {
    public var topLeft: Point
    public var topRight: Point
    public var bottomRight: Point
    public var bottomLeft: Point

    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// A quad from four corners in the order top-left, top-right, bottom-right, bottom-left.
    public init(_ corners: [Point]) {
        precondition(corners.count == 4, "a quad has 4 corners, got \(corners.count)")
        self.init(topLeft: corners[0], topRight: corners[1], bottomRight: corners[2], bottomLeft: corners[3])
    }

    /// The axis-aligned rectangle `0...width` × `0...height`.
    public init(width: Double, height: Double) {
        self.init([Point(x: 0, y: 0), Point(x: width, y: 0), Point(x: width, y: height), Point(x: 0, y: height)])
    }

    /// The corners in order: top-left, top-right, bottom-right, bottom-left.
    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The quad with every x multiplied by `x` and every y by `y` (a quad found in a scaled
    /// decode, in the full image's pixels).
    public func scaled(x: Double, y: Double) -> Quad { Quad(corners.map { Point(x: $0.x * x, y: $0.y * y) }) }

    public var description: String { corners.map(\.description).joined(separator: " ") }

    var cValue: ic_quad { ic_quad(corners: (topLeft.cValue, topRight.cValue, bottomRight.cValue, bottomLeft.cValue)) }
    init(_ q: ic_quad) {
        self.init(topLeft: Point(q.corners.0), topRight: Point(q.corners.1),
                  bottomRight: Point(q.corners.2), bottomLeft: Point(q.corners.3))
    }

    /// Why a quad cannot be rectified.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// A coordinate is NaN or infinite.
        case notFinite
        /// A corner lies farther outside the image than the image's own size (or beyond 2²⁴).
        case outOfBounds
        /// Two corners coincide, three are (nearly) collinear, or the area is below 1 px².
        case degenerate
        /// Two opposite sides cross (a "bow tie").
        case selfIntersecting
        /// A simple but concave quadrilateral.
        case notConvex

        init?(_ p: ic_quad_problem) {
            switch p {
            case IC_QUAD_NOT_FINITE: self = .notFinite
            case IC_QUAD_OUT_OF_BOUNDS: self = .outOfBounds
            case IC_QUAD_DEGENERATE: self = .degenerate
            case IC_QUAD_SELF_INTERSECTING: self = .selfIntersecting
            case IC_QUAD_NOT_CONVEX: self = .notConvex
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .notFinite: "not finite"
            case .outOfBounds: "out of bounds"
            case .degenerate: "degenerate"
            case .selfIntersecting: "self-intersecting"
            case .notConvex: "not convex"
            }
        }
    }

    /// What is wrong with the quad for an image of `width` × `height` (`0, 0`: only the
    /// absolute bound), or `nil` if it can be rectified. See `ic_quad_validate`.
    public func problem(width: Int = 0, height: Int = 0) -> Problem? {
        var q = cValue
        var p = IC_QUAD_VALID
        _ = ic_quad_validate(&q, Int32(clamping: width), Int32(clamping: height), &p)
        return Problem(p)
    }

    /// Throws `.invalidArgument` naming the ``Problem`` if the quad cannot be rectified.
    public func validate(width: Int = 0, height: Int = 0) throws(ImageError) {
        if let p = problem(width: width, height: height) {
            throw ImageError(.invalidArgument, "quad \(p): \(self)")
        }
    }

    /// The same corners ordered clockwise on screen, starting with the one nearest the
    /// top-left (smallest x + y).
    public func ordered() throws(ImageError) -> Quad {
        let pts = [topLeft.cValue, topRight.cValue, bottomRight.cValue, bottomLeft.cValue]
        var out = ic_quad()
        try ImageError.check(pts.withUnsafeBufferPointer { ic_quad_order($0.baseAddress, &out) }, "quad \(self)")
        return Quad(out)
    }

    /// The size of the rectified page in the quad's own frame (before any orientation).
    public func rectifiedSize(_ request: RectifiedSize) throws(ImageError) -> (width: Int, height: Int) {
        try rectifiedSize(request.cValue, for: "\(request)")
    }

    /// The C core's size for `request`, also of kinds ``RectifiedSize`` has no case for
    /// (`IC_SIZE_PAPER_FIT`: ``Scanner``'s cut pages).
    func rectifiedSize(_ request: ic_size_request, for what: @autoclosure () -> String) throws(ImageError) -> (width: Int, height: Int) {
        var q = cValue
        var r = request
        var w: Int32 = 0, h: Int32 = 0
        let st = ic_rectified_size(&q, &r, &w, &h)
        if st != IC_OK { try ImageError.check(st, "rectified size of \(self) for \(what())") }
        return (Int(w), Int(h))
    }
}

/// Paper sizes for ``RectifiedSize/paper(_:dpi:)``.
public enum Paper: String, Sendable, Hashable, CaseIterable {
    /// 210 × 297 mm.
    case a4
    /// 148 × 210 mm.
    case a5
    /// 8.5 × 11 in.
    case letter
    /// 8.5 × 14 in.
    case legal

    var cValue: ic_paper {
        switch self {
        case .a4: IC_PAPER_A4
        case .a5: IC_PAPER_A5
        case .letter: IC_PAPER_LETTER
        case .legal: IC_PAPER_LEGAL
        }
    }
}

/// How big a rectified page is. The quad's aspect ratio is estimated from the mean
/// lengths of its opposite sides.
public enum RectifiedSize: Sendable, Hashable {
    /// The quad's own size in pixels.
    case natural
    /// Exactly this size.
    case pixels(width: Int, height: Int)
    /// The quad's aspect ratio, the longer side this many pixels.
    case longSide(Int)
    /// A paper size at a resolution: portrait when the quad is taller than wide, else
    /// landscape (A4 at 300 dpi is 2480 × 3508).
    case paper(Paper, dpi: Double)

    var cValue: ic_size_request {
        var r = ic_size_request()
        switch self {
        case .natural: r.kind = IC_SIZE_NATURAL
        case let .pixels(w, h): r.kind = IC_SIZE_PIXELS; r.width = Int32(clamping: w); r.height = Int32(clamping: h)
        case let .longSide(n): r.kind = IC_SIZE_LONG_SIDE; r.long_side = Int32(clamping: n)
        case let .paper(p, dpi): r.kind = IC_SIZE_PAPER; r.paper = p.cValue; r.dpi = dpi
        }
        return r
    }
}

/// A plane projective transform, solved and applied in double precision.
///
/// `matrix` is 3 × 3 in row-major order acting on homogeneous column vectors: a point
/// `(x, y)` maps to `(x'/w', y'/w')` with `(x', y', w') = M · (x, y, 1)`.
public struct Homography: Sendable, Hashable, CustomStringConvertible {
    /// The nine entries, row-major.
    public private(set) var matrix: [Double]

    /// A homography from nine row-major entries.
    public init(matrix: [Double]) {
        precondition(matrix.count == 9, "a homography has 9 entries, got \(matrix.count)")
        self.matrix = matrix
    }

    init(_ h: ic_homography) {
        matrix = withUnsafeBytes(of: h.m) { Array($0.bindMemory(to: Double.self)) }
    }

    var cValue: ic_homography {
        var h = ic_homography()
        withUnsafeMutableBytes(of: &h.m) { raw in
            let d = raw.bindMemory(to: Double.self)
            for i in 0..<9 { d[i] = matrix[i] }
        }
        return h
    }

    /// The identity.
    public static let identity = Homography(ic_homography_identity())

    /// The homography mapping `from[i]` onto `to[i]` for the four pairs (normalised DLT in
    /// double precision).
    /// - Throws: `.invalidArgument` for non-finite points or configurations without a unique
    ///   solution (coincident points, three collinear on one side only).
    public init(from: [Point], to: [Point]) throws(ImageError) {
        guard from.count == 4, to.count == 4 else {
            throw ImageError(.invalidArgument, "a homography needs 4 point pairs, got \(from.count) and \(to.count)")
        }
        let a = from.map(\.cValue), b = to.map(\.cValue)
        var h = ic_homography()
        let st = a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in ic_homography_from_points(pa.baseAddress, pb.baseAddress, &h) } }
        try ImageError.check(st, "no homography maps \(from) onto \(to)")
        self.init(h)
    }

    /// The homography mapping the corners of `from` onto the corners of `to`.
    public init(from: Quad, to: Quad) throws(ImageError) {
        try self.init(from: from.corners, to: to.corners)
    }

    /// The map of an EXIF orientation for an image stored as `width` × `height`: from a
    /// point of the displayed (upright) image to the stored point it shows.
    public static func orientation(_ o: Orientation, width: Int, height: Int) throws(ImageError) -> Homography {
        var h = ic_homography()
        try ImageError.check(ic_orientation_homography(Int32(o.rawValue), Int32(clamping: width), Int32(clamping: height), &h),
                             "orientation \(o) of \(width)x\(height)")
        return Homography(h)
    }

    /// The inverse transform.
    /// - Throws: `.invalidArgument` if the matrix is singular or not finite.
    public func inverted() throws(ImageError) -> Homography {
        var a = cValue
        var out = ic_homography()
        try ImageError.check(ic_homography_invert(&a, &out), "singular homography \(self)")
        return Homography(out)
    }

    /// The transform that applies `rhs` first, then `lhs`.
    public static func * (lhs: Homography, rhs: Homography) -> Homography {
        var a = lhs.cValue, b = rhs.cValue
        var out = ic_homography()
        if ic_homography_multiply(&a, &b, &out) != IC_OK {
            return Homography(matrix: Array(repeating: .nan, count: 9))
        }
        return Homography(out)
    }

    /// Maps a point.
    /// - Throws: `.invalidArgument` when the point maps to infinity.
    public func map(_ p: Point) throws(ImageError) -> Point {
        var h = cValue
        var out = ic_point()
        try ImageError.check(ic_homography_map(&h, p.cValue, &out), "\(p) maps to infinity")
        return Point(out)
    }

    /// Maps the four corners of a quad.
    public func map(_ q: Quad) throws(ImageError) -> Quad {
        Quad(topLeft: try map(q.topLeft), topRight: try map(q.topRight),
             bottomRight: try map(q.bottomRight), bottomLeft: try map(q.bottomLeft))
    }

    public var description: String { "\(matrix)" }
}
