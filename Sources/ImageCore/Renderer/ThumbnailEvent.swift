/// What the renderer reports on ``ThumbnailRenderer/events``: one event per finished
/// background job, exactly once.
public enum ThumbnailEvent<Key: Hashable & Sendable>: Sendable {
    /// A thumbnail of `tier` for `key` was decoded and is now in the cache: ask for it
    /// with ``ThumbnailRenderer/image(for:)`` (which also marks it as shown).
    ///
    /// The event carries no pixels on purpose: events are buffered until read, and a
    /// buffered handle would keep pixel memory alive outside the cache budget.
    case ready(key: Key, tier: ThumbnailTier)
    /// Decoding `key` at `tier` failed (bytes unreadable, corrupt data, a thumbnail larger
    /// than the whole cache budget…). The renderer does not retry it until
    /// ``ThumbnailRenderer/removeCachedImages(for:)`` is called for the key.
    case failed(key: Key, tier: ThumbnailTier, error: ImageError)

    /// The item the event is about.
    public var key: Key {
        switch self {
        case .ready(let key, _), .failed(let key, _, _): key
        }
    }

    /// The tier the event is about.
    public var tier: ThumbnailTier {
        switch self {
        case .ready(_, let tier), .failed(_, let tier, _): tier
        }
    }
}

/// Counters of what the renderer did since it was created, for tests, benchmarks and
/// diagnostics. A snapshot: ``ThumbnailRenderer/statistics`` takes it under the lock, so
/// the figures are consistent with each other.
///
/// Every background job ends exactly once, so once the renderer is idle
/// `largeQueued == largeCancelled + largeStarted` and
/// `largeStarted == largeCompleted + largeDiscarded + largeFailed`.
public struct RendererStatistics: Sendable, Hashable {
    /// Small-tier decodes run on callers' threads.
    public var smallDecodes = 0
    /// Small-tier requests that waited for another caller's decode of the same item
    /// instead of decoding it a second time.
    public var smallCoalesced = 0
    /// Small-tier decodes that failed (the error was thrown to the caller).
    public var smallFailed = 0
    /// Large-tier jobs put in the queue.
    public var largeQueued = 0
    /// Large-tier jobs removed from the queue before they started (item left the visible
    /// and prefetch ranges, the scroll became fast, or the renderer shut down).
    public var largeCancelled = 0
    /// Large-tier jobs a worker started.
    public var largeStarted = 0
    /// Large-tier jobs that finished and went into the cache (one ``ThumbnailEvent/ready(key:tier:)`` each).
    public var largeCompleted = 0
    /// Large-tier jobs that finished after their item had left the visible and prefetch
    /// ranges: the result was dropped.
    public var largeDiscarded = 0
    /// Large-tier jobs that failed (one ``ThumbnailEvent/failed(key:tier:error:)`` each).
    public var largeFailed = 0
    /// Large thumbnails evicted from the cache without ever having been returned by
    /// ``ThumbnailRenderer/image(for:)``.
    public var largeEvictedUnused = 0
    /// Large thumbnails in the cache now that were never returned by ``ThumbnailRenderer/image(for:)``.
    public var largeUnusedInCache = 0
    /// Jobs waiting in the queue now.
    public var queued = 0
    /// Jobs being decoded now.
    public var running = 0
    /// Bytes the cache holds now.
    public var cacheBytes = 0
    /// The most bytes the cache has held.
    public var cacheHighWaterMark = 0
    /// The cache budget in bytes.
    public var cacheBudget = 0

    public init() {}
}
