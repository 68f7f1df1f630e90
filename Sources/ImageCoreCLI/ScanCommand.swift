import ArgumentParser
import ImageCore

/// `imagecore scan IN.jpg OUT.jpg [--corners …] [--paper a4 --dpi 150 | --size WxH] [--mode color|gray|bw]`.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan a photographed page: decode only the page at the scale it needs, rectify upright, enhance, encode.",
        discussion: "Corners: top-left, top-right, bottom-right, bottom-left as x1,y1,...,x4,y4 in the file's stored pixels; without --corners the page is detected on a 1/8 decode. Prints what it did: corners, decode scale, crop, output size and peak pixel bytes.")

    @Argument(help: "Input JPEG.")
    var input: String

    @Argument(help: "Output JPEG.")
    var output: String

    @Option(help: "The page corners x1,y1,x2,y2,x3,y3,x4,y4 (clockwise from top-left).")
    var corners: String?

    @Option(help: "Paper size: a4, a5, letter or legal (default a4).")
    var paper: String?

    @Option(help: "Resolution for --paper (default 150).")
    var dpi: Double?

    @Option(help: "Output size WxH in the page's frame (instead of --paper).")
    var size: String?

    @Option(help: "color, gray or bw.")
    var mode: String = "color"

    @Option(help: "JPEG quality.")
    var quality: Int = 85

    @Flag(help: "Rectify only, no enhancement.")
    var noEnhance = false

    func run() throws {
        guard let m = EnhanceMode(rawValue: mode.lowercased()) else { throw ImageError(.invalidArgument, "mode '\(mode)' is not color, gray or bw") }
        var quad: Quad? = nil
        if let corners {
            let v = corners.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
            guard v.count == 8, v.allSatisfy({ $0 != nil }) else { throw ImageError(.invalidArgument, "--corners needs 8 numbers, got '\(corners)'") }
            let p = v.map { $0! }
            quad = Quad((0..<4).map { Point(x: p[2 * $0], y: p[2 * $0 + 1]) })
        }
        let request: RectifiedSize
        if let size {
            guard paper == nil, dpi == nil else { throw ImageError(.invalidArgument, "give --size or --paper/--dpi, not both") }
            let (w, h) = try ImageFiles.parseSize(size)
            request = .pixels(width: w, height: h)
        } else {
            let name = (paper ?? "a4").lowercased()
            guard let p = Paper(rawValue: name) else { throw ImageError(.invalidArgument, "paper '\(name)' is not a4, a5, letter or legal") }
            request = .paper(p, dpi: dpi ?? 150)
        }
        let bytes = try FileBytes.read(path: input)
        let r: Scanner.ScanResult
        do {
            r = try Scanner.scan(bytes, options: .init(corners: quad, size: request, mode: m, enhance: !noEnhance, quality: quality))
        } catch { throw ImageError(error.code, "\(input): \(error.detail ?? error.name)") }
        try ImageFiles.writeFile(r.jpeg, path: output)
        let c = r.plan.crop
        print("\(output): \(r.width)x\(r.height) \(m.rawValue); corners \(r.corners)\(r.detected ? " (detected)" : ""); "
              + "decoded \(c.width)x\(c.height)+\(c.x)+\(c.y) at \(r.plan.scale)/8; orientation \(r.orientation); peak pixel bytes \(r.peakPixelBytes)")
    }
}
