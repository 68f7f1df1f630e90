import CImageCore

/// The document scanner: a photographed page (JPEG) in, an upright, rectified, enhanced page
/// (JPEG) out, touching only the pixels it needs.
///
/// 1. Without given corners, the page is detected on a small RGB8 decode (1/8 for 12 MP)
///    (``PageDetector``); the corners are scaled back to the full image.
/// 2. ``plan(width:height:corners:size:)`` picks the smallest DCT scale n/8 at which the
///    page's shortest opposite sides still cover the output size, and the crop of the scaled
///    image that holds the page (plus 2 px for the interpolation, origin even for 4:2:0).
/// 3. Only that crop is decoded, at that scale, straight to NV12 (colour) or GRAY8 (gray, bw).
/// 4. The page is rectified from the planes into the output, with the EXIF orientation
///    composed into the mapping.
/// 5. The output is enhanced in place and encoded from its planes.
///
/// Steps 2 to 4 are the C core's scan (`ic_scan_plan_jpeg`, `ic_scan_jpeg` in
/// `imagecore/pipeline.h`), which C and C++ hosts call the same way. Pixel memory at peak is
/// the output plus one scratch block holding the decoded crop, whose bytes the enhancement
/// then reuses (1.5 B/px in colour, 1 B/px in gray); nothing is copied.
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
        /// Decode limits and strictness (`maxPixels`, `maxMemory`, `strict`, `minValidShare`);
        /// scale and crop are the plan's.
        public var limits: JPEG.DecodeOptions
        /// An ICC profile to embed in the output, byte for byte (pass the photo's own,
        /// ``JPEG/iccProfile(_:)``, to keep its colours); written only where it describes the
        /// page: an RGB profile ('RGB ' data colour space) on a colour page, a 'GRAY' one on a
        /// gray or black-and-white page; `nil`: none.
        public var iccProfile: [UInt8]?
        public init(corners: Quad? = nil, size: RectifiedSize = .paper(.a4, dpi: 150), mode: EnhanceMode = .color,
                    enhance: Bool = true, quality: Int = 85, interpolation: Interpolation = .bilinear,
                    limits: JPEG.DecodeOptions = .init(), iccProfile: [UInt8]? = nil) {
            self.corners = corners; self.size = size; self.mode = mode
            self.enhance = enhance; self.quality = quality; self.interpolation = interpolation
            self.limits = limits
            self.iccProfile = iccProfile
        }

        /// ``iccProfile`` when it describes a page of `format`, else nil.
        func profile(for format: PixelFormat) -> [UInt8]? {
            guard let icc = iccProfile, icc.count >= 20 else { return nil }
            let space = Array(icc[16..<20])
            return space == Array((format == .gray8 ? "GRAY" : "RGB ").utf8) ? icc : nil
        }
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
        /// The decoder's warnings (recovered corruption): of the page detection's decode and
        /// of the scan's crop decode (`ic_scan_options.result`).
        public var warnings = JPEG.Warnings()
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

    /// Detects the page on an RGB8 decode at the smallest n/8 whose long side is at least
    /// 480 px (1/8 for a 12 MP photo; the detector reads luma and chroma and works at about
    /// 192 px, which a smaller decode would not fill); the corners in full-size stored pixels.
    /// - Throws: `.invalidArgument` when no page is found.
    public static func detect(_ jpeg: borrowing some ByteSource & ~Escapable) throws(ImageError) -> Quad {
        try jpeg.withBytes { (jpeg) throws(ImageError) -> Quad in
            var warnings = JPEG.Warnings()
            return try detect(jpeg, limits: .init(), warnings: &warnings)
        }
    }

    static func detect(_ jpeg: UnsafeRawBufferPointer, limits: JPEG.DecodeOptions, warnings: inout JPEG.Warnings) throws(ImageError) -> Quad {
        let info = try JPEG.info(jpeg)
        let long = max(info.width, info.height)
        var o = limits
        o.scale = .eighths((1...8).first { (long * $0 + 7) / 8 >= 480 } ?? 8); o.crop = nil
        let small = try JPEG.decode(jpeg, format: .rgb8, options: o, warnings: &warnings)
        guard let q = try PageDetector().detect(in: small).quad else {
            throw ImageError(.invalidArgument, "no page found; give the corners")
        }
        let fx = Double(info.width) / Double(small.width), fy = Double(info.height) / Double(small.height)
        return Quad(q.corners.map { Point(x: $0.x * fx, y: $0.y * fy) })
    }

    /// Scans the page of `jpeg`. See ``Scanner`` for the steps.
    /// - Throws: `.corruptData` / `.unsupported` / `.tooLarge` from the decoder,
    ///   `.invalidArgument` for bad corners or no page found.
    public static func scan(_ jpeg: borrowing some ByteSource & ~Escapable, options: Options = .init()) throws(ImageError) -> ScanResult {
        try jpeg.withBytes { (jpeg) throws(ImageError) -> ScanResult in
            var failure: ImageError? = nil
            let (result, usage) = PixelAllocator.measure { () -> ScanResult? in
                do throws(ImageError) { return try scanMeasured(jpeg, options: options) } catch { failure = error; return nil }
            }
            if let failure { throw failure }
            var r = result!
            r.peakPixelBytes = usage.peakBytes
            return r
        }
    }

    static func scanMeasured(_ jpeg: UnsafeRawBufferPointer, options: Options) throws(ImageError) -> ScanResult {
        var detected = false
        var request = options
        var warnings = JPEG.Warnings()
        if request.corners == nil { request.corners = try detect(jpeg, limits: options.limits, warnings: &warnings); detected = true }
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
            status = withUnsafeMutablePointer(to: &decoded) { result in
                plan.options.result = result
                defer { plan.options.result = nil }
                return scratch.withUnsafeBytes { raw in
                    page.withUnsafeMutableImage { dst in
                        ic_scan_jpeg(data, jpeg.count, &plan, raw.baseAddress, raw.count, dst, nil, nil, nil)
                    }
                }
            }
        } // the scratch is freed here, before encoding
        let message = JPEG.DecodeReport.text(decoded)
        try ImageError.check(status, "scan: \(plan.crop.width)x\(plan.crop.height) crop at \(plan.scale_num)/8 -> "
                                 + "\(page.width)x\(page.height)" + (message.isEmpty ? "" : " (\(message))"))
        warnings.add(JPEG.DecodeReport(decoded))
        let bytes = try JPEG.encode(page, options: .init(quality: options.quality, orientation: .up,
                                                         iccProfile: options.profile(for: page.format)))
        return ScanResult(jpeg: bytes, corners: request.corners!, detected: detected, plan: Plan(c: plan), width: page.width,
                          height: page.height, orientation: Orientation(exifValue: Int(plan.orientation)) ?? .up,
                          peakPixelBytes: 0, warnings: warnings)
    }
}

extension Scanner.Plan {
    init(c p: ic_scan_plan) {
        self.init(scale: Int(p.scale_num),
                  crop: PixelRect(x: Int(p.crop.x), y: Int(p.crop.y), width: Int(p.crop.width), height: Int(p.crop.height)),
                  quadInCrop: Quad(p.quad_in_crop), width: Int(p.page_width), height: Int(p.page_height))
    }
}
