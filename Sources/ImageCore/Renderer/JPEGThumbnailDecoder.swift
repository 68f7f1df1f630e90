/// The renderer's JPEG decoder: ``Thumbnailer``'s streamed thumbnail (decode at the smallest
/// n/8 that covers the tier, rows resized as they arrive, EXIF orientation applied to the
/// small result), so even a full-size photo is cheap for the small tier and the decoded image
/// never exists whole. The result is upright RGBA8, or GRAY8 for a grayscale JPEG. A CMYK or
/// YCCK photo with a CMYK profile is converted through it (``JPEG/DecodeOptions/cmykProfile``;
/// one set in ``limits`` wins).
///
/// Kernels run with the process-wide thread count; a renderer with several workers usually
/// wants `ImageCoreRuntime.threads = 1` so the workers do not oversubscribe the cores.
public struct JPEGThumbnailDecoder: ThumbnailDecoder {
    /// Whether a camera photo's EXIF thumbnail may stand in for its main image when it covers
    /// the requested size (the small tier: a few kilobytes decoded instead of the file), with
    /// letterbox bars left out and the main image's orientation applied. Set false when every
    /// thumbnail must come from the main image's pixels.
    public var useEmbeddedThumbnails: Bool

    public init(useEmbeddedThumbnails: Bool = true) {
        self.useEmbeddedThumbnails = useEmbeddedThumbnails
    }

    /// Decoding options: the limits and flags (``JPEG/DecodeOptions/strict`` makes warnings
    /// failures). The default: the library's defaults.
    public var limits: JPEG.DecodeOptions = .init()

    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int) throws(ImageError) -> PixelBuffer {
        var warnings = JPEG.Warnings()
        return try thumbnail(from: bytes, maxPixelSize: n, warnings: &warnings)
    }

    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int, warnings: inout JPEG.Warnings) throws(ImageError) -> PixelBuffer {
        guard n >= 1 else { throw ImageError(.invalidArgument, "maxPixelSize \(n)") }
        let t = try bytes.withBytes { (raw) throws(ImageError) -> StreamedThumbnail in
            let info = try JPEG.info(raw)
            let format: PixelFormat = info.colorSpace == .gray ? .gray8 : .rgba8
            var limits = limits
            if limits.cmykProfile == nil, info.colorSpace == .cmyk || info.colorSpace == .ycck, info.hasICCProfile,
               let icc = (try? JPEG.iccProfile(raw)) ?? nil, icc.count >= 20, Array(icc[16..<20]) == Array("CMYK".utf8) {
                limits.cmykProfile = icc // the photo's own CMYK profile: the only faithful reading of its inks
            }
            return try Thumbnailer.thumbnail(raw, maxWidth: n, maxHeight: n, format: format, limits: limits,
                                             useEmbeddedThumbnail: useEmbeddedThumbnails)
        }
        warnings.add(t.report)
        return t.take()
    }
}
