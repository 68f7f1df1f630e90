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

    /// Ends the record and hands out the image.
    public consuming func take() -> PixelBuffer { image }
}

/// Streamed JPEG thumbnails: decode at the smallest DCT scale the size allows, in bands of
/// rows fed into a ``StreamingResizer`` as they arrive, then the EXIF orientation applied on
/// the small result. The decoded image never exists whole: pixel memory is the thumbnail,
/// the resizer's scratch (its coefficient tables and a ring of int16 rows of the thumbnail's
/// width, one per vertical filter tap) and, for the orientations
/// that swap width and height, one more thumbnail-sized buffer for the turn. The decoder's
/// band (``JPEG/DecodeOptions/bandRows`` rows of the decoded width) is its own scratch.
public enum Thumbnailer {
    /// A thumbnail of `jpeg` as large as fits in `maxWidth` × `maxHeight` in display
    /// orientation, aspect kept, never upscaled.
    /// - Parameters:
    ///   - format: `.rgba8` (colour) or `.gray8` (luma only).
    ///   - minResidual: the decode scale covers the target times this factor (1: the smallest
    ///     scale that still covers it; 2: libvips's choice, sharper, twice the decode work).
    /// - Throws: as ``JPEG/decodeStream(_:format:options:_:)-(UnsafeRawBufferPointer,_,_,_)``;
    ///   `.invalidArgument` for a size < 1.
    public static func thumbnail(_ jpeg: UnsafeRawBufferPointer, maxWidth: Int, maxHeight: Int,
                                 format: PixelFormat = .rgba8, minResidual: Double = 1,
                                 bandRows: Int = 16, limits: JPEG.DecodeOptions = .init()) throws(ImageError) -> StreamedThumbnail {
        guard maxWidth >= 1, maxHeight >= 1 else { throw ImageError(.invalidArgument, "thumbnail size \(maxWidth)x\(maxHeight)") }
        guard format == .rgba8 || format == .gray8 else { throw ImageError(.unsupported, "thumbnail as \(format)") }
        let info = try JPEG.info(jpeg)
        // The target in stored orientation.
        let (tw, th) = info.orientation.swapsDimensions ? (maxHeight, maxWidth) : (maxWidth, maxHeight)
        let out = try ResizeGeometry.fit(width: info.width, height: info.height, maxWidth: tw, maxHeight: th, upscale: false)
        let scale = try JPEG.pickScale(width: info.width, height: info.height, targetWidth: out.width,
                                       targetHeight: out.height, minResidual: minResidual)
        var options = limits
        options.scale = .eighths(scale)
        options.crop = nil
        options.bandRows = bandRows
        let decoded = try JPEG.decodedSize(jpeg, format: format, options: options)
        var resizer = try StreamingResizer(format: format, sourceWidth: decoded.width, sourceHeight: decoded.height,
                                           width: out.width, height: out.height)
        var image = try PixelBuffer(width: out.width, height: out.height, format: format,
                                    alphaMode: format == .rgba8 ? .opaque : .straight)
        let report = try JPEG.decodeStream(jpeg, format: format, options: options) { (band: borrowing JPEG.Band) throws(ImageError) in
            let stride = band.plane(0).stride
            try band.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
                try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                    try resizer.push(rows: p.baseAddress!, stride: stride, count: band.rowCount, into: &image)
                }
            }
        }
        guard resizer.nextRow == decoded.height else {
            throw ImageError(.corruptData, "thumbnail: decoder delivered \(resizer.nextRow) of \(decoded.height) rows")
        }
        image.orientation = report.orientation
        if report.orientation.swapsDimensions {
            image = try image.upright()
        } else {
            try image.apply(report.orientation)
            image.orientation = .up
        }
        return StreamedThumbnail(image: image, scale: scale, decodedWidth: decoded.width, decodedHeight: decoded.height,
                         orientation: report.orientation, report: report)
    }

    /// ``thumbnail(_:maxWidth:maxHeight:format:minResidual:bandRows:)-(UnsafeRawBufferPointer,_,_,_,_,_)``
    /// for bytes in an array (lent in place).
    public static func thumbnail(_ jpeg: [UInt8], maxWidth: Int, maxHeight: Int, format: PixelFormat = .rgba8,
                                 minResidual: Double = 1, bandRows: Int = 16, limits: JPEG.DecodeOptions = .init()) throws(ImageError) -> StreamedThumbnail {
        try JPEG.withBytes(jpeg) { raw throws(ImageError) in
            try thumbnail(raw, maxWidth: maxWidth, maxHeight: maxHeight, format: format, minResidual: minResidual, bandRows: bandRows,
                          limits: limits)
        }
    }
}
