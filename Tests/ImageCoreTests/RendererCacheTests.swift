import Testing
@testable import ImageCore

/// The byte-bounded LRU cache on its own, and the renderer's use of it: exact bytes,
/// eviction order, handles that outlive eviction, no copy on read.
@Suite struct RendererCacheTests {
    typealias ID = ThumbnailID<Int>

    func thumbnail(side: Int, value: UInt8 = 0) throws -> Thumbnail {
        var p = try PixelBuffer(width: side, height: side, format: .gray8)
        try p.fill([value])
        return Thumbnail(tier: .large, pixels: p)
    }

    @Test func evictsLeastRecentlyUsedFirst() throws {
        let t = try thumbnail(side: 10)                        // 64 × 10 = 640 bytes
        #expect(t.byteCount == 640)
        var cache = ThumbnailCache<Int>(budget: 3 * 640)
        for k in 1...3 {
            let evicted = cache.insert(try thumbnail(side: 10), for: ID(k, .large))
            #expect(evicted?.isEmpty == true)
        }
        #expect(cache.idsByRecency == [ID(3, .large), ID(2, .large), ID(1, .large)])
        let used = cache.use(ID(1, .large))                   // 1 becomes the most recent
        #expect(used != nil)
        #expect(cache.peek(ID(2, .large)) != nil)              // peek does not reorder
        let inserted = cache.insert(try thumbnail(side: 10), for: ID(4, .large))
        let evicted = try #require(inserted)
        #expect(evicted.map(\.id) == [ID(2, .large)])
        #expect(evicted[0].wasUsed == false)
        #expect(cache.idsByRecency == [ID(4, .large), ID(1, .large), ID(3, .large)])
        let inserted5 = cache.insert(try thumbnail(side: 10), for: ID(5, .large))
        let next = try #require(inserted5)
        #expect(next.map(\.id) == [ID(3, .large)])
        #expect(cache.byteCount == 3 * 640)
    }

    @Test func accountsExactBytesAcrossSizesReplacementAndRemoval() throws {
        var cache = ThumbnailCache<Int>(budget: 100_000)
        let sizes = [1, 7, 64, 65, 20]                          // strides 64, 64, 64, 128, 64
        var expected = 0
        for (k, side) in sizes.enumerated() {
            let t = try thumbnail(side: side)
            let direct = try PixelBuffer(width: side, height: side, format: .gray8).byteCount
            #expect(t.byteCount == direct)
            cache.insert(t, for: ID(k, .small))
            expected += direct
            #expect(cache.byteCount == expected)
        }
        #expect(expected == 64 * 1 + 64 * 7 + 64 * 64 + 128 * 65 + 64 * 20)
        // Replacing an entry swaps its bytes; it is not reported as evicted.
        let replaced = cache.insert(try thumbnail(side: 1), for: ID(2, .small))
        #expect(replaced?.isEmpty == true)
        expected += 64 - 64 * 64
        #expect(cache.byteCount == expected)
        let removed = cache.remove(ID(3, .small))
        #expect(removed?.byteCount == 65 * 128)
        expected -= 65 * 128
        #expect(cache.byteCount == expected)
        let again = cache.remove(ID(3, .small))
        #expect(again == nil)
        #expect(cache.count == 4)
        #expect(cache.highWaterMark == 64 * 1 + 64 * 7 + 64 * 64 + 128 * 65 + 64 * 20)
    }

    @Test func evictsAsManyAsNeededAndRefusesWhatCannotFit() throws {
        var cache = ThumbnailCache<Int>(budget: 4 * 640)
        for k in 1...4 { cache.insert(try thumbnail(side: 10), for: ID(k, .large)) }
        // 30 × 30 gray: stride 64 × 30 rows = 1920 bytes = three small ones.
        let big = try thumbnail(side: 30)
        #expect(big.byteCount == 1920)
        let inserted = cache.insert(big, for: ID(9, .large))
        let evicted = try #require(inserted)
        #expect(evicted.map(\.id) == [ID(1, .large), ID(2, .large), ID(3, .large)])
        #expect(cache.byteCount == 1920 + 640)
        // Larger than the whole budget: not inserted, nothing evicted.
        let refused = cache.insert(try thumbnail(side: 60), for: ID(10, .large))
        #expect(refused == nil)
        #expect(cache.count == 2)
        #expect(cache.byteCount <= cache.budget)
    }

    @Test func aHeldHandleOutlivesEvictionButStopsCounting() throws {
        var cache = ThumbnailCache<Int>(budget: 640)
        let (held, usage) = try PixelAllocator.measure { () throws -> Thumbnail in
            let held = try thumbnail(side: 10, value: 77)
            cache.insert(held, for: ID(1, .large))
            cache.insert(try thumbnail(side: 10, value: 1), for: ID(2, .large))  // evicts 1
            return held
        }
        #expect(!cache.contains(ID(1, .large)))
        #expect(cache.byteCount == 640)                        // only item 2 counts
        #expect(usage.liveBytes == 2 * 640)                    // but 1 is still allocated: we hold it
        held.withPixelBuffer { p in p.withPlane(0) { span in #expect(span[0] == 77 && span[9 * 64 + 9] == 77) } }
    }

    @Test func rendererHandlesOutliveEvictionAndReadsDoNotCopy() throws {
        let rig = Rig(budget: 2 * Rig.bytes(.large))
        rig.renderer.setVisible([1, 2])
        rig.drain()
        let held = try rig.renderer.image(for: 1)
        #expect(held.tier == .large)
        // Reading cached thumbnails, by handle or by borrow, allocates no pixel memory.
        let (_, reads) = try PixelAllocator.measure {
            for _ in 0..<100 {
                _ = try rig.renderer.image(for: 2)
                try rig.renderer.withImage(for: 1) { pixels, tier in
                    #expect(tier == .large)
                    pixels.withPlane(0) { #expect($0[0] == TestDecoder.value(1)) }
                }
            }
        }
        #expect(reads.allocations == 0)
        // Items 3 and 4 push 1 and 2 out while we hold 1.
        rig.renderer.setVisible([3, 4])
        rig.drain()
        let s = rig.renderer.statistics
        #expect(s.cacheBytes == 2 * Rig.bytes(.large))
        #expect(rig.renderer.cachedImage(for: 1) == nil)
        held.withPixelBuffer { p in
            #expect(p.width == Rig.large)
            p.withPlane(0) { #expect($0[0] == TestDecoder.value(1)) }
        }
    }

    @Test func theLargeTierReplacesTheSmallOneAndIsPreferred() throws {
        let rig = Rig()
        let small = try rig.renderer.image(for: 5)             // miss: decoded here
        #expect(small.tier == .small)
        #expect(small.width == Rig.small)
        #expect(rig.renderer.statistics.cacheBytes == Rig.bytes(.small))
        #expect(try rig.renderer.image(for: 5) === small)       // hit: same object
        #expect(rig.renderer.statistics.smallDecodes == 1)
        rig.renderer.setVisible([5])
        rig.drain()
        let large = try rig.renderer.image(for: 5)
        #expect(large.tier == .large)
        #expect(rig.renderer.statistics.cacheBytes == Rig.bytes(.large))  // small dropped
        #expect(rig.decoder.calls.map(\.maxPixelSize) == [Rig.small, Rig.large])
    }

    @Test func theCacheNeverExceedsItsBudgetUnderChurn() throws {
        let budget = 5 * Rig.bytes(.large) + 3 * Rig.bytes(.small) + 17
        let rig = Rig(budget: budget)
        for start in stride(from: 0, to: 200, by: 3) {
            for k in start..<start + 4 { _ = try rig.renderer.image(for: k) }
            rig.renderer.setVisible(Array(start..<start + 4))
            rig.drain()
            let s = rig.renderer.statistics
            #expect(s.cacheBytes <= budget)
        }
        let s = rig.renderer.statistics
        #expect(s.cacheHighWaterMark <= budget)
        #expect(s.cacheHighWaterMark > budget - Rig.bytes(.large))   // the budget was actually used
    }

    @Test func clearingForgetsImagesAndFailures() throws {
        let rig = Rig(decoder: TestDecoder(failing: [3]))
        rig.renderer.setVisible([1, 3])
        rig.drain()
        #expect(rig.renderer.statistics.largeFailed == 1)
        rig.renderer.setVisible([1, 3])
        #expect(!rig.renderer.runNextJob())                    // a failed item is not retried
        rig.renderer.removeCachedImages(for: 3)
        rig.renderer.setVisible([1, 3])
        #expect(rig.renderer.runNextJob())                     // …until it is forgotten
        rig.renderer.removeAllCachedImages()
        #expect(rig.renderer.statistics.cacheBytes == 0)
        #expect(rig.renderer.cachedImage(for: 1) == nil)
    }
}
