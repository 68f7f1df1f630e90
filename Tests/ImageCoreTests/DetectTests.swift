import CImageCore
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Page detection on the old synthetic composites (committed fixtures only; no corpus): a
/// regression check kept from the classical detector; the held-out figures are in
/// DetectHeldoutTests and the README.
@Suite("Page detection")
struct DetectTests {
    static var fixtures: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func load(_ name: String) throws -> PixelBuffer {
        try PNM.read(path: fixtures.appendingPathComponent(name).path)
    }

    static func page(_ kind: Int, seed: UInt64) throws -> PixelBuffer {
        switch kind {
        case 0: try load("skimage-page.pgm")
        case 1: try load("skimage-text.pgm")
        default: try DocumentComposite.renderPage(width: 420, height: 594, seed: seed)
        }
    }

    /// A fixed-seed set smaller than the bench's 240 (which reports the full share): the 4
    /// backgrounds x 3 page kinds x 3 seeds, none of them seeds the bench uses.
    @Test("finds the page in generated composites: share within 1.5 % of the diagonal")
    func generatedSet() throws {
        var total = 0, good = 0, misses: [String] = []
        for (bi, bgName) in ["wood", "blinds", "storm", "ladybird"].enumerated() {
            let bg = try Self.load("background-\(bgName).pgm")
            for kind in 0..<3 {
                for seed in 0..<3 {
                    let s = UInt64(7_000_000 + bi * 10_000 + kind * 100 + seed)
                    let sample = try DocumentComposite.compose(page: try Self.page(kind, seed: s), background: bg, seed: s)
                    let diag = Double(bg.width * bg.width + bg.height * bg.height).squareRoot()
                    let result = try PageDetector().detect(in: sample.image)
                    let err = result.quad.map { DocumentComposite.cornerError($0, sample.quad) } ?? .infinity
                    total += 1
                    if err <= 0.015 * diag { good += 1 } else { misses.append("\(bgName) kind \(kind) seed \(seed): \(err / diag)") }
                    if case let .found(_, confidence) = result { #expect(confidence >= 0 && confidence <= 1) }
                }
            }
        }
        let share = Double(good) / Double(total)
        print("detection: \(good)/\(total) = \(String(format: "%.1f", share * 100)) % within 1.5 % of the diagonal; misses: \(misses)")
        // A regression guard of the old synthetic set (bench: detect-eval-synthetic). The
        // learned detector does poorly here: gray composites of scikit-image's photographed
        // pages, whose own uneven background looks like paper, and pages with no margin, are
        // far from what it was trained on; it finds 19 of these 36 (the classical detector it
        // replaced, tuned on this set, 35; on the held-out photos it found 43.0 %: README,
        // "Page detection"). The network with 20 channels at 1/4 resolution found 22 here but
        // fewer of the bench's full 240 (58.8 % against 61.7 %): 36 is a small sample.
        #expect(good >= 19, "\(good)/\(total): \(misses)")
    }

    @Test("no false page in scenes of the same surfaces and light without a page")
    func emptyScenes() throws {
        var falsePages: [String] = []
        for (bi, bgName) in ["wood", "blinds", "storm", "ladybird"].enumerated() {
            let bg = try Self.load("background-\(bgName).pgm")
            for seed in 0..<3 {
                let image = try DocumentComposite.composeEmpty(background: bg, seed: UInt64(7_500_000 + bi * 100 + seed))
                if case let .found(_, confidence) = try PageDetector().detect(in: image) {
                    falsePages.append("\(bgName) seed \(seed): confidence \(confidence)")
                }
            }
        }
        #expect(falsePages.isEmpty, "\(falsePages)")
    }

    @Test("rendered pages on every background: at least 7 of 8 found within 1.5 %, at most 1 wrong")
    func renderedPages() throws {
        var found = 0, accurate = 0, wrong: [String] = [], notFound: [String] = []
        for bgName in ["wood", "blinds", "storm", "ladybird"] {
            let bg = try Self.load("background-\(bgName).pgm")
            for seed: UInt64 in [11, 12] {
                let sample = try DocumentComposite.compose(page: try DocumentComposite.renderPage(width: 420, height: 594, seed: seed), background: bg, seed: seed &* 31)
                let diag = Double(bg.width * bg.width + bg.height * bg.height).squareRoot()
                let result = try PageDetector().detect(in: sample.image)
                guard let q = result.quad else {
                    notFound.append("\(bgName) seed \(seed): \(try PageDetector().detection(in: sample.image))")
                    continue
                }
                found += 1
                let e = DocumentComposite.cornerError(q, sample.quad) / diag
                if e <= 0.015 { accurate += 1 } else { wrong.append("\(bgName) seed \(seed): \(e) of the diagonal, \(result)") }
            }
        }
        print("rendered pages: \(found) of 8 found, \(accurate) within 1.5 % of the diagonal; wrong: \(wrong); not found: \(notFound)")
        // The ladybird page of seed 12 is taken as cut by the frame (its right side runs on into
        // a plant stem's edge in line with it down to the frame): wrong with the network's first
        // version at 288, right with the 32-channel one trained at 192 and 288, wrong again with
        // the 48-channel one, which finds more pages on the validation splits (README).
        #expect(accurate >= 7)
        #expect(wrong.count <= 1, "\(wrong)")
    }

    /// The JPEG fixture `name`, decoded to RGBA8.
    static func photo(_ name: String) throws -> PixelBuffer {
        try JPEG.decode([UInt8](Data(contentsOf: fixtures.appendingPathComponent(name))), format: .rgba8)
    }

    /// Detects the page in the JPEG fixture `name` (with `detector`) and expects it found, at or
    /// above the default confidence, every corner within 1.5 % of the diagonal of `truth` (in its pixels).
    @discardableResult
    static func expectPage(in name: String, truth: [[Double]], detector: PageDetector = PageDetector()) throws -> PageDetector.Detection {
        let image = try photo(name)
        let d = try detector.detection(in: image)
        let q = try #require(d.quad, "not found: \(d)")
        let diag = Double(image.width * image.width + image.height * image.height).squareRoot()
        let err = DetectHeldoutTests.maxCornerError(q, truth) / diag
        #expect(err <= 0.015, "\(name): \(err) of the diagonal: \(d)")
        #expect(d.confidence >= PageDetector.defaultMinimumConfidence)
        return d
    }

    /// A photo of the hard validation split (`make detector-data`: valhard360, index 820128;
    /// training packages, so it may be looked at): a dark receipt in low contrast on a wood-like
    /// texture, part of it under a hand, its short top end 2-15 px below the frame's top edge.
    /// That end is 31 px long (15 cells of the map); without pass 2 the best candidate holds the receipt's three other sides and the frame's
    /// top edge (found, cut by the frame, a corner 3.9 % of the diagonal off, confidence 0.62).
    /// Pass 2 finds the end where the two long sides' map drops (0.6 % off, confidence 0.68).
    /// (Confidences here and below: the detector's when the test was written, before the ranker.)
    @Test("a receipt's short end by the frame edge: found from its three other sides, not taken as the frame")
    func receiptEndFromThreeOthers() throws {
        let d = try Self.expectPage(in: "detect-validation-receipt.jpg", truth: [[246.458, 2.033], [274.999, 13.805], [197.263, 163.550], [158.547, 147.760]])
        #expect(d.cutEdges.isEmpty, "\(d)")
    }

    /// A photo of the proxy split (`make detector-data`: proxybig, index 801325, reduced to 800 px;
    /// lomiri-wallpapers-16.04, a design split, so it may be looked at): a small form, 15 % of the
    /// frame's height, on a clock face whose hands, ticks and rim are long straight and curved
    /// contours. The boundary map outlines the form and the inside map fills it, but its sides
    /// rank below the clock's lines and no candidate holds three of them, so pass 2 cannot mend
    /// one. The inside map's region gives the candidate (without it: not found, the best candidate
    /// 24 % of the diagonal off at confidence 0.01).
    @Test("a small form among a clock's contours: found as a region of the inside map")
    func formFromInsideRegion() throws {
        try Self.expectPage(in: "detect-proxy-form.jpg", truth: [[538.749, 37.067], [588.126, 59.697], [569.596, 129.185], [518.719, 114.488]])
    }

    /// Another proxy-split photo (proxybig, index 801232, reduced to 800 px): a card cut by the
    /// photo's top edge above mountain rocks. Its region of the inside map touches the frame; the
    /// region's side along the frame is taken as the frame edge (without the region: not found,
    /// the best candidate 13 % of the diagonal off at confidence 0.04).
    @Test("a card cut by the frame edge: its region's side on the frame is the frame edge")
    func cutCardFromInsideRegion() throws {
        let d = try Self.expectPage(in: "detect-proxy-cut-card.jpg", truth: [[160.769, 21.811], [187.606, 0.0], [401.385, 0.0], [245.499, 127.415]])
        #expect(d.cutEdges == .top, "\(d)")
    }

    @Test("the same answer from GRAY8, RGBA8, NV12 and I420, and from a 2x larger image")
    func formatsAndScale() throws {
        let bg = try Self.load("background-storm.pgm")
        let sample = try DocumentComposite.compose(page: try DocumentComposite.renderPage(width: 420, height: 594, seed: 5), background: bg, seed: 77)
        let w = sample.image.width, h = sample.image.height
        guard case let .found(gq, _) = try PageDetector().detect(in: sample.image) else {
            Issue.record("no page in the gray composite")
            return
        }
        let gs = sample.image.plane(0).stride
        var rgba = try PixelBuffer(width: w, height: h, format: .rgba8)
        var nv12 = try PixelBuffer(width: w, height: h, format: .nv12)
        var i420 = try PixelBuffer(width: w, height: h, format: .i420)
        try nv12.fill([0, 128, 128])
        try i420.fill([0, 128, 128])
        let rs = rgba.plane(0).stride, ns = nv12.plane(0).stride, isx = i420.plane(0).stride
        sample.image.withPlane(0) { g in
            rgba.withMutablePlane(0) { r in
                for y in 0..<h { for x in 0..<w { for c in 0..<3 { r[y * rs + 4 * x + c] = g[y * gs + x] }; r[y * rs + 4 * x + 3] = 255 } }
            }
            nv12.withMutablePlane(0) { p in for y in 0..<h { for x in 0..<w { p[y * ns + x] = g[y * gs + x] } } }
            i420.withMutablePlane(0) { p in for y in 0..<h { for x in 0..<w { p[y * isx + x] = g[y * gs + x] } } }
        }
        for r in [try PageDetector().detect(in: rgba), try PageDetector().detect(in: nv12), try PageDetector().detect(in: i420)] {
            #expect(r.quad == gq, "\(String(describing: r.quad)) vs \(gq)")
        }
        // 2x: the reduction path; corners scale with the image (the working image differs
        // slightly, so within half a working pixel, about 1.25 px of the 2x image).
        var big = try PixelBuffer(width: 2 * w, height: 2 * h, format: .gray8)
        try big.warp(from: sample.image, homography: Homography(matrix: [0.5, 0, 0, 0, 0.5, 0, 0, 0, 1]))
        guard case let .found(bq, _) = try PageDetector().detect(in: big) else {
            Issue.record("no page in the 2x composite")
            return
        }
        let scaled = Quad(gq.corners.map { Point(x: 2 * $0.x, y: 2 * $0.y) })
        let diag = Double(4 * w * w + 4 * h * h).squareRoot()
        #expect(DocumentComposite.cornerError(bq, scaled) <= 0.01 * diag)
    }

    @Test("not found is a result: empty, flat, noisy and tiny images")
    func notFound() throws {
        var flat = try PixelBuffer(width: 640, height: 480, format: .gray8)
        try flat.fill([128])
        #expect(try PageDetector().detect(in: flat) == .notFound)
        var noise = try PixelBuffer(width: 500, height: 400, format: .gray8)
        var rng = SplitMix64(seed: 4)
        noise.withMutablePlane(0) { s in for i in s.indices { s[i] = UInt8(truncatingIfNeeded: rng.next()) } }
        #expect(try PageDetector().detect(in: noise) == .notFound)
        for (w, h) in [(1, 1), (15, 300), (300, 15), (16, 16)] {
            var tiny = try PixelBuffer(width: w, height: h, format: .gray8)
            try tiny.fill([200])
            #expect(try PageDetector().detect(in: tiny) == .notFound)
        }
    }

    /// With no threshold the best quad of any photo is reported: on the page-less backgrounds
    /// of the tests' composites its corners stay in the image (a corner may lie up to a map cell
    /// outside the frame) and its confidence is low (three of the four have no valid quad at
    /// all: their lines make none).
    @Test("no threshold: the best quad of a page-less photo is reported, inside the image")
    func noThreshold() throws {
        var reported = 0
        for name in ["background-storm.pgm", "background-ladybird.pgm", "background-wood.pgm", "background-blinds.pgm"] {
            let image = try Self.load(name)
            let d = try PageDetector(minimumConfidence: -1).detection(in: image)
            guard let q = d.quad else { continue }
            reported += 1
            let w = Double(image.width), h = Double(image.height), cell = 2 * (max(w, h) / 288).rounded()
            for c in q.corners {
                #expect(c.x >= -cell && c.x <= w + cell && c.y >= -cell && c.y <= h + cell, "\(name): \(d)")
            }
            #expect(d.confidence < PageDetector.defaultMinimumConfidence, "\(name): \(d)")
        }
        #expect(reported >= 1)
    }

    /// A second working size: when the first run has candidates and is unsure of them (confidence
    /// below IC_DETECT_SECOND_RUN_BELOW), the answer is the one of the two single-size runs whose best
    /// candidate scores higher (detection and candidates alike: the second run, which starts
    /// from the working image the first run's pass wrote, answers as a run at that size alone);
    /// the scratch is the larger of the two runs' and that working image; bad sizes are refused. `detect-proxy-two-sizes.jpg` (proxy split, index
    /// 800052, reduced to 800 px; a design split, so it may be looked at): a small page the
    /// first run misses (confidence 0.002) and the second finds. `detect-validation-no-candidate.jpg`
    /// (validation split, index 1800017, a page-less photo of a water splash reduced to 800 px): no
    /// candidate in the first run, some (all below 0.001) at the second size alone: no second run.
    @Test("second working size: the better-scored of the two runs, scratch for both, sizes checked")
    func secondWorkSize() throws {
        var chose = Set<Int>()
        let bg = try Self.load("background-storm.pgm")
        let composite = try DocumentComposite.compose(page: try DocumentComposite.renderPage(width: 420, height: 594, seed: 3), background: bg, seed: 73)
        for name in ["detect-proxy-form.jpg", "detect-proxy-cut-card.jpg", "composite", "detect-proxy-two-sizes.jpg",
                     "detect-validation-no-candidate.jpg"] {
            // the composite at twice its size, so that the two working sizes differ (k 3 and 2)
            let image = name == "composite"
                ? try composite.image.converted(to: .rgba8).resized(width: 2 * composite.image.width, height: 2 * composite.image.height)
                : try Self.photo(name)
            let one = PageDetector(minimumConfidence: -1)
            let other = PageDetector(workSize: PageDetector.recommendedSecondWorkSize, minimumConfidence: -1)
            let both = PageDetector(minimumConfidence: -1, secondWorkSize: PageDetector.recommendedSecondWorkSize)
            let d1 = try one.detection(in: image), d2 = try other.detection(in: image), d = try both.detection(in: image)
            #expect(d1.score != d2.score, "\(name): the two sizes score alike, the test cannot tell them apart")
            let none = try one.candidates(in: image).isEmpty
            let second = !none && d1.confidence < IC_DETECT_SECOND_RUN_BELOW && d2.score > d1.score
            let want = second ? d2 : d1
            chose.insert(none ? 3 : d1.confidence >= IC_DETECT_SECOND_RUN_BELOW ? 0 : second ? 2 : 1)
            if none { #expect(try !other.candidates(in: image).isEmpty && d.quad == nil && d.score == 0, "\(name): \(d)") }
            #expect(d == want, "\(name): \(d) against \(want)")
            let c = try both.candidates(in: image), cw = try (second ? other : one).candidates(in: image)
            #expect(c.map(\.quad) == cw.map(\.quad) && c.map(\.score) == cw.map(\.score), "\(name)")
            let s1 = try one.scratchSize(width: image.width, height: image.height)
            let s2 = try other.scratchSize(width: image.width, height: image.height)
            let sb = try both.scratchSize(width: image.width, height: image.height)
            // the larger run's, then the second size's working image (one 4-byte word a pixel in
            // a border of 4), which the first run writes in its pass over the image
            let k2 = (2 * max(image.width, image.height) + PageDetector.recommendedSecondWorkSize) / (2 * PageDetector.recommendedSecondWorkSize)
            let input2 = 4 * (image.width / k2 + 8) * (image.height / k2 + 8)
            #expect(sb - max(s1, s2) >= input2 && sb - max(s1, s2) < input2 + 64, "\(name): \(sb) against \(s1), \(s2)")
            // too little scratch for both runs is refused before the first runs
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: sb, alignment: 64)
            defer { scratch.deallocate() }
            #expect(throws: ImageError.self) { _ = try both.detection(in: image, scratch: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(sb - 1)])) }
            #expect(try both.detection(in: image, scratch: scratch) == want)
        }
        #expect(try PageDetector().detect(in: Self.photo("detect-proxy-two-sizes.jpg")).quad == nil)
        try Self.expectPage(in: "detect-proxy-two-sizes.jpg", truth: [[590.824, 258.206], [631.147, 264.121], [627.061, 380.672], [577.338, 391.642]],
                            detector: PageDetector(secondWorkSize: PageDetector.recommendedSecondWorkSize))
        // (a second run whose answer loses, 1, is taken too by some models and gates, not required)
        #expect(chose.isSuperset(of: [0, 2, 3]), "the photos should exercise a sure first run, the second run's answer and a first run without candidates: \(chose)")
        var bytes = 0
        for bad: Int32 in [-1, 63, 1025] {
            var o = ic_detect_options(work_size: 0, min_area: 0, min_confidence: 0, second_work_size: bad)
            #expect(ic_detect_scratch_size(100, 100, &o, &bytes) == IC_ERR_INVALID_ARGUMENT)
        }
    }

    /// The candidates are the ranker's: best first, the first the detection's page (same
    /// corners, score and confidence), each confidence the calibration of its score, the inputs
    /// as many as the C header says; the C entry point checks its arguments.
    @Test("candidates: best first, the first is the detected page, arguments checked")
    func candidates() throws {
        let image = try Self.photo("detect-proxy-form.jpg")
        let detector = PageDetector()
        let d = try detector.detection(in: image)
        let cs = try detector.candidates(in: image)
        #expect(cs.count >= 2 && cs.count <= Int(IC_DETECT_MAX_CANDIDATES))
        let first = try #require(cs.first)
        #expect(first.quad == d.quad && first.score == d.score && first.confidence == d.confidence && first.cutEdges == d.cutEdges)
        for (a, b) in zip(cs, cs.dropFirst()) { #expect(a.score >= b.score) }
        for c in cs {
            #expect(c.features.count == Int(IC_DETECT_FEATURES))
            #expect(c.features.allSatisfy { $0.isFinite })
            #expect((c.confidence > 0 && c.confidence < 1) && (c.confidence < first.confidence) == (c.score < first.score))
        }
        // a page-less background: candidates, all below the threshold
        let bg = try Self.load("background-wood.pgm")
        for c in try detector.candidates(in: bg) { #expect(c.confidence < PageDetector.defaultMinimumConfidence) }
        // the C entry point's arguments
        let bytes = try detector.scratchSize(width: image.width, height: image.height)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        var n: Int32 = -1
        image.withUnsafeImage { img in
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes, nil, 0, &n) == IC_OK && n == 0)
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes, nil, 1, &n) == IC_ERR_INVALID_ARGUMENT)
            var one = ic_detect_candidate()
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes, &one, -1, &n) == IC_ERR_INVALID_ARGUMENT)
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes, &one, 1, nil) == IC_ERR_INVALID_ARGUMENT)
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes - 1, &one, 1, &n) == IC_ERR_BUFFER_TOO_SMALL)
            #expect(ic_detect_candidates(img, nil, scratch.baseAddress, bytes, &one, 1, &n) == IC_OK && n == 1)
            #expect(one.score == first.score)
        }
    }

    @Test("scratch: too small is refused, contents never matter, options are checked")
    func scratch() throws {
        let bg = try Self.load("background-ladybird.pgm")
        let sample = try DocumentComposite.compose(page: try Self.page(0, seed: 3), background: bg, seed: 3)
        let detector = PageDetector()
        let bytes = try detector.scratchSize(width: sample.image.width, height: sample.image.height)
        #expect(bytes > 0 && bytes < 5 << 20)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 1)
        defer { buffer.deallocate() }
        // Uninitialised scratch must not change the answer: zeros, ones, a pattern, and an
        // odd (unaligned) start.
        var results: [PageDetector.Result] = []
        for fill: UInt8 in [0, 0xFF, 0xA5] {
            buffer.initializeMemory(as: UInt8.self, repeating: fill)
            results.append(try detector.detect(in: sample.image, scratch: buffer))
        }
        let shifted = UnsafeMutableRawBufferPointer(rebasing: buffer[1...])
        let big = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes + 1, alignment: 1)
        defer { big.deallocate() }
        big.initializeMemory(as: UInt8.self, repeating: 0x3C)
        results.append(try detector.detect(in: sample.image, scratch: UnsafeMutableRawBufferPointer(rebasing: big[1...])))
        #expect(results.allSatisfy { $0 == results[0] })
        #expect(throws: ImageError(.bufferTooSmall, "page detection in \(sample.image.width)x\(sample.image.height) gray8: "
                                   + "page detection: scratch of \(shifted.count) bytes, \(bytes) needed (ic_detect_scratch_size)")) {
            try detector.detect(in: sample.image, scratch: shifted)
        }
        #expect(throws: ImageError.self) { try PageDetector(workSize: 10).detect(in: sample.image) }
        #expect(throws: ImageError.self) { try PageDetector(minimumArea: 1.5).detect(in: sample.image) }
        var img = ic_image()
        var out = ic_page_detection()
        #expect(ic_detect_page(&img, nil, buffer.baseAddress, bytes, &out) == IC_ERR_INVALID_ARGUMENT)
        var size = 0
        #expect(ic_detect_scratch_size(0, 10, nil, &size) == IC_ERR_INVALID_ARGUMENT)
        #expect(ic_detect_scratch_size(70000, 10, nil, &size) == IC_ERR_TOO_LARGE)
    }
}
