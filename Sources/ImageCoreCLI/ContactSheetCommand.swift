import ArgumentParser
import Dispatch
import CImageCore
import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `imagecore contact-sheet DIR OUT.jpg`: a grid of a folder's JPEGs, rendered through the
/// thumbnail renderer (DCT-scaled decode + Lanczos-3, EXIF orientation applied) and encoded
/// as one JPEG. Files that cannot be rendered get an empty cell and a line on stderr; the
/// exit status is then non-zero.
struct ContactSheet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact-sheet",
        abstract: "Render a grid of a folder's JPEG photos through the thumbnail renderer.")

    @Argument(help: "A folder of JPEG files (.jpg/.jpeg).")
    var directory: String

    @Argument(help: "Output JPEG.")
    var output: String

    @Option(help: "Cells per row.")
    var columns: Int = 6

    @Option(help: "Long side of each thumbnail in pixels.")
    var size: Int = 256

    @Option(help: "Renderer worker threads.")
    var workers: Int = 2

    @Option(help: "JPEG quality of the sheet.")
    var quality: Int = 90

    static let margin = 8

    func run() throws {
        guard columns >= 1, size >= 8, size <= 4096, workers >= 1 else {
            throw ImageError(.invalidArgument, "--columns ≥ 1, --size 8…4096 and --workers ≥ 1")
        }
        let files = try Self.jpegFiles(in: directory)
        guard !files.isEmpty else { throw ImageError(.invalidArgument, "\(directory): no .jpg or .jpeg files") }
        let rows = (files.count + columns - 1) / columns
        let cell = size + Self.margin
        var sheet = try PixelBuffer(width: columns * cell + Self.margin, height: rows * cell + Self.margin, format: .rgb8)
        try sheet.fill([32, 32, 32])

        ImageCoreRuntime.threads = 1 // parallelism comes from the renderer's workers
        var config = ThumbnailRenderer<String>.Configuration()
        config.largePixelSize = size
        config.smallPixelSize = min(75, size)
        config.workerCount = 0 // the workers below run the queue, then the command moves on
        let page = columns * 4
        config.cacheBudget = page * (size * ((size * 4 + 63) / 64 * 64) + 4096)
        let renderer = ThumbnailRenderer<String>(
            source: ThumbnailSource.fullSizePhotos { (path) throws(ImageError) in try FileBytes.read(path: path) },
            decoder: JPEGThumbnailDecoder(), configuration: config)
        defer { renderer.shutdown() }
        renderer.setItems(files)

        var failures = 0
        for start in stride(from: 0, to: files.count, by: page) {
            let chunk = Array(files[start..<min(files.count, start + page)])
            renderer.setVisible(chunk)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while renderer.runNextJob() {}
            }
            for (i, path) in chunk.enumerated() {
                let index = start + i
                do {
                    let thumb = try renderer.cachedImage(for: path) ?? renderer.image(for: path)
                    try thumb.withPixelBuffer { (image: borrowing PixelBuffer) throws(ImageError) in
                        try Self.place(image, into: &sheet, x: Self.margin + (index % columns) * cell + (size - image.width) / 2,
                                   y: Self.margin + (index / columns) * cell + (size - image.height) / 2)
                    }
                } catch {
                    failures += 1
                    writeStandardError("imagecore: \(path): \(error)\n")
                }
            }
            renderer.removeAllCachedImages()
        }
        try ImageFiles.write(sheet, to: output, quality: quality)
        print("\(output): \(files.count - failures) of \(files.count) photos, \(columns) × \(rows) cells of \(size) px")
        if failures > 0 { throw ExitCode(1) }
    }

    /// The folder's JPEG files, sorted by name.
    static func jpegFiles(in directory: String) throws(ImageError) -> [String] {
        guard let dir = opendir(directory) else { throw ImageError(.io, "\(directory): \(String(cString: strerror(errno)))") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let lower = name.lowercased()
            if !name.hasPrefix(".") && (lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")) { names.append(name) }
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return names.sorted().map { base + $0 }
    }

    /// Copies a GRAY8, RGB8 or RGBA8 thumbnail into the RGB sheet at (x, y): one
    /// `ic_convert_channels` call from the thumbnail into a descriptor of the sheet's cell
    /// (the sheet's own rows and stride, starting at the cell), so no intermediate image.
    static func place(_ image: borrowing PixelBuffer, into sheet: inout PixelBuffer, x: Int, y: Int) throws(ImageError) {
        guard x >= 0, y >= 0, x + image.width <= sheet.width, y + image.height <= sheet.height else {
            throw ImageError(.invalidArgument, "a \(image.width)x\(image.height) thumbnail does not fit the sheet at (\(x), \(y))")
        }
        let status: ic_status = image.withUnsafeImage { src in
            sheet.withUnsafeMutableImage { dst in
                var cell = dst.pointee
                cell.planes.0.data += y * Int(cell.planes.0.stride) + x * 3
                cell.width = Int32(image.width)
                cell.height = Int32(image.height)
                return ic_convert_channels(src, &cell)
            }
        }
        try ImageError.check(status, "contact sheet: place a \(image.format) thumbnail")
    }
}


/// Writes to standard error (file descriptor 2) without touching the C `stderr` global.
func writeStandardError(_ s: String) {
    var text = s
    text.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}
