import ImageCore

/// `imagecore encode IN.(pnm|yuv) OUT.jpg`: encode a PNM (gray, RGB, RGBA) or raw I420/NV12
/// planes (straight to libjpeg's raw input) as a JPEG.
enum Encode {
    static let spec = CommandSpec.files(
        "encode", "Encode a PNM (P5/P6/P7), a PNG, a JPEG or a raw .yuv (I420/NV12) as a JPEG.",
        discussion: "A raw .yuv input needs --size WxH and --layout i420|nv12; it is encoded 4:2:0 (or gray).",
        positionals: [inOutPositional],
        options: [
            .value("subsampling", "S", "Chroma subsampling (default 420; gray for gray input).",
                   completion: .choices(["420", "422", "444", "440", "411", "gray"])),
            .flag("progressive", "Write a progressive JPEG."),
            .flag("optimize", "Optimise the Huffman tables."),
            .value("orientation", "N", "Write an EXIF orientation tag (1...8)."),
        ] + CommonOptions.rawInput, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        var options = JPEG.EncodeOptions(quality: try a.int("quality", default: 85, 1...100),
                                         progressive: a.flag("progressive"), optimizeHuffman: a.flag("optimize"))
        if let s = a.string("subsampling") {
            let table: [String: JPEG.Subsampling] = ["444": .s444, "422": .s422, "420": .s420, "440": .s440, "411": .s411, "gray": .gray]
            guard let v = table[s.lowercased().filter { $0 != ":" }] else { throw .usage("--subsampling \(s): expected 420, 422, 444, 440, 411 or gray") }
            options.subsampling = v
        }
        options.orientation = try Values.orientation(a)
        let raw = try Values.raw(a)
        let chosen = options
        return try runFileCommand(a, BatchShape(defaultName: "{stem}.jpg"), verb: "encode") { (job, settings) throws(ImageError) in
            let out = job.output!
            guard try ImageFiles.outputKind(of: out, stdoutKind: .jpeg) == .jpeg else {
                throw ImageError(.invalidArgument, "\(out): encode writes .jpg or .jpeg")
            }
            var r = FileResult()
            let image = try ImageFiles.read(job.input.path, raw: raw, settings: settings, result: &r)
            let bytes = try JPEG.encode(image, options: chosen)
            try ImageFiles.writeBytes(bytes, to: out)
            r.width = image.width; r.height = image.height
            r.fields.append(("bytes", "\(bytes.count)"))
            r.text = "\(out): \(bytes.count) bytes, \(image.width)x\(image.height) from \(image.format)"
            return r
        }
    }
}
