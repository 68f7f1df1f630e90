import CImageCore

/// A thumbnail and how it was made.
public struct StreamedThumbnail: ~Copyable {
    /// The upright thumbnail (orientation ``Orientation/up``).
    public var image: PixelBuffer
    /// The DCT scale n/8 the JPEG was decoded at.
    public var scale: Int
    /// The decoded size at that scale (stored orientation).
    public var decodedWidth: Int
    public var decodedHeight: Int
    /// The file's EXIF orientation, applied to ``image``.
    public var orientation: Orientation
    /// What the decoder reported: its warnings (recoverable corruption such as a truncated
    /// file, whose missing rows decode grey).
    public var report: JPEG.DecodeReport
    /// What was decoded: the main image, or its EXIF thumbnail (then ``scale`` and the decoded
    /// size are the thumbnail's).
    public var source: Source = .mainImage

    /// The image a thumbnail was made from.
    public enum Source: Sendable, Hashable {
        case mainImage
        /// The EXIF thumbnail, which covered the requested size (letterbox bars left out).
        case exifThumbnail
    }

    /// Ends the record and hands out the image.
    public consuming func take() -> PixelBuffer { image }
}

/// Streamed JPEG thumbnails: decode at the smallest DCT scale the size allows, in bands of
/// rows fed into a streaming Lanczos-3 resize as they arrive, then the EXIF orientation
/// applied on the small result — the C core's one-call thumbnail (`ic_thumbnail_plan_jpeg`
/// and `ic_thumbnail_jpeg` in `imagecore/pipeline.h`), which C and C++ hosts call the same
/// way. The decoded image never exists whole: pixel memory is the thumbnail plus one scratch
/// block (the resize's coefficient tables and a ring of int16 rows of the thumbnail's width,
/// one per vertical filter tap; for the orientations that swap width and height, also the
/// thumbnail before the turn). The decoder's band (``JPEG/DecodeOptions/bandRows`` rows of
/// the decoded width) is its own scratch.
public enum Thumbnailer {
    /// A thumbnail of `jpeg` as large as fits in `maxWidth` × `maxHeight` in display
    /// orientation, aspect kept, never upscaled.
    /// - Parameters:
    ///   - format: `.rgba8` (colour) or `.gray8` (luma only).
    ///   - minResidual: the decode scale covers the target times this factor (1: the smallest
    ///     scale that still covers it; 2: libvips's choice, sharper, twice the decode work).
    ///   - useEmbeddedThumbnail: make it from the file's EXIF thumbnail when that is a smaller
    ///     copy of the main image (``JPEG/exifThumbnail(_:)``) and covers
    ///     the target at 1x or more (the 75 px small tier of a camera photo); false = always from
    ///     the main image's pixels. ``StreamedThumbnail/source`` says which was used.
    ///   - linearLight: resize in linear light (``ResizeOptions/linearLight``).
    /// - Throws: as ``JPEG/decodeStream(_:format:options:_:)``;
    ///   `.invalidArgument` for a size < 1.
    public static func thumbnail(_ jpeg: borrowing some ByteSource & ~Escapable, maxWidth: Int, maxHeight: Int,
                                 format: PixelFormat = .rgba8, minResidual: Double = 1,
                                 bandRows: Int = 16, limits: JPEG.DecodeOptions = .init(),
                                 useEmbeddedThumbnail: Bool = true, linearLight: Bool = false) throws(ImageError) -> StreamedThumbnail {
        try jpeg.withBytes { (jpeg) throws(ImageError) -> StreamedThumbnail in
            try thumbnail(jpeg, reader: nil, maxWidth: maxWidth, maxHeight: maxHeight, format: format, minResidual: minResidual,
                          bandRows: bandRows, limits: limits, useEmbeddedThumbnail: useEmbeddedThumbnail, linearLight: linearLight)
        }
    }

    /// A thumbnail of a JPEG file streamed from `descriptor`: `headers` holds the file's
    /// first bytes, through its first SOS marker (``JPEG/info(_:)`` succeeds on them), and the
    /// descriptor is positioned right after them. The decode reads the rest in 64 KiB chunks
    /// as it needs it (at most `remaining` bytes), so the file is never in memory whole.
    /// Progressive files at 1/8 and 1/4 take the reduced progressive decoder when the
    /// descriptor can seek (it reads by offset with `pread`: a 128 KiB window walks the file,
    /// and each scan it keeps passes through a window of its own); from a pipe they are decoded
    /// by libjpeg (its whole-image coefficient buffer). A read error ends the data as a
    /// truncation does (a warning in ``StreamedThumbnail/report``).
    /// - Throws: as the in-memory thumbnail.
    public static func thumbnail(headers: borrowing some ByteSource & ~Escapable, descriptor: Int32, remaining: Int,
                                 maxWidth: Int, maxHeight: Int, format: PixelFormat = .rgba8, minResidual: Double = 1,
                                 bandRows: Int = 16, limits: JPEG.DecodeOptions = .init(),
                                 useEmbeddedThumbnail: Bool = true, linearLight: Bool = false) throws(ImageError) -> StreamedThumbnail {
        return try headers.withBytes { (raw) throws(ImageError) -> StreamedThumbnail in
            var reader = DescriptorReader(descriptor: descriptor, remaining: max(0, remaining), headers: raw.count)
            return try withUnsafeMutablePointer(to: &reader) { (r) throws(ImageError) -> StreamedThumbnail in
                try thumbnail(raw, reader: r, maxWidth: maxWidth, maxHeight: maxHeight, format: format, minResidual: minResidual,
                              bandRows: bandRows, limits: limits, useEmbeddedThumbnail: useEmbeddedThumbnail, linearLight: linearLight)
            }
        }
    }

    /// The one-call thumbnail over `jpeg` (with a reader: only the headers).
    static func thumbnail(_ jpeg: UnsafeRawBufferPointer, reader: UnsafeMutablePointer<DescriptorReader>?,
                          maxWidth: Int, maxHeight: Int, format: PixelFormat, minResidual: Double,
                          bandRows: Int, limits: JPEG.DecodeOptions,
                          useEmbeddedThumbnail: Bool, linearLight: Bool) throws(ImageError) -> StreamedThumbnail {
        guard maxWidth >= 1, maxHeight >= 1 else { throw ImageError(.invalidArgument, "thumbnail size \(maxWidth)x\(maxHeight)") }
        guard format == .rgba8 || format == .gray8 else { throw ImageError(.unsupported, "thumbnail as \(format)") }
        var options = ic_thumbnail_options()
        options.max_width = Int32(clamping: maxWidth)
        options.max_height = Int32(clamping: maxHeight)
        options.format = format.cValue
        options.min_residual = minResidual
        options.band_rows = Int32(clamping: bandRows)
        options.decode = try limits.cValue(format: format, bytes: jpeg) // limits and flags; the plan sets the rest
        options.no_exif_thumbnail = useEmbeddedThumbnail ? 0 : 1
        options.linear_light = linearLight ? 1 : 0
        if let reader {
            options.decode.read = DescriptorReader.read
            options.decode.read_context = UnsafeMutableRawPointer(reader)
            if reader.pointee.canReadAt { options.decode.read_at = DescriptorReader.readAt }
        }
        // A CMYK profile (limits.cmykProfile) held at a fixed address for the plan and the run:
        // the plan carries the decode options, pointer included, into the run's decode.
        let profile = limits.cmykProfile ?? []
        let pinned = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, profile.count))
        defer { pinned.deallocate() }
        _ = pinned.initialize(from: profile)
        if !profile.isEmpty { options.decode.cmyk_profile = UnsafePointer(pinned.baseAddress); options.decode.cmyk_profile_size = profile.count }
        var plan = ic_thumbnail_plan()
        try ImageError.check(ic_thumbnail_plan_jpeg(jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count,
                                                    &options, &plan),
                             "thumbnail \(maxWidth)x\(maxHeight) of a \(jpeg.count)-byte JPEG")
        var image = try PixelBuffer(width: Int(plan.width), height: Int(plan.height), format: format,
                                    alphaMode: format == .rgba8 ? .opaque : .straight)
        var result = ic_jpeg_decode_result()
        var status = IC_OK
        do {
            let scratch = try ScratchBuffer(bytes: plan.scratch_size)
            status = scratch.withUnsafeBytes { raw in
                image.withUnsafeMutableImage { dst in
                    ic_thumbnail_jpeg(jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count, &plan,
                                      raw.baseAddress, raw.count, dst, &result)
                }
            }
        } // the scratch is freed here
        try ImageError.check(status, JPEG.DecodeReport.text(result))
        image.orientation = .up
        return StreamedThumbnail(image: image, scale: Int(plan.scale_num), decodedWidth: Int(plan.decoded_width),
                                 decodedHeight: Int(plan.decoded_height),
                                 orientation: Orientation(exifValue: Int(plan.orientation)) ?? .up,
                                 report: JPEG.DecodeReport(result),
                                 source: plan.source == IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL ? .exifThumbnail : .mainImage)
    }
}
