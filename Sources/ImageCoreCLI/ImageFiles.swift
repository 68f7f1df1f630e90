import ImageCore

/// Reads and writes the CLI's image files, choosing the codec by content (input) or by file
/// extension (output). PNM is built in; JPEG plugs in here when the codec lands (the `.jpeg`
/// cases are the only places to change).
enum ImageFiles {
    /// The format an output path asks for, from its extension.
    enum OutputKind: Equatable {
        case pnm, jpeg

        init(path: String) throws(ImageError) {
            let ext = path.split(separator: "/").last?.split(separator: ".", omittingEmptySubsequences: false)
                .dropFirst().last.map { $0.lowercased() } ?? ""
            switch ext {
            case "pnm", "pgm", "ppm", "pam": self = .pnm
            case "jpg", "jpeg": self = .jpeg
            default:
                throw ImageError(.unsupported, "\(path): unknown output type '.\(ext)' (use .pgm, .ppm, .pam or .pnm)")
            }
        }
    }

    /// Reads an image file into a new buffer.
    static func read(path: String) throws(ImageError) -> PixelBuffer {
        switch try FileKind.detect(path: path) {
        case .pnm: return try PNM.read(path: path)
        case .jpeg: throw ImageError(.unsupported, "\(path): JPEG input needs the JPEG codec, not in this build; use PNM")
        case .unknown: throw ImageError(.unsupported, "\(path): neither JPEG nor PNM")
        }
    }

    /// Writes `image` to `path` in the format its extension names.
    static func write(_ image: borrowing PixelBuffer, path: String) throws(ImageError) {
        switch try OutputKind(path: path) {
        case .pnm:
            guard !image.format.isYUV else { throw ImageError(.unsupported, "\(path): PNM holds gray, RGB or RGBA, not \(image.format)") }
            try PNM.write(image, path: path)
        case .jpeg: throw ImageError(.unsupported, "\(path): JPEG output needs the JPEG codec, not in this build; use PNM")
        }
    }

    /// A GRAY8 copy of an RGB8/RGBA8 image: full-range BT.601 luma,
    /// (77 R + 150 G + 29 B + 128) >> 8, alpha ignored. A stand-in until the YUV kernels give
    /// the Y plane directly.
    static func luma(_ image: borrowing PixelBuffer) throws(ImageError) -> PixelBuffer {
        let channels = image.format == .rgba8 ? 4 : 3
        var gray = try PixelBuffer(width: image.width, height: image.height, format: .gray8)
        let w = image.width, h = image.height, ss = image.plane(0).stride, ds = gray.plane(0).stride
        image.withPlane(0) { src in
            gray.withMutablePlane(0) { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let o = y * ss + x * channels
                        let v = (77 * Int(src[o]) + 150 * Int(src[o + 1]) + 29 * Int(src[o + 2]) + 128) >> 8
                        dst[y * ds + x] = UInt8(v)
                    }
                }
            }
        }
        return gray
    }
}
