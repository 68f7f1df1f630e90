import CImageCore

/// Pixel layouts. Byte order within a pixel follows the name (RGBA8 is R, G, B, A).
public enum PixelFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One plane, one byte per pixel.
    case gray8
    /// One plane, three bytes per pixel.
    case rgb8
    /// One plane, four bytes per pixel; see ``AlphaMode``.
    case rgba8
    /// Planar YUV 4:2:0: Y, then U and V at ⌈w/2⌉ × ⌈h/2⌉.
    case i420
    /// Semi-planar YUV 4:2:0: Y, then interleaved UV pairs at ⌈w/2⌉ × ⌈h/2⌉.
    case nv12

    /// The C core's value.
    var cValue: ic_format {
        switch self {
        case .gray8: IC_FORMAT_GRAY8
        case .rgb8: IC_FORMAT_RGB8
        case .rgba8: IC_FORMAT_RGBA8
        case .i420: IC_FORMAT_I420
        case .nv12: IC_FORMAT_NV12
        }
    }

    init?(_ c: ic_format) {
        guard let f = PixelFormat.allCases.first(where: { $0.cValue == c }) else { return nil }
        self = f
    }

    /// Number of planes (1, 2 or 3).
    public var planeCount: Int { Int(ic_format_plane_count(cValue)) }

    /// Whether the format stores luma and chroma (I420, NV12).
    public var isYUV: Bool { self == .i420 || self == .nv12 }

    public var description: String {
        switch self {
        case .gray8: "gray8"
        case .rgb8: "rgb8"
        case .rgba8: "rgba8"
        case .i420: "i420"
        case .nv12: "nv12"
        }
    }
}

/// How the alpha channel of an RGBA8 buffer is to be read. Ignored by other formats.
public enum AlphaMode: Sendable, Hashable {
    /// Colour is not multiplied by alpha.
    case straight
    /// Colour is already multiplied by alpha.
    case premultiplied
    /// Alpha is 255 everywhere, or to be ignored.
    case opaque

    var cValue: ic_alpha {
        switch self {
        case .straight: IC_ALPHA_STRAIGHT
        case .premultiplied: IC_ALPHA_PREMULTIPLIED
        case .opaque: IC_ALPHA_OPAQUE
        }
    }
}
