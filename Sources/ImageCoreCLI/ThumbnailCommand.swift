import ArgumentParser
import ImageCore

/// `imagecore thumbnail IN… --size 256 [-o DIR]`: streamed JPEG thumbnails, in parallel.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make upright JPEG thumbnails of JPEG files (streamed decode at the DCT scale the size allows).",
        discussion: "Inputs are files or directories (their .jpg/.jpeg files). Each thumbnail fits in SIZE x SIZE (or WxH), EXIF orientation applied, and is written as NAME.thumb.jpg beside the input or in -o DIR. A file that fails is reported on one line and the rest go on; the exit status is 1 if any failed.")

    @Argument(help: "JPEG files or directories.")
    var inputs: [String]

    @Option(help: "The box to fit: N (N x N) or WxH.")
    var size: String = "256"

    @Option(name: .shortAndLong, help: "Output directory (default: beside each input).")
    var output: String?

    @Option(help: "JPEG quality of the thumbnails.")
    var quality: Int = 85

    @Option(help: "Worker threads (0: one per core).")
    var workers: Int = 0

    func run() throws {
        let box: (Int, Int)
        if let n = Int(size) { box = (n, n) } else { box = try ImageFiles.parseSize(size) }
        let files = Batch.expand(inputs)
        let progress = Batch.Progress(total: files.count, verb: "thumbnail")
        let out = output, q = quality
        WorkerPool.run(count: files.count, workers: workers) { i in
            let path = files[i]
            do throws(ImageError) {
                let bytes = try Batch.read(path)
                let t = try Thumbnailer.thumbnail(bytes, maxWidth: box.0, maxHeight: box.1)
                let name = Self.outputName(for: path, directory: out)
                try ImageFiles.writeFile(try JPEG.encode(t.image, options: .init(quality: q)), path: name)
                progress.finish(path, error: nil, note: " -> \(name) (\(t.image.width)x\(t.image.height), decoded at \(t.scale)/8)")
            } catch {
                progress.finish(path, error: error)
            }
        }
        if progress.failed > 0 { throw ExitCode(1) }
    }

    static func outputName(for path: String, directory: String?) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
        let file = stem + ".thumb.jpg"
        if let directory { return directory.hasSuffix("/") ? directory + file : directory + "/" + file }
        let dir = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) + "/" : ""
        return dir + file
    }
}
