import CImageCore
import Foundation
import ImageCore

/// `detect-eval`: page detection on a split made by scripts/detector/generate.py (by default
/// the held-out split, `.build-detector/data/heldout`, made by `make detector-data`).
///
/// Reports the share of pages with every corner within 1.5 % of the image diagonal (overall,
/// by page kind, by page height, for cut and occluded pages), false detections on the
/// page-less photos, the mean corner error of the pages found, and the mean time per
/// detection. Environment: `IC_DETECT_DATA=dir` evaluates another split (the training split
/// for calibration: only the training split may be used while tuning);
/// `IC_DETECT_SCORES=file` also writes, per image, the best candidate's raw score,
/// whether it was right, whether the image has a page, its file and, for a page, the largest corner error in % of the
/// diagonal (detections made with no confidence threshold), for
/// scripts/detector/calibrate.py; `IC_DETECT_JSON=file` writes the figures as JSON;
/// `IC_DETECT_FEATURES=file` writes each photo's candidates (``PageDetector/candidates(in:)``:
/// file, rank, score, the four corners, the ranker's inputs), scripts/detector/ranker.py's
/// training data; `IC_DETECT_WORK=n` sets the working size (default: the detector's), `IC_DETECT_WORK2=n` a second one;
/// `IC_DETECT_DUMP=dir` writes each miss (and each false page, "false-" prefixed) with the
/// true (white) and detected (black) quads, its boundary map and its inside map (`-map.pgm`,
/// `-inside.pgm`; scripts/detector/misses.py reads them). For the design splits only: never
/// look at held-out images.
enum DetectEval {
    struct Label: Decodable {
        var file: String
        var width: Int
        var height: Int
        var page: Bool
        var kind: String?
        var corners: [[Double]]?
        var cut: String?
        var occluded: Bool?
        var height_frac: Double?
        var background: String
    }

    static var defaultDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build-detector/data/heldout").path
    }

    /// Mean distance of corresponding corners (the detection's corners matched to the
    /// truth's in the best cyclic order), and the largest, in pixels.
    static func cornerErrors(_ q: Quad, _ truth: [[Double]]) -> (mean: Double, max: Double) {
        var best = (mean: Double.infinity, max: Double.infinity)
        for shift in 0..<4 {
            var sum = 0.0, worst = 0.0
            for i in 0..<4 {
                let p = q.corners[(i + shift) % 4], t = truth[i]
                let d = ((p.x - t[0]) * (p.x - t[0]) + (p.y - t[1]) * (p.y - t[1])).squareRoot()
                sum += d
                worst = max(worst, d)
            }
            if worst < best.max { best = (sum / 4, worst) }
        }
        return best
    }

    struct Tally {
        var n = 0, good = 0
        mutating func add(_ ok: Bool) { n += 1; if ok { good += 1 } }
        var text: String { n == 0 ? "-" : String(format: "%.1f %% of %d", 100 * Double(good) / Double(n), n) }
    }

    static func run() throws -> (note: String, summary: String) {
        let env = ProcessInfo.processInfo.environment
        let dir = env["IC_DETECT_DATA"] ?? defaultDirectory
        let labelsPath = dir + "/labels.jsonl"
        guard let text = try? String(contentsOfFile: labelsPath, encoding: .utf8) else {
            return ("no data at \(labelsPath): run `make detector-data` (or set IC_DETECT_DATA)", "")
        }
        let labels = try text.split(separator: "\n").map { try JSONDecoder().decode(Label.self, from: Data($0.utf8)) }
        let scoresPath = env["IC_DETECT_SCORES"]
        var detector = DetectEval.detector(env)
        let threshold = detector.minimumConfidence
        if scoresPath != nil { detector.minimumConfidence = -1 }
        var overall = Tally(), byKind: [String: Tally] = [:], bySize: [String: Tally] = [:]
        var cut = Tally(), occluded = Tally()
        var empty = 0, falsePages = 0, notFound = 0
        var errSum = 0.0, errN = 0, seconds = 0.0, cpuSeconds = 0.0, detections = 0
        var scoreLines = ""
        var featureLines = ""
        for l in labels {
            let bytes = try FileBytes.read(path: dir + "/" + l.file)
            let image = try BenchInput.decodeJPEG(bytes)
            let t0 = now(), c0 = threadCPUTime()
            let d = try detector.detection(in: image)
            seconds += now() - t0
            cpuSeconds += threadCPUTime() - c0
            detections += 1
            let diag = (Double(l.width * l.width + l.height * l.height)).squareRoot()
            if env["IC_DETECT_FEATURES"] != nil {
                for (i, c) in try detector.candidates(in: image).enumerated() {
                    featureLines += "\(l.file) \(i) " + String(format: "%.17g", c.score)
                    for p in c.quad.corners { featureLines += String(format: " %.3f %.3f", p.x, p.y) }
                    for f in c.features { featureLines += String(format: " %.17g", f) }
                    featureLines += "\n"
                }
            }
            guard l.page, let truth = l.corners else {
                empty += 1
                if let _ = d.quad, d.confidence >= threshold {
                    falsePages += 1
                    if let dump = env["IC_DETECT_DUMP"] { try dumpMiss(image, d, nil, dir: dump, name: "false-" + (l.file as NSString).lastPathComponent) }
                }
                if d.score != 0 { scoreLines += String(format: "%.6f 0 0 %@\n", d.score, l.file) }
                continue
            }
            var ok = false, geometric = false
            if let q = d.quad {
                let e = cornerErrors(q, truth)
                ok = e.max <= 0.015 * diag
                geometric = ok
                if scoresPath != nil, d.score != 0 { scoreLines += String(format: "%.6f %d 1 %@ %.3f\n", d.score, ok ? 1 : 0, l.file, 100 * e.max / diag) }
                if d.confidence >= threshold { errSum += e.mean / diag; errN += 1 } else { ok = false }
            } else if scoresPath != nil, d.score != 0 {
                scoreLines += String(format: "%.6f 0 1 %@\n", d.score, l.file)
            }
            if d.quad == nil || d.confidence < threshold { notFound += 1 }
            if !geometric, let dump = env["IC_DETECT_DUMP"] { try dumpMiss(image, d, truth, dir: dump, name: (l.file as NSString).lastPathComponent) }
            overall.add(ok)
            byKind[l.kind ?? "?", default: Tally()].add(ok)
            let h = l.height_frac ?? 0
            let bin = h < 0.35 ? "15-35 %" : h < 0.55 ? "35-55 %" : h < 0.75 ? "55-75 %" : "75-95 %"
            bySize[bin, default: Tally()].add(ok)
            if l.cut != nil { cut.add(ok) }
            if l.occluded == true { occluded.add(ok) }
        }
        if let scoresPath { try scoreLines.write(toFile: scoresPath, atomically: true, encoding: .utf8) }
        if let featuresPath = env["IC_DETECT_FEATURES"] { try featureLines.write(toFile: featuresPath, atomically: true, encoding: .utf8) }
        let kinds = byKind.keys.sorted().map { "\($0) \(byKind[$0]!.text)" }.joined(separator: ", ")
        let sizes = bySize.keys.sorted().map { "\($0) \(bySize[$0]!.text)" }.joined(separator: ", ")
        let split = (dir as NSString).lastPathComponent
        let summary = String(format: """
            %@ split (%@): %d pages, %.1f %% with every corner within 1.5 %% of the diagonal (%d not found); \
            mean corner error %.2f %% of the diagonal (pages found); %d of %d page-less photos gave a false page (%.1f %%)
            by kind: %@
            by page height: %@
            cut by the frame edge: %@; partly occluded: %@
            """, split, split == "heldout" || split == "train" ? ".build-detector/data/" + split : dir, overall.n, 100 * Double(overall.good) / Double(max(1, overall.n)), notFound,
                             100 * errSum / Double(max(1, errN)), falsePages, empty, 100 * Double(falsePages) / Double(max(1, empty)),
                             kinds, sizes, cut.text, occluded.text)
        let note = summary + String(format: "\nmean %.2f ms per detection of a %@ photo (decoded RGBA, one core, scratch allocation included; %.2f ms of thread CPU time)",
                                    seconds / Double(max(1, detections)) * 1e3, labels.first.map { "\($0.width)x\($0.height)" } ?? "-",
                                    cpuSeconds / Double(max(1, detections)) * 1e3)
        if let jsonPath = env["IC_DETECT_JSON"] {
            let obj: [String: Any] = [
                "split": split, "pages": overall.n, "within": Double(overall.good) / Double(max(1, overall.n)),
                "empty": empty, "false": falsePages, "mean_corner_error": errSum / Double(max(1, errN)),
                "summary": summary,
            ]
            let data = try JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys, .prettyPrinted])
            try data.write(to: URL(fileURLWithPath: jsonPath))
        }
        return (note, summary)
    }

    /// The detector of the workloads: the defaults, or `IC_DETECT_WORK=n`'s working size and
    /// `IC_DETECT_WORK2=n`'s second working size (``PageDetector/secondWorkSize``).
    static func detector(_ env: [String: String]) -> PageDetector {
        var d = PageDetector()
        if let w = env["IC_DETECT_WORK"].flatMap({ Int($0) }) { d.workSize = w }
        if let w = env["IC_DETECT_WORK2"].flatMap({ Int($0) }) { d.secondWorkSize = w }
        return d
    }

    static func dumpMiss(_ image: borrowing PixelBuffer, _ d: PageDetector.Detection, _ truth: [[Double]]?, dir: String, name: String) throws {
        var gray = try image.converted(to: .gray8)
        if let truth { DocumentWorkloads.drawQuad(&gray, Quad(truth.map { Point(x: $0[0], y: $0[1]) }), value: 255) }
        if let q = d.quad {
            DocumentWorkloads.drawQuad(&gray, q, value: 0)
            print("dump \(name): detected " + q.corners.map { String(format: "(%.0f, %.0f)", $0.x, $0.y) }.joined(separator: " ") + String(format: " score %.3f", d.score))
        }
        try PNM.write(gray, path: "\(dir)/\(name)-conf\(String(format: "%.2f", d.confidence)).pgm")
        // both maps, p x 255 (scripts/detector/misses.py reads them)
        let maps = try PageDetector().maps(of: image)
        for (suffix, values) in [("map", maps.boundary), ("inside", maps.inside)] {
            var m = try PixelBuffer(width: maps.width, height: maps.height, format: .gray8)
            let st = m.plane(0).stride
            m.withMutablePlane(0) { s in for y in 0..<maps.height { for x in 0..<maps.width { s[y * st + x] = UInt8(max(0, min(255, values[y * maps.width + x] * 255))) } } }
            try PNM.write(m, path: "\(dir)/\(name)-\(suffix).pgm")
        }
    }

    /// CPU time of the calling thread (the wall clock counts other processes' turns on a
    /// busy machine).
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    nonisolated(unsafe) static var cached: String?

    static let workload = Workload(name: "detect-eval", summary: "page detection on the held-out split of scripts/detector/generate.py: share within 1.5% of the diagonal, false pages, ms per detection") { ctx in
        // Single-threaded and deterministic: evaluated once per process.
        let note = try cached ?? run().note
        cached = note
        let detector = PageDetector()
        let timing = try ctx.time { _ = try detector.detect(in: ctx.image) }
        return WorkloadRun(timing: timing, pixels: ctx.image.width * ctx.image.height, limitBytes: ctx.image.width * ctx.image.height * 4,
                           note: "timed: one detection in the bench photo (reduction included); evaluation:\n" + note)
    }
}
