import CImageCore
import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `imagecore contact-sheet DIR OUT.jpg`: a grid of a folder's JPEGs and PNGs, rendered through the
/// thumbnail renderer (DCT-scaled decode + Lanczos-3, EXIF orientation applied) and encoded
/// as one JPEG. Files that cannot be rendered get an empty cell and a line on stderr; the
/// exit status is then non-zero. Damaged files that still render (decoder warnings) get a
/// warning line each and count in the summary; with `--strict` they fail like the others.
enum ContactSheet {
    static let spec = CommandSpec(
        name: "contact-sheet", abstract: "Render a grid of a folder's JPEG and PNG photos through the thumbnail renderer.",
        discussion: "Files that cannot be rendered get an empty cell and one line on standard error; the exit status is then 1. Damaged files that still render (decoder warnings, e.g. truncated) get one warning line each; with --strict they fail.",
        positionals: [PositionalSpec(name: "folder", help: "A folder of JPEG and PNG files (.jpg/.jpeg/.png).", completion: .directory),
                      PositionalSpec(name: "output", help: "Output JPEG ('-': standard output).")],
        options: [
            .value("columns", "N", "Cells per row.", default: "6"),
            .value("size", "N", "Long side of each thumbnail in pixels (8...4096).", default: "256"),
            .value("workers", "N", "Renderer worker threads.", default: "2"),
            .value("quality", "Q", "JPEG quality of the sheet.", default: "90"),
        ] + CommonOptions.process, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let settings = try Settings(a)
        let columns = try a.int("columns", default: 6, 1...1000)
        let size = try a.int("size", default: 256, 8...4096)
        let workers = try a.int("workers", default: 2, 1...256)
        let quality = try a.int("quality", default: 90, 1...100)
        let output = a.positionals[1]
        do throws(ImageError) {
            _ = try ImageFiles.outputKind(of: output, stdoutKind: .jpeg)
        } catch { throw .usage(error.detail ?? error.name) }
        settings.apply()
        do throws(ImageError) {
            let failures = try render(directory: a.positionals[0], output: output, columns: columns, size: size,
                                      workers: workers, quality: quality, settings: settings)
            return failures > 0 ? ExitStatus.failures : ExitStatus.ok
        } catch { throw .failed("\(error)") }
    }

    static let margin = 8

    static func render(directory: String, output: String, columns: Int, size: Int, workers: Int, quality: Int,
                       settings: Settings) throws(ImageError) -> Int {
        let files = try Self.jpegFiles(in: directory)
        guard !files.isEmpty else { throw ImageError(.invalidArgument, "\(directory): no .jpg, .jpeg or .png files") }
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
        var decoder = JPEGThumbnailDecoder()
        decoder.limits = settings.decodeOptions() // --strict: a warning fails the cell
        let renderer = ThumbnailRenderer<String>(
            source: ThumbnailSource.fullSizePhotos { (path) throws(ImageError) in try FileBytes.read(path: path) },
            decoder: PhotoThumbnailDecoder(jpeg: decoder), configuration: config)
        defer { renderer.shutdown() }
        renderer.setItems(files)

        var failures = 0, warned = 0
        for start in stride(from: 0, to: files.count, by: page) {
            let chunk = Array(files[start..<min(files.count, start + page)])
            renderer.setVisible(chunk)
            WorkerPool.run(count: workers, workers: workers) { _ in
                while renderer.runNextJob() {}
            }
            for (i, path) in chunk.enumerated() {
                let index = start + i
                do {
                    let thumb = try renderer.cachedImage(for: path) ?? renderer.image(for: path)
                    if thumb.warnings.count > 0 { // one line per damaged file, as every command
                        warned += 1
                        Console.err("imagecore: warning: \(path): \(thumb.warnings.last ?? "corrupt data")"
                                    + (thumb.warnings.count > 1 ? " (\(thumb.warnings.count) decoder warnings)" : ""))
                    }
                    try thumb.withPixelBuffer { (image: borrowing PixelBuffer) throws(ImageError) in
                        try Self.place(image, into: &sheet, x: Self.margin + (index % columns) * cell + (size - image.width) / 2,
                                   y: Self.margin + (index / columns) * cell + (size - image.height) / 2)
                    }
                } catch {
                    failures += 1
                    Console.err("imagecore: \(path): \(error)")
                }
            }
            renderer.removeAllCachedImages()
        }
        try ImageFiles.write(sheet, to: output, quality: quality, stdoutKind: .jpeg)
        let summary = "\(output): \(files.count - failures) of \(files.count) photos, \(columns) × \(rows) cells of \(size) px"
            + (warned > 0 ? ", \(warned) with decoder warnings" : "")
        if output == "-" { Console.err(summary) } else if !settings.quiet { Console.out(summary) }
        return failures
    }

    /// The folder's JPEG and PNG files, sorted by name.
    static func jpegFiles(in directory: String) throws(ImageError) -> [String] {
        guard let dir = opendir(directory) else { throw ImageError(.io, "\(directory): \(String(cString: strerror(errno)))") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let lower = name.lowercased()
            if !name.hasPrefix(".") && (lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") || lower.hasSuffix(".png")) { names.append(name) }
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return names.sorted().map { base + $0 }
    }

    /// Copies a GRAY8, RGB8 or RGBA8 thumbnail into the RGB sheet at (x, y): one channel
    /// conversion from the thumbnail into the sheet's cell, in place, so no intermediate image.
    static func place(_ image: borrowing PixelBuffer, into sheet: inout PixelBuffer, x: Int, y: Int) throws(ImageError) {
        try sheet.convert(from: image, region: PixelRect(x: x, y: y, width: image.width, height: image.height))
    }
}

