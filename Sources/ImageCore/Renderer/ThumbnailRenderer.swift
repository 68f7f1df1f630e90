/// Renders thumbnails for a scrolling gallery: never an empty cell, sharp images whenever
/// the user can see them, and no wasted work while the user flings past.
///
/// The model (Dropbox Carousel's renderer, see the README):
/// - **Two tiers.** When a cell asks for its image (``image(for:)``) and nothing is
///   cached, a *small* thumbnail (75 px by default) is decoded right there, on the
///   caller's thread — cheap enough to keep a frame within budget. The *large* tier
///   (256 px by default) is decoded by a pool of background workers.
/// - **A newest-first queue of large jobs.** Items that become visible are queued ahead of
///   older requests; items that leave the visible and prefetch ranges are removed from the
///   queue, and if their job is already running its result is dropped. The same item and
///   tier is never decoded twice at once.
/// - **Velocity gating.** While the scroll is faster than a threshold, no large job is
///   queued (the queue is emptied); when it slows, the visible items are queued, the most
///   recently shown first.
/// - **Prefetch** of the large tier for a window of items ahead of the visible range
///   while the scroll moves, below every visible item in priority.
/// - **A byte-bounded LRU cache** keyed by item and tier; the renderer owns the pixels and
///   hands out immutable ``Thumbnail`` handles, never copies.
///
/// The host drives it, typically from a display-link callback: ``setItems(_:)`` once (and
/// when the list changes), then every frame ``scrolled(to:at:)``, ``setVisibleRange(_:)``
/// and ``image(for:)`` for each visible cell; it listens on ``events`` to swap a cell's
/// small image for the large one.
///
/// ```swift
/// let renderer = ThumbnailRenderer(source: ThumbnailSource.preparedVariants(loadJPEG),
///                                  decoder: myDecoder)
/// renderer.setItems(photoIDs)
/// // each frame:
/// renderer.scrolled(to: offset, at: timestamp)
/// renderer.setVisibleRange(firstVisible..<lastVisible + 1)
/// for id in visibleIDs { cell(id).show(try renderer.image(for: id)) }
/// // elsewhere:
/// for await event in renderer.events { if case .ready(let id, _) = event { reload(id) } }
/// ```
///
/// All methods are thread-safe; state lives under one lock that is never held while
/// decoding or while calling the data source, the decoder or the caller's closures.
/// Dropping the last reference stops the workers after their current job.
public final class ThumbnailRenderer<Key: Hashable & Sendable>: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable {
        /// Long-side bound of the small tier, in pixels (default 75).
        public var smallPixelSize = 75
        /// Long-side bound of the large tier, in pixels (default 256).
        public var largePixelSize = 256
        /// Background worker threads (default 2). With 0 the renderer starts no thread and
        /// large jobs run only when someone calls ``ThumbnailRenderer/runNextJob()`` — for
        /// tests that step the queue, or hosts that run jobs on their own threads.
        public var workerCount = 2
        /// The most bytes of pixels the cache may hold (default 32 MiB: 128 large RGBA
        /// thumbnails of 256 × 256). It should hold at least the visible and prefetch
        /// items' large thumbnails, or they evict each other while on screen.
        public var cacheBudget = 32 << 20
        /// Scroll speed, in the caller's offset units per second, above which no large job
        /// is queued (default 1000: about 8 rows a second with 125-point rows).
        public var velocityThreshold: Double = 1000
        /// Seconds of scroll samples the velocity averages over (default 0.05, 3 frames
        /// at 60 Hz).
        public var velocityWindow: Double = 0.05
        /// Seconds without a scroll sample after which the scroll counts as stopped
        /// (default 0.1). Hosts that keep reporting every frame never reach it.
        public var idleInterval: Double = 0.1
        /// Items beyond the visible range whose large tier ``ThumbnailRenderer/setVisibleRange(_:)``
        /// prefetches (default 2: measured in `bench renderer`, 3 — a whole row of the 3-column
        /// grid — wasted 5.1 % of large decodes at stops, 2 wasted 3.5 % and still had ≥ 95 % of
        /// visible cells sharp 100 ms after slowing). While the scroll moves (below the
        /// threshold), that many items *ahead* in the direction of motion, nearest first:
        /// the items behind were just on screen. At rest, none — unless
        /// ``prefetchAtRest`` — because the next direction is unknown and whatever is
        /// prefetched on the wrong side is decoded for nothing.
        public var prefetchDistance = 2
        /// Whether to prefetch while the scroll is at rest, `prefetchDistance` items on each
        /// side, nearest first, below the visible range first (default false).
        public var prefetchAtRest = false
        /// The clock that judges idleness and timestamps ``ThumbnailRenderer/scrolled(to:)``.
        public var clock: RendererClock = .monotonic
        /// Test hook: every job's life, reported under the renderer's lock (so in order).
        /// Must not call back into the renderer.
        var trace: (@Sendable (JobTrace<Key>) -> Void)? = nil

        public init() {}
    }

    private let core: RendererCore<Key>

    /// One event per finished background job, each exactly once: ``ThumbnailEvent/ready(key:tier:)``
    /// when a large thumbnail lands in the cache, ``ThumbnailEvent/failed(key:tier:error:)``
    /// when it cannot be made.
    ///
    /// A single-consumer stream. Events are buffered without limit until read (so none is
    /// ever dropped); they are small (a key and a tier, no pixels), but a host that never
    /// reads them accumulates one per decode. The stream finishes after ``shutdown()``
    /// once the last running job has reported.
    public let events: AsyncStream<ThumbnailEvent<Key>>

    /// The configuration the renderer was created with.
    public var configuration: Configuration { core.configuration }

    /// Creates a renderer and starts its workers.
    ///
    /// - Parameters:
    ///   - source: gives the encoded bytes of an item for a tier.
    ///   - decoder: turns encoded bytes into a thumbnail of at most a given size.
    public init(source: some ThumbnailDataSource<Key>, decoder: some ThumbnailDecoder,
                configuration: Configuration = Configuration()) {
        precondition(configuration.smallPixelSize >= 1 && configuration.largePixelSize >= 1, "pixel sizes must be ≥ 1")
        precondition(configuration.workerCount >= 0 && configuration.prefetchDistance >= 0, "counts must be ≥ 0")
        precondition(configuration.velocityThreshold >= 0, "the velocity threshold must be ≥ 0")
        let (stream, continuation) = AsyncStream.makeStream(of: ThumbnailEvent<Key>.self, bufferingPolicy: .unbounded)
        events = stream
        core = RendererCore(source: source, decoder: decoder, configuration: configuration, continuation: continuation)
        core.startWorkers()
    }

    deinit {
        core.stop(wait: false)
    }

    // MARK: Items and visibility

    /// Sets the item list that ``setVisibleRange(_:)`` indexes into. Does not change the
    /// visible range or the cache.
    public func setItems(_ keys: [Key]) {
        core.state.withLock { $0.items = keys }
    }

    /// Sets the visible items by index into the list given to ``setItems(_:)`` (clamped to
    /// it), and the items to prefetch (see ``Configuration/prefetchDistance``). Items that
    /// appear are the newest requests; when scrolling towards smaller indices the lowest
    /// index counts as the most recently shown, otherwise the highest.
    ///
    /// Call it whenever the visible range changes (every frame while scrolling is fine:
    /// an unchanged range costs a pass over the visible and prefetch items).
    public func setVisibleRange(_ range: Range<Int>) {
        let now = core.now
        let distance = core.configuration.prefetchDistance
        let atRest = core.configuration.prefetchAtRest
        core.mutate { s in
            let r = range.clamped(to: 0..<s.items.count)
            let velocity = s.velocity.velocity(at: now)
            var visible = r.map { s.items[$0] }
            if velocity < 0 { visible.reverse() }
            var ahead: [Key] = []
            if !r.isEmpty && (velocity != 0 || atRest) {
                ahead.reserveCapacity(2 * distance)
                for d in stride(from: 1, through: distance, by: 1) {
                    let before = r.lowerBound - d, after = r.upperBound - 1 + d
                    let sides = velocity > 0 ? [after] : velocity < 0 ? [before] : [after, before]
                    for i in sides where s.items.indices.contains(i) { ahead.append(s.items[i]) }
                }
            }
            return s.setVisible(visible, prefetch: ahead, now: now)
        }
    }

    /// Sets the visible items by key, in the order they were shown (the last is the most
    /// recently shown), and the items to prefetch in priority order. For hosts that do
    /// not keep an item list here.
    public func setVisible(_ keys: [Key], prefetch: [Key] = []) {
        let now = core.now
        core.mutate { $0.setVisible(keys, prefetch: prefetch, now: now) }
    }

    /// Reports the scroll offset at `time` (seconds on the ``Configuration/clock``'s
    /// timeline, e.g. a display link's timestamp). The renderer derives the velocity and
    /// gates the large tier on it. Report every frame while scrolling, including frames
    /// where the offset did not change.
    public func scrolled(to offset: Double, at time: Double) {
        let now = core.now
        core.mutate { $0.scrolled(to: offset, at: time, now: now) }
    }

    /// Reports the scroll offset now, by the ``Configuration/clock``.
    public func scrolled(to offset: Double) {
        scrolled(to: offset, at: core.now)
    }

    /// Re-evaluates the velocity gate against the clock: a host that stops reporting
    /// offsets when the scroll ends calls this (or any other method) once the scroll has
    /// been idle for ``Configuration/idleInterval``, and the visible items get queued.
    public func refresh() {
        let now = core.now
        core.mutate { $0.refresh(now: now) }
    }

    /// The scroll velocity now, in offset units per second.
    public var velocity: Double {
        let now = core.now
        return core.state.withLock { $0.velocity.velocity(at: now) }
    }

    /// Whether the scroll is too fast for the large tier (as of the last report or
    /// ``refresh()``).
    public var isScrollingFast: Bool { core.state.withLock { $0.fast } }

    // MARK: Images

    /// The best image for `key`: the large thumbnail if cached, else the small one if
    /// cached, else a small one decoded now on the calling thread (and cached). Never
    /// copies pixels. The returned handle stays valid however long it is kept.
    ///
    /// Two threads asking for the same uncached item do not both decode it: the second
    /// waits for the first's result.
    ///
    /// - Throws: the data source's or decoder's error for the small tier.
    public func image(for key: Key) throws(ImageError) -> Thumbnail {
        try core.image(for: key)
    }

    /// The best cached image for `key`, or nil: never decodes.
    public func cachedImage(for key: Key) -> Thumbnail? {
        core.state.withLock { $0.useBest(key) }
    }

    /// Lends the best image for `key` (see ``image(for:)``) to `body`, with its tier. The
    /// buffer is borrowed, not copied, and stays valid during `body` even if the cache
    /// evicts it meanwhile.
    public func withImage<R: ~Copyable>(
        for key: Key, _ body: (borrowing PixelBuffer, ThumbnailTier) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        let thumbnail = try image(for: key)
        return try thumbnail.withPixelBuffer { (pixels) throws(ImageError) -> R in try body(pixels, thumbnail.tier) }
    }

    /// Removes both tiers of `key` from the cache and forgets a failure to decode it, so
    /// it is decoded again when next needed (the photo changed, say).
    public func removeCachedImages(for key: Key) {
        let released = core.state.withLock { $0.forget(key) }
        _ = released  // freed outside the lock (if no consumer holds them)
    }

    /// Empties the cache and forgets all failures (on a memory warning, say). Handles held
    /// by consumers stay valid.
    public func removeAllCachedImages() {
        core.state.withLock { $0.forgetAll() }
    }

    // MARK: Jobs

    /// Runs the highest-priority queued job on the calling thread and returns true, or
    /// returns false when the queue is empty. Lets a host with ``Configuration/workerCount``
    /// 0 run jobs where it likes, and lets tests step the queue one job at a time.
    @discardableResult
    public func runNextJob() -> Bool {
        core.runNextJob()
    }

    /// Returns when the queue is empty and no job is running. With
    /// ``Configuration/workerCount`` 0 that needs ``runNextJob()`` calls from elsewhere.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let idle = core.state.withLock { s -> Bool in
                if s.isIdle { return true }
                s.idleWaiters.append(c)
                return false
            }
            if idle { c.resume() }
        }
    }

    /// A consistent snapshot of the renderer's counters.
    public var statistics: RendererStatistics { core.state.withLock { $0.snapshot } }

    /// Cancels the queued jobs, lets running ones finish (their events are still sent),
    /// waits for the workers to exit, and finishes ``events`` once the last job has
    /// reported. Afterwards ``image(for:)`` still works (small tier, on the caller's
    /// thread) but nothing is queued. Idempotent. Must not be called from the data source
    /// or the decoder.
    public func shutdown() {
        core.stop(wait: true)
    }
}
