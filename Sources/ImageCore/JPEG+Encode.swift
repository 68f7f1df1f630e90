import CImageCore

extension JPEG {
    /// How to encode. The defaults (quality 85, 4:2:0, baseline, standard Huffman tables,
    /// TurboJPEG's DCT choice) give the same bytes as `tjCompress2` with the same settings, except
    /// that images of `IC_JPEG_AUTO_RESTART_PIXELS` (1 Mi) pixels and more get a restart marker every
    /// MCU row (``restartRows``), which `tjCompress2` cannot write.
    ///
    /// With restart markers at MCU-row boundaries, no progressive mode and no optimised Huffman
    /// tables, a large image is encoded in stripes on ``ImageCoreRuntime/threads`` threads, each
    /// by its own compressor, and joined with the markers renumbered: the same bytes as a serial
    /// encode. Progressive mode and optimised tables need the whole image's statistics first and
    /// stay serial.
    public struct EncodeOptions: Sendable, Hashable {
        /// 1…100 (libjpeg's scaling of the standard quantisation tables).
        public var quality: Int
        /// `nil`: 4:2:0 for colour input, gray for ``PixelFormat/gray8``. GRAY8 input takes only
        /// `.gray`; I420/NV12 input only `.s420` (the planes as they are) or `.gray` (Y alone).
        public var subsampling: Subsampling?
        /// Progressive JPEG (implies optimised Huffman tables).
        public var progressive: Bool
        /// Optimised Huffman tables: smaller files, a second pass over the coefficients.
        public var optimizeHuffman: Bool
        /// Accurate forward DCT. When false, TurboJPEG's rule applies: accurate at quality ≥ 96,
        /// fast below.
        public var accurateDCT: Bool
        /// MCUs between restart markers; 0 = as ``restartRows`` says. When set, it wins.
        public var restartInterval: Int
        /// The EXIF orientation to write in a minimal APP1 segment. `nil` writes the image's own
        /// ``PixelBuffer/orientation`` when it is not `.up` (and no EXIF otherwise).
        public var orientation: Orientation?
        /// An ICC profile to embed (APP2 "ICC_PROFILE" chunks), byte for byte; `nil`: none.
        public var iccProfile: [UInt8]?
        /// EXIF to embed as APP1 (a TIFF structure, with or without the "Exif\0\0" prefix);
        /// `nil`: only the orientation, as above. With an orientation to write, the copy written
        /// has its orientation tag set to it.
        public var exif: [UInt8]?
        /// With ``restartInterval`` 0: a restart marker every this many MCU rows (1…65535), or
        /// none for 0. `nil` (the default): every MCU row for images of 1 Mi pixels and more, so
        /// that they encode and decode in parallel (about 3 bytes a row: 0.02 % of a 12 MP photo),
        /// none for smaller ones.
        public var restartRows: Int?

        public init(quality: Int = 85, subsampling: Subsampling? = nil, progressive: Bool = false,
                    optimizeHuffman: Bool = false, accurateDCT: Bool = false, restartInterval: Int = 0,
                    orientation: Orientation? = nil, iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil,
                    restartRows: Int? = nil) {
            self.iccProfile = iccProfile
            self.exif = exif
            self.quality = quality
            self.subsampling = subsampling
            self.progressive = progressive
            self.optimizeHuffman = optimizeHuffman
            self.accurateDCT = accurateDCT
            self.restartInterval = restartInterval
            self.orientation = orientation
            self.restartRows = restartRows
        }

        func cValue(imageOrientation: Orientation) throws(ImageError) -> ic_jpeg_encode_options {
            guard (1...100).contains(quality) else { throw ImageError(.invalidArgument, "quality \(quality): 1…100") }
            if let rows = restartRows, rows < 0 { throw ImageError(.invalidArgument, "restart rows \(rows) < 0") }
            if subsampling == .unknown { throw ImageError(.invalidArgument, "subsampling .unknown cannot be encoded") }
            var o = ic_jpeg_encode_options()
            o.quality = Int32(quality)
            o.subsampling = subsampling?.cValue ?? IC_JPEG_SUBSAMP_UNKNOWN
            o.flags = (progressive ? UInt32(IC_JPEG_PROGRESSIVE.rawValue) : 0)
                | (optimizeHuffman ? UInt32(IC_JPEG_OPTIMIZE.rawValue) : 0)
                | (accurateDCT ? UInt32(IC_JPEG_ACCURATE_DCT.rawValue) : 0)
            o.restart_interval = Int32(clamping: restartInterval)
            o.restart_rows = restartRows.map { $0 == 0 ? -1 : Int32(clamping: $0) } ?? 0
            let tag = orientation ?? (imageOrientation == .up ? nil : imageOrientation)
            o.orientation = Int32(tag?.exifValue ?? 0)
            return o
        }
    }

    /// How many stripes the last encode on the calling thread ran in (1: serial; 0 before any,
    /// or after one that failed early). For benchmarks and tests: the bytes never depend on it.
    public static var lastEncodeStripes: Int { Int(ic_jpeg_last_encode_stripes()) }

    /// An upper bound on the encoded size (TurboJPEG's `tjBufSize` plus room for the EXIF
    /// segment, which `orientation: nil` may write from the image): a buffer this large never
    /// fails for lack of space in practice.
    public static func encodeBound(width: Int, height: Int, options: EncodeOptions = .init()) throws(ImageError) -> Int {
        var o = try options.cValue(imageOrientation: .right) // any non-up value: count the segment
        var bound = 0
        let st = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return ic_jpeg_encode_bound(Int32(clamping: width), Int32(clamping: height), &o, &bound)
        }
        try ImageError.check(st,
                             "encode bound of \(width)x\(height)")
        return bound
    }

    /// Encodes `image` (RGBA8, RGB8, GRAY8, I420 or NV12) into `buffer` and returns the number
    /// of bytes written. Alpha is ignored. Size `buffer` with ``encodeBound(width:height:options:)``.
    /// - Throws: `.bufferTooSmall` when the output does not fit (nothing is written past the
    ///   buffer); `.unsupported` for a subsampling the input format cannot give.
    public static func encode(_ image: borrowing PixelBuffer, into buffer: UnsafeMutableRawBufferPointer,
                              options: EncodeOptions = .init()) throws(ImageError) -> Int {
        var o = try options.cValue(imageOrientation: image.orientation)
        var size = 0
        let status = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return image.withUnsafeImage { src in
            ic_jpeg_encode(src, &o, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, &size)
        }
        }
        try ImageError.check(status, "encode \(image.width)x\(image.height) \(image.format)")
        return size
    }

    /// Encodes `image` into a new array, growing it as libjpeg produces bytes (64 KiB at a time).
    public static func encode(_ image: borrowing PixelBuffer, options: EncodeOptions = .init()) throws(ImageError) -> [UInt8] {
        var o = try options.cValue(imageOrientation: image.orientation)
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height / 4 + 4096)
        let status = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return withUnsafeMutablePointer(to: &out) { target in
            image.withUnsafeImage { src in
                ic_jpeg_encode_to(src, &o, { context, data, count in
                    let array = context!.assumingMemoryBound(to: [UInt8].self)
                    array.pointee.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                    return IC_OK
                }, target, nil)
            }
        }
        }
        try ImageError.check(status, "encode \(image.width)x\(image.height) \(image.format)")
        return out
    }
}
