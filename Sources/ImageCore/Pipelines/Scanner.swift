/// The document scanner: a photographed page (JPEG) in, an upright, rectified, enhanced page
/// (JPEG) out, touching only the pixels it needs.
///
/// 1. Without given corners, the page is detected on a 1/8-scale GRAY8 decode
///    (``PageDetector``); the corners are scaled back to the full image.
/// 2. ``plan(width:height:corners:size:)`` picks the smallest DCT scale n/8 at which the
///    page's shortest opposite sides still cover the output size, and the crop of the scaled
///    image that holds the page (plus 2 px for the interpolation, origin even for 4:2:0).
/// 3. Only that crop is decoded, at that scale, straight to NV12 (colour) or GRAY8 (gray, bw).
/// 4. The page is rectified from the planes into the output, with the EXIF orientation
///    composed into the mapping (``PixelBuffer/rectify(from:quad:orientation:interpolation:fill:)``);
///    the decoded crop is released.
/// 5. The output is enhanced in place (``PixelBuffer/enhance(mode:cellSize:blackWhiteOffset:neutralChroma:)``)
///    and encoded from its planes.
///
/// Pixel memory at peak is the decoded crop plus the output (both 1.5 B/px in colour, 1 B/px
/// in gray); nothing is copied. ``ScanResult/peakPixelBytes`` reports it, measured by
/// ``PixelAllocator``.
public enum Scanner {
    /// What to scan and how.
    public struct Options: Sendable, Hashable {
        /// The page's corners in stored (file) pixels of the full-size image; `nil` detects them.
        public var corners: Quad?
        /// The output size in the page's frame (before the orientation turn).
        public var size: RectifiedSize
        public var mode: EnhanceMode
        /// `false` skips the enhancement (a plain rectified page).
        public var enhance: Bool
        public var quality: Int
        public var interpolation: Interpolation
        public init(corners: Quad? = nil, size: RectifiedSize = .paper(.a4, dpi: 150), mode: EnhanceMode = .color,
                    enhance: Bool = true, quality: Int = 85, interpolation: Interpolation = .bilinear) {
            self.corners = corners; self.size = size; self.mode = mode
            self.enhance = enhance; self.quality = quality; self.interpolation = interpolation
        }
    }

    /// Where and how much to decode for one page.
    public struct Plan: Sendable, Hashable {
        /// DCT scale n/8.
        public var scale: Int
        /// The crop of the scaled image to decode.
        public var crop: JPEG.Rect
        /// The page's corners inside the crop.
        public var quadInCrop: Quad
        /// The output size in the page's frame.
        public var width: Int
        public var height: Int
    }

    /// What a scan produced and did.
    public struct ScanResult: Sendable {
        public var jpeg: [UInt8]
        /// The corners used (stored full-size pixels), and whether they were detected.
        public var corners: Quad
        public var detected: Bool
        public var plan: Plan
        /// The output's size as displayed (after the orientation turn).
        public var width: Int
        public var height: Int
        public var orientation: Orientation
        /// Peak pixel bytes of the scan (``PixelAllocator`` scope).
        public var peakPixelBytes: Int
    }

    /// The decode plan for `corners` of a `width` × `height` image and an output `size`.
    /// - Throws: `.invalidArgument` for a quad outside the image or degenerate.
    public static func plan(width: Int, height: Int, corners: Quad, size: RectifiedSize) throws(ImageError) -> Plan {
        try corners.validate(width: width, height: height)
        let out = try corners.rectifiedSize(size)
        func dist(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let across = min(dist(corners.topLeft, corners.topRight), dist(corners.bottomLeft, corners.bottomRight))
        let down = min(dist(corners.topLeft, corners.bottomLeft), dist(corners.topRight, corners.bottomRight))
        let n = try JPEG.pickScale(width: max(1, Int(across.rounded(.down))), height: max(1, Int(down.rounded(.down))),
                                   targetWidth: out.width, targetHeight: out.height)
        let scaled = try JPEG.scaledSize(width: width, height: height, eighths: n)
        let fx = Double(scaled.width) / Double(width), fy = Double(scaled.height) / Double(height)
        let pts = corners.corners.map { Point(x: $0.x * fx, y: $0.y * fy) }
        let margin = 2.0
        var x0 = max(0, Int((pts.map(\.x).min()! - margin).rounded(.down)))
        var y0 = max(0, Int((pts.map(\.y).min()! - margin).rounded(.down)))
        x0 &= ~1; y0 &= ~1
        let x1 = min(scaled.width, Int((pts.map(\.x).max()! + margin).rounded(.up)))
        let y1 = min(scaled.height, Int((pts.map(\.y).max()! + margin).rounded(.up)))
        let crop = JPEG.Rect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
        let q = Quad(pts.map { Point(x: $0.x - Double(x0), y: $0.y - Double(y0)) })
        return Plan(scale: n, crop: crop, quadInCrop: q, width: out.width, height: out.height)
    }

    /// Detects the page on a 1/8 GRAY8 decode; the corners in full-size stored pixels.
    /// - Throws: `.invalidArgument` when no page is found.
    public static func detect(_ jpeg: UnsafeRawBufferPointer) throws(ImageError) -> Quad {
        let info = try JPEG.info(jpeg)
        let small = try JPEG.decode(jpeg, format: .gray8, options: .init(scale: .eighths(1)))
        guard let q = try PageDetector().detect(in: small).quad else {
            throw ImageError(.invalidArgument, "no page found; give the corners")
        }
        let fx = Double(info.width) / Double(small.width), fy = Double(info.height) / Double(small.height)
        return Quad(q.corners.map { Point(x: $0.x * fx, y: $0.y * fy) })
    }

    /// Scans the page of `jpeg`. See ``Scanner`` for the steps.
    /// - Throws: `.corruptData` / `.unsupported` / `.tooLarge` from the decoder,
    ///   `.invalidArgument` for bad corners or no page found.
    public static func scan(_ jpeg: UnsafeRawBufferPointer, options: Options = .init()) throws(ImageError) -> ScanResult {
        var failure: ImageError? = nil
        let (result, usage) = PixelAllocator.measure { () -> ScanResult? in
            do throws(ImageError) { return try scanMeasured(jpeg, options: options) } catch { failure = error; return nil }
        }
        if let failure { throw failure }
        var r = result!
        r.peakPixelBytes = usage.peakBytes
        return r
    }

    /// ``scan(_:options:)-(UnsafeRawBufferPointer,_)`` for bytes in an array (lent in place).
    public static func scan(_ jpeg: [UInt8], options: Options = .init()) throws(ImageError) -> ScanResult {
        try JPEG.withBytes(jpeg) { raw throws(ImageError) in try scan(raw, options: options) }
    }

    static func scanMeasured(_ jpeg: UnsafeRawBufferPointer, options: Options) throws(ImageError) -> ScanResult {
        let info = try JPEG.info(jpeg)
        var detected = false
        let corners: Quad
        if let given = options.corners { corners = given } else { corners = try detect(jpeg); detected = true }
        let plan = try plan(width: info.width, height: info.height, corners: corners, size: options.size)
        let format: PixelFormat = options.mode == .color ? .nv12 : .gray8
        var page: PixelBuffer
        do {
            let crop = try JPEG.decode(jpeg, format: format, options: .init(scale: .eighths(plan.scale), crop: plan.crop))
            let shown = crop.orientation.displaySize(width: plan.width, height: plan.height)
            page = try PixelBuffer(width: shown.width, height: shown.height, format: format)
            try page.rectify(from: crop, quad: plan.quadInCrop, orientation: crop.orientation,
                             interpolation: options.interpolation, fill: format == .nv12 ? [255, 128, 128] : [255])
        } // the decoded crop is freed here, before enhancement and encoding
        if options.enhance { try page.enhance(mode: options.mode) }
        let bytes = try JPEG.encode(page, options: .init(quality: options.quality, orientation: .up))
        return ScanResult(jpeg: bytes, corners: corners, detected: detected, plan: plan, width: page.width,
                          height: page.height, orientation: info.orientation, peakPixelBytes: 0)
    }
}
