import ImageCore

/// `imagecore resize IN OUT --width W | --height H | --fit WxH [--filter …]`.
enum ResizeCommand {
    static let spec = CommandSpec.files(
        "resize", "Resize an image (antialiased, fixed point).",
        discussion: "Give --width and/or --height (one alone keeps the aspect ratio), or --fit WxH to fit inside a box keeping the aspect ratio. Gray, RGB and RGBA (straight alpha, filtered premultiplied) keep their format; a JPEG input is decoded first. The output size counts against --max-pixels and --max-memory before anything is allocated.",
        positionals: [inOutPositional],
        options: [
            .value("width", "W", "Output width."),
            .value("height", "H", "Output height."),
            .value("fit", "WxH", "Fit inside WxH, keeping the aspect ratio."),
            .value("filter", "F", "Resampling filter.", default: "lanczos3", completion: .choices(ResizeFilter.allCases.map(\.rawValue))),
            .flag("no-prereduce", "Filter the full-resolution source even for large factors (no box pre-reduction)."),
        ] + CommonOptions.resampling + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let filter = ResizeFilter(rawValue: try a.choice("filter", ResizeFilter.allCases.map(\.rawValue), default: "lanczos3"))!
        let width = try a.int("width", 1...ImageCoreRuntime.maxDimension), height = try a.int("height", 1...ImageCoreRuntime.maxDimension)
        let fit = try a.string("fit").map { (s: String) throws(CLIError) in try Values.size(s, option: "fit") }
        if fit != nil && (width != nil || height != nil) { throw .usage("--fit excludes --width and --height") }
        if fit == nil && width == nil && height == nil { throw .usage("resize needs --width, --height or --fit") }
        let settings = try Settings(a)
        if let w = width, let h = height, w * h > settings.maxPixels {
            throw .usage("\(w)x\(h) is \(w * h) pixels, above --max-pixels \(settings.maxPixels)")
        }
        let options = ResizeOptions(filter: filter, preReduce: !a.flag("no-prereduce"), linearLight: a.flag("linear"))
        return try runFileCommand(a, BatchShape(), verb: "resize") { (job, settings) throws(ImageError) in
            var r = FileResult()
            // The orientation is fused into the resize: the stored pixels are resized to the
            // stored-orientation size of the requested (displayed) size, then the small
            // result is turned upright.
            let image = try ImageFiles.read(job.input.path, settings: settings, orient: false, result: &r)
            let turn = settings.autoOrient && image.orientation.swapsDimensions
            let (dw, dh) = turn ? (image.height, image.width) : (image.width, image.height)
            let size: (width: Int, height: Int)
            switch (fit, width, height) {
            case let (f?, _, _): size = try ResizeGeometry.fit(width: dw, height: dh, maxWidth: f.0, maxHeight: f.1)
            case let (nil, w?, h?): size = (w, h)
            case let (nil, w?, nil): size = ResizeGeometry.scaled(width: dw, height: dh, toWidth: w)
            case let (nil, nil, h?): size = ResizeGeometry.scaled(width: dw, height: dh, toHeight: h)
            default: throw ImageError(.invalidArgument, "no size")
            }
            let (sw, sh) = turn ? (size.height, size.width) : (size.width, size.height)
            var out = try PixelBuffer(width: sw, height: sh, format: image.format, alphaMode: image.alphaMode,
                                      orientation: image.orientation)
            let plan = try ResizePlan(format: image.format, alphaMode: image.alphaMode, sourceWidth: image.width,
                                      sourceHeight: image.height, width: sw, height: sh, options: options)
            try plan.resize(image, into: &out)
            try ImageFiles.upright(&out, settings: settings)
            try ImageFiles.write(out, to: job.output!, quality: settings.quality, stdoutKind: .pnm, icc: r.iccProfile, exif: r.exif)
            r.width = out.width; r.height = out.height
            return r
        }
    }
}
