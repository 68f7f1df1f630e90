// `swift run -c release bench [WORKLOAD…] [--image FILE] [--threads N[,N…]] [--repeat N] [--json FILE]`
//
// Times each workload (warm-up, then N repetitions: median and min), and measures in the
// same run the limits it is judged against: a plain memcpy of the same bytes and
// ImageCore's parallel plane copy of them. Reports megapixels per second, peak RSS (the
// kernel's high-water mark, reset before each workload) and the peak pixel heap the
// workload itself allocated (ImageCore's counting allocator).
import ArgumentParser
import Foundation
import ImageCore

struct Row: Codable {
    var workload: String
    var threads: Int
    var medianMs: Double
    var minMs: Double
    var megapixels: Double
    var megapixelsPerSecond: Double
    var limitBytes: Int
    var memcpyMs: Double
    var ratioToMemcpy: Double
    var planeCopyMs: Double
    var ratioToPlaneCopy: Double
    var peakRSSBytes: Int
    var rssAboveBaselineBytes: Int
    var peakPixelBytes: Int
    var note: String
}

struct Report: Codable {
    var version: String
    var date: String
    var input: String
    var inputWidth: Int
    var inputHeight: Int
    var repetitions: Int
    var cpuFeatures: String
    var parallelBackend: String
    var processPeakRSSBytes: Int
    var rows: [Row]
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "ImageCore throughput and memory benchmarks.",
        discussion: "Workloads: " + Workloads.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; "))

    @Argument(help: "Workloads to run (default: all). Use --list to see them.")
    var workloads: [String] = []

    @Option(help: "Input image (JPEG or PNM) instead of the built-in 4032x3024 synthetic photo.")
    var image: String?

    @Option(help: "Thread counts to run each workload with, comma-separated (default: 1 and all cores).")
    var threads: String?

    @Option(name: .customLong("repeat"), help: "Timed repetitions per measurement.")
    var repetitions: Int = 15

    @Option(help: "Untimed warm-up runs before the timed ones.")
    var warmup: Int = 2

    @Option(help: "Also write the results as JSON to this file.")
    var json: String?

    @Flag(help: "List the workloads and exit.")
    var list = false

    @Option(parsing: .upToNextOption, help: "JPEG files for the burst workloads, read from disk in every repetition (default: the input re-encoded at 8 qualities, in memory).")
    var frames: [String] = []

    @Option(help: "Write the input image as a binary PPM (RGB) to this file and exit (for comparisons with other libraries).")
    var writeInput: String?

    func run() throws {
        if list {
            for w in Workloads.all { print("\(w.name)\t\(w.summary)") }
            return
        }
        let selected = try workloads.isEmpty ? Workloads.all : workloads.map { name in
            guard let w = Workloads.all.first(where: { $0.name == name }) else {
                throw ValidationError("unknown workload '\(name)'; known: \(Workloads.all.map(\.name).joined(separator: ", "))")
            }
            return w
        }
        let threadCounts = try parseThreads()
        guard repetitions >= 1, warmup >= 0 else { throw ValidationError("--repeat must be ≥ 1 and --warmup ≥ 0") }

        PipelineWorkloads.framePaths = frames
        let input = try BenchInput.load(path: image)
        let inputName = BenchInput.describe(path: image)
        if let writeInput {
            try PNM.write(input.converted(to: .rgb8), path: writeInput)
            print("wrote \(inputName) to \(writeInput)")
            return
        }
        let width = input.width, height = input.height
        let context = BenchContext(image: input, repetitions: repetitions, warmup: warmup)
        let limits = Limits(repetitions: repetitions)

        print("ImageCore \(ImageCoreRuntime.version) bench — input: \(inputName) (\(width)x\(height)), "
              + "\(repetitions) repetitions, cpu: \(ImageCoreRuntime.cpuFeatures), threads backend: \(ImageCoreRuntime.parallelBackend)")
        var rows: [Row] = []
        for w in selected {
            for t in threadCounts {
                ImageCoreRuntime.threads = t
                let baseline = RSS.current
                RSS.resetHighWaterMark()
                let run: WorkloadRun, usage: PixelMemoryUsage
                do {
                    (run, usage) = try PixelAllocator.measure { try w.run(context) }
                } catch let e as WorkloadUnavailable where workloads.isEmpty {
                    print("\(w.name): skipped — \(e)")  // running everything: skip what this build lacks
                    break
                }
                let peakRSS = RSS.highWaterMark
                let memcpyT = limits.memcpyTime(bytes: run.limitBytes)
                let copyT = limits.planeCopyTime(bytes: run.limitBytes, threads: t)
                let mp = Double(run.pixels) / 1e6
                let row = Row(
                    workload: w.name, threads: t,
                    medianMs: run.timing.median * 1e3, minMs: run.timing.min * 1e3,
                    megapixels: mp, megapixelsPerSecond: mp / run.timing.median,
                    limitBytes: run.limitBytes,
                    memcpyMs: memcpyT * 1e3, ratioToMemcpy: run.timing.median / memcpyT,
                    planeCopyMs: copyT * 1e3, ratioToPlaneCopy: run.timing.median / copyT,
                    peakRSSBytes: peakRSS, rssAboveBaselineBytes: max(0, peakRSS - baseline),
                    peakPixelBytes: usage.peakBytes, note: run.note)
                rows.append(row)
                print(Self.format(row), terminator: "")
            }
        }
        ImageCoreRuntime.threads = 0
        printTable(rows)
        let report = Report(
            version: ImageCoreRuntime.version, date: ISO8601DateFormatter().string(from: Date()),
            input: inputName, inputWidth: width, inputHeight: height, repetitions: repetitions,
            cpuFeatures: ImageCoreRuntime.cpuFeatures.description, parallelBackend: ImageCoreRuntime.parallelBackend,
            processPeakRSSBytes: RSS.processPeak, rows: rows)
        print(String(format: "process peak RSS (getrusage): %.1f MiB", Double(report.processPeakRSSBytes) / 1048576))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
            print("wrote \(json)")
        }
    }

    func parseThreads() throws -> [Int] {
        guard let threads else {
            let cores = ImageCoreRuntime.threads
            return cores > 1 ? [1, cores] : [1]
        }
        let values = threads.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw ValidationError("--threads takes positive integers, e.g. 1,2")
        }
        return values.map { $0! }
    }

    static func format(_ r: Row) -> String { "" } // progress is silent; the table follows

    func printTable(_ rows: [Row]) {
        let header = ["workload", "thr", "median ms", "min ms", "MP/s", "memcpy ms", "x memcpy", "ic_copy ms", "x ic_copy", "peak RSS MiB", "pixel heap MiB"]
        let body = rows.map { r in
            [r.workload, "\(r.threads)", f(r.medianMs), f(r.minMs), f(r.megapixelsPerSecond, 1),
             f(r.memcpyMs), f(r.ratioToMemcpy, 2), f(r.planeCopyMs), f(r.ratioToPlaneCopy, 2),
             f(Double(r.peakRSSBytes) / 1048576, 1), f(Double(r.peakPixelBytes) / 1048576, 1)]
        }
        let widths = header.indices.map { i in ([header[i]] + body.map { $0[i] }).map(\.count).max()! }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                i == 0 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[i] - c.count) + c
            }.joined(separator: "  ")
        }
        print(line(header))
        print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for b in body { print(line(b)) }
        let notes = rows.filter { !$0.note.isEmpty }.map { "\($0.workload): \($0.note)" }
        for n in Set(notes).sorted() { print("note — \(n)") }
    }

    func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
}

Bench.main()
