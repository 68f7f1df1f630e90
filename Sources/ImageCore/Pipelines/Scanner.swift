import CImageCore

/// The document scanner: a photographed page (JPEG, PNG or PNM, by content) in, an upright,
/// rectified, enhanced page (JPEG or PNG: ``Options/fileFormat``) out, touching only the
/// pixels it needs.
///
/// A JPEG takes the steps below. PNG and PNM have no reduced-scale or cropped decode: the
/// file is decoded whole (RGBA8, or GRAY8 for a gray file; the PNG's eXIf orientation kept),
/// the page is detected on it when no corners are given, rectified from it with the
/// orientation composed, turned gray for the gray and black-and-white modes, enhanced and
/// encoded (``scan(image:options:)``).
///
/// 1. Without given corners, the page is detected on a small RGB8 decode (1/8 for 12 MP)
///    (``PageDetector``); the corners are scaled back to the full image.
/// 2. ``plan(width:height:corners:size:)`` picks the smallest DCT scale n/8 at which the
///    page's shortest opposite sides still cover the output size, and the crop of the scaled
///    image that holds the page (plus 2 px for the interpolation, origin even for 4:2:0).
/// 3. Only that crop is decoded, at that scale, straight to NV12 (colour) or GRAY8 (gray, bw);
///    a colour page of a CMYK, YCCK or RGB file, or of an unusual sampling, to RGBA8 (4 B/px).
/// 4. The page is rectified from the planes into the output, with the EXIF orientation
///    composed into the mapping.
/// 5. The output is enhanced in place and encoded from its planes.
///
/// Steps 2 to 4 are the C core's scan (`ic_scan_plan_jpeg`, `ic_scan_jpeg` in
/// `imagecore/pipeline.h`), which C and C++ hosts call the same way. Pixel memory at peak is
/// the output plus one scratch block holding the decoded crop, whose bytes the enhancement
/// then reuses (1.5 B/px in colour, 4 for an RGBA8 crop, 1 B/px in gray); nothing is copied.
/// ``ScanResult/peakPixelBytes`` reports it, measured by ``PixelAllocator``.
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
        /// Decode limits and strictness (`maxPixels`, `maxMemory`, `strict`, `minValidShare`),
        /// and the CMYK profile a CMYK or YCCK file's crop is converted through (`cmykProfile`);
        /// scale and crop are the plan's.
        public var limits: JPEG.DecodeOptions
        /// An ICC profile to embed in the output, byte for byte (pass the photo's own,
        /// ``JPEG/iccProfile(_:)``, to keep its colours); written only where it describes the
        /// page: an RGB profile ('RGB ' data colour space) on a colour page, a 'GRAY' one on a
        /// gray or black-and-white page; `nil`: none.
        public var iccProfile: [UInt8]?
        /// The output's file format: JPEG at ``quality`` (the default) or PNG (lossless; a
        /// colour page decoded to NV12 is converted to RGB8 for it).
        public var fileFormat: FileFormat
        /// The detector of the automatic mode (no ``corners``): ``Scanner/defaultDetector``, two
        /// working sizes, unless given. `PageDetector()` (one size) is faster on the photos the
        /// first run is unsure of and finds fewer pages (README, "Pipelines", the scanner).
        public var detector: PageDetector
        public init(corners: Quad? = nil, size: RectifiedSize = .paper(.a4, dpi: 150), mode: EnhanceMode = .color,
                    enhance: Bool = true, quality: Int = 85, interpolation: Interpolation = .bilinear,
                    limits: JPEG.DecodeOptions = .init(), iccProfile: [UInt8]? = nil, fileFormat: FileFormat = .jpeg,
                    detector: PageDetector = Scanner.defaultDetector) {
            self.corners = corners; self.size = size; self.mode = mode
            self.enhance = enhance; self.quality = quality; self.interpolation = interpolation
            self.limits = limits
            self.iccProfile = iccProfile
            self.fileFormat = fileFormat
            self.detector = detector
        }

        /// ``iccProfile`` when it describes a page of `format`, else nil.
        func profile(for format: PixelFormat) -> [UInt8]? {
            guard let icc = iccProfile, icc.count >= 20 else { return nil }
            let space = Array(icc[16..<20])
            return space == Array((format == .gray8 ? "GRAY" : "RGB ").utf8) ? icc : nil
        }
    }

    /// The scanned page's file format.
    public enum FileFormat: Sendable, Hashable {
        case jpeg
        case png
    }

    /// Where and how much to decode for one page.
    public struct Plan: Sendable, Hashable {
        /// DCT scale n/8.
        public var scale: Int
        /// The crop of the scaled image to decode.
        public var crop: PixelRect
        /// The page's corners inside the crop.
        public var quadInCrop: Quad
        /// The output size in the page's frame.
        public var width: Int
        public var height: Int
    }

    /// What a scan produced and did.
    public struct ScanResult: Sendable {
        /// The encoded page, in ``Options/fileFormat``.
        public var encoded: [UInt8]
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
        /// The decoder's warnings (recovered corruption): of the page detection's decode and
        /// of the scan's crop decode (`ic_scan_options.result`).
        public var warnings = JPEG.Warnings()
        /// Frame edges the detected page runs out of (``PageDetector/Detection/cutEdges``): its
        /// side there is the photo's edge, so the scan holds the page's visible part only. For a
        /// ``RectifiedSize/paper(_:dpi:)`` size that part keeps its own aspect (the quad's, as
        /// ``RectifiedSize/natural`` has it), as large as fits in the paper, rather than being
        /// stretched to the whole sheet; an explicit pixel size is kept as given.
        /// Empty when the corners were given.
        public var cutEdges: PageDetector.FrameEdges = []
    }

    /// The decode plan for `corners` of a `width` × `height` image and an output `size`: the
    /// C core's `ic_scan_plan_size` (which ``scan(_:options:)`` runs
    /// with the file's own size and orientation).
    /// - Throws: `.invalidArgument` for a quad outside the image or degenerate.
    public static func plan(width: Int, height: Int, corners: Quad, size: RectifiedSize) throws(ImageError) -> Plan {
        var o = cOptions(Options(corners: corners, size: size))
        var plan = ic_scan_plan()
        try ImageError.check(ic_scan_plan_size(Int32(clamping: width), Int32(clamping: height), 1, &o, &plan),
                             "scan plan: \(corners) in \(width)x\(height), size \(size)")
        return Plan(c: plan)
    }

    static func cOptions(_ options: Options) -> ic_scan_options {
        var o = ic_scan_options()
        if let corners = options.corners { o.corners = corners.cValue }
        o.size = options.size.cValue
        o.mode = options.mode.cValue
        o.no_enhance = options.enhance ? 0 : 1
        o.interpolation = options.interpolation.cValue
        o.quality = Int32(clamping: options.quality)
        return o
    }

    /// The scanner's detector: two working sizes (``PageDetector/recommendedSecondWorkSize``
    /// after the default), since a scan's decode, rectification and encoding cost more than a
    /// second detection run on the photos the first is unsure of (README, "Pipelines", the
    /// scanner: the proxy package's photos at 504 px, 93.3 → 95.1 % of pages right, the hard
    /// ones 74.7 → 82.0 %; the held-out split's 1600 px photos through `imagecore scan` 95.0 %).
    public static var defaultDetector: PageDetector { PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize) }

    /// Detects the page on an RGB8 decode at the smallest of 1/8, 1/4 and 1/2 whose long side is
    /// at least 480 px, else the whole file (1/8 for a 12 MP photo, 1/2 for a 1600 px one: the
    /// scales with SIMD inverse DCTs; the detector reads luma and chroma and works at about
    /// ``PageDetector/defaultWorkSize`` px, and at the second size on a box of its own: 252 and
    /// 504 on a 504 px decode, 266 and 400 on an 800 px one — at 3/8, 600 px, both sizes had a
    /// box of 2, one run); the corners in full-size stored pixels.
    /// - Parameter detector: the detector (``Options/detector``).
    /// - Throws: `.invalidArgument` when no page is found.
    public static func detect(_ jpeg: borrowing some ByteSource & ~Escapable,
                              detector: PageDetector = Scanner.defaultDetector) throws(ImageError) -> Quad {
        try jpeg.withBytes { (jpeg) throws(ImageError) -> Quad in
            var warnings = JPEG.Warnings()
            return try detect(jpeg, limits: .init(), detector: detector, warnings: &warnings).quad
        }
    }

    /// The page found on the small decode, in full-size stored pixels, and the frame edges it runs out of.
    static func detect(_ jpeg: UnsafeRawBufferPointer, limits: JPEG.DecodeOptions, detector: PageDetector,
                       warnings: inout JPEG.Warnings) throws(ImageError) -> (quad: Quad, cut: PageDetector.FrameEdges) {
        let info = try JPEG.info(jpeg)
        var o = limits
        o.scale = .eighths(JPEG.fastScale(width: info.width, height: info.height, longSideAtLeast: 480)); o.crop = nil
        let small = try JPEG.decode(jpeg, format: .rgb8, options: o, warnings: &warnings)
        let (q, cut) = try page(in: small, detector: detector)
        let fx = Double(info.width) / Double(small.width), fy = Double(info.height) / Double(small.height)
        return (q.scaled(x: fx, y: fy), cut)
    }

    /// The output size for a page: `request`, except for a page cut by the frame (`cut` not
    /// empty) and a paper size, where the visible part is a part of the paper of unknown
    /// extent: then the quad's own aspect (``RectifiedSize/natural``), scaled to the largest
    /// size that fits in the paper (portrait or landscape as the quad), not the visible part
    /// stretched to the whole sheet.
    /// (The C core's `IC_SIZE_PAPER_FIT`, which C hosts ask for themselves.)
    static func outputSize(_ request: RectifiedSize, quad: Quad, cut: PageDetector.FrameEdges) throws(ImageError) -> RectifiedSize {
        guard !cut.isEmpty, case .paper = request else { return request }
        var r = request.cValue
        r.kind = IC_SIZE_PAPER_FIT
        let s = try quad.rectifiedSize(r, for: "\(request) fitted")
        return .pixels(width: s.width, height: s.height)
    }

    /// The page detected in `image` and the frame edges it runs out of (both automatic paths).
    /// - Throws: `.invalidArgument` when no page is found.
    static func page(in image: borrowing PixelBuffer, detector: PageDetector) throws(ImageError) -> (quad: Quad, cut: PageDetector.FrameEdges) {
        let d = try detector.detection(in: image)
        guard let q = d.quad else { throw ImageError(.invalidArgument, "no page found; give the corners") }
        return (q, d.cutEdges)
    }

    /// Scans the page of a JPEG, PNG or PNM file (by content). See ``Scanner`` for the steps.
    /// - Throws: `.corruptData` / `.unsupported` / `.tooLarge` from the decoder,
    ///   `.invalidArgument` for bad corners or no page found.
    public static func scan(_ file: borrowing some ByteSource & ~Escapable, options: Options = .init()) throws(ImageError) -> ScanResult {
        try file.withBytes { (bytes) throws(ImageError) -> ScanResult in
            try measured { () throws(ImageError) -> ScanResult in
                if PNG.isPNG(bytes) {
                    let info = try PNG.info(bytes)
                    let format: PixelFormat = info.colorType == .gray ? .gray8 : .rgba8
                    guard info.width * info.height <= options.limits.maxPixels else {
                        throw ImageError(.tooLarge, "\(info.width)x\(info.height) PNG is above the limit of \(options.limits.maxPixels) pixels")
                    }
                    var image = try PixelBuffer(width: info.width, height: info.height, format: format)
                    let report = try PNG.decode(bytes, into: &image, options: PNG.DecodeOptions(options.limits))
                    var r = try scanDecoded(image, options: options)
                    r.warnings.add(report)
                    return r
                }
                if PNM.isPNM(bytes) {
                    let h = try PNM.header(bytes)
                    guard h.width * h.height <= options.limits.maxPixels else {
                        throw ImageError(.tooLarge, "\(h.width)x\(h.height) PNM is above the limit of \(options.limits.maxPixels) pixels")
                    }
                    let image = try PNM.decode(bytes)
                    if image.format == .rgb8 { return try scanDecoded(try image.converted(to: .rgba8), options: options) }
                    return try scanDecoded(image, options: options)
                }
                return try scanMeasured(bytes, options: options)
            }
        }
    }

    /// Scans the page of an image already decoded (GRAY8 or RGBA8 stored pixels, its
    /// ``PixelBuffer/orientation`` the file's): detected on it without corners, rectified with
    /// the orientation composed, gray for the gray and black-and-white modes, enhanced, encoded.
    /// ``ScanResult/plan`` is the whole image at scale 8/8.
    /// - Throws: `.unsupported` for other formats, `.invalidArgument` for bad corners or no page.
    public static func scan(image: borrowing PixelBuffer, options: Options = .init()) throws(ImageError) -> ScanResult {
        try measured { () throws(ImageError) -> ScanResult in try scanDecoded(image, options: options) }
    }

    /// Runs `body` in a ``PixelAllocator`` scope and puts its peak into the result.
    static func measured(_ body: () throws(ImageError) -> ScanResult) throws(ImageError) -> ScanResult {
        var failure: ImageError? = nil
        let (result, usage) = PixelAllocator.measure { () -> ScanResult? in
            do throws(ImageError) { return try body() } catch { failure = error; return nil }
        }
        if let failure { throw failure }
        var r = result!
        r.peakPixelBytes = usage.peakBytes
        return r
    }

    static func scanDecoded(_ image: borrowing PixelBuffer, options: Options) throws(ImageError) -> ScanResult {
        guard image.format == .gray8 || image.format == .rgba8 else {
            throw ImageError(.unsupported, "scan of a decoded \(image.format) image (GRAY8 or RGBA8)")
        }
        var detected = false
        var cut: PageDetector.FrameEdges = []
        let quad: Quad
        if let corners = options.corners { quad = corners } else {
            (quad, cut) = try page(in: image, detector: options.detector)
            detected = true
        }
        let size = try outputSize(options.size, quad: quad, cut: cut)
        let fill: [UInt8] = image.format == .gray8 ? [255] : [255, 255, 255, 255]
        var page = try image.rectified(quad: quad, size: size, orientation: image.orientation,
                                       interpolation: options.interpolation, fill: fill)
        if options.mode != .color && page.format != .gray8 { page = try page.converted(to: .gray8) }
        page.orientation = .up
        if options.enhance { try page.enhance(mode: options.mode) }
        let s = try quad.rectifiedSize(size)
        let plan = Plan(scale: 8, crop: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                        quadInCrop: quad, width: s.width, height: s.height)
        return ScanResult(encoded: try encode(page, options: options), corners: quad, detected: detected, plan: plan,
                          width: page.width, height: page.height, orientation: image.orientation, peakPixelBytes: 0,
                          cutEdges: cut)
    }

    /// The page encoded in ``Options/fileFormat``, upright (no orientation tag), with the profile
    /// where it describes the page.
    static func encode(_ page: borrowing PixelBuffer, options: Options) throws(ImageError) -> [UInt8] {
        let icc = options.profile(for: page.format)
        switch options.fileFormat {
        case .jpeg:
            return try JPEG.encode(page, options: .init(quality: options.quality, orientation: .up, iccProfile: icc))
        case .png:
            let png = PNG.EncodeOptions(iccProfile: icc)
            if page.format.isYUV { return try PNG.encode(try page.converted(to: .rgb8), options: png) }
            return try PNG.encode(page, options: png)
        }
    }

    static func scanMeasured(_ jpeg: UnsafeRawBufferPointer, options: Options) throws(ImageError) -> ScanResult {
        var detected = false
        var request = options
        var warnings = JPEG.Warnings()
        var cut: PageDetector.FrameEdges = []
        if request.corners == nil {
            let d = try detect(jpeg, limits: options.limits, detector: options.detector, warnings: &warnings)
            request.corners = d.quad; cut = d.cut; detected = true
            request.size = try outputSize(options.size, quad: d.quad, cut: d.cut)
        }
        let data = jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var o = cOptions(request)
        o.decode = try options.limits.cValue(format: .gray8, bytes: jpeg)
        var plan = ic_scan_plan()
        try ImageError.check(ic_scan_plan_jpeg(data, jpeg.count, &o, &plan),
                             "scan plan: corners \(request.corners!), size \(request.size)")
        guard let format = PixelFormat(plan.format) else { throw ImageError(.internalError, "scan plan format") }
        var page = try PixelBuffer(width: Int(plan.width), height: Int(plan.height), format: format)
        var status = IC_OK
        var decoded = ic_jpeg_decode_result()
        do {
            // The decoded crop lives in the scratch, whose bytes the enhancement then reuses.
            let scratch = try ScratchBuffer(bytes: plan.scratch_size)
            // A CMYK or YCCK file's crop through the limits' CMYK profile (the pointer valid inside).
            var decode = plan.options.decode
            status = try options.limits.withCMYKProfile(&decode) { (d) throws(ImageError) -> ic_status in
                var run = plan
                run.options.decode = d
                return withUnsafeMutablePointer(to: &decoded) { result in
                    run.options.result = result
                    return scratch.withUnsafeBytes { raw in
                        page.withUnsafeMutableImage { dst in
                            ic_scan_jpeg(data, jpeg.count, &run, raw.baseAddress, raw.count, dst, nil, nil, nil)
                        }
                    }
                }
            }
        } // the scratch is freed here, before encoding
        let message = JPEG.DecodeReport.text(decoded)
        try ImageError.check(status, "scan: \(plan.crop.width)x\(plan.crop.height) crop at \(plan.scale_num)/8 -> "
                                 + "\(page.width)x\(page.height)" + (message.isEmpty ? "" : " (\(message))"))
        warnings.add(JPEG.DecodeReport(decoded))
        let bytes = try encode(page, options: options)
        return ScanResult(encoded: bytes, corners: request.corners!, detected: detected, plan: Plan(c: plan), width: page.width,
                          height: page.height, orientation: Orientation(exifValue: Int(plan.orientation)) ?? .up,
                          peakPixelBytes: 0, warnings: warnings, cutEdges: cut)
    }
}

extension Scanner.Plan {
    init(c p: ic_scan_plan) {
        self.init(scale: Int(p.scale_num),
                  crop: PixelRect(x: Int(p.crop.x), y: Int(p.crop.y), width: Int(p.crop.width), height: Int(p.crop.height)),
                  quadInCrop: Quad(p.quad_in_crop), width: Int(p.page_width), height: Int(p.page_height))
    }
}
