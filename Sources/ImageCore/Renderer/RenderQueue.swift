/// Where a queued job stands: visible items before prefetch, then newest request first.
///
/// Ordered so that the *greatest* priority runs first.
struct RenderPriority: Comparable, Sendable {
    enum Band: Int, Sendable { case prefetch = 0, visible = 1 }
    /// Visible items always go before prefetched ones.
    var band: Band
    /// A renderer-wide increasing counter taken when the job was (re)queued: the newest
    /// request has the largest value, so it runs first (LIFO, as in Carousel: "new
    /// thumbnails will queue at the beginning since it's most urgent to decode them").
    var sequence: UInt64

    static func < (a: RenderPriority, b: RenderPriority) -> Bool {
        a.band != b.band ? a.band.rawValue < b.band.rawValue : a.sequence < b.sequence
    }
}

/// A priority queue of pending jobs with removal and re-prioritising by ID: a binary max-heap
/// with a position index, so push, pop, remove and update are all O(log n).
struct RenderQueue<ID: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable { var id: ID; var priority: RenderPriority }
    private var heap: [Entry] = []
    private var position: [ID: Int] = [:]

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    func contains(_ id: ID) -> Bool { position[id] != nil }
    func priority(of id: ID) -> RenderPriority? { position[id].map { heap[$0].priority } }

    /// Adds `id`, or changes its priority if it is already queued.
    mutating func push(_ id: ID, _ priority: RenderPriority) {
        if let i = position[id] {
            let old = heap[i].priority
            heap[i].priority = priority
            if priority > old { siftUp(i) } else { siftDown(i) }
            return
        }
        heap.append(Entry(id: id, priority: priority))
        position[id] = heap.count - 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the highest-priority ID.
    mutating func pop() -> ID? {
        guard let top = heap.first else { return nil }
        removeAt(0)
        return top.id
    }

    /// Removes `id`; returns whether it was queued.
    @discardableResult
    mutating func remove(_ id: ID) -> Bool {
        guard let i = position[id] else { return false }
        removeAt(i)
        return true
    }

    /// The queued IDs, highest priority first (O(n log n); for inspection and tests).
    var orderedIDs: [ID] { heap.sorted { $0.priority > $1.priority }.map(\.id) }

    /// Every queued ID, in no particular order.
    var ids: [ID] { heap.map(\.id) }

    mutating func removeAll() {
        heap.removeAll()
        position.removeAll()
    }

    private mutating func removeAt(_ i: Int) {
        let last = heap.count - 1
        position[heap[i].id] = nil
        if i != last {
            heap[i] = heap[last]
            position[heap[i].id] = i
        }
        heap.removeLast()
        if i < heap.count {
            siftUp(i)
            siftDown(i)
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        position[heap[a].id] = a
        position[heap[b].id] = b
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].priority > heap[parent].priority else { return }
            swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count, heap[l].priority > heap[best].priority { best = l }
            if r < heap.count, heap[r].priority > heap[best].priority { best = r }
            if best == i { return }
            swapAt(i, best)
            i = best
        }
    }
}
