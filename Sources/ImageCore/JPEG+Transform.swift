import CImageCore

extension JPEG {
    /// What ``transform(_:options:)`` does.
    public struct TransformOptions: Sendable, Hashable {
        /// The transform, as an EXIF orientation applied to the stored pixels (what
        /// ``PixelBuffer/applying(_:)`` does to decoded pixels).
        public var orientation: Orientation
        /// Drop the partial iMCU column at the source's right edge and the partial iMCU row at
        /// its bottom edge where the transform would move them, instead of refusing.
        public var trim: Bool
        /// The orientation tag the output's copied EXIF gets (rewritten in place); `nil` leaves
        /// it as copied. A file whose EXIF has no tag gets none.
        public var exifOrientation: Orientation?
        /// Refuse sources with more pixels.
        public var maxPixels: Int
        /// Refuse sources whose DCT coefficients (source and transformed copy; an upper bound of
        /// 2 bytes a sample of every component at full resolution) need more bytes.
        public var maxMemory: Int
        /// ``maxMemory``'s default: 1 GiB.
        public static let defaultMaxMemory = Int(IC_JPEG_TRANSFORM_DEFAULT_MAX_MEMORY)

        public init(orientation: Orientation, trim: Bool = false, exifOrientation: Orientation? = nil,
                    maxPixels: Int = Int(IC_JPEG_DEFAULT_MAX_PIXELS),
                    maxMemory: Int = defaultMaxMemory) {
            self.orientation = orientation; self.trim = trim; self.exifOrientation = exifOrientation
            self.maxPixels = maxPixels; self.maxMemory = maxMemory
        }
    }

    /// A lossless transform's output and what it did.
    public struct Transformed: Sendable, Hashable {
        /// The transformed file.
        public var jpeg: [UInt8]
        /// The output's size.
        public var width: Int
        public var height: Int
        /// The source's iMCU (0 × 0 for a sampling the probe does not name).
        public var imcuWidth: Int
        public var imcuHeight: Int
        /// Source columns dropped at the right edge and rows at the bottom edge by the trim.
        public var droppedColumns: Int
        public var droppedRows: Int
        /// Whether the output's EXIF orientation tag was rewritten.
        public var exifRewritten: Bool
    }

    /// Rotates or flips a JPEG without re-encoding (the C core's `ic_jpeg_transform`, through
    /// TurboJPEG's tjTransform): the DCT coefficients move, so decoding the result gives the
    /// source's pixels turned, with no generation loss. Every marker (EXIF, ICC, comments) is
    /// copied, the EXIF orientation tag then set to ``TransformOptions/exifOrientation``.
    ///
    /// - Throws: `.unsupported` when the transform would move a partial iMCU (width or height
    ///   not a multiple of it on an edge that moves) and ``TransformOptions/trim`` is off — the
    ///   detail says how many columns and rows a trim drops; `.corruptData` for damaged data
    ///   (warnings included); `.tooLarge` above the limits (checked from the header first).
    public static func transform(_ bytes: borrowing some ByteSource & ~Escapable, options: TransformOptions) throws(ImageError) -> Transformed {
        try bytes.withBytes { (raw) throws(ImageError) -> Transformed in
            var o = ic_jpeg_transform_options()
            o.orientation = Int32(options.orientation.exifValue)
            o.flags = options.trim ? UInt32(IC_JPEG_TRANSFORM_TRIM) : 0
            o.exif_orientation = Int32(options.exifOrientation?.exifValue ?? 0)
            guard options.maxPixels >= 1, options.maxMemory >= 1 else {
                throw ImageError(.invalidArgument, "transform limits must be ≥ 1")
            }
            o.max_pixels = UInt64(options.maxPixels)
            o.max_memory = UInt64(options.maxMemory)
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            var r = ic_jpeg_transform_result()
            let status = ic_jpeg_transform(raw.bytePointer, raw.count, &o, &out, &size, &r)
            defer { ic_jpeg_free(out) }
            try ImageError.check(status, "lossless transform")
            return Transformed(jpeg: Array(UnsafeBufferPointer(start: out, count: size)), width: Int(r.width), height: Int(r.height),
                               imcuWidth: Int(r.imcu_width), imcuHeight: Int(r.imcu_height),
                               droppedColumns: Int(r.dropped_columns), droppedRows: Int(r.dropped_rows),
                               exifRewritten: r.exif_rewritten != 0)
        }
    }
}
