import ImageCore

/// `imagecore thumbnail IN… --size 256 [-o DIR|TEMPLATE]`: streamed JPEG thumbnails, in parallel.
enum ThumbnailCommand {
    static let spec = CommandSpec.files(
        "thumbnail", "Make upright thumbnails of JPEG and PNG files (streamed decode: JPEG at the DCT scale the size allows, PNG row by row).",
        discussion: "Inputs are files, folders (their .jpg/.jpeg/.png files; -r for subfolders) and --files-from lists. Each thumbnail fits in SIZE x SIZE (or WxH), EXIF orientation applied, and is written as {dir}/{stem}.thumb.jpg (beside the input) unless -o says otherwise (a .png output name writes PNG). With -o DIR the name is DIR/{reldir}/{stem}.thumb.jpg.",
        positionals: [PositionalSpec(name: "inputs", help: "JPEG or PNG files or folders ('-': standard input, with -o -).", many: true, optional: true)],
        options: [.value("size", "N|WxH", "The box to fit.", default: "256")] + CommonOptions.resampling + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let box = try Values.box(a.string("size") ?? "256", option: "size")
        let quality = try a.int("quality", default: 85, 1...100)
        let linear = a.flag("linear")
        let shape = BatchShape(defaultTemplate: "{dir}/{stem}.thumb.jpg", defaultName: "{stem}.thumb.jpg", accept: ImageFiles.isPhotoName)
        return try runFileCommand(a, shape, verb: "thumbnail") { (job, settings) throws(ImageError) in
            let out = job.output!
            let kind = try ImageFiles.outputKind(of: out, stdoutKind: .jpeg)
            guard kind == .jpeg || kind == .png else { throw ImageError(.invalidArgument, "\(out): thumbnails are JPEG or PNG; use .jpg or .png") }
            var r = FileResult()
            var t = try ImageFiles.thumbnail(path: job.input.path, box: box, settings: settings, linearLight: linear, result: &r)
            try ImageFiles.toSRGB(&t.image, settings: settings, result: &r) // on the small result
            try ImageFiles.writeBytes(try ImageFiles.encode(t.image, kind: kind, quality: quality, icc: r.iccProfile, exif: r.exif), to: out)
            r.width = t.image.width; r.height = t.image.height; r.scale = t.scale
            r.note(t.report)
            r.text = "\(job.input.path) -> \(out) (\(t.image.width)x\(t.image.height), decoded at \(t.scale)/8)"
            return r
        }
    }
}
