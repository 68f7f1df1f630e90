import ImageCore

/// `imagecore detect IN... [--json]`: the page's corners.
enum Detect {
    static let spec = CommandSpec(
        name: "detect", abstract: "Find the page in a photo and print its corners.",
        discussion: "A JPEG is decoded at the smallest of 1/8, 1/4 and 1/2 whose long side is at least 1600 px, if one is (JSON \"scale\": n, in eighths). Corners are printed clockwise from the top-left as x,y pairs in the file's stored pixels (before its EXIF orientation; what rectify and scan take), or 'not found' (not a failure), then the confidence and, for a page cut by the photo's edge, the edges that are its sides ('cut by the frame: top'). With --json: {\"input\", \"found\", \"corners\", \"confidence\", \"cut_edges\", \"width\", \"height\", ...} per file.",
        positionals: [PositionalSpec(name: "files", help: "Photos: JPEG, PNG, PNM, or raw .yuv with --size and --layout.", many: true)],
        options: detectorOptions + CommonOptions.rawInput + CommonOptions.inputsOnly + CommonOptions.process, run: run)

    /// `--fast`: one working size. The CLI's commands read files, whose decode costs more than
    /// the detection, so they detect at two sizes by default (README, "Page detection", step 6;
    /// the library's ``PageDetector()`` is one run, for camera frames).
    static let fast = OptionSpec.flag(
        "fast", "Detect at one working size only: about half the detection time on photos the first run is unsure of, fewer pages found right (held-out 94.8 -> 89.8 %).")
    /// `--thorough`: the default since the two sizes became the CLI's default; kept for scripts.
    static let thorough = OptionSpec.flag(
        "thorough", "The default: when the first detection is unsure, detect again at a second working size (384) and answer from the surer run.")
    /// The detection options of detect, rectify and scan.
    static let detectorOptions = [fast, thorough]
    /// `detect` decodes a JPEG at the smallest of 1/8, 1/4 and 1/2 whose long side reaches this (README, the CLI).
    static let decodeLongSide = 1600

    /// The detector the options ask for: two sizes unless `--fast`.
    static func detector(_ a: ParsedArguments) throws(CLIError) -> PageDetector {
        if a.flag("fast") && a.flag("thorough") { throw .usage("--fast and --thorough ask for different detections: give one") }
        return a.flag("fast") ? PageDetector() : PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize)
    }

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let raw = try Values.raw(a)
        let detector = try detector(a)
        return try runFileCommand(a, BatchShape(writesFiles: false), verb: "detect") { (job, settings) throws(ImageError) in
            var r = FileResult()
            // a JPEG decoded at the smallest of 1/8, 1/4, 1/2 of at least 1600 px, the size the
            // detector's figures were measured at: the working image and the refinement's steps
            // (a quarter of a box) are about the same in stored pixels, the decode a quarter of
            // a 12 MP one
            let image = try ImageFiles.readForDocuments(job.input.path, raw: raw, settings: settings, orient: false,
                                                        minimumLongSide: Detect.decodeLongSide, result: &r)
            let stored = r.storedSize ?? (image.width, image.height)
            r.width = stored.width; r.height = stored.height
            let d = try detector.detection(in: image)
            let fx = Double(stored.width) / Double(image.width), fy = Double(stored.height) / Double(image.height)
            if let found = d.quad {
                let q = found.scaled(x: fx, y: fy)
                let cut = d.cutEdges.names
                r.fields += [("found", "true"), ("corners", JSON.array(q.corners.map { "[\(fmt($0.x)), \(fmt($0.y))]" })),
                             ("confidence", fmt(d.confidence)), ("cut_edges", JSON.array(cut.map(JSON.quote)))]
                r.text = q.corners.map { "\(fmt($0.x)),\(fmt($0.y))" }.joined(separator: " ") + "\nconfidence: \(fmt(d.confidence))"
                    + (cut.isEmpty ? "" : "\ncut by the frame: " + cut.joined(separator: ", "))
            } else {
                r.fields.append(("found", "false"))
                r.text = "not found"
            }
            return r
        }
    }
}

extension PageDetector.FrameEdges {
    /// "top", "right", "bottom", "left": the edges in the set, in that order.
    var names: [String] {
        [(Self.top, "top"), (.right, "right"), (.bottom, "bottom"), (.left, "left")].filter { contains($0.0) }.map { $0.1 }
    }
}

/// Two decimals at most, integers without a fraction.
func fmt(_ v: Double) -> String {
    let s = (v * 100).rounded() / 100
    return s == s.rounded() && abs(s) < 1e15 ? String(Int(s)) : String(s)
}

/// `imagecore rectify IN OUT --corners ... [--size WxH | --paper a4 --dpi 150 | --long-side N]`.
enum Rectify {
    static let spec = CommandSpec.files(
        "rectify", "Rectify the page given by four corners (or detected) into an upright image.",
        discussion: "Corners: top-left, top-right, bottom-right, bottom-left as x1,y1,...,x4,y4 in the file's stored pixels (as detect prints them); the photo's EXIF orientation is composed into the mapping, so the page comes out upright. Without --corners the page is detected. Size: the quad's own size unless --size, --long-side or --paper (with --dpi, default 150) is given.",
        positionals: [inOutPositional],
        options: [
            .value("corners", "X1,Y1,...,X4,Y4", "The page corners, clockwise from the top-left."),
            .value("size", "WxH", "Output size (before the orientation turn)."),
            .value("paper", "PAPER", "Paper size.", completion: .choices(["a4", "a5", "letter", "legal"])),
            .value("dpi", "DPI", "Resolution for --paper.", default: "150"),
            .value("long-side", "N", "The longer output side in pixels, keeping the page's aspect ratio."),
            .value("interpolation", "I", "Interpolation.", default: "bilinear", completion: .choices(["bilinear", "bicubic"])),
            .value("orientation", "N", "EXIF orientation 1-8 to write the page in (default: the photo's own, an upright page; 1 with --no-auto-orient)."),
            .value("input-size", "WxH", "Size of a raw .yuv input."),
            .value("layout", "LAYOUT", "Plane layout of raw .yuv files.", default: "i420", completion: .choices(["i420", "nv12"])),
        ] + Detect.detectorOptions + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let detector = try Detect.detector(a)
        let explicit = try Values.orientation(a)
        let interp = Interpolation(rawValue: try a.choice("interpolation", ["bilinear", "bicubic"], default: "bilinear"))!
        let quad = try a.string("corners").map { (s: String) throws(CLIError) in try Values.quad(s) }
        let request = try Values.paperSize(a, defaultPaper: false) ?? .natural
        let raw = try Values.raw(a, sizeOption: "input-size")
        return try runFileCommand(a, BatchShape(), verb: "rectify") { (job, settings) throws(ImageError) in
            var r = FileResult()
            // Stored pixels: the corners are in them, and the orientation turn is part of the mapping.
            let image = try ImageFiles.readForDocuments(job.input.path, raw: raw, settings: settings, orient: false, result: &r)
            let o = explicit ?? (settings.autoOrient ? image.orientation : .up)
            let q: Quad
            if let quad { q = quad } else {
                guard let found = try detector.detect(in: image).quad else {
                    throw ImageError(.invalidArgument, "\(job.input.path): no page found; give --corners")
                }
                q = found
            }
            let fill: [UInt8] = image.format.isYUV ? [255, 128, 128] : (image.format == .gray8 ? [255] : [255, 255, 255, 255])
            var out = try image.rectified(quad: q, size: request, orientation: o, interpolation: interp, fill: fill)
            if explicit == nil && !settings.autoOrient { out.orientation = image.orientation } // stored frame, tag kept
            r.width = out.width; r.height = out.height
            try ImageFiles.write(out, to: job.output!, quality: settings.quality, yuvLayout: raw?.format ?? .i420,
                                 stdoutKind: raw != nil ? .yuv : .pnm, icc: r.iccProfile, exif: r.exif)
            return r
        }
    }
}

/// `imagecore enhance IN OUT [--mode color|gray|bw]`.
enum Enhance {
    static let spec = CommandSpec.files(
        "enhance", "Flatten the lighting of a page image and stretch its contrast, in colour, gray or black and white.",
        discussion: "On raw YUV, gray and bw also set chroma to neutral so the output shows gray.",
        positionals: [inOutPositional],
        options: [.value("mode", "MODE", "Enhancement.", default: "color", completion: .choices(["color", "gray", "bw"]))]
            + CommonOptions.rawInput + CommonOptions.orienting + CommonOptions.metadata, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let mode = try Values.mode(a)
        let raw = try Values.raw(a)
        return try runFileCommand(a, BatchShape(), verb: "enhance") { (job, settings) throws(ImageError) in
            var r = FileResult()
            var image = try ImageFiles.readForDocuments(job.input.path, raw: raw, settings: settings, result: &r)
            try image.enhance(mode: mode, neutralChroma: true)
            r.width = image.width; r.height = image.height
            try ImageFiles.write(image, to: job.output!, quality: settings.quality, yuvLayout: raw?.format ?? .i420,
                                 stdoutKind: raw != nil ? .yuv : .pnm, icc: r.iccProfile, exif: r.exif)
            return r
        }
    }
}
