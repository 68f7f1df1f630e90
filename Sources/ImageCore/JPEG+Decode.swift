import CImageCore

extension JPEG {
    /// How to decode: scale, crop, limits and libjpeg's speed/accuracy switches. The defaults
    /// mirror TurboJPEG's, so output is pixel-identical to `tjDecompress2` /
    /// `tjDecompressToYUV2`.
    public struct DecodeOptions: Sendable, Hashable {
        /// Full size, n/8, or the smallest n/8 that covers a target size.
        public var scale: Scale
        /// A rectangle of the (scaled) output to decode; `nil` decodes everything. For I420 and
        /// NV12, x and y must be even. Rows below the rectangle are never decoded.
        public var crop: PixelRect?
        /// Sources with more pixels than this (width × height before scaling) are refused with
        /// `.tooLarge` right after the header is read, before anything image-sized is allocated.
        public var maxPixels: Int
        /// Treat libjpeg's warnings (recoverable corruption such as a truncated scan) as errors.
        public var strict: Bool
        /// Box chroma upsampling (TurboJPEG's `TJFLAG_FASTUPSAMPLE`) instead of the triangle filter.
        public var fastUpsampling: Bool
        /// libjpeg's fast integer IDCT (`TJFLAG_FASTDCT`) instead of the accurate one. I420/NV12
        /// decodes below full size keep the accurate IDCT (all of libjpeg's scaled IDCTs are).
        public var fastDCT: Bool
        /// Progressive files with more scans than this are refused (`.tooLarge`).
        public var maxScans: Int
        /// Memory budget of the decode in bytes, besides the destination: libjpeg's state and row
        /// buffers, a progressive file's whole-image coefficient buffer (2 bytes per sample), the
        /// codec's scratch and stream bands. Each allocation is counted before it is made; one
        /// that would exceed the budget fails the decode with `.tooLarge`. 0 = no budget.
        /// ``DecodeReport/peakMemory`` tells what a decode used.
        public var maxMemory: Int
        /// Rows per band for ``JPEG/decodeStream(_:format:options:_:)``.
        public var bandRows: Int
        /// The data-sanity rule: a decode fails with `.corruptData` as soon as less than this
        /// share (0…1) of its output rows can come from real entropy data, i.e. when the data
        /// runs out or goes corrupt too early (see ``DecodeReport/validRows``). The default, 0.5,
        /// refuses a file whose data covers less than half of its rows; 0 accepts any truncation
        /// (the missing rows decode grey, with a warning); 1 accepts only complete data.
        public var minValidShare: Double
        /// Decode with libjpeg only: never with the reduced progressive decoder, which makes
        /// progressive files at 1/8 and 1/4 from the scans those scales read (same pixels; see
        /// ``DecodeReport/decoder``). For comparisons and benchmarks.
        public var libjpegOnly: Bool
        /// Decode the file's EXIF thumbnail instead of the main image (scale, crop and format
        /// apply to it; the report's orientation is the main image's). `.unsupported` when the
        /// file has none. See ``JPEG/exifThumbnail(_:)``.
        public var exifThumbnail: Bool
        /// Decode the stripes between restart markers in parallel whatever the image size. By
        /// default a file with restart markers at MCU-row boundaries is decoded in parallel (on
        /// ``ImageCoreRuntime/threads`` threads) only above the size where that pays; the output
        /// is the same either way (see ``DecodeReport/stripes``).
        public var parallelAnySize: Bool
        /// A CMYK ICC profile (the file's own, ``JPEG/iccProfile(_:)``) through which a CMYK or
        /// YCCK file is converted to sRGB by Little CMS (perceptual; Adobe's inverted storage
        /// honoured) instead of the naive formula; GRAY8 is the luma of that RGB. Ignored for
        /// other files. `nil` (the default): the formula. Used by ``JPEG/decode(_:into:options:)``
        /// and the calls built on it, and ``JPEG/decodeStream(_:format:options:_:)``.
        public var cmykProfile: [UInt8]? = nil

        /// Runs `body` with `o`'s CMYK profile pointing at ``cmykProfile`` (valid only inside).
        func withCMYKProfile<R>(_ o: inout ic_jpeg_decode_options, _ body: (inout ic_jpeg_decode_options) throws(ImageError) -> R) throws(ImageError) -> R {
            guard let profile = cmykProfile, !profile.isEmpty else { return try body(&o) }
            return try profile.withUnsafeBufferPointer { (p) throws(ImageError) -> R in
                o.cmyk_profile = p.baseAddress
                o.cmyk_profile_size = p.count
                defer { o.cmyk_profile = nil; o.cmyk_profile_size = 0 }
                return try body(&o)
            }
        }

        public init(scale: Scale = .full, crop: PixelRect? = nil, maxPixels: Int = Int(IC_JPEG_DEFAULT_MAX_PIXELS),
                    strict: Bool = false, fastUpsampling: Bool = false, fastDCT: Bool = false,
                    maxScans: Int = Int(IC_JPEG_DEFAULT_MAX_SCANS), maxMemory: Int = 0, bandRows: Int = 16,
                    minValidShare: Double = Double(IC_JPEG_DEFAULT_MIN_VALID_PERMILLE) / 1000,
                    libjpegOnly: Bool = false, exifThumbnail: Bool = false, parallelAnySize: Bool = false) {
            self.scale = scale
            self.crop = crop
            self.maxPixels = maxPixels
            self.strict = strict
            self.fastUpsampling = fastUpsampling
            self.fastDCT = fastDCT
            self.maxScans = maxScans
            self.maxMemory = maxMemory
            self.bandRows = bandRows
            self.minValidShare = minValidShare
            self.libjpegOnly = libjpegOnly
            self.exifThumbnail = exifThumbnail
            self.parallelAnySize = parallelAnySize
        }

        /// The C options for `format`, with `.fit` resolved against the file's header.
        func cValue(format: PixelFormat, bytes: UnsafeRawBufferPointer) throws(ImageError) -> ic_jpeg_decode_options {
            guard maxPixels >= 1, maxScans >= 1, maxScans <= Int(Int32.max), maxMemory >= 0,
                  bandRows >= 1 else {
                throw ImageError(.invalidArgument, "decode options: maxPixels, maxScans and bandRows must be ≥ 1, maxMemory ≥ 0")
            }
            let minValidPermille = try DataSanityRule.permille(minValidShare)
            var o = ic_jpeg_decode_options()
            o.format = format.cValue
            switch scale {
            case .full: o.scale_num = 8
            case .eighths(let n):
                guard (1...8).contains(n) else { throw ImageError(.invalidArgument, "scale \(n)/8: n must be 1…8") }
                o.scale_num = Int32(n)
            case .fit(let w, let h, let residual):
                let info = try JPEG.info(bytes)
                var (sw, sh) = (info.width, info.height)
                if exifThumbnail {
                    guard let t = info.exifThumbnail, t.width > 0 else { throw ImageError(.unsupported, "no EXIF thumbnail") }
                    (sw, sh) = (t.width, t.height)
                }
                o.scale_num = Int32(try JPEG.pickScale(width: sw, height: sh, targetWidth: w, targetHeight: h, minResidual: residual))
            }
            if let crop {
                // The C core checks the rectangle (inside the output, both sides >= 1, even
                // origin for YUV) and says why it refuses one; out-of-range values stay out of range.
                // (An empty side becomes -1, which C refuses: a 0 x 0 crop is not "no crop".)
                o.crop_x = Int32(clamping: crop.x); o.crop_y = Int32(clamping: crop.y)
                o.crop_width = crop.width < 1 ? -1 : Int32(clamping: crop.width)
                o.crop_height = crop.height < 1 ? -1 : Int32(clamping: crop.height)
            }
            o.flags = (strict ? UInt32(IC_JPEG_STRICT.rawValue) : 0)
                | (fastUpsampling ? UInt32(IC_JPEG_FAST_UPSAMPLE.rawValue) : 0)
                | (fastDCT ? UInt32(IC_JPEG_FAST_DCT.rawValue) : 0)
                | (libjpegOnly ? UInt32(IC_JPEG_LIBJPEG_ONLY.rawValue) : 0)
                | (exifThumbnail ? UInt32(IC_JPEG_EXIF_THUMBNAIL.rawValue) : 0)
                | (parallelAnySize ? UInt32(IC_JPEG_PARALLEL_ANY_SIZE.rawValue) : 0)
            o.max_pixels = UInt64(maxPixels)
            o.max_scans = Int32(maxScans)
            o.max_memory = UInt64(maxMemory)
            o.band_rows = Int32(clamping: bandRows)
            o.min_valid_permille = minValidPermille
            return o
        }
    }

    /// What a decode reports besides the pixels.
    public struct DecodeReport: Sendable, Hashable {
        /// The decoded size (after scaling and cropping).
        public var width: Int
        public var height: Int
        /// The file's EXIF orientation (`.up` without a valid tag). Decodes into a
        /// ``PixelBuffer`` also store it in ``PixelBuffer/orientation``.
        public var orientation: Orientation
        /// libjpeg warnings: recoverable corruption (e.g. a truncated scan, decoded as grey).
        public var warnings: Int
        /// The last warning's text, if any.
        public var lastWarning: String?
        /// Output rows decoded from real entropy data before it ran out or went corrupt: `height`
        /// when the data was whole. Counted in whole iMCU rows (8–16 × scale/8 rows); a problem in
        /// a later scan of a progressive file leaves every row its first scan's data. Rows from
        /// `validRows` on are grey or garbage.
        public var validRows: Int
        /// Most bytes the decode held at once besides the destination, as
        /// ``DecodeOptions/maxMemory`` counts them.
        public var peakMemory: Int
        /// Which decoder made the pixels.
        public var decoder: Decoder = .library

        /// The decoders behind ``JPEG/decode(_:format:options:alignment:)``.
        public enum Decoder: Sendable, Hashable {
            /// The codec's library (libjpeg-turbo for JPEG, libspng for PNG): every file and request.
            case library
            /// ImageCore's reduced progressive decoder: a progressive file at 1/8 or 1/4 from
            /// only the scans those scales read, one row of coefficients at a time; the same
            /// pixels as libjpeg's.
            case progressiveLowFrequency
        }
        /// Restart-interval stripes decoded in parallel by independent decompressors, each
        /// straight into its rows of the output; 1 for a serial decode (no restart markers at
        /// MCU-row boundaries, one thread, a small image, or corrupt data, which is always
        /// decoded serially so that the report is exactly a serial decode's).
        public var stripes: Int

        init(_ r: ic_jpeg_decode_result) {
            width = Int(r.width)
            height = Int(r.height)
            orientation = Orientation(exifValue: Int(r.orientation)) ?? .up
            warnings = Int(r.warnings)
            lastWarning = r.warnings > 0 ? Self.text(r) : nil
            validRows = Int(r.valid_rows)
            peakMemory = Int(clamping: r.peak_memory)
            decoder = r.decoder == Int32(IC_JPEG_DECODER_LOWFREQ.rawValue) ? .progressiveLowFrequency : .library
            stripes = Int(r.stripes)
        }

        static func text(_ r: ic_jpeg_decode_result) -> String {
            withUnsafeBytes(of: r.message) { raw in
                let bytes = raw.prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }

    // MARK: size

    /// The size a decode with `options` produces (the crop's size, or the scaled size), after
    /// checking the header, the pixel limit and the crop rectangle.
    public static func decodedSize(_ bytes: borrowing some ByteSource & ~Escapable, format: PixelFormat = .rgba8,
                                   options: DecodeOptions = .init()) throws(ImageError) -> (width: Int, height: Int) {
        try bytes.withBytes { (bytes) throws(ImageError) -> (width: Int, height: Int) in
            var o = try options.cValue(format: format, bytes: bytes)
            var w: Int32 = 0, h: Int32 = 0
            var r = ic_jpeg_decode_result()
            try ImageError.check(ic_jpeg_decode_size(bytes.bytePointer, bytes.count, &o, &w, &h, &r), DecodeReport.text(r))
            return (Int(w), Int(h))
        }
    }

    // MARK: decode into an existing buffer

    /// Decodes into `image`, whose format selects the output (RGBA8, RGB8, GRAY8, I420 or NV12)
    /// and whose size must equal ``decodedSize(_:format:options:)``.
    /// Sets the buffer's ``PixelBuffer/orientation`` from EXIF (and RGBA8's alpha mode to opaque).
    ///
    /// - Throws: `.corruptData` (empty, non-JPEG, corrupt; truncated below ``DecodeOptions/minValidShare``,
    ///   or at all in strict mode),
    ///   `.unsupported`, `.tooLarge` (pixel, scan or memory limit), `.bufferTooSmall` /
    ///   `.invalidArgument` (size mismatch, bad crop). The message says what was wrong.
    @discardableResult
    public static func decode(_ bytes: borrowing some ByteSource & ~Escapable, into image: inout PixelBuffer,
                              options: DecodeOptions = .init()) throws(ImageError) -> DecodeReport {
        try bytes.withBytes { (bytes) throws(ImageError) -> DecodeReport in
            var o = try options.cValue(format: image.format, bytes: bytes)
            var r = ic_jpeg_decode_result()
            let status = try options.withCMYKProfile(&o) { (o) throws(ImageError) -> ic_status in
                image.withUnsafeMutableImage { dst in ic_jpeg_decode(bytes.bytePointer, bytes.count, &o, dst, &r) }
            }
            try ImageError.check(status, DecodeReport.text(r))
            let report = DecodeReport(r)
            image.orientation = report.orientation
            if image.format == .rgba8 { image.alphaMode = .opaque }
            return report
        }
    }

    // MARK: decode into a new buffer

    /// Decodes into a new buffer of `format` sized by the options (scale, crop). The header
    /// and limits are checked before the buffer is allocated, so a decompression bomb costs
    /// no pixel memory. Warnings (non-strict mode) are dropped; use the `into:` form to see them.
    public static func decode(_ bytes: borrowing some ByteSource & ~Escapable, format: PixelFormat = .rgba8,
                              options: DecodeOptions = .init(), alignment: Int = 64) throws(ImageError) -> PixelBuffer {
        try bytes.withBytes { (bytes) throws(ImageError) -> PixelBuffer in
            let size = try decodedSize(bytes, format: format, options: options)
            var image = try PixelBuffer(width: size.width, height: size.height, format: format,
                                        alphaMode: format == .rgba8 ? .opaque : .straight, alignment: alignment)
            try decode(bytes, into: &image, options: options)
            return image
        }
    }

    /// ``decode(_:format:options:alignment:)`` that also
    /// adds the decode's warnings to `warnings` (count, last message), for pipelines that
    /// report recovered corruption.
    static func decode(_ bytes: UnsafeRawBufferPointer, format: PixelFormat, options: DecodeOptions,
                       warnings: inout Warnings) throws(ImageError) -> PixelBuffer {
        let size = try decodedSize(bytes, format: format, options: options)
        var image = try PixelBuffer(width: size.width, height: size.height, format: format,
                                    alphaMode: format == .rgba8 ? .opaque : .straight)
        warnings.add(try decode(bytes, into: &image, options: options))
        return image
    }

    /// Decoder warnings gathered over the decodes of one pipeline run.
    public struct Warnings: Sendable, Hashable {
        /// libjpeg warnings (recoverable corruption) over all decodes.
        public var count = 0
        /// The last warning's text, with the rows decoded from data when some were not.
        public var last: String? = nil

        public init() {}

        mutating func add(_ r: DecodeReport) {
            guard r.warnings > 0 else { return }
            count += r.warnings
            last = (r.lastWarning ?? "corrupt data") + (r.validRows < r.height ? " (\(r.validRows) of \(r.height) rows from data)" : "")
        }
    }
}
