import ImageCore

/// Value parsers shared by the commands: each validates once and fails with a usage error
/// (exit 2) naming the option.
enum Values {
    /// "WxH" → (W, H), each 1…65535 (or 0 when `allowZero`, not both).
    static func size(_ text: String, option: String, allowZero: Bool = false) throws(CLIError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let low = allowZero ? 0 : 1
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= low, h >= low,
              w <= ImageCoreRuntime.maxDimension, h <= ImageCoreRuntime.maxDimension, w + h > 0 else {
            throw .usage("--\(option) \(text): expected WxH with sides 1...ImageCoreRuntime.maxDimension, e.g. 4032x3024")
        }
        return (w, h)
    }

    /// "N" (N×N) or "WxH".
    static func box(_ text: String, option: String) throws(CLIError) -> (Int, Int) {
        if let n = Int(text) {
            guard (1...ImageCoreRuntime.maxDimension).contains(n) else { throw .usage("--\(option) \(text): expected 1...ImageCoreRuntime.maxDimension or WxH") }
            return (n, n)
        }
        return try size(text, option: option)
    }

    static func numbers(_ text: String, count: Int, option: String, what: String) throws(CLIError) -> [Double] {
        let v = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard v.count == count, v.allSatisfy({ $0 != nil && $0!.isFinite }) else {
            throw .usage("--\(option) \(text): expected \(what)")
        }
        return v.map { $0! }
    }

    static func quad(_ text: String) throws(CLIError) -> Quad {
        let p = try numbers(text, count: 8, option: "corners", what: "8 numbers x1,y1,...,x4,y4")
        return Quad((0..<4).map { Point(x: p[2 * $0], y: p[2 * $0 + 1]) })
    }

    static func pixelFormat(_ text: String?, option: String = "format") throws(CLIError) -> PixelFormat? {
        guard let text else { return nil }
        switch text.lowercased() {
        case "rgba": return .rgba8
        case "rgb": return .rgb8
        case "gray", "grey": return .gray8
        case "i420": return .i420
        case "nv12": return .nv12
        default: throw .usage("--\(option) \(text): expected rgba, rgb, gray, i420 or nv12")
        }
    }

    static func layout(_ text: String?, option: String = "layout") throws(CLIError) -> PixelFormat {
        switch text?.lowercased() {
        case nil, "i420": return .i420
        case "nv12": return .nv12
        default: throw .usage("--\(option) \(text!): expected i420 or nv12")
        }
    }

    /// The raw-YUV description from `--size`/`--layout` (or the names given), nil without a size.
    static func raw(_ a: ParsedArguments, sizeOption: String = "size") throws(CLIError) -> ImageFiles.Raw? {
        guard let s = a.string(sizeOption) else { return nil }
        let (w, h) = try size(s, option: sizeOption)
        return ImageFiles.Raw(width: w, height: h, format: try layout(a.string("layout")))
    }

    static func orientation(_ a: ParsedArguments, _ name: String = "orientation", default d: Int? = nil) throws(CLIError) -> Orientation? {
        guard let v = try a.int(name, 1...8) ?? d else { return nil }
        return Orientation(exifValue: v)!
    }

    static func mode(_ a: ParsedArguments) throws(CLIError) -> EnhanceMode {
        EnhanceMode(rawValue: try a.choice("mode", ["color", "gray", "bw"], default: "color"))!
    }

    static func paperSize(_ a: ParsedArguments, defaultPaper: Bool) throws(CLIError) -> RectifiedSize? {
        let sizeGiven = a.string("size")
        let paper = a.string("paper"), dpi = try a.double("dpi", 1...10_000)
        let longSide = try a.int("long-side", 1...ImageCoreRuntime.maxDimension)
        guard [sizeGiven != nil, paper != nil || (dpi != nil && !defaultPaper), longSide != nil].filter({ $0 }).count <= 1 else {
            throw .usage("give one of --size, --paper/--dpi or --long-side")
        }
        if let s = sizeGiven { let (w, h) = try size(s, option: "size"); return .pixels(width: w, height: h) }
        if let longSide { return .longSide(longSide) }
        if paper != nil || dpi != nil || defaultPaper {
            guard let p = Paper(rawValue: (paper ?? "a4").lowercased()) else { throw .usage("--paper \(paper!): expected a4, a5, letter or legal") }
            return .paper(p, dpi: dpi ?? 150)
        }
        return nil
    }
}

extension CommandSpec {
    /// A file command: its own options plus the common groups.
    static func files(_ name: String, _ abstract: String, discussion: String = "", positionals: [PositionalSpec],
                      options: [OptionSpec], batch: Bool = true, jpeg: Bool = false,
                      run: @escaping @Sendable (ParsedArguments) throws(CLIError) -> Int32) -> CommandSpec {
        var all = options
        if jpeg { all += CommonOptions.jpegOutput }
        if batch { all += CommonOptions.batch }
        all += CommonOptions.process
        let extra = batch ? (discussion.isEmpty ? "" : " ") + CommonOptions.outputNamesHelp : ""
        return CommandSpec(name: name, abstract: abstract, discussion: discussion + extra, positionals: positionals, options: all, run: run)
    }
}

/// The standard positional of a file command: `IN OUT`, or inputs with `-o`.
let inOutPositional = PositionalSpec(name: "files", help: "IN OUT (one file; '-' for standard input/output), or inputs (files, folders) with -o TEMPLATE|DIR.", many: true)

/// Settings, validated and applied, then the jobs planned and run.
func runFileCommand(_ a: ParsedArguments, _ shape: BatchShape, verb: String,
                    _ work: @escaping @Sendable (Job, Settings) throws(ImageError) -> FileResult) throws(CLIError) -> Int32 {
    let settings = try Settings(a)
    let workers = try a.int("workers", default: 0, 0...1024)
    let jobs = try Batch.plan(a, shape)
    settings.apply()
    return Batch.run(jobs, settings, workers: workers, skipExisting: a.flag("skip-existing"), verb: verb) { (job) throws(ImageError) in
        try work(job, settings)
    }
}
