import ImageCore

/// `imagecore scan IN OUT [--corners …] [--paper a4 --dpi 150 | --size WxH] [--mode color|gray|bw]`:
/// a JPEG, PNG or PNM photo (by content) to a `.jpg` or `.png` page (by extension).
enum ScanCommand {
    static let spec = CommandSpec.files(
        "scan", "Scan a photographed page: decode only the page at the scale it needs, rectify upright, enhance, encode.",
        discussion: "Corners: top-left, top-right, bottom-right, bottom-left as x1,y1,...,x4,y4 in the file's stored pixels; without --corners the page is detected (a JPEG on a 1/8 decode). A JPEG input decodes only the page at the scale it needs; PNG and PNM inputs are decoded whole. The output is JPEG or PNG by its extension ('-': JPEG). Prints what it did: corners, decode scale, crop, output size and peak pixel bytes.",
        positionals: [inOutPositional],
        options: [
            .value("corners", "X1,Y1,...,X4,Y4", "The page corners, clockwise from the top-left."),
            .value("paper", "PAPER", "Paper size.", default: "a4", completion: .choices(["a4", "a5", "letter", "legal"])),
            .value("dpi", "DPI", "Resolution for --paper.", default: "150"),
            .value("size", "WxH", "Output size in the page's frame (instead of --paper)."),
            .value("mode", "MODE", "Enhancement.", default: "color", completion: .choices(["color", "gray", "bw"])),
            .flag("no-enhance", "Rectify only, no enhancement."),
        ] + Detect.detectorOptions, jpeg: true, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let mode = try Values.mode(a)
        let quad = try a.string("corners").map { (s: String) throws(CLIError) in try Values.quad(s) }
        let request = try Values.paperSize(a, defaultPaper: true)!
        let enhance = !a.flag("no-enhance")
        let quality = try a.int("quality", default: 85, 1...100)
        let detector = try Detect.detector(a)
        return try runFileCommand(a, BatchShape(defaultName: "{stem}.scan.jpg"), verb: "scan") { (job, settings) throws(ImageError) in
            let out = job.output!
            let kind = try ImageFiles.outputKind(of: out, stdoutKind: .jpeg)
            guard kind == .jpeg || kind == .png else { throw ImageError(.invalidArgument, "\(out): scan writes .jpg or .png") }
            let bytes = try ImageFiles.bytes(job.input.path)
            let icc = ImageFiles.iccProfile(bytes)
            var limits = settings.decodeOptions()
            limits.cmykProfile = ImageFiles.cmykProfile(icc) // a CMYK file's inks read through its own profile
            let s: Scanner.ScanResult
            do throws(ImageError) {
                s = try Scanner.scan(bytes, options: .init(corners: quad, size: request, mode: mode, enhance: enhance, quality: quality,
                                                           limits: limits, iccProfile: icc,
                                                           fileFormat: kind == .png ? .png : .jpeg, detector: detector))
            } catch { throw ImageFiles.named(job.input.path, error) }
            try ImageFiles.writeBytes(s.encoded, to: out)
            let c = s.plan.crop
            var r = FileResult()
            r.note(s.warnings)
            r.width = s.width; r.height = s.height; r.scale = s.plan.scale
            r.fields += [("corners", JSON.array(s.corners.corners.map { "[\(fmt($0.x)), \(fmt($0.y))]" })),
                         ("detected", "\(s.detected)"), ("crop", "[\(c.x), \(c.y), \(c.width), \(c.height)]"),
                         ("peak_pixel_bytes", "\(s.peakPixelBytes)"), ("cut_edges", JSON.array(s.cutEdges.names.map(JSON.quote)))]
            let cut = s.cutEdges.isEmpty ? "" : ", cut by the frame: \(s.cutEdges.names.joined(separator: ", ")), the visible part only"
            r.text = "\(out): \(s.width)x\(s.height) \(mode.rawValue); corners \(s.corners)\(s.detected ? " (detected\(cut))" : ""); "
                + "decoded \(c.width)x\(c.height)+\(c.x)+\(c.y) at \(s.plan.scale)/8; orientation \(s.orientation); peak pixel bytes \(s.peakPixelBytes)"
            return r
        }
    }
}
