import ImageCore

/// `imagecore decode IN OUT.(pnm|pgm|ppm|pam|yuv|png)`: decode a JPEG, optionally scaled
/// (M/8, or the smallest M/8 covering a size) and cropped, or a PNG or PNM (read by content),
/// to PNM, raw YUV or PNG.
enum Decode {
    static let spec = CommandSpec.files(
        "decode", "Decode a JPEG, PNG or PNM to PNM (P5/P6/P7), raw .yuv (I420/NV12) or PNG.",
        discussion: "The input is read by content. The output format defaults from the extension: .pgm gray, .ppm/.pnm rgb, .pam rgba, .yuv i420, .png the input's own gray, RGB or RGBA. --scale, --fit and --crop are the JPEG decoder's (DCT scaling, a decode of only the rectangle) and are refused for PNG and PNM inputs (use resize). --crop is in output pixels (after scaling) of the stored orientation; for i420/nv12 its x and y must be even. The EXIF orientation is then applied (unless --no-auto-orient).",
        positionals: [inOutPositional],
        options: [
            .value("format", "FORMAT", "Output pixel format.", completion: .choices(["rgba", "rgb", "gray", "i420", "nv12"])),
            .value("scale", "M/8", "Decode at M/8 of the stored size, e.g. 4/8."),
            .value("fit", "WxH", "Decode at the smallest M/8 whose size covers WxH (a side may be 0)."),
            .value("crop", "X,Y,W,H", "Decode only this rectangle of the (scaled) output."),
        ] + CommonOptions.orienting, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let format = try Values.pixelFormat(a.string("format"))
        var options = JPEG.DecodeOptions()
        switch (a.string("scale"), a.string("fit")) {
        case (let s?, nil):
            let parts = s.split(separator: "/")
            guard parts.count == 2, let m = Int(parts[0]), parts[1] == "8", (1...8).contains(m) else {
                throw .usage("--scale \(s): expected M/8 with M = 1...8")
            }
            options.scale = .eighths(m)
        case (nil, let f?):
            let (w, h) = try Values.size(f, option: "fit", allowZero: true)
            options.scale = .fit(width: w, height: h)
        case (nil, nil): break
        default: throw .usage("give --scale or --fit, not both")
        }
        if let c = a.string("crop") {
            let v = try Values.numbers(c, count: 4, option: "crop", what: "X,Y,W,H in whole pixels")
            guard v.allSatisfy({ $0 == $0.rounded() && $0 >= 0 && $0 <= Double(ImageCoreRuntime.maxDimension) }), v[2] >= 1, v[3] >= 1 else {
                throw .usage("--crop \(c): expected X,Y,W,H in whole pixels, W and H ≥ 1")
            }
            let r = PixelRect(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3]))
            if let format, format.isYUV, r.x % 2 != 0 || r.y % 2 != 0 {
                throw .usage("--crop \(c): for \(format) the crop's x and y must be even (the 4:2:0 chroma grid)")
            }
            options.crop = r
        }
        let chosen = options
        return try runFileCommand(a, BatchShape(defaultName: "{stem}.ppm"), verb: "decode") { (job, settings) throws(ImageError) in
            let out = job.output!
            let kind = try ImageFiles.outputKind(of: out, stdoutKind: format?.isYUV == true ? .yuv : .pnm)
            guard kind != .jpeg else { throw ImageError(.invalidArgument, "\(out): decode writes .pnm, .pgm, .ppm, .pam or .yuv") }
            let pixelFormat = format ?? defaultFormat(out)
            if let pixelFormat, kind == .yuv && !pixelFormat.isYUV || kind == .pnm && pixelFormat.isYUV {
                throw ImageError(.invalidArgument, "\(out): format \(pixelFormat) cannot be written as .\(ImageFiles.ext(out) ?? "pnm")")
            }
            var o = chosen
            let limits = settings.decodeOptions()
            o.maxPixels = limits.maxPixels; o.strict = limits.strict; o.maxMemory = limits.maxMemory
            o.minValidShare = limits.minValidShare
            var r = FileResult()
            let bytes = try ImageFiles.bytes(job.input.path)
            r.iccProfile = ImageFiles.iccProfile(bytes)
            o.cmykProfile = ImageFiles.cmykProfile(r.iccProfile)
            var image: PixelBuffer
            do throws(ImageError) {
                switch ImageFiles.sniff(bytes.prefix(8)) {
                case .jpeg:
                    // A .png output defaults to the JPEG's own gray or RGB.
                    var f = PixelFormat.rgb8
                    if let pixelFormat { f = pixelFormat } else if try JPEG.info(bytes).colorSpace == .gray { f = .gray8 }
                    image = try ImageFiles.decodeJPEG(bytes, format: f, options: o, result: &r)
                case let kind where kind == .png || kind == .pnm:
                    guard o.scale == .full || o.scale == .eighths(8), o.crop == nil else {
                        throw ImageError(.invalidArgument, "--scale, --fit and --crop apply to JPEG input only (DCT scaling); resize a PNG or PNM with 'imagecore resize'")
                    }
                    // PNG decodes straight into the requested format where it can (gray, RGB,
                    // RGBA); YUV and PNM's stored formats go through one conversion.
                    let decoded = kind == .png
                        ? try ImageFiles.decodePNG(bytes, format: pixelFormat?.isYUV == true ? nil : pixelFormat,
                                                   options: ImageFiles.pngOptions(settings), result: &r)
                        : try PNM.decode(bytes)
                    if let pixelFormat, decoded.format != pixelFormat {
                        image = try decoded.converted(to: pixelFormat)
                    } else { image = decoded }
                default:
                    throw ImageError(.unsupported, "neither JPEG, PNG nor PNM")
                }
            } catch { throw ImageFiles.named(job.input.path, error) }
            try ImageFiles.upright(&image, settings: settings)
            try ImageFiles.write(image, to: out, quality: settings.quality, stdoutKind: kind, icc: r.iccProfile)
            r.text = "\(out): \(image.width)x\(image.height) \(image.format), orientation \(image.orientation)"
            return r
        }
    }

    /// The pixel format an output name asks for; nil for .png, which keeps the input's own
    /// gray, RGB or RGBA (a JPEG's gray or RGB).
    static func defaultFormat(_ path: String) -> PixelFormat? {
        switch ImageFiles.ext(path) {
        case "pgm": .gray8
        case "pam": .rgba8
        case "yuv": .i420
        case "png": nil
        default: .rgb8
        }
    }
}
