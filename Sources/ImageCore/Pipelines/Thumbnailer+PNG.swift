import CImageCore

extension Thumbnailer {
    /// A thumbnail of a PNG as large as fits in `maxWidth` × `maxHeight` in display orientation
    /// (eXIf), aspect kept, never upscaled. A non-interlaced file is streamed: bands of
    /// `bandRows` decoded rows go straight into a ``StreamingResizer`` (PNG has no reduced-scale
    /// decode, so the rows are full width, and the box pre-reduction of the resize does the
    /// large factors), and pixel memory is the thumbnail, the resizer's scratch and, for
    /// orientations 5–8, one more thumbnail-sized buffer; the decoder's band and rows are its own
    /// scratch (`bandRows` × width × channels bytes). An Adam7 file needs the whole image before
    /// any row is final: it is decoded whole, then resized.
    ///
    /// `linearLight`: resize in linear light (``ResizeOptions/linearLight``). `limits`: the
    /// decoder's pixel limit (checked from the header, before any allocation), strictness and
    /// data-sanity rule (its `bandRows` is replaced by `bandRows`).
    ///
    /// Alpha: a file with alpha gives an RGBA8 thumbnail with straight alpha, filtered
    /// premultiplied; without alpha, opaque. `scale` in the result is 8 (no DCT scaling).
    public static func thumbnail(png: borrowing some ByteSource & ~Escapable, maxWidth: Int, maxHeight: Int,
                                 format: PixelFormat = .rgba8, bandRows: Int = 16,
                                 linearLight: Bool = false, limits: PNG.DecodeOptions = .init()) throws(ImageError) -> StreamedThumbnail {
        try png.withBytes { (png) throws(ImageError) -> StreamedThumbnail in
            guard maxWidth >= 1, maxHeight >= 1 else { throw ImageError(.invalidArgument, "thumbnail size \(maxWidth)x\(maxHeight)") }
            guard format == .rgba8 || format == .gray8 else { throw ImageError(.unsupported, "thumbnail as \(format)") }
            let info = try PNG.info(png)
            let (tw, th) = info.orientation.swapsDimensions ? (maxHeight, maxWidth) : (maxWidth, maxHeight)
            let out = try ResizeGeometry.fit(width: info.width, height: info.height, maxWidth: tw, maxHeight: th, upscale: false)
            let alpha: AlphaMode = format == .rgba8 && info.hasAlpha ? .straight : .opaque
            guard info.width * info.height <= limits.maxPixels else {
                throw ImageError(.tooLarge, "\(info.width)x\(info.height) PNG is above the limit of \(limits.maxPixels) pixels")
            }
            var options = limits
            options.bandRows = bandRows
            var image = try PixelBuffer(width: out.width, height: out.height, format: format, alphaMode: alpha)
            let report: PNG.DecodeReport
            if info.isInterlaced {
                var whole = try PixelBuffer(width: info.width, height: info.height, format: format)
                report = try PNG.decode(png, into: &whole, options: options)
                whole.alphaMode = alpha
                try whole.resize(into: &image, options: ResizeOptions(linearLight: linearLight))
            } else {
                var resizer = try StreamingResizer(format: format, alphaMode: alpha, sourceWidth: info.width, sourceHeight: info.height,
                                                   width: out.width, height: out.height, linearLight: linearLight)
                report = try PNG.decodeStream(png, format: format, options: options) { (band: borrowing PNG.Band) throws(ImageError) in
                    let stride = band.plane(0).stride
                    try band.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
                        try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                            try resizer.push(rows: p.baseAddress!, stride: stride, count: band.rowCount, into: &image)
                        }
                    }
                }
                guard resizer.nextRow == info.height else {
                    throw ImageError(.corruptData, "thumbnail: decoder delivered \(resizer.nextRow) of \(info.height) rows")
                }
            }
            image.alphaMode = alpha
            image.orientation = info.orientation
            if info.orientation.swapsDimensions {
                image = try image.upright()
            } else {
                try image.apply(info.orientation)
                image.orientation = .up
            }
            return StreamedThumbnail(image: image, scale: 8, decodedWidth: info.width, decodedHeight: info.height,
                                     orientation: info.orientation, report: report)
        }
    }
}
