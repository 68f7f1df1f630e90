import Testing
@testable import ImageCore

/// The large-tier queue: newest first, removal on leaving the range, coalescing, prefetch
/// below visible. No worker threads: the tests step the queue with `runNextJob()`.
@Suite struct RendererQueueTests {
    @Test func newestRequestRunsFirst() {
        let rig = Rig()
        rig.renderer.setVisible([1])
        rig.renderer.setVisible([1, 2])
        rig.renderer.setVisible([1, 2, 3])
        rig.renderer.setVisible([1, 2, 3, 4])
        #expect(rig.drain() == 4)
        #expect(rig.decoder.keys(.large) == [4, 3, 2, 1])
        #expect(rig.decoder.calls.allSatisfy { $0.maxPixelSize == Rig.large })
    }

    @Test func aRequestArrivingMidQueueJumpsAhead() {
        let rig = Rig()
        rig.renderer.setVisible([1, 2])
        #expect(rig.renderer.runNextJob())          // 2 (newest of the batch)
        rig.renderer.setVisible([1, 2, 3])          // 3 arrives while 1 still waits
        rig.drain()
        #expect(rig.decoder.keys(.large) == [2, 3, 1])
    }

    @Test func scrollingDownQueuesTheLeadingEdgeFirst() {
        let rig = Rig()
        rig.renderer.setItems(Array(0..<100))
        rig.renderer.setVisibleRange(0..<3)
        rig.drain()
        rig.renderer.setVisibleRange(3..<9)          // rows 1 and 2 appear at once
        rig.drain()
        #expect(rig.decoder.keys(.large) == [2, 1, 0, 8, 7, 6, 5, 4, 3])
    }

    @Test func itemsLeavingTheRangeAreRemovedBeforeTheyStart() {
        let rig = Rig()
        rig.renderer.setVisible([1, 2, 3, 4])
        rig.renderer.setVisible([2, 4])
        #expect(rig.drain() == 2)
        #expect(rig.decoder.keys(.large) == [4, 2])
        let s = rig.renderer.statistics
        #expect(s.largeQueued == 4)
        #expect(s.largeCancelled == 2)
        #expect(s.largeCompleted == 2)
        #expect(rig.renderer.cachedImage(for: 1)?.tier != .large)
    }

    @Test func aResultFinishingAfterItsItemLeftIsIgnored() async {
        let rig = Rig()
        // Mid-decode of item 1, the item scrolls away.
        rig.decoder.onDecode { call in if call.key == 1 { rig.renderer.setVisible([9]) } }
        rig.renderer.setVisible([1])
        #expect(rig.renderer.runNextJob())
        #expect(rig.renderer.cachedImage(for: 1) == nil)
        let s = rig.renderer.statistics
        #expect(s.largeDiscarded == 1)
        #expect(s.largeCompleted == 0)
        rig.drain()                                  // item 9
        let events = await rig.events()
        #expect(events.map(\.key) == [9])
    }

    @Test func anItemThatComesBackWhileRunningKeepsItsResult() async {
        let rig = Rig()
        rig.decoder.onDecode { call in
            if call.key == 1 {
                rig.renderer.setVisible([9])
                rig.renderer.setVisible([1, 9])      // back before the decode ends
            }
        }
        rig.renderer.setVisible([1])
        #expect(rig.renderer.runNextJob())
        #expect(rig.renderer.cachedImage(for: 1)?.tier == .large)
        rig.drain()
        #expect(rig.decoder.keys(.large).filter { $0 == 1 }.count == 1)  // not queued twice
        let s = rig.renderer.statistics
        #expect(s.largeDiscarded == 0)
        #expect(s.largeCompleted == 2)
    }

    @Test func theSameItemIsNeverQueuedOrDecodedTwiceAtOnce() {
        let rig = Rig()
        // While item 1 decodes, every call that could queue it again is made.
        rig.decoder.onDecode { call in
            guard call.key == 1 else { return }
            rig.renderer.setVisible([1])
            rig.renderer.setVisible([2, 1])
            rig.renderer.refresh()
            rig.renderer.scrolled(to: 0, at: 0)
        }
        rig.renderer.setVisible([1])
        rig.renderer.setVisible([1])                 // already queued: no second job
        #expect(rig.renderer.statistics.largeQueued == 1)
        rig.drain()
        #expect(rig.decoder.keys(.large).sorted() == [1, 2])
        #expect(rig.renderer.statistics.largeQueued == 2)
        // Cached now: asking again queues nothing.
        rig.renderer.setVisible([3])
        rig.renderer.setVisible([1, 2])
        #expect(rig.renderer.statistics.largeQueued == 3)  // only item 3, cancelled again
        #expect(rig.renderer.statistics.largeCancelled == 1)
    }

    @Test func prefetchRunsAfterVisibleAheadOfADownwardScrollNearestFirst() {
        let rig = Rig(prefetch: 3)
        rig.renderer.setItems(Array(0..<30))
        rig.renderer.scrolled(to: 100, at: 0.0)
        rig.renderer.scrolled(to: 105, at: 0.016)     // slowly downwards (~300 units/s)
        rig.clock.set(0.016)
        rig.renderer.setVisibleRange(10..<13)
        rig.drain()
        #expect(rig.decoder.keys(.large) == [12, 11, 10, 13, 14, 15])
        #expect(rig.trace.all.allSatisfy {
            if case .queued(_, let id, let band) = $0 { return (band == .visible) == (10..<13).contains(id.key) }
            return true
        })
    }

    @Test func prefetchAheadOfAnUpwardScrollRunsAboveNearestFirst() {
        let rig = Rig(prefetch: 2)
        rig.renderer.setItems(Array(0..<30))
        rig.renderer.scrolled(to: 100, at: 0.0)
        rig.renderer.scrolled(to: 95, at: 0.016)      // slowly upwards (~300 units/s)
        rig.clock.set(0.016)
        #expect(rig.renderer.velocity < 0)
        #expect(!rig.renderer.isScrollingFast)
        rig.renderer.setVisibleRange(10..<13)
        rig.drain()
        // Upwards, the lowest index is the newest; prefetch goes above only.
        #expect(rig.decoder.keys(.large) == [10, 11, 12, 9, 8])
    }

    @Test func atRestNothingIsPrefetchedUnlessAsked() {
        let rig = Rig(prefetch: 3)
        rig.renderer.setItems(Array(0..<30))
        rig.renderer.setVisibleRange(10..<13)         // no scroll reported: at rest
        rig.drain()
        #expect(rig.decoder.keys(.large) == [12, 11, 10])

        let both = Rig(prefetch: 3) { $0.prefetchAtRest = true }
        both.renderer.setItems(Array(0..<30))
        both.renderer.setVisibleRange(10..<13)
        both.drain()
        #expect(both.decoder.keys(.large) == [12, 11, 10, 13, 9, 14, 8, 15, 7])
    }

    @Test func prefetchJobsThatLeaveTheWindowAreCancelled() {
        let rig = Rig(prefetch: 3)
        rig.renderer.setItems(Array(0..<30))
        rig.renderer.scrolled(to: 100, at: 0.0)
        rig.renderer.scrolled(to: 105, at: 0.016)
        rig.clock.set(0.016)
        rig.renderer.setVisibleRange(10..<13)         // queues 10-12 and prefetch 13-15
        #expect(rig.renderer.statistics.queued == 6)
        rig.renderer.scrolled(to: 105, at: 0.1)       // stopped: no prefetch at rest
        rig.clock.set(0.1)
        rig.renderer.setVisibleRange(10..<13)
        #expect(rig.renderer.statistics.queued == 3)
        #expect(rig.renderer.statistics.largeCancelled == 3)
        rig.drain()
        #expect(rig.decoder.keys(.large) == [12, 11, 10])
    }

    @Test func aPrefetchedItemThatBecomesVisibleJumpsAheadOfPrefetch() {
        let rig = Rig()
        rig.renderer.setVisible([1], prefetch: [5, 6, 7])
        rig.renderer.setVisible([1, 7], prefetch: [5, 6])
        rig.drain()
        #expect(rig.decoder.keys(.large) == [7, 1, 5, 6])
        #expect(rig.renderer.statistics.largeQueued == 4)   // 7 moved bands, not re-queued
    }

    @Test func aVisibleItemThatMovesToPrefetchDropsBelowVisible() {
        let rig = Rig()
        rig.renderer.setVisible([1, 2])
        rig.renderer.setVisible([1, 3], prefetch: [2])
        rig.drain()
        #expect(rig.decoder.keys(.large) == [3, 1, 2])
    }

    @Test func runNextJobOnAnEmptyQueueReturnsFalse() {
        let rig = Rig()
        #expect(!rig.renderer.runNextJob())
        rig.renderer.setVisible([])
        #expect(!rig.renderer.runNextJob())
        #expect(rig.decoder.calls.isEmpty)
    }
}
