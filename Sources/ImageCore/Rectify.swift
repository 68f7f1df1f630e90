import CImageCore

/// Interpolation of ``PixelBuffer/warp(from:homography:interpolation:fill:)`` and
/// ``PixelBuffer/rectify(from:quad:orientation:interpolation:fill:)``.
public enum Interpolation: String, Sendable, Hashable, CaseIterable {
    /// 2 × 2 taps.
    case bilinear
    /// 4 × 4 taps, Catmull-Rom (Keys a = −0.5), clamped to 0…255.
    case bicubic

    var cValue: ic_interpolation { self == .bilinear ? IC_INTERPOLATION_BILINEAR : IC_INTERPOLATION_BICUBIC }
}

extension PixelBuffer {
    static func warpOptions(_ format: PixelFormat, _ interpolation: Interpolation, _ fill: [UInt8]?) throws(ImageError) -> ic_warp_options {
        var o = ic_warp_options_default(format.cValue)
        o.interpolation = interpolation.cValue
        if let fill {
            let needed = switch format {
            case .gray8: 1
            case .rgba8: 4
            case .i420, .nv12: 3
            case .rgb8: 0
            }
            guard fill.count == needed else {
                throw ImageError(.invalidArgument, "\(format) fill needs \(needed) values, got \(fill.count)")
            }
            withUnsafeMutableBytes(of: &o.fill) { raw in for (i, v) in fill.enumerated() { raw[i] = v } }
        }
        return o
    }

    /// Perspective warp into this buffer: pixel `(i, j)` takes the source's value at
    /// `homography` applied to `(i + 0.5, j + 0.5)` (the map goes from this buffer to the
    /// source). Points outside the source get `fill`.
    ///
    /// GRAY8, RGBA8, I420 and NV12 (source and destination of the same format, any sizes).
    /// 4:2:0 chroma uses centred (JPEG) siting: each chroma plane is warped with the same map
    /// rescaled to its own coordinates. Every pixel is within 1 of the exact float64 result.
    /// - Parameters:
    ///   - fill: per channel (gray `[g]`, RGBA `[r, g, b, a]`) or per plane (`[y, u, v]`);
    ///     `nil` for black (opaque for RGBA).
    /// - Throws: `.unsupported` for RGB8 or mismatched formats; `.invalidArgument` for a
    ///   singular map or a fill of the wrong length.
    public mutating func warp(from source: borrowing PixelBuffer, homography: Homography,
                              interpolation: Interpolation = .bilinear, fill: [UInt8]? = nil) throws(ImageError) {
        guard source.format == format else {
            throw ImageError(.unsupported, "warp from \(source.format) into \(format)")
        }
        var opt = try Self.warpOptions(format, interpolation, fill)
        var h = homography.cValue
        let st = source.withUnsafeImage { src in withUnsafeMutableImage { dst in ic_warp_perspective(src, dst, &h, &opt) } }
        try ImageError.check(st, "warp \(source.width)x\(source.height) \(format) to \(width)x\(height)")
        alphaMode = source.alphaMode
    }

    /// Rectifies the page `quad` of `source` into all of this buffer, written directly in
    /// EXIF `orientation`: the rectified page is `width` × `height` for orientations 1–4 and
    /// `height` × `width` for 5–8, turned as a viewer would show it. Pass the source's own
    /// ``orientation`` to get an upright page; the turn is part of the mapping, so it costs
    /// nothing. This buffer's ``orientation`` becomes ``Orientation/up``.
    /// - Throws: `.invalidArgument` for a quad that ``Quad/validate(width:height:)`` rejects
    ///   (the detail names the problem), and as ``warp(from:homography:interpolation:fill:)``.
    public mutating func rectify(from source: borrowing PixelBuffer, quad: Quad, orientation: Orientation = .up,
                                 interpolation: Interpolation = .bilinear, fill: [UInt8]? = nil) throws(ImageError) {
        try quad.validate(width: source.width, height: source.height)
        guard source.format == format else {
            throw ImageError(.unsupported, "rectify from \(source.format) into \(format)")
        }
        var opt = try Self.warpOptions(format, interpolation, fill)
        var q = quad.cValue
        let st = source.withUnsafeImage { src in
            withUnsafeMutableImage { dst in ic_rectify(src, &q, Int32(orientation.rawValue), dst, &opt) }
        }
        try ImageError.check(st, "rectify \(quad) into \(width)x\(height) \(format)")
        alphaMode = source.alphaMode
        self.orientation = .up
    }

    /// A new buffer holding the page `quad` of this image rectified to `size` (in the quad's
    /// frame) and turned by `orientation` (pass the image's own ``orientation`` for an upright
    /// page).
    public borrowing func rectified(quad: Quad, size: RectifiedSize = .natural, orientation: Orientation = .up,
                                    interpolation: Interpolation = .bilinear, fill: [UInt8]? = nil) throws(ImageError) -> PixelBuffer {
        try quad.validate(width: width, height: height)
        let s = try quad.rectifiedSize(size)
        let d = orientation.displaySize(width: s.width, height: s.height)
        var out = try PixelBuffer(width: d.width, height: d.height, format: format, alphaMode: alphaMode)
        try out.rectify(from: self, quad: quad, orientation: orientation, interpolation: interpolation, fill: fill)
        return out
    }
}
