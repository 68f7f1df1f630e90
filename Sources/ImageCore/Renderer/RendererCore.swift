import Dispatch

/// The renderer's shared machinery: the state under its lock, the decoder and data source,
/// the worker threads and the event stream. Workers hold the core, not the public
/// ``ThumbnailRenderer``, so dropping the last reference to the renderer stops them.
final class RendererCore<Key: Hashable & Sendable>: Sendable {
    typealias ID = ThumbnailID<Key>
    typealias Event = ThumbnailEvent<Key>

    let configuration: ThumbnailRenderer<Key>.Configuration
    let source: any ThumbnailDataSource<Key>
    let decoder: any ThumbnailDecoder
    let state: PosixMutex<RendererState<Key>>
    /// One permit per queued job (and one per worker at shutdown). Permits left over by
    /// cancelled jobs only cause a wake-up that finds the queue empty.
    let wakeup = DispatchSemaphore(value: 0)
    /// Signalled by each worker as it exits.
    let exited = DispatchSemaphore(value: 0)
    let continuation: AsyncStream<Event>.Continuation

    init(source: any ThumbnailDataSource<Key>, decoder: any ThumbnailDecoder,
         configuration: ThumbnailRenderer<Key>.Configuration,
         continuation: AsyncStream<Event>.Continuation) {
        self.configuration = configuration
        self.source = source
        self.decoder = decoder
        self.continuation = continuation
        self.state = PosixMutex(RendererState(
            cacheBudget: configuration.cacheBudget,
            velocity: ScrollVelocity(window: configuration.velocityWindow, idleInterval: configuration.idleInterval),
            threshold: configuration.velocityThreshold,
            trace: configuration.trace))
    }

    var now: Double { configuration.clock.now() }

    func pixelSize(_ tier: ThumbnailTier) -> Int {
        tier == .small ? configuration.smallPixelSize : configuration.largePixelSize
    }

    private enum Step { case exit, idle, job(ID) }
    private enum Plan { case hit(Thumbnail), wait(SmallDecode), decode(SmallDecode) }

    // MARK: Workers

    func startWorkers() {
        let count = configuration.workerCount
        state.withLock { $0.liveWorkers = count }
        for i in 0..<count where !WorkerThreads.start(name: "ic-thumbs-\(i)", { [self] in workerLoop() }) {
            state.withLock { $0.liveWorkers -= 1 }
        }
    }

    private func workerLoop() {
        while true {
            wakeup.wait()
            let step = state.withLock { s -> Step in
                if s.stopped { return .exit }
                guard let (id, _) = s.takeJob() else { return .idle }
                return .job(id)
            }
            switch step {
            case .exit:
                let last = state.withLock { s -> Bool in
                    s.liveWorkers -= 1
                    return s.takeFinish()
                }
                if last { continuation.finish() }
                exited.signal()
                return
            case .idle:
                continue
            case .job(let id):
                execute(id)
            }
        }
    }

    /// Runs the highest-priority queued job on the calling thread.
    func runNextJob() -> Bool {
        guard let id = state.withLock({ s in s.stopped ? nil : s.takeJob()?.id }) else { return false }
        execute(id)
        return true
    }

    /// Decodes outside the lock, then records the result under it.
    private func execute(_ id: ID) {
        let result = decode(id)
        let (event, waiters, finish, released) = state.withLock { s in
            let (event, released) = s.finish(id, result)
            return (event, s.takeIdleWaiters(), s.takeFinish(), released)
        }
        if let event { continuation.yield(event) }
        if finish { continuation.finish() }
        for w in waiters { w.resume() }
        _ = released  // thumbnails that left the cache are freed here, outside the lock
    }

    /// Fetches the bytes and decodes `id`, checking the decoder's size contract.
    func decode(_ id: ID) -> Result<Thumbnail, ImageError> {
        let size = pixelSize(id.tier)
        return Result(catching: { () throws(ImageError) -> Thumbnail in
            var warnings = JPEG.Warnings()
            let pixels = try source.withEncodedBytes(for: id.key, tier: id.tier) { bytes throws(ImageError) -> PixelBuffer in
                try decoder.thumbnail(from: bytes, maxPixelSize: size, warnings: &warnings)
            }
            guard max(pixels.width, pixels.height) <= size else {
                throw ImageError(.internalError, "decoder returned \(pixels.width)x\(pixels.height) for at most \(size) px")
            }
            return Thumbnail(tier: id.tier, pixels: pixels, warnings: warnings)
        })
    }

    // MARK: Mutations that may queue jobs

    /// Runs `body` under the lock, then wakes one worker per job queued and resumes idle
    /// waiters.
    func mutate(_ body: (inout RendererState<Key>) -> Int) {
        let (added, waiters) = state.withLock { s in
            let added = body(&s)
            return (added, s.takeIdleWaiters())
        }
        for _ in 0..<added { wakeup.signal() }
        for w in waiters { w.resume() }
    }

    // MARK: Small tier

    /// The best cached thumbnail, or a small one decoded on this thread (coalesced with a
    /// decode of the same item already running on another thread).
    func image(for key: Key) throws(ImageError) -> Thumbnail {
        let plan = state.withLock { s -> Plan in
            if let t = s.useBest(key) { return .hit(t) }
            if let entry = s.smallInFlight[key] {
                s.smallInFlight[key]!.waiters += 1
                s.stats.smallCoalesced += 1
                return .wait(entry.decode)
            }
            let d = SmallDecode()
            s.smallInFlight[key] = (d, 0)
            return .decode(d)
        }
        switch plan {
        case .hit(let t):
            return t
        case .wait(let d):
            return try d.wait().get()
        case .decode(let d):
            let result = decode(ID(key, .small))
            let (waiters, released) = state.withLock { s in
                let waiters = s.smallInFlight.removeValue(forKey: key)!.waiters
                var released: [Thumbnail] = []
                switch result {
                case .success(let t):
                    s.stats.smallDecodes += 1
                    released = s.insertSmall(t, for: key)
                case .failure:
                    s.stats.smallFailed += 1
                }
                return (waiters, released)
            }
            d.publish(result, waiters: waiters)
            _ = released
            return try result.get()
        }
    }

    // MARK: Shutdown

    /// Stops the workers after their current job; cancels queued jobs. With `wait`, returns
    /// once every worker has exited (must not be called from a worker, i.e. from the
    /// decoder or the data source).
    func stop(wait: Bool) {
        let (first, workers, finish, waiters) = state.withLock { s in
            let first = !s.stopped
            s.stopped = true
            s.cancelAllQueued()
            return (first, s.liveWorkers, s.takeFinish(), s.takeIdleWaiters())
        }
        guard first else { return }
        for _ in 0..<workers { wakeup.signal() }
        if finish { continuation.finish() }
        for w in waiters { w.resume() }
        if wait { for _ in 0..<workers { exited.wait() } }
    }
}

extension RendererState {
    /// True exactly once: when the renderer is stopped and no worker or job is left, so
    /// that no event can follow and the stream can finish.
    mutating func takeFinish() -> Bool {
        guard stopped, !finished, liveWorkers == 0, running == 0 else { return false }
        finished = true
        return true
    }
}
