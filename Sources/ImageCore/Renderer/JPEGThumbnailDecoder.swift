/// The renderer's JPEG decoder: ``Thumbnailer``'s streamed thumbnail (decode at the smallest
/// n/8 that covers the tier, rows resized as they arrive, EXIF orientation applied to the
/// small result), so even a full-size photo is cheap for the small tier and the decoded image
/// never exists whole. The result is upright RGBA8, or GRAY8 for a grayscale JPEG.
///
/// Kernels run with the process-wide thread count; a renderer with several workers usually
/// wants `ImageCoreRuntime.threads = 1` so the workers do not oversubscribe the cores.
public struct JPEGThumbnailDecoder: ThumbnailDecoder {
    public init() {}

    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int) throws(ImageError) -> PixelBuffer {
        guard n >= 1 else { throw ImageError(.invalidArgument, "maxPixelSize \(n)") }
        return try JPEG.withBytes(bytes) { raw throws(ImageError) in
            let format: PixelFormat = try JPEG.info(raw).colorSpace == .gray ? .gray8 : .rgba8
            return try Thumbnailer.thumbnail(raw, maxWidth: n, maxHeight: n, format: format).take()
        }
    }
}
