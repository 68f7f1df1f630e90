/// A least-recently-used cache of thumbnails keyed by item and tier, bounded by the exact
/// bytes of the pixel allocations (``Thumbnail/byteCount``, i.e. ``PixelBuffer/byteCount``,
/// padding included).
///
/// Inserting evicts least-recently-used entries until the new one fits, so
/// ``byteCount`` never exceeds ``budget``. A thumbnail larger than the whole budget is not
/// inserted. Lookups that *use* an entry (``use(_:)``) move it to the front and mark it
/// used; ``peek(_:)`` and ``contains(_:)`` do neither.
///
/// The cache holds references: evicting a thumbnail a consumer still holds does not free
/// its pixels (see ``Thumbnail``), it only stops counting them.
///
/// All operations are O(1) (a hash map into a doubly linked list kept in an array).
/// Not synchronised: ``ThumbnailRenderer`` keeps it under its lock.
public struct ThumbnailCache<Key: Hashable & Sendable>: Sendable {
    public typealias ID = ThumbnailID<Key>

    /// An entry that left the cache to make room.
    public struct Eviction: Sendable {
        public let id: ID
        public let thumbnail: Thumbnail
        /// Whether ``use(_:)`` ever returned it while cached.
        public let wasUsed: Bool
    }

    private struct Node: Sendable {
        var id: ID
        var thumbnail: Thumbnail?
        var used: Bool
        var prev: Int
        var next: Int
    }

    /// The most bytes the cached thumbnails may occupy.
    public let budget: Int
    /// Bytes of the cached thumbnails now: the sum of their ``Thumbnail/byteCount``.
    public private(set) var byteCount = 0
    /// The largest ``byteCount`` ever reached.
    public private(set) var highWaterMark = 0

    private var index: [ID: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    private var head = -1   // most recently used
    private var tail = -1   // least recently used

    /// An empty cache that holds at most `budget` bytes (≥ 0).
    public init(budget: Int) {
        precondition(budget >= 0, "cache budget must be ≥ 0")
        self.budget = budget
    }

    /// Number of cached thumbnails.
    public var count: Int { index.count }

    /// Whether `id` is cached. Does not change the recency order.
    public func contains(_ id: ID) -> Bool { index[id] != nil }

    /// The cached thumbnail for `id` without touching the recency order or the used flag.
    public func peek(_ id: ID) -> Thumbnail? { index[id].flatMap { nodes[$0].thumbnail } }

    /// The cached thumbnail for `id`, made the most recently used and marked used.
    public mutating func use(_ id: ID) -> Thumbnail? {
        guard let i = index[id] else { return nil }
        nodes[i].used = true
        moveToFront(i)
        return nodes[i].thumbnail
    }

    /// Inserts (or replaces) `thumbnail` as `id`, most recently used, evicting from the least
    /// recently used end until it fits. Returns the evicted entries, least recent first
    /// (a replaced entry is not reported). When the thumbnail alone exceeds the budget it
    /// is not inserted, nothing is evicted, and the result is `nil`.
    @discardableResult
    public mutating func insert(_ thumbnail: Thumbnail, for id: ID) -> [Eviction]? {
        let bytes = thumbnail.byteCount
        guard bytes <= budget else { return nil }
        _ = remove(id)
        var evicted: [Eviction] = []
        while byteCount + bytes > budget, tail >= 0 {
            let victim = nodes[tail]
            _ = remove(victim.id)
            evicted.append(Eviction(id: victim.id, thumbnail: victim.thumbnail!, wasUsed: victim.used))
        }
        let node = Node(id: id, thumbnail: thumbnail, used: false, prev: -1, next: head)
        let i: Int
        if let f = free.popLast() { nodes[f] = node; i = f } else { nodes.append(node); i = nodes.count - 1 }
        if head >= 0 { nodes[head].prev = i }
        head = i
        if tail < 0 { tail = i }
        index[id] = i
        byteCount += bytes
        highWaterMark = max(highWaterMark, byteCount)
        return evicted
    }

    /// Removes `id`; returns its thumbnail if it was cached.
    @discardableResult
    public mutating func remove(_ id: ID) -> Thumbnail? {
        guard let i = index.removeValue(forKey: id) else { return nil }
        unlink(i)
        let t = nodes[i].thumbnail
        nodes[i].thumbnail = nil
        free.append(i)
        byteCount -= t?.byteCount ?? 0
        return t
    }

    /// Removes every entry.
    public mutating func removeAll() {
        index.removeAll()
        nodes.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        byteCount = 0
    }

    /// The cached IDs from most to least recently used.
    public var idsByRecency: [ID] {
        var out: [ID] = []
        out.reserveCapacity(count)
        var i = head
        while i >= 0 { out.append(nodes[i].id); i = nodes[i].next }
        return out
    }

    /// Number of cached entries of `tier` that ``use(_:)`` never returned.
    public func unusedCount(tier: ThumbnailTier) -> Int {
        index.values.reduce(0) { $0 + (nodes[$1].id.tier == tier && !nodes[$1].used ? 1 : 0) }
    }

    private mutating func unlink(_ i: Int) {
        let p = nodes[i].prev, n = nodes[i].next
        if p >= 0 { nodes[p].next = n } else { head = n }
        if n >= 0 { nodes[n].prev = p } else { tail = p }
        nodes[i].prev = -1
        nodes[i].next = -1
    }

    private mutating func moveToFront(_ i: Int) {
        guard head != i else { return }
        unlink(i)
        nodes[i].next = head
        if head >= 0 { nodes[head].prev = i }
        head = i
        if tail < 0 { tail = i }
    }
}
