import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The image files every pixel subcommand reads and writes.
///
/// Inputs by content: JPEG (decoded to opaque RGBA8, or GRAY8 for a grayscale JPEG), PNM
/// (P5/P6/P7), or raw `.yuv` (by extension; size and layout from options). Outputs by
/// extension: `.jpg`/`.jpeg`, `.pgm`/`.ppm`/`.pam`/`.pnm`, `.yuv`. Option values are parsed
/// here rather than by ArgumentParser so that a bad value is reported like every other
/// error: one line on stderr.
enum ImageFiles {
    enum Kind { case pnm, yuv, jpeg }

    /// Raw YUV input: size and layout.
    struct Raw {
        var width: Int
        var height: Int
        var format: PixelFormat
    }

    /// The lower-cased extension of the file name, if any.
    static func ext(_ path: String) -> String? {
        path.split(separator: "/").last.flatMap { name in
            name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        }
    }

    /// An input is raw YUV if named .yuv; otherwise its first bytes decide.
    static func inputKind(of path: String) throws(ImageError) -> Kind {
        if ext(path) == "yuv" { return .yuv }
        switch try FileKind.detect(path: path) {
        case .jpeg: return .jpeg
        case .pnm: return .pnm
        case .unknown: throw ImageError(.unsupported, "\(path): neither JPEG nor PNM")
        }
    }

    /// An output's kind must be clear from its extension.
    static func kind(of path: String) throws(ImageError) -> Kind {
        switch ext(path) {
        case "yuv": return .yuv
        case "pgm", "ppm", "pam", "pnm": return .pnm
        case "jpg", "jpeg": return .jpeg
        default: throw ImageError(.unsupported, "\(path): unknown extension; use .jpg, .pgm, .ppm, .pam, .pnm or .yuv")
        }
    }

    /// "WxH" → (W, H).
    static func parseSize(_ text: String) throws(ImageError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 1, h >= 1 else {
            throw ImageError(.invalidArgument, "size '\(text)': expected WxH, e.g. 4032x3024")
        }
        return (w, h)
    }

    static func size(_ text: String?, for path: String) throws(ImageError) -> (width: Int, height: Int) {
        guard let text else { throw ImageError(.invalidArgument, "\(path): raw .yuv needs --size WxH") }
        let (w, h) = try parseSize(text)
        return (w, h)
    }

    static func layout(_ text: String?) throws(ImageError) -> PixelFormat {
        switch text?.lowercased() {
        case nil, "i420": return .i420
        case "nv12": return .nv12
        default: throw ImageError(.invalidArgument, "--layout '\(text!)': expected i420 or nv12")
        }
    }

    /// A raw description when a size or layout is given, else nil.
    static func raw(size: String?, layout: String?) throws(ImageError) -> Raw? {
        guard size != nil || layout != nil else { return nil }
        guard let size else { throw ImageError(.invalidArgument, "raw .yuv input needs --size WxH") }
        let (w, h) = try parseSize(size)
        return Raw(width: w, height: h, format: try self.layout(layout))
    }

    static func matrix(_ text: String) throws(ImageError) -> YUVMatrix {
        switch text.lowercased() {
        case "bt601", "601": return .bt601
        case "bt709", "709": return .bt709
        default: throw ImageError(.invalidArgument, "--matrix '\(text)': expected bt601 or bt709")
        }
    }

    static func range(_ text: String) throws(ImageError) -> YUVRange {
        switch text.lowercased() {
        case "full": return .full
        case "video", "limited": return .video
        default: throw ImageError(.invalidArgument, "--range '\(text)': expected full or video")
        }
    }

    // MARK: reading

    /// Reads a JPEG, a PNM, or a raw .yuv of the given size and layout.
    static func read(_ path: String, size: String? = nil, layout: String? = nil) throws(ImageError) -> PixelBuffer {
        switch try inputKind(of: path) {
        case .pnm: return try PNM.read(path: path)
        case .yuv:
            let (w, h) = try self.size(size, for: path)
            return try RawYUV.read(path: path, width: w, height: h, format: try self.layout(layout))
        case .jpeg:
            let bytes = try FileBytes.read(path: path)
            let info = try JPEG.info(bytes)
            let format: PixelFormat = info.colorSpace == .gray ? .gray8 : .rgba8
            do { return try JPEG.decode(bytes, format: format) } catch { throw ImageError(error.code, "\(path): \(error.detail ?? error.name)") }
        }
    }

    static func read(path: String) throws(ImageError) -> PixelBuffer { try read(path) }

    /// Reads an image for the document kernels, which take GRAY8, RGBA8 or YUV: RGB8 PNM
    /// becomes opaque RGBA8.
    static func read(_ path: String, raw: Raw?) throws(ImageError) -> PixelBuffer {
        if let raw { return try RawYUV.read(path: path, width: raw.width, height: raw.height, format: raw.format) }
        if ext(path) == "yuv" { throw ImageError(.invalidArgument, "\(path): raw .yuv needs --size WxH and --layout") }
        let image = try read(path)
        return image.format == .rgb8 ? try image.converted(to: .rgba8) : image
    }

    // MARK: writing

    /// Writes by extension. `.ppm` takes gray, RGB or RGBA (alpha dropped); `.pgm` gray;
    /// `.pam`/`.pnm` what PNM holds; `.yuv` I420/NV12; `.jpg` gray, RGB, RGBA or YUV.
    static func write(_ image: borrowing PixelBuffer, to path: String, quality: Int = 90) throws(ImageError) {
        switch try kind(of: path) {
        case .yuv:
            try RawYUV.write(image, path: path)
        case .pnm:
            guard !image.format.isYUV else { throw ImageError(.unsupported, "\(path): PNM holds gray, RGB or RGBA, not \(image.format); write .yuv") }
            if ext(path) == "ppm" && image.format != .rgb8 {
                try PNM.write(try image.converted(to: .rgb8), path: path)
            } else if ext(path) == "pgm" && image.format != .gray8 {
                throw ImageError(.unsupported, "\(path): .pgm holds gray, not \(image.format); use .ppm or .pam")
            } else {
                try PNM.write(image, path: path)
            }
        case .jpeg:
            let bytes = try JPEG.encode(image, options: .init(quality: quality))
            try writeFile(bytes, path: path)
        }
    }

    static func write(_ image: borrowing PixelBuffer, path: String) throws(ImageError) { try write(image, to: path) }

    static func writeFile(_ bytes: [UInt8], path: String) throws(ImageError) {
        guard let f = fopen(path, "wb") else { throw ImageError(.io, "\(path): \(String(cString: strerror(errno)))") }
        let ok = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
        guard fclose(f) == 0 && ok else { unlink(path); throw ImageError(.io, "\(path): write failed") }
    }
}
