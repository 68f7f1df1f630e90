/// The renderer's JPEG decoder: a DCT-scaled decode to the smallest n/8 whose long side
/// still covers the target (so even a full-size photo is cheap for the small tier), a
/// Lanczos-3 resize down to the target, and the EXIF orientation applied to the small
/// result. The result is upright RGBA8, or GRAY8 for a grayscale JPEG.
///
/// Kernels run with the process-wide thread count; a renderer with several workers usually
/// wants `ImageCoreRuntime.threads = 1` so the workers do not oversubscribe the cores.
public struct JPEGThumbnailDecoder: ThumbnailDecoder {
    public init() {}

    public func thumbnail(from bytes: RawSpan, maxPixelSize n: Int) throws(ImageError) -> PixelBuffer {
        guard n >= 1 else { throw ImageError(.invalidArgument, "maxPixelSize \(n)") }
        let info = try JPEG.info(bytes)
        let scale: JPEG.Scale = info.width >= info.height ? .fit(width: n, height: 0) : .fit(width: 0, height: n)
        let format: PixelFormat = info.colorSpace == .gray ? .gray8 : .rgba8
        let decoded = try JPEG.decode(bytes, format: format, options: .init(scale: scale))
        if max(decoded.width, decoded.height) <= n {
            return decoded.orientation == .up ? decoded : try decoded.upright()
        }
        let small = try decoded.resized(fittingWidth: n, height: n, upscale: false)
        return small.orientation == .up ? small : try small.upright()
    }
}
