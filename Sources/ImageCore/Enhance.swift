import CImageCore

/// What ``PixelBuffer/enhance(mode:cellSize:blackWhiteOffset:neutralChroma:)`` produces.
public enum EnhanceMode: String, Sendable, Hashable, CaseIterable {
    /// Flattened and stretched colour: paper white, hue kept.
    case color
    /// Flattened and stretched luminance.
    case gray
    /// Black and white by a mean-C adaptive threshold on the flattened luminance.
    case bw
}

extension EnhanceMode {
    var cValue: ic_enhance_mode {
        switch self {
        case .color: IC_ENHANCE_COLOR
        case .gray: IC_ENHANCE_GRAY
        case .bw: IC_ENHANCE_BW
        }
    }
}

extension PixelBuffer {
    /// Enhances a photographed page in place: flattens the illumination (divides by a
    /// background estimated from each cell's 90th luminance percentile, closed and blurred
    /// on the cell grid), stretches the contrast between the ink and the paper, and writes
    /// colour, gray or black and white. GRAY8, RGBA8, NV12 and I420.
    ///
    /// On NV12/I420, ``EnhanceMode/gray`` and ``EnhanceMode/bw`` write the Y plane only
    /// (pass `neutralChroma: true` to set chroma to 128 as well); ``EnhanceMode/color``
    /// scales chroma about 128 by the local luma factor. See `imagecore/enhance.h`.
    /// - Parameters:
    ///   - cellSize: background cell in pixels, 8…512 (`nil`: the long side / 64).
    ///   - blackWhiteOffset: ``EnhanceMode/bw`` only: how far below the local mean is black
    ///     (`nil`: 24).
    /// - Throws: `.unsupported` for RGB8, `.invalidArgument` for bad options.
    public mutating func enhance(mode: EnhanceMode = .color, cellSize: Int? = nil, blackWhiteOffset: Int? = nil,
                                 neutralChroma: Bool = false) throws(ImageError) {
        var o = ic_enhance_options()
        o.mode = mode.cValue
        o.cell = Int32(clamping: cellSize ?? 0)
        o.bw_offset = Int32(clamping: blackWhiteOffset ?? 0)
        o.neutral_chroma = neutralChroma ? 1 : 0
        guard cellSize.map({ $0 >= 8 && $0 <= 512 }) ?? true, blackWhiteOffset.map({ $0 >= 1 && $0 <= 255 }) ?? true else {
            throw ImageError(.invalidArgument, "enhance: cell size \(String(describing: cellSize)), offset \(String(describing: blackWhiteOffset))")
        }
        var bytes = 0
        try ImageError.check(ic_enhance_scratch_size(Int32(width), Int32(height), &o, &bytes), "enhance scratch")
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
        defer { scratch.deallocate() }
        let st = withUnsafeMutableImage { img in ic_enhance_page(img, &o, scratch.baseAddress, scratch.count) }
        try ImageError.check(st, "enhance \(width)x\(height) \(format) as \(mode)")
    }
}
