import CImageCore
import Foundation
import Testing
@testable import ImageCore

/// Page detection on a small deterministic subset of the held-out split (committed fixtures
/// made by `make detector-fixtures`: scripts/detector/generate.py, held-out packages and
/// fonts, indices 500000+, 360 px photos), and on hostile inputs.
@Suite("Page detection: held-out subset and hostile inputs")
struct DetectHeldoutTests {
    struct Label: Decodable {
        var file: String
        var width: Int
        var height: Int
        var page: Bool
        var corners: [[Double]]?
    }

    static var directory: URL { DetectTests.fixtures.appendingPathComponent("detect-heldout") }

    static func labels() throws -> [Label] {
        let text = try String(contentsOf: directory.appendingPathComponent("labels.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Label.self, from: Data($0.utf8)) }
    }

    /// Largest distance between corresponding corners, in the best cyclic correspondence.
    static func maxCornerError(_ q: Quad, _ truth: [[Double]]) -> Double {
        (0..<4).map { s in
            (0..<4).map { i in
                let p = q.corners[(i + s) % 4]
                return ((p.x - truth[i][0]) * (p.x - truth[i][0]) + (p.y - truth[i][1]) * (p.y - truth[i][1])).squareRoot()
            }.max()!
        }.min()!
    }

    /// The targets are >= 95 % within 1.5 % and <= 2 % false pages; the detector
    /// does not reach the first (README, "Page detection": 83.8 % and 1 % on the 500-photo
    /// held-out split of 1600 px photos). This subset guards the level an earlier version of
    /// the weights reached: 33 of its 40 pages and 3 false pages of its 20 page-less photos;
    /// any change to the model or the quad search must keep at least that. Its photos are
    /// 360 px: at that size false pages are more frequent than at 1600 px (the threshold was
    /// chosen on 1600 px validation photos; 360 px validation photos of the training
    /// packages give 5 of 120, against 1 of 60 at 1600 px — README).
    @Test("held-out subset: at least 33 of 40 pages within 1.5 % of the diagonal, at most 3 of 20 false pages")
    func heldoutSubset() throws {
        var pages = 0, good = 0, empty = 0, falsePages = 0, misses: [String] = []
        for l in try Self.labels() {
            let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(l.file)))
            let image = try JPEG.decode(bytes, format: .rgba8)
            let d = try PageDetector().detection(in: image)
            if let truth = l.corners {
                pages += 1
                let diag = Double(l.width * l.width + l.height * l.height).squareRoot()
                let err = d.quad.map { Self.maxCornerError($0, truth) / diag } ?? .infinity
                if err <= 0.015 { good += 1 } else { misses.append("\(l.file): \(err)") }
            } else {
                empty += 1
                if d.quad != nil { falsePages += 1; misses.append("\(l.file): false page") }
            }
        }
        #expect(pages >= 40 && empty >= 20)
        print("held-out subset: \(good)/\(pages) pages within 1.5 %, \(falsePages)/\(empty) false pages")
        #expect(good >= 33, "\(good)/\(pages): \(misses)")
        #expect(falsePages <= 3, "\(falsePages)/\(empty): \(misses)")
    }

    @Test("uniform, tiny, long and noisy images are not found; every format, never a crash")
    func notFound() throws {
        for (w, h) in [(1, 1), (1, 500), (500, 1), (2, 3), (31, 31), (4000, 2), (2, 4000), (640, 480)] {
            for format in [PixelFormat.gray8, .rgb8, .rgba8, .nv12, .i420] {
                var img = try PixelBuffer(width: w, height: h, format: format)
                switch format {
                case .gray8: try img.fill([200])
                case .rgb8: try img.fill([200, 190, 180])
                case .rgba8: try img.fill([200, 190, 180, 255])
                default: try img.fill([200, 128, 128])
                }
                #expect(try PageDetector().detect(in: img) == .notFound, "\(w)x\(h) \(format)")
            }
        }
        var noise = try PixelBuffer(width: 900, height: 700, format: .rgba8)
        var rng = SplitMix64(seed: 9)
        noise.withMutablePlane(0) { s in for i in s.indices { s[i] = UInt8(truncatingIfNeeded: rng.next()) } }
        #expect(try PageDetector().detect(in: noise) == .notFound)
        // stripes and a checkerboard: strong straight edges everywhere, no page
        var stripes = try PixelBuffer(width: 800, height: 600, format: .gray8)
        let st = stripes.plane(0).stride
        stripes.withMutablePlane(0) { s in for y in 0..<600 { for x in 0..<800 { s[y * st + x] = (x / 40 + y / 40) % 2 == 0 ? 30 : 220 } } }
        #expect(try PageDetector().detect(in: stripes) == .notFound)
    }

    @Test("huge sizes: scratch is bounded and reported, above the limit a typed error")
    func hugeSizes() throws {
        var bytes = 0
        #expect(ic_detect_scratch_size(65535, 65535, nil, &bytes) == IC_OK)
        #expect(bytes > 0 && bytes < 8 << 20, "\(bytes)")
        #expect(ic_detect_scratch_size(65536, 10, nil, &bytes) == IC_ERR_TOO_LARGE)
        var o = ic_detect_options(work_size: 1024, min_area: 0, min_confidence: 0, second_work_size: 0)
        #expect(ic_detect_scratch_size(65535, 65535, &o, &bytes) == IC_OK)
        // 72.5 MiB (75 981 632 bytes) since the map's resolution has 16 channels instead of 12:
        // the activation planes grow with the working image's area, and so with work_size².
        #expect(bytes < 76 << 20, "\(bytes)")
        var mw: Int32 = 0, mh: Int32 = 0
        #expect(ic_detect_map_size(4032, 3024, nil, &mw, &mh) == IC_OK)
        #expect(mw == 144 && mh == 108) // k = 4032 / 288 = 14: 288 x 216 working pixels
        for bad in [Double.nan, 1.5] {
            o = ic_detect_options(work_size: 0, min_area: 0, min_confidence: bad, second_work_size: 0)
            #expect(ic_detect_scratch_size(100, 100, &o, &bytes) == IC_ERR_INVALID_ARGUMENT)
        }
        o = ic_detect_options(work_size: 0, min_area: .nan, min_confidence: 0, second_work_size: 0)
        #expect(ic_detect_scratch_size(100, 100, &o, &bytes) == IC_ERR_INVALID_ARGUMENT)
        // A wide, one-row-high photo of the largest width: found nothing, no over-read
        // (the buffer ends where the row ends).
        let wide = GuardedImage(IC_FORMAT_RGBA8, 65535, 1)
        var img = wide.image
        #expect(ic_detect_scratch_size(65535, 1, nil, &bytes) == IC_OK)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { scratch.deallocate() }
        var out = ic_page_detection()
        #expect(ic_detect_page(&img, nil, scratch, bytes, &out) == IC_OK)
        #expect(out.found == 0)
    }

    @Test("planes placed at the end of a page: no over-read in any format, odd sizes")
    func guardedPlanes() throws {
        for format in [IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8, IC_FORMAT_NV12, IC_FORMAT_I420] {
            // the last four are thinner than one working pixel (k = 3, 3, 5, 5 source pixels at
            // the default working size): the maps' reduction once read whole k x k boxes from them
            // (kernels_fuzz)
            for (w, h) in [(387, 291), (193, 250), (1001, 777), (1, 1000), (1000, 1), (3, 1500), (1500, 4)] {
                let g = GuardedImage(format, w, h, padding: 3)
                var img = g.image
                var bytes = 0
                #expect(ic_detect_scratch_size(Int32(w), Int32(h), nil, &bytes) == IC_OK)
                let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                defer { scratch.deallocate() }
                var out = ic_page_detection()
                #expect(ic_detect_page(&img, nil, scratch, bytes, &out) == IC_OK)
                #expect(out.found == 0 || (w > 16 && h > 16))
                var mw: Int32 = 0, mh: Int32 = 0
                #expect(ic_detect_map_size(Int32(w), Int32(h), nil, &mw, &mh) == IC_OK)
                var maps = [Float](repeating: -1, count: 2 * Int(mw) * Int(mh))
                let st = maps.withUnsafeMutableBufferPointer { m in
                    ic_detect_maps(&img, nil, scratch, bytes, m.baseAddress, m.baseAddress! + Int(mw) * Int(mh), Int(mw))
                }
                #expect(st == IC_OK)
                #expect(maps.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(format) \(w)x\(h)")
                let k = (max(w, h) + Int(IC_DETECT_DEFAULT_WORK_SIZE) - 1) / Int(IC_DETECT_DEFAULT_WORK_SIZE)
                if w < k || h < k { #expect(maps.allSatisfy { $0 == 0 }, "\(format) \(w)x\(h)") }
            }
        }
    }
}
