/// The renderer's decoder for camera and screen photos alike: JPEG or PNG by content. A JPEG
/// goes through ``JPEGThumbnailDecoder`` (DCT-scaled streamed decode, EXIF thumbnail tier); a
/// PNG through ``Thumbnailer``'s PNG path (rows streamed into the resize for non-interlaced
/// files, so the full image is never resident; PNG has no reduced-scale decode), its eXIf
/// orientation applied. The result is upright RGBA8, or GRAY8 for a gray file.
public struct PhotoThumbnailDecoder: ThumbnailDecoder {
    /// The JPEG side (its `useEmbeddedThumbnails` choice).
    public var jpeg: JPEGThumbnailDecoder

    public init(jpeg: JPEGThumbnailDecoder = JPEGThumbnailDecoder()) {
        self.jpeg = jpeg
    }

    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int) throws(ImageError) -> PixelBuffer {
        var warnings = JPEG.Warnings()
        return try thumbnail(from: bytes, maxPixelSize: n, warnings: &warnings)
    }

    /// ``thumbnail(from:maxPixelSize:)`` adding the decoder's warnings (a truncated JPEG or
    /// PNG whose missing rows decode grey) to `warnings`.
    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int, warnings: inout JPEG.Warnings) throws(ImageError) -> PixelBuffer {
        guard n >= 1 else { throw ImageError(.invalidArgument, "maxPixelSize \(n)") }
        guard PNG.isPNG(bytes) else { return try jpeg.thumbnail(from: bytes, maxPixelSize: n, warnings: &warnings) }
        let t = try bytes.withBytes { (raw) throws(ImageError) -> StreamedThumbnail in
            let info = try PNG.info(raw)
            let format: PixelFormat = info.colorType == .gray ? .gray8 : .rgba8
            return try Thumbnailer.thumbnail(png: raw, maxWidth: n, maxHeight: n, format: format)
        }
        warnings.add(t.report)
        return t.take()
    }
}
