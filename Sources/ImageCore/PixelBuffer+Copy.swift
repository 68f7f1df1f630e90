import CImageCore

extension PixelBuffer {
    /// Copies every plane of `source` into this buffer (same format and size required),
    /// in parallel at memory speed. Padding bytes are not touched. The alpha mode and
    /// orientation are taken from `source`.
    public mutating func copy(from source: borrowing PixelBuffer) throws(ImageError) {
        guard source.format == format, source.width == width, source.height == height else {
            throw ImageError(.invalidArgument,
                "copy from \(source.width)x\(source.height) \(source.format) into \(width)x\(height) \(format)")
        }
        let status = source.withUnsafeImage { src in
            withUnsafeMutableImage { dst in ic_image_copy(src, dst) }
        }
        try ImageError.check(status)
        alphaMode = source.alphaMode
        orientation = source.orientation
    }

    /// A new buffer with the same pixels and metadata: the one explicit way to duplicate
    /// pixels (``PixelBuffer`` is never copied implicitly).
    public borrowing func duplicate() throws(ImageError) -> PixelBuffer {
        var copy = try PixelBuffer(width: width, height: height, format: format,
                                   alphaMode: alphaMode, orientation: orientation, alignment: alignment)
        try copy.copy(from: self)
        return copy
    }

    /// Fills the image with one colour, given in the format's channel order:
    /// gray `[g]`, RGB `[r, g, b]`, RGBA `[r, g, b, a]`, YUV `[y, u, v]`.
    public mutating func fill(_ channels: [UInt8]) throws(ImageError) {
        let needed = switch format {
        case .gray8: 1
        case .rgb8, .i420, .nv12: 3
        case .rgba8: 4
        }
        guard channels.count == needed else {
            throw ImageError(.invalidArgument, "\(format) fill needs \(needed) values, got \(channels.count)")
        }
        var value: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { raw in
            for (i, c) in channels.enumerated() { raw[i] = c }
        }
        let status = withUnsafeMutableImage { image in
            withUnsafeBytes(of: value) { raw in
                ic_image_fill(image, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        try ImageError.check(status)
    }
}
