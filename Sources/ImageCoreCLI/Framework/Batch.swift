import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One file's work: its input and, for commands that write files, its output path.
struct Job: Sendable {
    var input: InputFile
    var output: String?
}

extension InputFile: @unchecked Sendable {}

/// What one file's work produced, for the result line (text or JSON).
struct FileResult {
    var width: Int? = nil
    var height: Int? = nil
    /// The JPEG decode scale n (n/8), when the input was a JPEG decoded scaled.
    var scale: Int? = nil
    /// The stored size of a JPEG decoded scaled (`scale`): the size its coordinates refer to.
    var storedSize: (width: Int, height: Int)? = nil
    /// Decoder warnings (one message each kind; `warningCount` counts them all).
    var warnings: [String] = []
    var warningCount = 0
    /// Further JSON fields of the command (already JSON values).
    var fields: [(String, String)] = []
    /// The plain-text result (stdout); nil prints `INPUT -> OUTPUT (WxH)` for file outputs.
    var text: String? = nil
    /// The input's ICC profile (JPEG or PNG), which `ImageFiles.write` carries to JPEG and PNG outputs.
    var iccProfile: [UInt8]? = nil
    /// The input's EXIF (TIFF bytes) with `--keep-metadata`, which `ImageFiles.write` carries
    /// to JPEG and PNG outputs with the orientation tag set to the output's.
    var exif: [UInt8]? = nil

    mutating func note(_ w: JPEG.Warnings) {
        if w.count > 0 {
            warningCount += w.count
            warnings.append(w.last ?? "corrupt data")
        }
    }

    mutating func note(_ report: JPEG.DecodeReport) {
        if report.warnings > 0 {
            warningCount += report.warnings
            let rows = report.validRows < report.height ? " (\(report.validRows) of \(report.height) rows from data)" : ""
            warnings.append((report.lastWarning ?? "corrupt data") + rows)
        }
    }
}

/// How a command turns its arguments into jobs.
struct BatchShape {
    /// The command writes one output per input.
    var writesFiles = true
    /// The output name when no `-o` is given and the arguments are inputs only (thumbnail);
    /// nil: `IN OUT` positionals, or `IN... -o TEMPLATE`.
    var defaultTemplate: String? = nil
    /// The file name inside an `-o` folder.
    var defaultName = "{stem}.{ext}"
    /// Which files in a folder are inputs.
    var accept: @Sendable (String) -> Bool = ImageFiles.isImageName
}

/// Runs a command's jobs: plans inputs and outputs (refusing collisions before any work),
/// skips existing outputs on request, runs the files on a bounded worker pool, prints one
/// result line per file (text or JSON) on stdout, warnings and errors as one line each on
/// stderr, progress only on a terminal, and returns the exit status.
enum Batch {
    static func plan(_ a: ParsedArguments, _ shape: BatchShape) throws(CLIError) -> [Job] {
        var names = a.positionals
        var template: OutputTemplate? = nil
        if let o = a.string("output") {
            guard shape.writesFiles else { throw .usage("\(a.command) writes no files; -o does not apply") }
            template = o.contains("{") || o == "-" || !isFolderName(o) ? try OutputTemplate(o)
                : try OutputTemplate.folder(o, defaultName: shape.defaultName)
        } else if shape.writesFiles {
            if let t = shape.defaultTemplate {
                template = try OutputTemplate(t)
            } else if !a.has("files-from") && names.count == 2 {
                return [Job(input: InputFile(path: names[0]), output: names[1])]
            } else {
                throw .usage("\(a.command): give IN OUT, or inputs with -o TEMPLATE|DIR; see 'imagecore \(a.command) --help'")
            }
        }
        if names.isEmpty && !a.has("files-from") { throw .usage("\(a.command): no input files") }
        let inputs = try Inputs.collect(names, filesFrom: a.strings("files-from"), recursive: a.flag("recursive"), accept: shape.accept)
        names = []
        guard let template else { return inputs.map { Job(input: $0, output: nil) } }
        var jobs = inputs.map { Job(input: $0, output: template.expand($0)) }
        // Files found in folders that are this run's outputs (or look like them) are not inputs.
        let outputs = Set(jobs.compactMap(\.output))
        let named = Set(a.positionals)
        jobs.removeAll { job in
            guard !named.contains(job.input.path) else { return false }
            let name = job.input.path.split(separator: "/").last.map(String.init) ?? ""
            return outputs.contains(job.input.path) || template.looksLikeOutput(name)
        }
        try checkCollisions(jobs)
        return jobs
    }

    /// Two inputs to one output, or an output that is an input, are refused before any work.
    static func checkCollisions(_ jobs: [Job]) throws(CLIError) {
        var seen: [String: String] = [:]
        let inputs = Set(jobs.map(\.input.path))
        for j in jobs {
            guard let o = j.output, o != "-" else { continue }
            if let other = seen[o] { throw .usage("\(other) and \(j.input.path) would both write \(o); nothing done (use {reldir} or {dir} in -o)") }
            if inputs.contains(o) { throw .usage("\(o) is an input and an output; nothing done") }
            seen[o] = j.input.path
        }
        if jobs.filter({ $0.output == "-" }).count > 1 { throw .usage("only one output can go to standard output") }
        if jobs.filter({ $0.input.path == "-" }).count > 1 { throw .usage("standard input can be read once") }
    }

    final class Counters: @unchecked Sendable {
        let lock = PosixLock()
        var done = 0, failed = 0, skipped = 0, warned = 0
    }

    static func run(_ jobs: [Job], _ settings: Settings, workers: Int, skipExisting: Bool, verb: String,
                    _ work: @escaping @Sendable (Job) throws(ImageError) -> FileResult) -> Int32 {
        let counters = Counters()
        let total = jobs.count
        let progress = Console.stderrIsTerminal && !settings.quiet && total > 1
        let toStdout = jobs.contains { $0.output == "-" }
        WorkerPool.run(count: total, workers: workers) { i in
            let job = jobs[i]
            if skipExisting, let o = job.output, o != "-", isFile(o) {
                counters.lock.locked { counters.skipped += 1 }
                report(job, nil, nil, skipped: true, ms: 0, settings, toStdout: toStdout)
            } else {
                let start = nowMilliseconds()
                var result: FileResult? = nil
                var failure: ImageError? = nil
                do throws(ImageError) { result = try work(job) } catch { failure = error }
                if let r = result, r.warningCount > 0, settings.strict, failure == nil {
                    failure = ImageError(.corruptData, r.warnings.joined(separator: "; "))
                }
                counters.lock.locked {
                    if failure != nil { counters.failed += 1 }
                    if (result?.warningCount ?? 0) > 0 { counters.warned += 1 }
                }
                report(job, result, failure, skipped: false, ms: nowMilliseconds() - start, settings, toStdout: toStdout)
            }
            if progress {
                let done = counters.lock.locked { () -> Int in counters.done += 1; return counters.done }
                let width = 30, filled = done * width / total
                Console.errRaw("\r\u{1B}[K[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                               + "] \(done)/\(total)" + (done == total ? "\n" : ""))
            }
        }
        if total > 1 && !settings.quiet {
            var s = "imagecore \(verb): \(total - counters.failed - counters.skipped) done"
            if counters.failed > 0 { s += ", \(counters.failed) failed" }
            if counters.skipped > 0 { s += ", \(counters.skipped) skipped (output exists)" }
            if counters.warned > 0 { s += ", \(counters.warned) with decoder warnings" }
            Console.err(s)
        }
        return counters.failed > 0 ? ExitStatus.failures : ExitStatus.ok
    }

    /// The result line (stdout; stderr when an output goes to stdout) and the one-line
    /// warning or error (stderr).
    static func report(_ job: Job, _ r: FileResult?, _ error: ImageError?, skipped: Bool, ms: Double,
                       _ settings: Settings, toStdout: Bool) {
        let input = job.input.path
        if let r, r.warningCount > 0, error == nil {
            Console.err("imagecore: warning: \(input): \(r.warnings.joined(separator: "; "))"
                        + (r.warningCount > 1 ? " (\(r.warningCount) decoder warnings)" : ""))
        }
        if let error { Console.err("imagecore: " + describe(error, input)) }
        let line: String?
        if settings.json {
            var o = JSONObject()
            o.add("input", input)
            if let out = job.output { o.add("output", error == nil ? out : nil) }
            if let w = r?.width { o.add("width", w) }
            if let h = r?.height { o.add("height", h) }
            if let s = r?.scale { o.add("scale", s) }
            for (k, v) in r?.fields ?? [] { o.addRaw(k, v) }
            o.addRaw("warnings", JSON.array((r?.warnings ?? []).map(JSON.quote)))
            if skipped { o.add("skipped", true) }
            o.add("ms", Double(Int(ms * 1000)) / 1000)
            o.add("error", error.map { describe($0, input) })
            line = o.text
        } else if error != nil || skipped || settings.quiet {
            line = nil
        } else if let t = r?.text {
            line = t
        } else if let out = job.output {
            line = "\(input) -> \(out)" + (r?.width.map { w in " (\(w)x\(r?.height ?? 0))" } ?? "")
        } else {
            line = nil
        }
        if let line { if toStdout { Console.err(line) } else { Console.out(line) } }
    }

    /// `-o X` without braces names a folder if X is one, ends in `/`, or does not exist and
    /// has no image extension; otherwise X is the one output file.
    static func isFolderName(_ path: String) -> Bool {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR }
        return path.hasSuffix("/") || ImageFiles.ext(path).map { !ImageFiles.outputExtensions.contains($0) } ?? true
    }

    /// "FILE: kind: reason", naming the file once.
    static func describe(_ e: ImageError, _ input: String) -> String {
        let shown = input == "-" ? "<stdin>" : input
        guard var d = e.detail else { return "\(shown): \(e.name)" }
        for prefix in [shown + ": ", input + ": "] where d.hasPrefix(prefix) { d.removeFirst(prefix.count) }
        return "\(shown): \(e.name): \(d)"
    }

    static func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }
}
