import Dispatch

/// How a background job ended. Every job ends exactly once.
enum JobOutcome: Sendable, Hashable {
    /// Decoded and inserted into the cache; a `.ready` event was sent.
    case completed
    /// Removed from the queue before a worker took it.
    case cancelled
    /// Decoded, but the item had left the visible and prefetch ranges meanwhile; dropped.
    case discarded
    /// The data source or the decoder failed (or the result broke the contract); a
    /// `.failed` event was sent.
    case failed
}

/// A record of a job's life, for tests (``ThumbnailRenderer/Configuration`` `trace`).
enum JobTrace<Key: Hashable & Sendable>: Sendable {
    case queued(job: UInt64, id: ThumbnailID<Key>, band: RenderPriority.Band)
    case started(job: UInt64, id: ThumbnailID<Key>)
    case ended(job: UInt64, id: ThumbnailID<Key>, outcome: JobOutcome)
}

/// A small-tier decode in progress on some caller's thread; other callers asking for the
/// same item wait for it instead of decoding it again.
final class SmallDecode: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = PosixMutex<Result<Thumbnail, ImageError>?>(nil)

    func publish(_ result: Result<Thumbnail, ImageError>, waiters: Int) {
        outcome.withLock { $0 = result }
        for _ in 0..<waiters { done.signal() }
    }

    func wait() -> Result<Thumbnail, ImageError> {
        done.wait()
        return outcome.withLock { $0! }
    }
}

/// Everything the renderer knows, kept under one lock. Pure bookkeeping: no decoding, no
/// waiting, no calls out to user code (except the test-only trace hook).
struct RendererState<Key: Hashable & Sendable> {
    typealias ID = ThumbnailID<Key>
    typealias Event = ThumbnailEvent<Key>

    struct Job {
        let number: UInt64
        var running = false
        /// Set when the item leaves the visible and prefetch ranges while the job runs:
        /// the result will be dropped (unless the item comes back first).
        var abandoned = false
    }

    let threshold: Double
    let trace: (@Sendable (JobTrace<Key>) -> Void)?

    var items: [Key] = []
    /// Visible items and the sequence number taken when each appeared (most recently
    /// shown = largest).
    var visible: [Key: UInt64] = [:]
    /// Prefetch items and their rank (0 = first to prefetch).
    var prefetch: [Key: Int] = [:]
    var queue = RenderQueue<ID>()
    /// Queued and running jobs; at most one per ID, which is what coalescing means.
    var jobs: [ID: Job] = [:]
    var running = 0
    var smallInFlight: [Key: (decode: SmallDecode, waiters: Int)] = [:]
    var cache: ThumbnailCache<Key>
    /// Items whose large tier failed; not retried until the caller forgets the item.
    var failed: Set<ID> = []
    var velocity: ScrollVelocity
    /// True while the scroll is faster than the threshold: no large job may be queued.
    var fast = false
    var sequence: UInt64 = 0
    var jobNumber: UInt64 = 0
    var stats = RendererStatistics()
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var stopped = false
    var liveWorkers = 0
    var finished = false

    init(cacheBudget: Int, velocity: ScrollVelocity, threshold: Double,
         trace: (@Sendable (JobTrace<Key>) -> Void)?) {
        self.cache = ThumbnailCache(budget: cacheBudget)
        self.velocity = velocity
        self.threshold = threshold
        self.trace = trace
        stats.cacheBudget = cacheBudget
    }

    var isIdle: Bool { queue.isEmpty && running == 0 }

    mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    func isWanted(_ key: Key) -> Bool { visible[key] != nil || prefetch[key] != nil }

    // MARK: Visibility and gating

    /// Replaces the visible and prefetch sets. Items keep the sequence they got when they
    /// appeared; new ones get fresh, increasing numbers in the order given (so the last
    /// one given counts as the most recently shown). Jobs for items in neither set are
    /// cancelled (queued) or abandoned (running). Returns the number of jobs queued.
    mutating func setVisible(_ keys: some Sequence<Key>, prefetch ahead: some Sequence<Key>, now: Double) -> Int {
        var shown: [Key: UInt64] = [:]
        for key in keys where shown[key] == nil { shown[key] = visible[key] ?? nextSequence() }
        visible = shown
        var ranks: [Key: Int] = [:]
        var rank = 0
        for key in ahead where shown[key] == nil && ranks[key] == nil {
            ranks[key] = rank
            rank += 1
        }
        prefetch = ranks
        for (id, job) in jobs {
            if isWanted(id.key) {
                // Came back while still running: its result is wanted again.
                if job.abandoned { jobs[id]!.abandoned = false }
            } else if job.running {
                jobs[id]!.abandoned = true
            } else {
                cancelQueued(id)
            }
        }
        return refresh(now: now)
    }

    /// Records a scroll offset and re-evaluates the gate.
    mutating func scrolled(to offset: Double, at time: Double, now: Double) -> Int {
        velocity.record(offset: offset, at: time)
        return refresh(now: now)
    }

    /// Re-evaluates the velocity gate and queues the large tier of every wanted item that
    /// lacks it. While the scroll is fast the queue is emptied and nothing is queued; when
    /// it slows, the visible items are queued most recently shown first, then the prefetch
    /// items in rank order below them. Returns the number of jobs queued.
    mutating func refresh(now: Double) -> Int {
        fast = abs(velocity.velocity(at: now)) > threshold
        if fast {
            for id in queue.ids { cancelQueued(id) }
            return 0
        }
        if stopped { return 0 }
        var added = 0
        // Prefetch: rank 0 gets the highest order in the band.
        for (key, rank) in prefetch {
            let order = UInt64(prefetch.count - rank)
            if ensureQueued(ID(key, .large), RenderPriority(band: .prefetch, sequence: order)) { added += 1 }
        }
        // Visible: oldest shown first, so that the most recently shown ends with the
        // largest sequence and runs first.
        let missing = visible.filter { needsLarge(ID($0.key, .large)) }.sorted { $0.value < $1.value }
        for (key, _) in missing {
            if ensureQueued(ID(key, .large), nil) { added += 1 }
        }
        return added
    }

    /// Whether `id` must be queued or re-banded (no cached result, no failure, not running).
    private func needsLarge(_ id: ID) -> Bool {
        if cache.contains(id) || failed.contains(id) { return false }
        guard let job = jobs[id] else { return true }
        return !job.running && queue.priority(of: id)?.band != .visible
    }

    /// Queues `id` with `priority` (nil: the visible band at a fresh sequence) unless it is
    /// cached, failed, running, or already queued in that band. A queued prefetch job
    /// that became visible moves to the visible band (and vice versa); a prefetch job's
    /// rank is updated. Returns true when a new job was created.
    private mutating func ensureQueued(_ id: ID, _ priority: RenderPriority?) -> Bool {
        if cache.contains(id) || failed.contains(id) { return false }
        if let job = jobs[id] {
            if job.running { return false }
            let current = queue.priority(of: id)!
            if let priority {
                if current != priority { queue.push(id, priority) }
            } else if current.band != .visible {
                queue.push(id, RenderPriority(band: .visible, sequence: nextSequence()))
            }
            return false
        }
        jobNumber += 1
        jobs[id] = Job(number: jobNumber)
        let p = priority ?? RenderPriority(band: .visible, sequence: nextSequence())
        queue.push(id, p)
        stats.largeQueued += 1
        trace?(.queued(job: jobNumber, id: id, band: p.band))
        return true
    }

    private mutating func cancelQueued(_ id: ID) {
        guard let job = jobs[id], !job.running else { return }
        queue.remove(id)
        jobs[id] = nil
        stats.largeCancelled += 1
        trace?(.ended(job: job.number, id: id, outcome: .cancelled))
    }

    /// Cancels every queued job (shutdown).
    mutating func cancelAllQueued() {
        for id in queue.ids { cancelQueued(id) }
    }

    // MARK: Workers

    /// Takes the highest-priority job, marking it running.
    mutating func takeJob() -> (id: ID, number: UInt64)? {
        guard let id = queue.pop() else { return nil }
        jobs[id]!.running = true
        running += 1
        stats.largeStarted += 1
        let number = jobs[id]!.number
        trace?(.started(job: number, id: id))
        return (id, number)
    }

    /// Ends the running job `id` with `result`. Returns the event to send (nil when the
    /// result was dropped) and the thumbnails that left the cache (to be released outside
    /// the lock).
    mutating func finish(_ id: ID, _ result: Result<Thumbnail, ImageError>) -> (event: Event?, released: [Thumbnail]) {
        let job = jobs.removeValue(forKey: id)!
        running -= 1
        var released: [Thumbnail] = []
        let outcome: JobOutcome
        var event: Event? = nil
        switch result {
        case _ where job.abandoned:
            outcome = .discarded
            stats.largeDiscarded += 1
        case .success(let thumbnail):
            if thumbnail.byteCount > cache.budget {
                let error = ImageError(.tooLarge, "thumbnail of \(thumbnail.byteCount) B exceeds the cache budget of \(cache.budget) B")
                outcome = .failed
                failed.insert(id)
                stats.largeFailed += 1
                event = .failed(key: id.key, tier: id.tier, error: error)
            } else {
                // The large tier supersedes the small one: image(for:) never returns a
                // small thumbnail while the large is cached, so keeping both wastes budget.
                if id.tier == .large, let small = cache.remove(ID(id.key, .small)) { released.append(small) }
                for e in cache.insert(thumbnail, for: id)! {
                    if e.id.tier == .large && !e.wasUsed { stats.largeEvictedUnused += 1 }
                    released.append(e.thumbnail)
                }
                outcome = .completed
                stats.largeCompleted += 1
                event = .ready(key: id.key, tier: id.tier)
            }
        case .failure(let error):
            outcome = .failed
            failed.insert(id)
            stats.largeFailed += 1
            event = .failed(key: id.key, tier: id.tier, error: error)
        }
        trace?(.ended(job: job.number, id: id, outcome: outcome))
        return (event, released)
    }

    // MARK: Small tier and lookups

    /// The best cached thumbnail for `key` (large before small), marked used.
    mutating func useBest(_ key: Key) -> Thumbnail? {
        cache.use(ID(key, .large)) ?? cache.use(ID(key, .small))
    }

    /// Caches a small thumbnail decoded on a caller's thread, unless the large tier is
    /// cached by now. Returns the thumbnails that left the cache.
    mutating func insertSmall(_ thumbnail: Thumbnail, for key: Key) -> [Thumbnail] {
        guard !cache.contains(ID(key, .large)) else { return [] }
        guard let evicted = cache.insert(thumbnail, for: ID(key, .small)) else { return [] }
        _ = cache.use(ID(key, .small))
        return evicted.map { e in
            if e.id.tier == .large && !e.wasUsed { stats.largeEvictedUnused += 1 }
            return e.thumbnail
        }
    }

    /// Forgets `key`: both tiers leave the cache and a failure is forgotten, so the next
    /// request decodes again. A queued or running job is left alone.
    mutating func forget(_ key: Key) -> [Thumbnail] {
        failed.remove(ID(key, .small))
        failed.remove(ID(key, .large))
        return ThumbnailTier.allCases.compactMap { cache.remove(ID(key, $0)) }
    }

    /// Empties the cache and forgets all failures.
    mutating func forgetAll() {
        failed.removeAll()
        cache.removeAll()
    }

    var snapshot: RendererStatistics {
        var s = stats
        s.queued = queue.count
        s.running = running
        s.cacheBytes = cache.byteCount
        s.cacheHighWaterMark = cache.highWaterMark
        s.largeUnusedInCache = cache.unusedCount(tier: .large)
        return s
    }

    /// The idle waiters to resume, if the renderer is idle now.
    mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
        guard isIdle, !idleWaiters.isEmpty else { return [] }
        defer { idleWaiters = [] }
        return idleWaiters
    }
}
