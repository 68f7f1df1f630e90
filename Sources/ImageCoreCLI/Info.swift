import ImageCore

/// `imagecore info FILE...`: what a JPEG's or PNM's header says, without decoding pixels.
enum Info {
    static let spec = CommandSpec(
        name: "info", abstract: "Print what a JPEG's, PNG's or PNM's header says, without decoding pixels.",
        discussion: "One 'key: value' block per file (blank line between files), or one JSON object per file with --json.",
        positionals: [PositionalSpec(name: "files", help: "JPEG, PNG or PNM files, or folders ('-': standard input).", many: true)],
        options: CommonOptions.inputsOnly + CommonOptions.process, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        try runFileCommand(a, BatchShape(writesFiles: false), verb: "info") { (job, settings) throws(ImageError) in
            let path = job.input.path
            var lines: [(String, String)] = []
            if ImageFiles.isRegular(path), ImageFiles.sniff(try FileBytes.read(path: path, limit: 8)[...]) == .pnm {
                let h: PNM.Header
                do throws(ImageError) { h = try PNM.readHeader(path: path) } catch { throw ImageFiles.named(path, error) }
                lines = [("format", "pnm \(h.magic)"), ("width", "\(h.width)"), ("height", "\(h.height)"),
                         ("channels", "\(h.channels)"), ("maxval", "\(h.maxValue)"), ("pixel format", "\(h.format)")]
            } else {
                let bytes = try ImageFiles.bytes(path)
                switch ImageFiles.sniff(bytes.prefix(8)) {
                case .jpeg:
                    let i: JPEG.Info
                    do throws(ImageError) { i = try JPEG.info(bytes) } catch { throw ImageFiles.named(path, error) }
                    lines = [("format", "jpeg"), ("width", "\(i.width)"), ("height", "\(i.height)"),
                             ("components", "\(i.components)"), ("colorspace", "\(i.colorSpace)"),
                             ("subsampling", i.subsampling.rawValue), ("progressive", "\(i.isProgressive)"),
                             ("arithmetic", "\(i.isArithmeticCoded)"), ("restart interval", "\(i.restartInterval)"),
                             ("orientation", "\(i.orientation.exifValue)"), ("exif", "\(i.hasEXIF)"),
                             ("icc profile", i.hasICCProfile ? "\(i.iccProfileSize) bytes" : "none"),
                             ("adobe marker", "\(i.hasAdobeMarker)")]
                case .png:
                    let i: PNG.Info
                    do throws(ImageError) { i = try PNG.info(bytes) } catch { throw ImageFiles.named(path, error) }
                    lines = [("format", "png"), ("width", "\(i.width)"), ("height", "\(i.height)"),
                             ("bit depth", "\(i.bitDepth)"), ("color type", "\(i.colorType)"), ("interlaced", "\(i.isInterlaced)"),
                             ("alpha", "\(i.hasAlpha)"), ("orientation", "\(i.orientation.exifValue)"), ("exif", "\(i.hasEXIF)"),
                             ("icc profile", i.hasICCProfile ? "\(i.iccProfileSize) bytes" : "none"),
                             ("srgb", i.sRGBIntent.map { "intent \($0)" } ?? "none"),
                             ("gamma", i.gamma.map { String($0) } ?? "none")]
                case .pnm:
                    let image: PixelBuffer
                    do throws(ImageError) { image = try PNM.decode(bytes) } catch { throw ImageFiles.named(path, error) }
                    lines = [("format", "pnm"), ("width", "\(image.width)"), ("height", "\(image.height)"), ("pixel format", "\(image.format)")]
                default:
                    throw ImageError(.unsupported, "\(path): neither JPEG, PNG nor PNM")
                }
            }
            var r = FileResult()
            r.width = Int(lines.first { $0.0 == "width" }!.1)
            r.height = Int(lines.first { $0.0 == "height" }!.1)
            for (k, v) in lines where k != "width" && k != "height" {
                let key = String(k.map { $0 == " " ? "_" : $0 })
                r.fields.append((key, Int(v).map(String.init) ?? (v == "true" || v == "false" ? v : JSON.quote(v))))
            }
            r.text = (["file: \(path)"] + lines.map { "\($0.0): \($0.1)" }).joined(separator: "\n") + (a.positionals.count > 1 ? "\n" : "")
            return r
        }
    }
}
