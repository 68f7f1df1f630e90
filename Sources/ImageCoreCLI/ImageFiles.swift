import ImageCore

/// The image files the pixel subcommands read and write, told apart by extension:
/// `.yuv` is raw I420/NV12 (size and layout from options), `.pgm`/`.ppm`/`.pam`/`.pnm` PNM.
/// Option values are parsed here rather than by ArgumentParser so that a bad value is
/// reported like every other error: one line on stderr.
enum ImageFiles {
    enum Kind { case pnm, yuv }

    /// The lower-cased extension of the file name, if any.
    static func ext(_ path: String) -> String? {
        path.split(separator: "/").last.flatMap { name in
            name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        }
    }

    /// An input is raw YUV if named .yuv, else PNM (the PNM reader checks the content).
    static func inputKind(of path: String) -> Kind { ext(path) == "yuv" ? .yuv : .pnm }

    /// An output's kind must be clear from its extension.
    static func kind(of path: String) throws(ImageError) -> Kind {
        switch ext(path) {
        case "yuv": return .yuv
        case "pgm", "ppm", "pam", "pnm": return .pnm
        default: throw ImageError(.unsupported, "\(path): unknown extension; use .pgm, .ppm, .pam, .pnm or .yuv")
        }
    }

    /// "WxH" → (W, H).
    static func size(_ text: String?, for path: String) throws(ImageError) -> (width: Int, height: Int) {
        guard let text else { throw ImageError(.invalidArgument, "\(path): raw .yuv needs --size WxH") }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 1, h >= 1 else {
            throw ImageError(.invalidArgument, "--size '\(text)': expected WxH, e.g. 4032x3024")
        }
        return (w, h)
    }

    static func layout(_ text: String?) throws(ImageError) -> PixelFormat {
        switch text?.lowercased() {
        case nil, "i420": return .i420
        case "nv12": return .nv12
        default: throw ImageError(.invalidArgument, "--layout '\(text!)': expected i420 or nv12")
        }
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

    /// Reads a PNM, or a raw .yuv of the given size and layout.
    static func read(_ path: String, size: String?, layout: String?) throws(ImageError) -> PixelBuffer {
        switch inputKind(of: path) {
        case .pnm: return try PNM.read(path: path)
        case .yuv:
            let (w, h) = try self.size(size, for: path)
            return try RawYUV.read(path: path, width: w, height: h, format: try self.layout(layout))
        }
    }

    /// Writes a buffer whose format suits the path's kind.
    static func write(_ image: borrowing PixelBuffer, to path: String) throws(ImageError) {
        switch try kind(of: path) {
        case .pnm: try PNM.write(image, path: path)
        case .yuv: try RawYUV.write(image, path: path)
        }
    }
}
