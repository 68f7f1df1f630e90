import CImageCore

/// The YCbCr matrix: how luma weighs red, green and blue.
public enum YUVMatrix: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ITU-R BT.601 (Kr 0.299, Kb 0.114): JPEG and SD video. The default.
    case bt601
    /// ITU-R BT.709 (Kr 0.2126, Kb 0.0722): HD video.
    case bt709

    /// The C core's value.
    var cValue: ic_yuv_matrix {
        switch self {
        case .bt601: IC_YUV_BT601
        case .bt709: IC_YUV_BT709
        }
    }

    public var description: String { self == .bt601 ? "bt601" : "bt709" }
}

/// The quantisation range of Y and chroma.
public enum YUVRange: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Y 0…255, chroma 128 ± 127.5: JPEG (JFIF). The default.
    case full
    /// Y 16…235, chroma 16…240: limited ("TV") range video.
    case video

    /// The C core's value.
    var cValue: ic_yuv_range {
        switch self {
        case .full: IC_YUV_RANGE_FULL
        case .video: IC_YUV_RANGE_VIDEO
        }
    }

    public var description: String { self == .full ? "full" : "video" }
}

extension PixelBuffer {
    /// Converts `source` into this buffer, which must have the same size; the format pair
    /// picks the conversion. No intermediate image is made.
    ///
    /// | source → this buffer | what happens |
    /// |---|---|
    /// | ``PixelFormat/rgb8``, ``PixelFormat/rgba8`` → ``PixelFormat/i420``, ``PixelFormat/nv12`` | Y per pixel, chroma from each 2×2 block |
    /// | ``PixelFormat/i420``, ``PixelFormat/nv12`` → ``PixelFormat/rgb8``, ``PixelFormat/rgba8`` | chroma replicated over its 2×2 block; alpha 255 |
    /// | ``PixelFormat/i420`` ↔ ``PixelFormat/nv12`` | chroma split or interleaved, lossless |
    /// | ``PixelFormat/i420``, ``PixelFormat/nv12`` → ``PixelFormat/gray8`` | the luma (expanded to full range from video range) |
    /// | ``PixelFormat/gray8`` → ``PixelFormat/i420``, ``PixelFormat/nv12`` | the gray as luma, neutral chroma |
    /// | ``PixelFormat/gray8``, ``PixelFormat/rgb8``, ``PixelFormat/rgba8`` among themselves | gray replicated; alpha 255 added or dropped; RGB → gray is full-range BT.601 luma (`ic_convert_channels`) |
    /// | same format | a copy |
    ///
    /// Numeric contract: every sample within 1 LSB of the float64 formula (clamped and
    /// rounded); chroma from the exact sum of the 2×2 block's RGB, with an odd last column or
    /// row replicated (the same as averaging the pixels that exist). RGBA alpha is ignored on
    /// the way to YUV (premultiplied colour is converted as stored, i.e. as composited over
    /// black); on the way back alpha is 255 and ``alphaMode`` becomes ``AlphaMode/opaque``.
    /// ``orientation`` is taken from `source`.
    ///
    /// With `region`, the conversion writes that rectangle of this buffer (a view of it in
    /// place, `ic_image_crop`; even origin for I420/NV12) and `source` must have its size;
    /// the rest of the buffer, its ``alphaMode`` and ``orientation`` are left alone.
    ///
    /// - Parameters:
    ///   - matrix: the YCbCr matrix of the YUV side (ignored by the other pairs).
    ///   - range: the range of the YUV side (ignored by RGB-free layout changes).
    ///   - region: the part of this buffer to write; `nil` = all of it.
    /// - Throws: `.invalidArgument` for a size mismatch or a region outside the buffer (the C
    ///   core's reason in ``ImageError/detail``); `.unsupported` for another pair.
    public mutating func convert(
        from source: borrowing PixelBuffer, matrix: YUVMatrix = .bt601, range: YUVRange = .full,
        region: PixelRect? = nil
    ) throws(ImageError) {
        let from = source.format, to = format
        let status: ic_status = source.withUnsafeImage { src in
            withUnsafeMutableImage { whole in
                var view = whole.pointee
                if let region {
                    guard var r = region.cValue else { return IC_ERR_INVALID_ARGUMENT }
                    let st = ic_image_crop(whole, &r, &view)
                    if st != IC_OK { return st }
                }
                return withUnsafeMutablePointer(to: &view) { dst in
                    switch (from, to) {
                    case _ where from == to: ic_image_copy(src, dst)
                    case (.rgb8, .i420), (.rgb8, .nv12), (.rgba8, .i420), (.rgba8, .nv12):
                        ic_rgb_to_yuv(src, dst, matrix.cValue, range.cValue)
                    case (.i420, .rgb8), (.i420, .rgba8), (.nv12, .rgb8), (.nv12, .rgba8):
                        ic_yuv_to_rgb(src, dst, matrix.cValue, range.cValue)
                    case (.i420, .nv12), (.nv12, .i420): ic_yuv_convert_layout(src, dst)
                    case (.i420, .gray8), (.nv12, .gray8): ic_yuv_to_gray(src, dst, range.cValue)
                    case (.gray8, .i420), (.gray8, .nv12): ic_gray_to_yuv(src, dst, range.cValue)
                    case (.gray8, .rgb8), (.gray8, .rgba8), (.rgb8, .rgba8), (.rgba8, .rgb8), (.rgb8, .gray8), (.rgba8, .gray8):
                        ic_convert_channels(src, dst)
                    default: IC_ERR_UNSUPPORTED
                    }
                }
            }
        }
        try ImageError.check(status, "convert \(source.width)x\(source.height) \(from) to \(to)"
                             + (region.map { " into \($0) of \(width)x\(height)" } ?? "") + " (\(matrix), \(range) range)")
        if region != nil { return }
        if from == to {
            alphaMode = source.alphaMode
        } else if to == .rgba8 {
            alphaMode = .opaque
        }
        orientation = source.orientation
    }

    /// A new buffer of `format` holding this image converted as ``convert(from:matrix:range:)``
    /// describes: one allocation, the size of the result only.
    public borrowing func converted(
        to format: PixelFormat, matrix: YUVMatrix = .bt601, range: YUVRange = .full, alignment: Int = 64
    ) throws(ImageError) -> PixelBuffer {
        var result = try PixelBuffer(width: width, height: height, format: format,
                                     alphaMode: format == .rgba8 ? .opaque : .straight,
                                     orientation: orientation, alignment: alignment)
        try result.convert(from: self, matrix: matrix, range: range)
        return result
    }
}
