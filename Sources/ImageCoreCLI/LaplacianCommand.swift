import ImageCore

/// `imagecore laplacian IN OUT.pgm [--gamma] [--roi x,y,w,h]`: the sharpness score and the
/// clipped response as an image.
enum LaplacianCommand {
    static let spec = CommandSpec.files(
        "laplacian", "Print the Laplacian sharpness score (mean, variance, std-dev) and write the response.",
        discussion: "The 3x3 Laplacian (-1 around, 8 in the centre, reflect-101 borders) of the image's luma (gray and YUV as is; RGB/RGBA converted to full-range BT.601 luma). The score is the population standard deviation of the signed response, computed exactly. OUT is the response clamped to 0...255 (negative values show black), optionally through the 1/2.2 display gamma.",
        positionals: [inOutPositional],
        options: [
            .flag("gamma", "Apply the 1/2.2 display gamma to the output image."),
            .value("roi", "X,Y,W,H", "Region of interest (default: the whole image)."),
        ] + CommonOptions.rawInput + CommonOptions.orienting, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let region: PixelRect? = try a.string("roi").map { (text: String) throws(CLIError) -> PixelRect in
            let v = try Values.numbers(text, count: 4, option: "roi", what: "x,y,width,height")
            return PixelRect(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3]))
        }
        let gamma = a.flag("gamma")
        let raw = try Values.raw(a)
        return try runFileCommand(a, BatchShape(defaultName: "{stem}.laplacian.pgm"), verb: "laplacian") { (job, settings) throws(ImageError) in
            var r = FileResult()
            let image = try ImageFiles.read(job.input.path, raw: raw, settings: settings, result: &r)
            let gray: PixelBuffer = switch image.format {
            case .gray8, .i420, .nv12: image
            case .rgb8, .rgba8: try image.converted(to: .gray8)
            }
            let score = try gray.laplacianScore(roi: region)
            let display = try gray.laplacianDisplay(roi: region, gamma: gamma)
            try ImageFiles.write(display, to: job.output!, quality: settings.quality, stdoutKind: .pnm)
            r.fields += [("mean", JSON.number(score.mean)), ("variance", JSON.number(score.variance)),
                         ("std_dev", JSON.number(score.standardDeviation))]
            r.text = "mean: \(score.mean)\nvariance: \(score.variance)\nstd-dev: \(score.standardDeviation)"
            return r
        }
    }
}
