import ArgumentParser
import Foundation
import ImageCore

/// `imagecore sharpest FILES… [--json] [--laplacian-dir DIR]`: burst sharpness ranking.
struct SharpestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sharpest",
        abstract: "Rank JPEGs by sharpness (Laplacian standard deviation of the luma at about 1280 px).",
        discussion: "Prints the files sharpest first, one 'SCORE PATH' line each (or JSON with --json). Inputs are files or directories. With --laplacian-dir, writes each image's Laplacian view (clipped, gamma 1/2.2, upright) as NAME.laplacian.jpg. A file that fails is reported on one line; the exit status is 1 if any failed.")

    @Argument(help: "JPEG files or directories.")
    var inputs: [String]

    @Flag(help: "Print JSON: {\"ranking\": [{\"path\", \"score\", \"scale\", \"width\", \"height\"}], \"failed\": [{\"path\", \"error\"}]}.")
    var json = false

    @Option(help: "Directory for the Laplacian views.")
    var laplacianDir: String?

    @Option(help: "Long side the decode scale aims at.")
    var longSide: Int = 1280

    @Option(help: "Worker threads (0: one per core).")
    var workers: Int = 0

    func run() throws {
        let files = Batch.expand(inputs)
        let progress = Batch.Progress(total: files.count, verb: "scored")
        let dir = laplacianDir
        var display: (@Sendable (Int, borrowing PixelBuffer) throws(ImageError) -> Void)? = nil
        if let d = dir {
            display = { (i: Int, view: borrowing PixelBuffer) throws(ImageError) -> Void in
                try Self.writeView(view, for: files[i], directory: d)
            }
        }
        let ranking = BurstRanking.rank(count: files.count, options: .init(targetLongSide: longSide, workers: workers),
                                        load: { (i: Int) throws(ImageError) -> [UInt8] in try Batch.read(files[i]) },
                                        display: display,
                                        finished: { e in
                                            switch e.result {
                                            case .success(let s): progress.finish(files[e.index], error: nil, note: String(format: ": %.4f", s.standardDeviation))
                                            case .failure(let err): progress.finish(files[e.index], error: err)
                                            }
                                        })
        if json {
            var rows: [String] = []
            for i in ranking.order {
                let e = ranking.entries[i]
                guard case .success(let s) = e.result else { continue }
                rows.append("{\"path\": \(Self.quote(files[i])), \"score\": \(s.standardDeviation), \"scale\": \(e.scale), \"width\": \(e.width), \"height\": \(e.height)}")
            }
            var failed: [String] = []
            for e in ranking.entries { if case .failure(let err) = e.result { failed.append("{\"path\": \(Self.quote(files[e.index])), \"error\": \(Self.quote("\(err)"))}") } }
            print("{\"ranking\": [\(rows.joined(separator: ", "))], \"failed\": [\(failed.joined(separator: ", "))]}")
        } else {
            for i in ranking.order {
                if case .success(let s) = ranking.entries[i].result { print(String(format: "%.4f ", s.standardDeviation) + files[i]) }
            }
        }
        if ranking.order.count < files.count { throw ExitCode(1) }
    }

    static func writeView(_ view: borrowing PixelBuffer, for path: String, directory: String) throws(ImageError) {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
        let name = (directory.hasSuffix("/") ? directory : directory + "/") + stem + ".laplacian.jpg"
        try ImageFiles.writeFile(try JPEG.encode(view, options: .init(quality: 90)), path: name)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: if c.value < 0x20 { out += String(format: "\\u%04x", c.value) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
