import ImageCore

/// `imagecore convert IN OUT`: between PNM, raw .yuv and JPEG; the output's extension says
/// what it holds (`.pgm` gray, `.ppm` RGB, `.pam` as is, `.yuv` planes, `.jpg`).
enum Convert {
    static let spec = CommandSpec.files(
        "convert", "Convert between JPEG, PNG, PNM (P5/P6/P7) and raw I420/NV12 .yuv.",
        discussion: "The output's extension decides what it holds: .pgm gray (luma), .ppm RGB, .pam/.pnm the input's gray, RGB or RGBA (RGB from YUV), .yuv raw planes (--output-layout, else --layout), .jpg JPEG, .png PNG (gray, RGB or RGBA as the image is). Inputs are read by content. Raw .yuv input needs --size WxH and --layout (default i420). --matrix and --range describe the YUV side (default bt601, full: JPEG's).",
        positionals: [inOutPositional],
        options: CommonOptions.rawInput + [
            .value("output-layout", "LAYOUT", "Layout of a raw .yuv output (default: --layout).", completion: .choices(["i420", "nv12"])),
            .value("matrix", "M", "YCbCr matrix.", default: "bt601", completion: .choices(["bt601", "bt709"])),
            .value("range", "R", "YUV range.", default: "full", completion: .choices(["full", "video"])),
        ] + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let matrix: YUVMatrix = try a.choice("matrix", ["bt601", "bt709", "601", "709"], default: "bt601").hasSuffix("709") ? .bt709 : .bt601
        let range: YUVRange = try a.choice("range", ["full", "video", "limited"], default: "full") == "full" ? .full : .video
        let raw = try Values.raw(a)
        let outLayout = try Values.layout(a.string("output-layout") ?? a.string("layout"), option: "output-layout")
        return try runFileCommand(a, BatchShape(defaultName: "{stem}.ppm"), verb: "convert") { (job, settings) throws(ImageError) in
            let out = job.output!
            let kind = try ImageFiles.outputKind(of: out, stdoutKind: .pnm)
            var r = FileResult()
            let image = try ImageFiles.read(job.input.path, raw: raw, settings: settings, result: &r)
            r.width = image.width; r.height = image.height
            // Only conversions to or from YUV need the matrix and range; the rest is ImageFiles.write's.
            if kind == .yuv && image.format != outLayout {
                let c = try image.converted(to: outLayout, matrix: matrix, range: range)
                try ImageFiles.write(c, to: out, quality: settings.quality, stdoutKind: kind, icc: r.iccProfile, exif: r.exif)
            } else if kind == .pnm && image.format.isYUV {
                let target: PixelFormat = ImageFiles.ext(out) == "pgm" ? .gray8 : ImageFiles.ext(out) == "pam" ? .rgba8 : .rgb8
                let c = try image.converted(to: target, matrix: matrix, range: range)
                try ImageFiles.write(c, to: out, quality: settings.quality, stdoutKind: kind, icc: r.iccProfile, exif: r.exif)
            } else {
                try ImageFiles.write(image, to: out, quality: settings.quality, stdoutKind: kind, icc: r.iccProfile, exif: r.exif)
            }
            return r
        }
    }
}
