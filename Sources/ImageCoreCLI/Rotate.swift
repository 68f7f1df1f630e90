import ImageCore

/// `imagecore rotate IN OUT --orientation N [--lossless [--trim]]`: applies EXIF orientation N
/// (1…8); `--lossless` turns a JPEG's DCT coefficients instead of re-encoding (`JPEG.transform`).
enum Rotate {
    static let spec = CommandSpec.files(
        "rotate", "Apply an EXIF orientation (1-8) to an image.",
        discussion: "1 copies, 2 mirrors left-right, 3 rotates 180°, 4 mirrors top-bottom, 5 transposes, 6 rotates 90° clockwise, 7 transverses, 8 rotates 90° counter-clockwise: the result is what a viewer shows for a file tagged with that orientation. Raw .yuv input needs --size WxH and --layout. --lossless (JPEG in, JPEG out): no re-encode, the DCT coefficients are moved (TurboJPEG's tjTransform); every marker is copied (EXIF, ICC, comments) and the EXIF orientation tag set to 1 (the stored orientation is applied too, unless --no-auto-orient). A width or height that is not a whole number of iMCUs (8 or 16 px) on an edge the turn moves is refused unless --trim drops those right columns or bottom rows.",
        positionals: [inOutPositional],
        options: [.value("orientation", "N", "EXIF orientation to apply, 1...8."),
                  .flag("lossless", "JPEG only: turn the DCT coefficients, no re-encode (every marker copied)."),
                  .flag("trim", "With --lossless: drop the partial iMCU column / row on the moved edges instead of refusing.")]
            + CommonOptions.rawInput + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        guard let o = try Values.orientation(a) else { throw .usage("rotate needs --orientation N (1...8)") }
        let raw = try Values.raw(a)
        if a.flag("lossless") { return try lossless(a, orientation: o, trim: a.flag("trim")) }
        guard !a.flag("trim") else { throw .usage("--trim goes with --lossless") }
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

    /// `--lossless`: the stored orientation (with auto-orient) followed by `o`, applied to the
    /// coefficients; the output's EXIF tag is what the re-encoding path writes (1 when
    /// oriented, else the stored tag carried through the turn).
    static func lossless(_ a: ParsedArguments, orientation o: Orientation, trim: Bool) throws(CLIError) -> Int32 {
        return try runFileCommand(a, BatchShape(), verb: "rotate") { (job, settings) throws(ImageError) in
            let out = job.output!
            guard !settings.srgb else { throw ImageError(.invalidArgument, "--lossless keeps the pixels as they are: no --srgb") }
            guard try ImageFiles.outputKind(of: out, stdoutKind: .jpeg) == .jpeg else {
                throw ImageError(.invalidArgument, "\(out): --lossless writes .jpg")
            }
            let bytes = try ImageFiles.bytes(job.input.path)
            guard ImageFiles.sniff(bytes.prefix(8)) == .jpeg else {
                throw ImageError(.unsupported, "\(job.input.path): --lossless needs a JPEG input")
            }
            let t: JPEG.Transformed
            do throws(ImageError) {
                let stored = try JPEG.info(bytes).orientation
                let op = settings.autoOrient ? stored.followed(by: o) : o
                let tag = settings.autoOrient ? Orientation.up : o.inverse.followed(by: stored).followed(by: o)
                let limits = settings.decodeOptions()
                t = try JPEG.transform(bytes, options: .init(orientation: op, trim: trim, exifOrientation: tag, maxPixels: limits.maxPixels,
                                                             maxMemory: limits.maxMemory > 0 ? limits.maxMemory : JPEG.TransformOptions.defaultMaxMemory))
            } catch { throw ImageFiles.named(job.input.path, error) }
            try ImageFiles.writeBytes(t.jpeg, to: out)
            var r = FileResult()
            r.width = t.width; r.height = t.height
            r.fields += [("lossless", "true"), ("dropped_columns", "\(t.droppedColumns)"), ("dropped_rows", "\(t.droppedRows)")]
            if t.droppedColumns > 0 || t.droppedRows > 0 {
                r.text = "\(job.input.path) -> \(out) (\(t.width)x\(t.height), lossless; trimmed \(t.droppedColumns) right columns, "
                    + "\(t.droppedRows) bottom rows of the stored image)"
            }
            return r
        }
    }
}
