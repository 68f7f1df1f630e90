import ImageCore

/// `imagecore sharpest FILES… [--json] [--laplacian-dir DIR]`: burst sharpness ranking of
/// JPEG, PNG and PNM photos (``BurstRanking``).
enum SharpestCommand {
    static let spec = CommandSpec(
        name: "sharpest", abstract: "Rank photos (JPEG, PNG or PNM, by content) by sharpness (Laplacian standard deviation of the luma at about 1280 px).",
        discussion: "Prints the files sharpest first, one 'SCORE PATH' line each, or with --json one object per file in rank order: {\"input\", \"rank\", \"score\", \"scale\", \"width\", \"height\", \"ms\", \"error\"} (failed files last, rank null). With --laplacian-dir, writes each image's Laplacian view (clipped, gamma 1/2.2, upright) as NAME.laplacian.jpg.",
        positionals: [PositionalSpec(name: "inputs", help: "JPEG, PNG or PNM files, or folders (their .jpg/.jpeg/.png files).", many: true, optional: true)],
        options: [
            .value("laplacian-dir", "DIR", "Folder for the Laplacian views (created if missing).", completion: .directory),
            .value("long-side", "N", "Long side the decode scale aims at.", default: "1280"),
        ] + CommonOptions.inputsOnly + CommonOptions.jpegOutput + CommonOptions.process, run: run)

    static func run(_ a: ParsedArguments) throws(CLIError) -> Int32 {
        let settings = try Settings(a)
        let longSide = try a.int("long-side", default: 1280, 1...ImageCoreRuntime.maxDimension)
        let workers = try a.int("workers", default: 0, 0...1024)
        let files = try Batch.plan(a, BatchShape(writesFiles: false, accept: ImageFiles.isPhotoName)).map(\.input.path)
        let dir = a.string("laplacian-dir")
        settings.apply()
        var display: (@Sendable (Int, borrowing PixelBuffer) throws(ImageError) -> Void)? = nil
        if let dir {
            let q = settings.quality
            display = { (i: Int, view: borrowing PixelBuffer) throws(ImageError) -> Void in
                let base = files[i].split(separator: "/").last.map(String.init) ?? files[i]
                let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
                try ImageFiles.writeBytes(try JPEG.encode(view, options: .init(quality: q)), to: Folders.join(dir, stem + ".laplacian.jpg"))
            }
        }
        let start = nowMilliseconds()
        let ranking = BurstRanking.rank(count: files.count, options: .init(targetLongSide: longSide, workers: workers, limits: settings.decodeOptions()),
                                        load: { (i: Int) throws(ImageError) -> [UInt8] in try ImageFiles.bytes(files[i]) },
                                        display: display, finished: { _ in })
        let ms = nowMilliseconds() - start
        var failed = 0, warned = 0
        for e in ranking.entries where e.warnings.count > 0 {
            warned += 1
            Console.err("imagecore: warning: \(files[e.index]): \(e.warnings.last ?? "corrupt data")")
        }
        for (rank, i) in ranking.order.enumerated() {
            let e = ranking.entries[i]
            guard case .success(let s) = e.result else { continue }
            if settings.json {
                var o = JSONObject()
                o.add("input", files[i]); o.add("rank", rank + 1); o.add("score", s.standardDeviation)
                o.add("scale", e.scale); o.add("width", e.width); o.add("height", e.height)
                o.addRaw("warnings", JSON.array(e.warnings.last.map { [JSON.quote($0)] } ?? []))
                o.add("ms", Double(Int(ms)) / Double(max(1, files.count)))
                o.add("error", nil as String?)
                Console.out(o.text)
            } else {
                Console.out(fixed(s.standardDeviation, 4) + " " + files[i])
            }
        }
        for e in ranking.entries {
            guard case .failure(let err) = e.result else { continue }
            failed += 1
            let error = ImageFiles.named(files[e.index], err)
            Console.err("imagecore: \(error)")
            if settings.json {
                var o = JSONObject()
                o.add("input", files[e.index]); o.add("rank", nil as String?)
                o.addRaw("warnings", "[]"); o.add("error", "\(error)")
                Console.out(o.text)
            }
        }
        if files.count > 1 && !settings.quiet {
            Console.err("imagecore sharpest: \(files.count - failed) ranked" + (failed > 0 ? ", \(failed) failed" : "")
                        + (warned > 0 ? ", \(warned) with decoder warnings" : ""))
        }
        return failed > 0 ? ExitStatus.failures : ExitStatus.ok
    }
}
