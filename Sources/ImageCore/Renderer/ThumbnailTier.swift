/// The two resolutions the renderer keeps for an item.
///
/// The *small* tier (default 75 px on the long side) is cheap enough to decode on the
/// caller's thread while a cell appears, so a cell is never empty; the *large* tier
/// (default 256 px) is sharp enough to look right and is decoded on background workers,
/// only while the user can actually see the result. The pixel sizes are set in
/// ``ThumbnailRenderer/Configuration``.
public enum ThumbnailTier: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Decoded synchronously when a cell appears and nothing better is cached.
    case small = 0
    /// Decoded on the background workers.
    case large = 1

    public static func < (a: ThumbnailTier, b: ThumbnailTier) -> Bool { a.rawValue < b.rawValue }

    public var description: String { self == .small ? "small" : "large" }
}

/// An item key together with a tier: what the cache and the job queue are keyed by.
public struct ThumbnailID<Key: Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The item.
    public var key: Key
    /// The resolution.
    public var tier: ThumbnailTier

    public init(_ key: Key, _ tier: ThumbnailTier) {
        self.key = key
        self.tier = tier
    }

    public var description: String { "\(key)/\(tier)" }
}
