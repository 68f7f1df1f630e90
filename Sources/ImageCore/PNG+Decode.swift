import CImageCore

extension PNG {
    /// What a decode reports besides the pixels: size, EXIF orientation, the warning for
    /// recoverable damage and the rows decoded from data (the same type as the JPEG codec's;
    /// `peakMemory` is 0: the PNG decoder's scratch is a few rows and is not counted).
    public typealias DecodeReport = JPEG.DecodeReport

    /// A band of decoded rows lent to a streaming consumer (the same type as the JPEG codec's).
    public typealias Band = JPEG.Band

    /// Limits and strictness of a decode.
    public struct DecodeOptions: Sendable, Hashable {
        /// Images with more pixels than this are refused with `.tooLarge` from the header,
        /// before anything image-sized is allocated.
        public var maxPixels: Int
        /// Cap in bytes on the metadata libspng keeps (iCCP, eXIf, text) and on the largest
        /// inflated chunk; a zlib bomb in iCCP stops there with `.tooLarge`. (Stored ancillary
        /// chunks are also limited to libspng's fixed 1000.)
        public var maxMemory: Int
        /// Treat recoverable damage (image data that ends early or breaks after some rows, an
        /// ancillary chunk with a bad CRC) as an error instead of a warning.
        public var strict: Bool
        /// Data-sanity rule, as ``JPEG/DecodeOptions/minValidShare``: image data that ends or
        /// breaks before this share (0…1) of the rows is `.corruptData` rather than a warning (0.5:
        /// half; 0: no rule, any truncation, even before the first row, leaves the missing rows 0
        /// with a warning; 1: only complete data).
        public var minValidShare: Double
        /// Rows per band for ``PNG/decodeStream(_:format:options:_:)``.
        public var bandRows: Int

        public init(maxPixels: Int = Int(IC_PNG_DEFAULT_MAX_PIXELS), maxMemory: Int = Int(IC_PNG_DEFAULT_MAX_MEMORY),
                    strict: Bool = false, minValidShare: Double = 0.5, bandRows: Int = 16) {
            self.maxPixels = maxPixels
            self.maxMemory = maxMemory
            self.strict = strict
            self.minValidShare = minValidShare
            self.bandRows = bandRows
        }

        /// The PNG side of a JPEG decode's limits: its `maxPixels`, `strict` and `minValidShare`
        /// (the metadata cap `maxMemory` stays this codec's own default; pixel buffers are
        /// counted by the process budget as always), so one set of limits serves both codecs.
        public init(_ jpeg: JPEG.DecodeOptions, bandRows: Int = 16) {
            self.init(maxPixels: jpeg.maxPixels, strict: jpeg.strict, minValidShare: jpeg.minValidShare, bandRows: bandRows)
        }

        func cValue(format: PixelFormat) throws(ImageError) -> ic_png_decode_options {
            guard maxPixels >= 1, maxMemory >= 1, bandRows >= 1, bandRows <= Int(IC_MAX_DIMENSION) else {
                throw ImageError(.invalidArgument, "PNG decode options: limits and bandRows must be ≥ 1")
            }
            var o = ic_png_decode_options()
            o.format = format.cValue
            o.flags = strict ? UInt32(IC_PNG_STRICT.rawValue) : 0
            o.max_pixels = UInt64(maxPixels)
            o.max_memory = UInt64(maxMemory)
            o.band_rows = Int32(bandRows)
            o.min_valid_permille = try DataSanityRule.permille(minValidShare)
            return o
        }
    }

    // MARK: decode into an existing buffer

    /// Decodes into `image` (GRAY8, RGB8 or RGBA8, the image's size). Palette and tRNS are
    /// expanded, 16-bit samples rounded to 8 bits, Adam7 de-interlaced, gray + alpha becomes
    /// RGBA; GRAY8 from colour is the BT.601 luma. Sets ``PixelBuffer/orientation`` from eXIf
    /// and RGBA8's alpha mode (`.straight` when the file has alpha, else `.opaque`).
    ///
    /// - Throws: `.corruptData` (non-PNG, corrupt; truncated only in strict mode or before the
    ///   first row), `.tooLarge` (pixel or metadata limit), `.unsupported` (YUV formats),
    ///   `.bufferTooSmall` / `.invalidArgument` (size mismatch).
    @discardableResult
    public static func decode(_ bytes: borrowing some ByteSource & ~Escapable, into image: inout PixelBuffer,
                              options: DecodeOptions = .init()) throws(ImageError) -> DecodeReport {
        try bytes.withBytes { (bytes) throws(ImageError) -> DecodeReport in
            var o = try options.cValue(format: image.format)
            var r = ic_png_decode_result()
            let status = image.withUnsafeMutableImage { dst in
                ic_png_decode(bytes.bytePointer, bytes.count, &o, dst, &r)
            }
            try ImageError.check(status, DecodeReport.text(r))
            image.orientation = Orientation(exifValue: Int(r.orientation)) ?? .up
            if image.format == .rgba8 { image.alphaMode = r.has_alpha != 0 ? .straight : .opaque }
            return DecodeReport(r)
        }
    }

    // MARK: decode into a new buffer

    /// Decodes into a new buffer of `format`. The header and the pixel limit are checked
    /// before the buffer is allocated. Warnings are dropped; use the `into:` form to see them.
    public static func decode(_ bytes: borrowing some ByteSource & ~Escapable, format: PixelFormat = .rgba8,
                              options: DecodeOptions = .init(), alignment: Int = 64) throws(ImageError) -> PixelBuffer {
        try bytes.withBytes { (bytes) throws(ImageError) -> PixelBuffer in
            let info = try info(bytes)
            guard info.width * info.height <= options.maxPixels else {
                throw ImageError(.tooLarge, "\(info.width)x\(info.height) PNG is above the limit of \(options.maxPixels) pixels")
            }
            var image = try PixelBuffer(width: info.width, height: info.height, format: format, alignment: alignment)
            try decode(bytes, into: &image, options: options)
            return image
        }
    }

    // MARK: stream

    /// Decodes in bands of ``DecodeOptions/bandRows`` rows, calling `body` for each, top to
    /// bottom; the full image never exists in memory. Pixels are identical to a whole decode's.
    /// Interlaced (Adam7) files throw `.unsupported`: decode them whole. An error thrown by
    /// `body` stops the decode and is rethrown.
    @discardableResult
    public static func decodeStream(_ bytes: borrowing some ByteSource & ~Escapable, format: PixelFormat = .rgba8,
                                    options: DecodeOptions = .init(),
                                    _ body: (borrowing Band) throws(ImageError) -> Void) throws(ImageError) -> DecodeReport {
        try bytes.withBytes { (bytes) throws(ImageError) -> DecodeReport in
            var o = try options.cValue(format: format)
            var r = ic_png_decode_result()
            let status = try Band.stream(body) { callback, context in
                ic_png_decode_stream(bytes.bytePointer, bytes.count, &o, callback, context, &r)
            }
            try ImageError.check(status, DecodeReport.text(r))
            return DecodeReport(r)
        }
    }
}

extension JPEG.DecodeReport {
    init(_ r: ic_png_decode_result) {
        width = Int(r.width)
        height = Int(r.height)
        orientation = Orientation(exifValue: Int(r.orientation)) ?? .up
        warnings = Int(r.warnings)
        lastWarning = r.warnings > 0 ? Self.text(r) : nil
        validRows = Int(r.valid_rows)
        peakMemory = 0 // the PNG codec's scratch is width-bounded and not counted
        stripes = 1
    }

    static func text(_ r: ic_png_decode_result) -> String {
        withUnsafeBytes(of: r.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
