#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The renderer's notion of "now", in seconds: injectable so that tests and simulations
/// decide how time passes.
///
/// The renderer reads it only to judge whether the scroll has gone idle (no offset for
/// ``ThumbnailRenderer/Configuration/idleInterval``) and to timestamp
/// ``ThumbnailRenderer/scrolled(to:)``. Its epoch is arbitrary but must be the one of the
/// timestamps passed to ``ThumbnailRenderer/scrolled(to:at:)``.
public struct RendererClock: Sendable {
    /// Returns the current time in seconds.
    public let now: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Double) { self.now = now }

    /// The system's monotonic clock (`CLOCK_MONOTONIC`). A host that passes display-link
    /// timestamps to ``ThumbnailRenderer/scrolled(to:at:)`` should inject the clock those
    /// come from instead (on Apple platforms, `CACurrentMediaTime`).
    public static let monotonic = RendererClock {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
