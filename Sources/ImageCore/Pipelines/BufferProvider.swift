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

    /// The C descriptor of `rect` of the buffer (`ic_image_crop`: plane pointers moved to
    /// the rect's origin, the strides unchanged). For I420/NV12 the origin must be even.
    func view(_ rect: PixelRect) throws(ImageError) -> ic_image {
        var d = image.cValue
        var r = ic_rect(x: Int32(clamping: rect.x), y: Int32(clamping: rect.y),
                        width: Int32(clamping: rect.width), height: Int32(clamping: rect.height))
        var v = ic_image()
        try ImageError.check(ic_image_crop(&d, &r, &v), "a \(image.format) view of \(rect)")
        return v
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
