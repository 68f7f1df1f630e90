import ImageCore

/// `imagecore rotate IN OUT --orientation N`: applies EXIF orientation N (1…8).
enum Rotate {
    static let spec = CommandSpec.files(
        "rotate", "Apply an EXIF orientation (1-8) to an image.",
        discussion: "1 copies, 2 mirrors left-right, 3 rotates 180°, 4 mirrors top-bottom, 5 transposes, 6 rotates 90° clockwise, 7 transverses, 8 rotates 90° counter-clockwise: the result is what a viewer shows for a file tagged with that orientation. Raw .yuv input needs --size WxH and --layout.",
        positionals: [inOutPositional],
        options: [.value("orientation", "N", "EXIF orientation to apply, 1...8.")] + CommonOptions.rawInput + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        guard let o = try Values.orientation(a) else { throw .usage("rotate needs --orientation N (1...8)") }
        let raw = try Values.raw(a)
        return try runFileCommand(a, BatchShape(), verb: "rotate") { (job, settings) throws(ImageError) in
            var r = FileResult()
            let image = try ImageFiles.read(job.input.path, raw: raw, settings: settings, result: &r)
            let turned = try image.applying(o)
            r.width = turned.width; r.height = turned.height
            try ImageFiles.write(turned, to: job.output!, quality: settings.quality, yuvLayout: raw?.format ?? .i420,
                                 stdoutKind: raw != nil ? .yuv : .pnm, icc: r.iccProfile, exif: r.exif)
            return r
        }
    }
}
