import CImageCore

/// An ``ImageProvider`` over a decoded ``PixelBuffer`` it owns. A request for the whole
/// buffer at full size in its own format lends the buffer itself (no copy). A crop at full
/// size copies just the crop; a resize reads the crop in place (a strided view of the
/// buffer, no intermediate copy) into a buffer of the requested size. Other formats than
/// the buffer's are refused (`.unsupported`): convert first (``PixelBuffer/convert``).
public final class BufferProvider: ImageProvider, @unchecked Sendable {
    // @unchecked Sendable: `image` is never mutated after init; requests only read it.
    public let image: PixelBuffer
    public var width: Int { image.width }
    public var height: Int { image.height }
    public var orientation: Orientation { image.orientation }

    public init(_ image: consuming PixelBuffer) { self.image = image }

    /// The C descriptor of `rect` of the buffer: plane pointers moved to the rect's origin,
    /// the strides unchanged. For I420/NV12 the origin must be even.
    func view(_ rect: PixelRect) throws(ImageError) -> ic_image {
        var d = image.descriptor
        let f = image.format
        if f.isYUV, rect.x % 2 != 0 || rect.y % 2 != 0 {
            throw ImageError(.invalidArgument, "a \(f) crop needs an even origin: \(rect)")
        }
        let bpp = switch f { case .gray8, .i420, .nv12: 1; case .rgb8: 3; case .rgba8: 4 }
        d.planes.0.data += rect.y * d.planes.0.stride + rect.x * bpp
        if f == .nv12 { d.planes.1.data += (rect.y / 2) * d.planes.1.stride + rect.x }
        if f == .i420 {
            d.planes.1.data += (rect.y / 2) * d.planes.1.stride + rect.x / 2
            d.planes.2.data += (rect.y / 2) * d.planes.2.stride + rect.x / 2
        }
        d.width = Int32(rect.width); d.height = Int32(rect.height)
        return d
    }

    public func withBuffer<R: ~Copyable>(_ request: ImageRequest, _ body: (borrowing PixelBuffer) throws(ImageError) -> R) throws(ImageError) -> R {
        guard request.format == image.format else {
            throw ImageError(.unsupported, "a \(image.format) buffer provider cannot produce \(request.format)")
        }
        let c = try resolve(request.crop)
        let target: (Int, Int)
        switch request.size {
        case .full, .atLeast: target = (c.width, c.height)
        case let .exactly(w, h): target = (w, h)
        }
        if request.crop == nil, target == (width, height) { return try body(image) }
        var src = try view(c)
        var out = try PixelBuffer(width: target.0, height: target.1, format: image.format, alphaMode: image.alphaMode,
                                  orientation: image.orientation)
        let status = out.withUnsafeMutableImage { dst in
            target == (c.width, c.height) ? ic_image_copy(&src, dst) : ic_resize(&src, dst, IC_RESIZE_LANCZOS3)
        }
        try ImageError.check(status, "provider \(c) -> \(target.0)x\(target.1) \(image.format)")
        return try body(out)
    }
}
