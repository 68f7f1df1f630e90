import ArgumentParser
import ImageCore

/// `imagecore resize IN OUT --width W | --height H | --fit WxH [--filter …]`.
struct ResizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resize",
        abstract: "Resize an image (antialiased, fixed point).",
        discussion: """
            Give --width and/or --height (one alone keeps the aspect ratio), or --fit WxH to fit \
            inside a box keeping the aspect ratio. Gray, RGB and RGBA (straight alpha, filtered \
            premultiplied) PNM in and out.
            """)

    @Argument(help: "Input image (PNM).")
    var input: String

    @Argument(help: "Output image (.pgm, .ppm, .pam or .pnm).")
    var output: String

    @Option(help: "Output width.")
    var width: Int?

    @Option(help: "Output height.")
    var height: Int?

    @Option(help: "Fit inside WxH, keeping the aspect ratio.")
    var fit: String?

    @Option(help: "Filter: \(ResizeFilter.allCases.map(\.rawValue).joined(separator: ", ")).")
    var filter: String = ResizeFilter.lanczos3.rawValue

    @Flag(help: "Filter the full-resolution source even for large factors (no box pre-reduction).")
    var noPrereduce = false

    func run() throws {
        guard let f = ResizeFilter(rawValue: filter) else {
            throw ImageError(.invalidArgument, "unknown filter '\(filter)'; use \(ResizeFilter.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let image = try ImageFiles.read(path: input)
        let size = try targetSize(width: image.width, height: image.height)
        let plan = try ResizePlan(format: image.format, alphaMode: image.alphaMode, sourceWidth: image.width,
                                  sourceHeight: image.height, width: size.width, height: size.height,
                                  filter: f, preReduce: !noPrereduce)
        var out = try PixelBuffer(width: size.width, height: size.height, format: image.format, alphaMode: image.alphaMode)
        try plan.resize(image, into: &out)
        try ImageFiles.write(out, path: output)
    }

    func targetSize(width w: Int, height h: Int) throws(ImageError) -> (width: Int, height: Int) {
        if let fit {
            guard width == nil, height == nil else { throw ImageError(.invalidArgument, "--fit excludes --width and --height") }
            let parts = fit.lowercased().split(separator: "x").map { Int($0) }
            guard parts.count == 2, let mw = parts[0], let mh = parts[1], mw >= 1, mh >= 1 else {
                throw ImageError(.invalidArgument, "--fit takes WxH, got '\(fit)'")
            }
            return try ResizeGeometry.fit(width: w, height: h, maxWidth: mw, maxHeight: mh)
        }
        for v in [width, height] { if let v, v < 1 { throw ImageError(.invalidArgument, "sizes must be ≥ 1, got \(v)") } }
        switch (width, height) {
        case let (tw?, th?): return (tw, th)
        case let (tw?, nil): return ResizeGeometry.scaled(width: w, height: h, toWidth: tw)
        case let (nil, th?): return ResizeGeometry.scaled(width: w, height: h, toHeight: th)
        case (nil, nil): throw ImageError(.invalidArgument, "give --width, --height or --fit")
        }
    }
}
