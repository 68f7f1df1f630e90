import ImageCore

/// Reading and writing the images the document commands work on.
///
/// Inputs by content: PNM (P5/P6/P7), or a raw `.yuv` file when a raw size and layout are
/// given. Outputs by extension: `.pgm` `.ppm` `.pam` `.pnm` (PNM) or `.yuv` (raw planes).
/// JPEG is recognised but not decoded yet: the codec lives on another branch, and plugs in
/// at the two marked `case .jpeg` lines.
enum ImageFiles {
    /// Raw YUV input description from `WxH` and `nv12|i420`.
    struct Raw {
        var width: Int
        var height: Int
        var format: PixelFormat
    }

    static func parseSize(_ s: String) throws(ImageError) -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 1, h >= 1 else {
            throw ImageError(.invalidArgument, "size '\(s)' is not WxH")
        }
        return (w, h)
    }

    static func raw(size: String?, layout: String?) throws(ImageError) -> Raw? {
        guard size != nil || layout != nil else { return nil }
        guard let size, let layout else { throw ImageError(.invalidArgument, "raw .yuv input needs both a size and --layout") }
        let (w, h) = try parseSize(size)
        let format: PixelFormat
        switch layout.lowercased() {
        case "nv12": format = .nv12
        case "i420": format = .i420
        default: throw ImageError(.invalidArgument, "layout '\(layout)' is not nv12 or i420")
        }
        return Raw(width: w, height: h, format: format)
    }

    /// Reads an image; RGB8 PNM becomes opaque RGBA8 (the document kernels take RGBA).
    static func read(_ path: String, raw: Raw?) throws(ImageError) -> PixelBuffer {
        if let raw { return try RawYUV.read(path: path, width: raw.width, height: raw.height, format: raw.format) }
        switch try FileKind.detect(path: path) {
        case .pnm:
            let image = try PNM.read(path: path)
            return image.format == .rgb8 ? try rgba(from: image) : image
        case .jpeg: // plug the JPEG decoder in here
            throw ImageError(.unsupported, "\(path): JPEG input needs the codec (not on this branch yet); convert to PNM")
        case .unknown:
            if path.lowercased().hasSuffix(".yuv") { throw ImageError(.invalidArgument, "\(path): raw .yuv needs a size and --layout") }
            throw ImageError(.unsupported, "\(path): neither PNM nor JPEG")
        }
    }

    /// Writes by extension. RGBA8 to `.ppm` drops alpha; gray to `.ppm` is widened.
    static func write(_ image: borrowing PixelBuffer, to path: String) throws(ImageError) {
        let ext = path.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        switch ext {
        case "yuv":
            try RawYUV.write(image, path: path)
        case "pgm", "pam", "pnm":
            try PNM.write(image, path: path)
        case "ppm":
            if image.format == .rgba8 || image.format == .gray8 {
                try PNM.write(try rgb(from: image), path: path)
            } else {
                try PNM.write(image, path: path)
            }
        case "jpg", "jpeg": // plug the JPEG encoder in here
            throw ImageError(.unsupported, "\(path): JPEG output needs the codec (not on this branch yet); write .ppm/.pgm/.pam")
        default:
            throw ImageError(.invalidArgument, "\(path): unknown output extension (use .pgm, .ppm, .pam or .yuv)")
        }
    }

    static func rgba(from src: borrowing PixelBuffer) throws(ImageError) -> PixelBuffer {
        var dst = try PixelBuffer(width: src.width, height: src.height, format: .rgba8, alphaMode: .opaque)
        let ss = src.plane(0).stride, ds = dst.plane(0).stride, w = src.width, h = src.height
        src.withPlane(0) { s in
            dst.withMutablePlane(0) { d in
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<3 { d[y * ds + 4 * x + c] = s[y * ss + 3 * x + c] }
                        d[y * ds + 4 * x + 3] = 255
                    }
                }
            }
        }
        return dst
    }

    static func rgb(from src: borrowing PixelBuffer) throws(ImageError) -> PixelBuffer {
        var dst = try PixelBuffer(width: src.width, height: src.height, format: .rgb8)
        let ss = src.plane(0).stride, ds = dst.plane(0).stride, w = src.width, h = src.height
        let n = src.format == .rgba8 ? 4 : 1
        src.withPlane(0) { s in
            dst.withMutablePlane(0) { d in
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<3 { d[y * ds + 3 * x + c] = s[y * ss + n * x + (n == 4 ? c : 0)] }
                    }
                }
            }
        }
        return dst
    }
}
