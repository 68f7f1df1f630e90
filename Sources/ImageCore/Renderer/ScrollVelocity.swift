/// Derives the scroll velocity from timestamped scroll offsets, as a display-link callback
/// would report them (Carousel measured "the difference in scroll offset by time").
///
/// The velocity is the displacement over the last `window` seconds of samples (at least
/// the last two samples), which smooths the frame-to-frame jitter of a touch-driven
/// scroll without lagging much behind it. When no sample has arrived for `idleInterval`
/// seconds the scroll is taken to have stopped and the velocity reads 0 — a host may stop
/// reporting offsets when nothing moves.
///
/// Units are the caller's: offsets in points (or rows, or pixels), times in seconds, the
/// velocity in offset units per second. Positive means towards larger offsets.
public struct ScrollVelocity: Sendable {
    private struct Sample: Sendable { var offset: Double; var time: Double }

    /// Seconds of samples the velocity averages over.
    public let window: Double
    /// Seconds without a sample after which the velocity reads 0.
    public let idleInterval: Double
    private var samples: [Sample] = []
    private static var capacity: Int { 32 }

    public init(window: Double = 0.05, idleInterval: Double = 0.1) {
        precondition(window >= 0 && idleInterval >= 0, "window and idleInterval must be ≥ 0")
        self.window = window
        self.idleInterval = idleInterval
    }

    /// Records the offset at `time` (seconds on the renderer's clock). A sample older than
    /// the previous one is ignored; one at the same time replaces it.
    public mutating func record(offset: Double, at time: Double) {
        if let last = samples.last {
            if time < last.time { return }
            if time == last.time { samples[samples.count - 1].offset = offset; return }
        }
        samples.append(Sample(offset: offset, time: time))
        // Keep what the window needs plus one older sample, and never more than `capacity`.
        let cut = samples.lastIndex(where: { $0.time < time - window }) ?? 0
        if cut > 0 || samples.count > Self.capacity {
            samples.removeFirst(max(cut, samples.count - Self.capacity))
        }
    }

    /// The last offset recorded, if any.
    public var lastOffset: Double? { samples.last?.offset }

    /// The velocity at `now`, in offset units per second.
    public func velocity(at now: Double) -> Double {
        guard let last = samples.last, samples.count >= 2, now - last.time <= idleInterval else { return 0 }
        // The oldest sample inside the window, or the one just before the last.
        let start = samples.firstIndex(where: { $0.time >= last.time - window }) ?? samples.count - 2
        let ref = samples[min(start, samples.count - 2)]
        let dt = last.time - ref.time
        return dt > 0 ? (last.offset - ref.offset) / dt : 0
    }
}
