import ArgumentParser
import ImageCore

/// `imagecore decode IN.jpg OUT.(pnm|pgm|ppm|pam|yuv)`: decode a JPEG, optionally scaled
/// (M/8, or the smallest M/8 covering a size) and cropped, to PNM or raw YUV.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode a JPEG to PNM (P5/P6/P7) or raw .yuv (I420/NV12).",
        discussion: """
            The output format defaults from the extension: .pgm gray, .ppm/.pnm rgb, .pam rgba, .yuv i420.
            --crop is in output pixels (after scaling); for i420/nv12 its x and y must be even.
            """)

    @Argument(help: "Input JPEG file.")
    var input: String

    @Argument(help: "Output file: .pnm, .pgm, .ppm, .pam or .yuv.")
    var output: String

    @Option(help: "Output pixel format: rgba, rgb, gray, i420 or nv12.")
    var format: String?

    @Option(help: "Decode at M/8 of the stored size, e.g. 4/8.")
    var scale: String?

    @Option(help: "Decode at the smallest M/8 whose size covers WxH (a side may be 0).")
    var fit: String?

    @Option(help: "Decode only the rectangle X,Y,W,H of the (scaled) output.")
    var crop: String?

    @Option(help: "Refuse images with more source pixels than this.")
    var maxPixels: Int = 100_000_000

    @Flag(help: "Treat recoverable corruption (libjpeg warnings) as an error.")
    var strict = false

    func run() throws {
        let kind = try OutputKind(path: output)
        let pixelFormat = try CLIParse.pixelFormat(format) ?? kind.defaultFormat
        try kind.check(pixelFormat)
        var options = JPEG.DecodeOptions(maxPixels: maxPixels, strict: strict)
        switch (scale, fit) {
        case (let s?, nil): options.scale = .eighths(try CLIParse.eighths(s))
        case (nil, let f?):
            let (w, h) = try CLIParse.size(f, allowZero: true)
            options.scale = .fit(width: w, height: h)
        case (nil, nil): break
        default: throw ImageError(.invalidArgument, "use --scale or --fit, not both")
        }
        if let crop { options.crop = try CLIParse.rect(crop) }
        let bytes = try FileBytes.read(path: input)
        let image: PixelBuffer
        do { image = try JPEG.decode(bytes, format: pixelFormat, options: options) }
        catch { throw ImageError(error.code, "\(input): \(error.detail ?? error.name)") }
        if kind == .yuv { try RawYUV.write(image, path: output) } else { try PNM.write(image, path: output) }
        print("\(output): \(image.width)x\(image.height) \(image.format), orientation \(image.orientation)")
    }
}

/// What an output path's extension asks for.
enum OutputKind: Equatable {
    case pgm, ppm, pnm, pam, yuv

    init(path: String) throws(ImageError) {
        switch path.split(separator: ".").last?.lowercased() ?? "" {
        case "pgm": self = .pgm
        case "ppm": self = .ppm
        case "pnm": self = .pnm
        case "pam": self = .pam
        case "yuv": self = .yuv
        default: throw ImageError(.invalidArgument, "\(path): output must end in .pnm, .pgm, .ppm, .pam or .yuv")
        }
    }

    var defaultFormat: PixelFormat {
        switch self {
        case .pgm: .gray8
        case .ppm, .pnm: .rgb8
        case .pam: .rgba8
        case .yuv: .i420
        }
    }

    func check(_ format: PixelFormat) throws(ImageError) {
        let ok = switch self {
        case .yuv: format.isYUV
        case .pgm: format == .gray8
        case .ppm: format == .rgb8
        case .pnm: format == .gray8 || format == .rgb8 || format == .rgba8
        case .pam: !format.isYUV
        }
        guard ok else { throw ImageError(.invalidArgument, "format \(format) cannot be written as .\(self)") }
    }
}

/// Argument parsing that fails with one-line ImageErrors (ValidationError would add usage lines).
enum CLIParse {
    static func pixelFormat(_ s: String?) throws(ImageError) -> PixelFormat? {
        guard let s else { return nil }
        switch s.lowercased() {
        case "rgba": return .rgba8
        case "rgb": return .rgb8
        case "gray", "grey": return .gray8
        case "i420": return .i420
        case "nv12": return .nv12
        default: throw ImageError(.invalidArgument, "--format \(s): use rgba, rgb, gray, i420 or nv12")
        }
    }

    static func eighths(_ s: String) throws(ImageError) -> Int {
        let parts = s.split(separator: "/")
        guard parts.count == 2, let m = Int(parts[0]), parts[1] == "8", (1...8).contains(m) else {
            throw ImageError(.invalidArgument, "--scale \(s): use M/8 with M = 1…8")
        }
        return m
    }

    static func size(_ s: String, allowZero: Bool = false) throws(ImageError) -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let low = allowZero ? 0 : 1
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= low, h >= low, w <= 65535, h <= 65535,
              w + h > 0 else {
            throw ImageError(.invalidArgument, "size \(s): use WxH")
        }
        return (w, h)
    }

    static func rect(_ s: String) throws(ImageError) -> JPEG.Rect {
        let v = s.split(separator: ",", omittingEmptySubsequences: false).map { Int(String($0.filter { $0 != " " })) }
        guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3], x >= 0, y >= 0, w >= 1, h >= 1,
              x <= 65535, y <= 65535, w <= 65535, h <= 65535 else {
            throw ImageError(.invalidArgument, "--crop \(s): use X,Y,W,H")
        }
        return JPEG.Rect(x: x, y: y, width: w, height: h)
    }
}
