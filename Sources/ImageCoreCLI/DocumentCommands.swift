import ArgumentParser
import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `imagecore detect IN [--json]`: the page's corners.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the page in a photo and print its corners.",
        discussion: "Corners are printed clockwise from the top-left as x,y pairs in pixels, or 'not found' (exit status 0 either way).")

    @Argument(help: "A PNM photo, or a raw .yuv with --size and --layout.")
    var input: String

    @Flag(help: "Print JSON: {\"found\", \"corners\", \"confidence\", \"width\", \"height\"}.")
    var json = false

    @Option(help: "Raw .yuv input size, WxH.")
    var size: String?

    @Option(help: "Raw .yuv input layout: nv12 or i420.")
    var layout: String?

    func run() throws {
        let image = try ImageFiles.read(input, raw: try ImageFiles.raw(size: size, layout: layout))
        let result = try PageDetector().detect(in: image)
        switch result {
        case let .found(q, confidence):
            if json {
                let corners = q.corners.map { "[\(fmt($0.x)), \(fmt($0.y))]" }.joined(separator: ", ")
                print("{\"found\": true, \"corners\": [\(corners)], \"confidence\": \(fmt(confidence)), \"width\": \(image.width), \"height\": \(image.height)}")
            } else {
                print(q.corners.map { "\(fmt($0.x)),\(fmt($0.y))" }.joined(separator: " "))
                print("confidence: \(fmt(confidence))")
            }
        case .notFound:
            print(json ? "{\"found\": false, \"width\": \(image.width), \"height\": \(image.height)}" : "not found")
        }
    }
}

func fmt(_ v: Double) -> String {
    let s = (v * 100).rounded() / 100
    return s == s.rounded() ? String(Int(s)) : String(s)
}

/// `imagecore rectify IN OUT --corners ... [--size WxH | --paper a4 --dpi 150 | --long-side N]`.
struct Rectify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rectify the page given by four corners (or detected) into an upright image.",
        discussion: "Corners: top-left, top-right, bottom-right, bottom-left as x1,y1,...,x4,y4 in pixels; without --corners the page is detected. Size: the quad's own size unless --size, --long-side or --paper is given.")

    @Argument(help: "A PNM image, or a raw .yuv with --input-size and --layout.")
    var input: String

    @Argument(help: "Output: .pgm, .ppm, .pam or .yuv.")
    var output: String

    @Option(help: "The page corners x1,y1,x2,y2,x3,y3,x4,y4 (clockwise from top-left).")
    var corners: String?

    @Option(help: "Output size WxH (before the orientation turn).")
    var size: String?

    @Option(help: "Paper size: a4, a5, letter or legal (needs --dpi).")
    var paper: String?

    @Option(help: "Resolution for --paper.")
    var dpi: Double?

    @Option(name: .customLong("long-side"), help: "The longer output side in pixels, keeping the page's aspect ratio.")
    var longSide: Int?

    @Option(help: "bilinear or bicubic.")
    var interpolation: String = "bilinear"

    @Option(help: "EXIF orientation 1-8 to write the page in (e.g. the photo's own tag for an upright page).")
    var orientation: Int = 1

    @Option(name: .customLong("input-size"), help: "Raw .yuv input size, WxH.")
    var inputSize: String?

    @Option(help: "Raw .yuv input layout: nv12 or i420.")
    var layout: String?

    func run() throws {
        let image = try ImageFiles.read(input, raw: try ImageFiles.raw(size: inputSize, layout: layout))
        guard let o = Orientation(exifValue: orientation) else { throw ImageError(.invalidArgument, "orientation \(orientation) is not 1-8") }
        guard let interp = Interpolation(rawValue: interpolation.lowercased()) else {
            throw ImageError(.invalidArgument, "interpolation '\(interpolation)' is not bilinear or bicubic")
        }
        let quad: Quad
        if let corners {
            let v = corners.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
            guard v.count == 8, v.allSatisfy({ $0 != nil }) else { throw ImageError(.invalidArgument, "--corners needs 8 numbers, got '\(corners)'") }
            quad = Quad((0..<4).map { Point(x: v[2 * $0]!, y: v[2 * $0 + 1]!) })
        } else {
            guard let q = try PageDetector().detect(in: image).quad else { throw ImageError(.invalidArgument, "\(input): no page found; give --corners") }
            quad = q
        }
        let requests = [size != nil, paper != nil, longSide != nil].filter { $0 }.count
        guard requests <= 1 else { throw ImageError(.invalidArgument, "give one of --size, --paper or --long-side") }
        var request = RectifiedSize.natural
        if let size { let (w, h) = try ImageFiles.parseSize(size); request = .pixels(width: w, height: h) }
        if let paper {
            guard let p = Paper(rawValue: paper.lowercased()) else { throw ImageError(.invalidArgument, "paper '\(paper)' is not a4, a5, letter or legal") }
            guard let dpi else { throw ImageError(.invalidArgument, "--paper needs --dpi") }
            request = .paper(p, dpi: dpi)
        } else if dpi != nil {
            throw ImageError(.invalidArgument, "--dpi goes with --paper")
        }
        if let longSide { request = .longSide(longSide) }
        let out = try image.rectified(quad: quad, size: request, orientation: o, interpolation: interp,
                                      fill: image.format.isYUV ? [255, 128, 128] : (image.format == .gray8 ? [255] : [255, 255, 255, 255]))
        try ImageFiles.write(out, to: output)
    }
}

/// `imagecore enhance IN OUT [--mode color|gray|bw]`.
struct Enhance: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Flatten the lighting of a page image and stretch its contrast, in colour, gray or black and white.",
        discussion: "On raw YUV, gray and bw also set chroma to neutral so the output shows gray.")

    @Argument(help: "A PNM image, or a raw .yuv with --size and --layout.")
    var input: String

    @Argument(help: "Output: .pgm, .ppm, .pam or .yuv.")
    var output: String

    @Option(help: "color, gray or bw.")
    var mode: String = "color"

    @Option(help: "Raw .yuv input size, WxH.")
    var size: String?

    @Option(help: "Raw .yuv input layout: nv12 or i420.")
    var layout: String?

    func run() throws {
        guard let m = EnhanceMode(rawValue: mode.lowercased()) else { throw ImageError(.invalidArgument, "mode '\(mode)' is not color, gray or bw") }
        var image = try ImageFiles.read(input, raw: try ImageFiles.raw(size: size, layout: layout))
        try image.enhance(mode: m, neutralChroma: true)
        try ImageFiles.write(image, to: output)
    }
}
