// The `renderer` workload: a scripted gallery session driving ThumbnailRenderer the way a
// UI's display link would, at 60 frames per second, over 10 000 items laid out 3 per row.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImageCore
import ImageCoreSynthetic
import Synchronization

/// What the renderer bench needs from the codec: the production thumbnail decoder, and a
/// JPEG encoder to make the prepared 75 px and 256 px variants once, before the session.
struct RendererBenchCodec: Sendable {
    var decoder: any ThumbnailDecoder
    var encode: @Sendable (borrowing PixelBuffer) throws(ImageError) -> [UInt8]

    /// The codec of this build: ImageCore's JPEG thumbnail decoder and encoder.
    static let available: RendererBenchCodec? = RendererBenchCodec(
        decoder: JPEGThumbnailDecoder(), encode: { (image) throws(ImageError) in try JPEG.encode(image) })
}

/// Thrown by a workload that this build cannot run. When every workload runs (no names
/// given) the harness skips it with the message; when it was asked for by name, it fails.
struct WorkloadUnavailable: Error, CustomStringConvertible {
    var description: String
}

extension Workloads {
    static let renderer = Workload(
        name: "renderer",
        summary: "thumbnail renderer: scripted 60 fps scroll over 10 000 items, 3 per row (needs the JPEG codec)"
    ) { _ in
        guard let codec = RendererBenchCodec.available else {
            throw WorkloadUnavailable(description: "needs the JPEG codec; not available in this build")
        }
        // The harness's thread count becomes the number of renderer workers; each decode
        // runs its kernels on one thread (thumbnails are small, and N workers each
        // starting a parallel region would oversubscribe the cores).
        let workers = max(1, ImageCoreRuntime.threads)
        ImageCoreRuntime.threads = 1
        defer { ImageCoreRuntime.threads = workers }
        let session = try RendererSession(codec: codec, workers: workers)
        return try session.run()
    }

    /// The same session over full-size 12 MP camera photos (one file for both tiers, each with
    /// a 160x120 EXIF thumbnail, as phones write them), run twice: the small tier from the EXIF
    /// thumbnail (the default decoder), then from the main image (`useEmbeddedThumbnails: false`).
    static let rendererCamera = Workload(
        name: "renderer-camera",
        summary: "thumbnail renderer over 12 MP camera JPEGs with EXIF thumbnails: small tier from them vs from the main image"
    ) { _ in
        let workers = max(1, ImageCoreRuntime.threads)
        ImageCoreRuntime.threads = 1
        defer { ImageCoreRuntime.threads = workers }
        let photos = try RendererSession.cameraPhotos()
        let embedded = RendererBenchCodec(decoder: JPEGThumbnailDecoder(), encode: { (image) throws(ImageError) in try JPEG.encode(image) })
        let exact = RendererBenchCodec(decoder: JPEGThumbnailDecoder(useEmbeddedThumbnails: false),
                                       encode: { (image) throws(ImageError) in try JPEG.encode(image) })
        var run = try RendererSession(codec: embedded, workers: workers, photos: photos).run()
        let without = try RendererSession(codec: exact, workers: workers, photos: photos).run()
        run.note = "EXIF thumbnails: " + run.note + "; main image only: " + without.note
        return run
    }
}

/// A clock the session moves by exactly one frame at a time.
final class SimulatedClock: Sendable {
    private let time = Mutex(0.0)
    var now: Double { time.withLock { $0 } }
    func set(_ t: Double) { time.withLock { $0 = t } }
}

/// The scripted session and what it measures.
struct RendererSession {
    static let itemCount = 10_000
    static let columns = 3
    static let rowHeight = 125.0          // points: a 375-point-wide phone screen, 3 per row
    static let viewportHeight = 667.0
    static let fps = 60.0
    /// Distinct pictures behind the 10 000 items (item k shows picture k % distinct): the
    /// variants are generated and encoded once, before the session.
    static let distinct = 64

    let codec: RendererBenchCodec
    let workers: Int
    let small: [[UInt8]]
    let large: [[UInt8]]
    /// Full-size photos for both tiers (when not empty, instead of the prepared variants).
    let photos: [[UInt8]]

    init(codec: RendererBenchCodec, workers: Int, photos: [[UInt8]] = []) throws {
        self.codec = codec
        self.workers = workers
        self.photos = photos
        var small: [[UInt8]] = [], large: [[UInt8]] = []
        if photos.isEmpty {
            for i in 0..<Self.distinct {
                let seed = UInt32(i + 1)
                small.append(try codec.encode(SyntheticImage.photo(width: 75, height: 75, seed: seed)))
                large.append(try codec.encode(SyntheticImage.photo(width: 256, height: 256, seed: seed)))
            }
        }
        self.small = small
        self.large = large
    }

    /// Eight 4032x3024 q90 JPEGs, each carrying a 160x120 EXIF thumbnail of itself (q85).
    static func cameraPhotos() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for i in 0..<8 {
            let photo = try SyntheticImage.photo(seed: UInt32(100 + i))
            let main = try JPEG.encode(photo, options: .init(quality: 90))
            let thumb = try JPEG.encode(try photo.resized(width: 160, height: 120), options: .init(quality: 85))
            out.append(ExifWriter.insertingAPP1(main, payload: ExifWriter.app1(thumbnail: thumb)))
        }
        return out
    }

    /// Scroll velocity (points per second) for each frame: slow scroll, a fling flicked
    /// again as it slows, coasting to a stop, a pause, a slow scroll back, a fling back,
    /// a stop.
    static func script() -> [Double] {
        var v: [Double] = []
        func hold(_ speed: Double, seconds: Double) { v += Array(repeating: speed, count: Int(seconds * fps)) }
        // iOS's normal deceleration: the speed falls by 0.998 per millisecond.
        let decay = pow(0.998, 1000 / fps)
        func fling(_ start: Double, until stop: Double) {
            var s = start
            while abs(s) > stop { v.append(s); s *= decay }
        }
        hold(250, seconds: 3)
        fling(6000, until: 1500)
        fling(6000, until: 20)
        hold(0, seconds: 1.5)
        hold(-250, seconds: 3)
        fling(-6000, until: 20)
        hold(0, seconds: 1)
        return v
    }

    func run() throws -> WorkloadRun {
        let small = self.small, large = self.large, n = Self.distinct, photos = self.photos
        let source = photos.isEmpty
            ? ThumbnailSource<Int>.preparedVariants { key, tier in tier == .small ? small[key % n] : large[key % n] }
            : ThumbnailSource<Int>.fullSizePhotos { key in photos[key % photos.count] }
        let clock = SimulatedClock()
        var config = ThumbnailRenderer<Int>.Configuration()
        config.workerCount = workers
        config.clock = RendererClock { clock.now }
        let renderer = ThumbnailRenderer(source: source, decoder: codec.decoder, configuration: config)
        renderer.setItems(Array(0..<Self.itemCount))

        // Read the events as a UI would (and count them: one per finished job).
        let eventCount = Mutex(0)
        let eventsDone = Mutex(false)
        let stream = renderer.events
        Task.detached {
            for await _ in stream { eventCount.withLock { $0 += 1 } }
            eventsDone.withLock { $0 = true }
        }

        let script = Self.script()
        var offset = 0.0
        var frameTimes: [Double] = []
        frameTimes.reserveCapacity(script.count)
        var emptyFrames = 0, lateFrames = 0, cellsShown = 0
        var wasFast = false
        var sampleAt: [Int] = []            // frames 100 ms after the scroll slowed
        var largeShares: [Double] = []
        let maxOffset = Double((Self.itemCount + Self.columns - 1) / Self.columns) * Self.rowHeight - Self.viewportHeight
        let start = now()
        for (f, speed) in script.enumerated() {
            let t = Double(f) / Self.fps
            clock.set(t)
            offset = min(max(0, offset + speed / Self.fps), maxOffset)
            let firstRow = Int(offset / Self.rowHeight)
            let endRow = Int(((offset + Self.viewportHeight) / Self.rowHeight).rounded(.up))
            let range = firstRow * Self.columns ..< min(Self.itemCount, endRow * Self.columns)

            // The synchronous part of the frame: what the UI thread spends in the renderer.
            let t0 = now()
            renderer.scrolled(to: offset, at: t)
            renderer.setVisibleRange(range)
            var largeCells = 0, empty = false
            for key in range {
                do throws(ImageError) {
                    if try renderer.image(for: key).tier == .large { largeCells += 1 }
                } catch {
                    empty = true
                }
            }
            frameTimes.append(now() - t0)
            cellsShown += range.count
            if empty { emptyFrames += 1 }

            let fast = renderer.isScrollingFast
            if wasFast && !fast { sampleAt.append(f + Int(0.1 * Self.fps)) }
            wasFast = fast
            if sampleAt.first == f {
                sampleAt.removeFirst()
                largeShares.append(Double(largeCells) / Double(max(1, range.count)))
            }

            // Give the workers the frame's real time.
            let deadline = start + Double(f + 1) / Self.fps
            let left = deadline - now()
            if left > 0 { usleep(useconds_t(left * 1e6)) } else { lateFrames += 1 }
        }
        let stats = renderer.statistics
        renderer.shutdown()
        while !eventsDone.withLock({ $0 }) { usleep(1000) }

        let sorted = frameTimes.sorted()
        func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        let finished = stats.largeCompleted + stats.largeDiscarded
        let wasted = stats.largeDiscarded + stats.largeEvictedUnused + stats.largeUnusedInCache
        let wastedShare = finished > 0 ? Double(wasted) / Double(finished) : 0
        let meanLarge = largeShares.isEmpty ? 0 : largeShares.reduce(0, +) / Double(largeShares.count)
        let minLarge = largeShares.min() ?? 0
        let ms = { (s: Double) in String(format: "%.3f", s * 1e3) }
        let pc = { (x: Double) in String(format: "%.1f %%", x * 100) }
        let mib = { (b: Int) in String(format: "%.2f MiB", Double(b) / 1048576) }
        func verdict(_ ok: Bool) -> String { ok ? "ok" : "MISSED" }
        print("""
        renderer (\(workers) worker\(workers == 1 ? "" : "s")): \(script.count) frames, \(Self.itemCount) items, \(Self.columns) per row
          synchronous time per frame  p50 \(ms(pct(0.5))) ms  p99 \(ms(pct(0.99))) ms  max \(ms(sorted.last ?? 0)) ms   [target p99 ≤ 4 ms: \(verdict(pct(0.99) <= 0.004))]
          frames with an empty cell   \(emptyFrames)   [target 0: \(verdict(emptyFrames == 0))]
          large tier 100 ms after the scroll slowed  mean \(pc(meanLarge)), min \(pc(minLarge)) over \(largeShares.count) slow-downs   [target ≥ 95 %: \(verdict(!largeShares.isEmpty && minLarge >= 0.95))]
          large decodes wasted        \(wasted) of \(finished) (\(pc(wastedShare))): \(stats.largeDiscarded) dropped after leaving, \(stats.largeEvictedUnused) evicted unshown, \(stats.largeUnusedInCache) cached unshown at the end   [target ≤ 5 %: \(verdict(wastedShare <= 0.05))]
          cache high-water mark       \(mib(stats.cacheHighWaterMark)) of \(mib(stats.cacheBudget))   [never above: \(verdict(stats.cacheHighWaterMark <= stats.cacheBudget))]
          jobs queued \(stats.largeQueued), cancelled \(stats.largeCancelled), completed \(stats.largeCompleted), failed \(stats.largeFailed); small decodes \(stats.smallDecodes); events \(eventCount.withLock { $0 }); frames over 16.7 ms \(lateFrames)
        """)
        let note = "p99 \(ms(pct(0.99))) ms, empty-cell frames \(emptyFrames), large after slowing \(pc(minLarge)) (min), wasted \(pc(wastedShare)), cache peak \(mib(stats.cacheHighWaterMark)) of \(mib(stats.cacheBudget))"
        return WorkloadRun(
            timing: Timing(seconds: frameTimes),
            pixels: cellsShown / max(1, script.count) * config.largePixelSize * config.largePixelSize,
            limitBytes: config.largePixelSize * config.largePixelSize * 4,
            note: note)
    }
}
