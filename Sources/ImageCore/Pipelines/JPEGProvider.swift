
/// An ``ImageProvider`` over JPEG bytes: reports size and orientation from the header, and
/// decodes only what a request needs — the smallest DCT scale that covers the requested
/// size, only the crop's rows and columns, straight to the requested format (NV12/I420 from
/// the decoder's planes, no RGB step). A screen-sized crop of a 12 MP photo never decodes
/// the full image.
public struct JPEGProvider: ImageProvider {
    public let bytes: [UInt8]
    public let info: JPEG.Info
    public var width: Int { info.width }
    public var height: Int { info.height }
    public var orientation: Orientation { info.orientation }

    /// Reads the header of `bytes` (kept, not copied).
    public init(bytes: [UInt8]) throws(ImageError) {
        self.info = try JPEG.info(bytes)
        self.bytes = bytes
    }

    /// Reads a JPEG file's bytes (``FileBytes``) and header.
    public init(path: String) throws(ImageError) {
        try self.init(bytes: try FileBytes.read(path: path))
    }

    /// The DCT scale and the scaled crop a request decodes.
    public func plan(_ request: ImageRequest) throws(ImageError) -> (scale: Int, crop: PixelRect?) {
        let c = try resolve(request.crop)
        let n: Int
        switch request.size {
        case .full: n = 8
        case let .atLeast(w, h), let .exactly(w, h):
            n = try JPEG.pickScale(width: c.width, height: c.height, targetWidth: w, targetHeight: h)
        }
        guard request.crop != nil else { return (n, nil) }
        let s = try JPEG.scaledSize(width: width, height: height, eighths: n)
        var x0 = c.x * s.width / width, y0 = c.y * s.height / height
        if request.format.isYUV { x0 &= ~1; y0 &= ~1 }
        let x1 = min(s.width, ((c.x + c.width) * s.width + width - 1) / width)
        let y1 = min(s.height, ((c.y + c.height) * s.height + height - 1) / height)
        return (n, PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)))
    }

    public func withBuffer<R: ~Copyable>(_ request: ImageRequest, _ body: (borrowing PixelBuffer) throws(ImageError) -> R) throws(ImageError) -> R {
        let p = try plan(request)
        let decoded = try JPEG.decode(bytes, format: request.format, options: .init(scale: .eighths(p.scale), crop: p.crop))
        if case let .exactly(w, h) = request.size, decoded.width != w || decoded.height != h {
            let resized = try decoded.resized(width: w, height: h)
            _ = consume decoded
            return try body(resized)
        }
        return try body(decoded)
    }
}
