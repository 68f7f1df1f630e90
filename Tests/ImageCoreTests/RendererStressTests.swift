import Dispatch
import Testing
@testable import ImageCore

/// 10 000 random requests, visibility changes, scrolls and cancellations against two real
/// workers, plus 2 000 requests from a second thread at the same time. Every job must end exactly once, every small
/// request must return or throw exactly once, no item and tier may be decoded twice at
/// once, and the cache must never exceed its budget.
@Suite struct RendererStressTests {
    @Test func everyRequestEndsExactlyOnceAndTheCacheStaysInBudget() async throws {
        let seed: UInt64 = 1
        let itemCount = 400
        let failing: Set<Int> = [7, 77, 177, 377]
        let budget = 12 * Rig.bytes(.large) + 5 * Rig.bytes(.small) + 100
        let rig = Rig(workers: 2, budget: budget, prefetch: 4,
                      decoder: TestDecoder(failing: failing, spinMicroseconds: 0))
        let renderer = rig.renderer
        renderer.setItems(Array(0..<itemCount))

        // A second thread asks for images of random items meanwhile.
        let other = PosixMutex((returned: 0, threw: 0, asked: 0))
        let helper = onThread {
            var rng = SplitMix64(seed: seed &+ 100)
            for _ in 0..<2_000 {
                let key = Int(rng.next() % UInt64(itemCount))
                other.withLock { $0.asked += 1 }
                do throws(ImageError) {
                    let t = try renderer.image(for: key)
                    precondition(t.width <= Rig.large)
                    other.withLock { $0.returned += 1 }
                } catch {
                    other.withLock { $0.threw += 1 }
                }
            }
        }

        var rng = SplitMix64(seed: seed)
        var offset = 0.0
        var asked = 0, returned = 0, threw = 0, maxCacheBytes = 0
        for step in 0..<10_000 {
            let roll = rng.next() % 100
            let key = Int(rng.next() % UInt64(itemCount))
            switch roll {
            case 0..<30:
                let length = Int(rng.next() % 15) + 1
                renderer.setVisibleRange(key..<key + length)
            case 30..<40:
                let visible = (0..<Int(rng.next() % 8)).map { _ in Int(rng.next() % UInt64(itemCount)) }
                let prefetch = (0..<Int(rng.next() % 8)).map { _ in Int(rng.next() % UInt64(itemCount)) }
                renderer.setVisible(visible, prefetch: prefetch)
            case 40..<62:
                // Scroll at a random speed: some frames are fast (gate closes), some slow.
                rig.clock.advance(by: 1.0 / 60)
                offset += Double(Int(rng.next() % 4000) - 2000) / 60
                renderer.scrolled(to: offset, at: rig.clock.now)
            case 62..<90:
                asked += 1
                do throws(ImageError) {
                    _ = try renderer.image(for: key)
                    returned += 1
                } catch {
                    #expect(failing.contains(key))
                    threw += 1
                }
            case 90..<94:
                renderer.removeCachedImages(for: key)
            case 94..<97:
                renderer.runNextJob()                            // the test thread helps
            default:
                renderer.setVisible([])                          // everything scrolls away
            }
            // The cache's own high-water mark is checked below; this samples it from outside.
            if step % 16 == 0 { maxCacheBytes = max(maxCacheBytes, renderer.statistics.cacheBytes) }
        }
        helper.wait()
        await renderer.waitUntilIdle()
        let s = renderer.statistics
        let events = await rig.events()

        // Small requests: each returned or threw, once.
        #expect(returned + threw == asked)
        let o = other.withLock { $0 }
        #expect(o.returned + o.threw == o.asked && o.asked == 2_000)

        // Large jobs: each queued once and ended once; started iff not cancelled.
        var queued: [UInt64: Int] = [:], started: [UInt64: Int] = [:]
        var ended: [UInt64: [JobOutcome]] = [:]
        for record in rig.trace.all {
            switch record {
            case .queued(let job, _, _): queued[job, default: 0] += 1
            case .started(let job, _):
                #expect(queued[job] == 1 && ended[job] == nil)
                started[job, default: 0] += 1
            case .ended(let job, _, let outcome):
                #expect(queued[job] == 1)
                ended[job, default: []].append(outcome)
            }
        }
        #expect(queued.count > 500)                              // the run exercised the queue
        #expect(queued.values.allSatisfy { $0 == 1 })
        #expect(started.values.allSatisfy { $0 == 1 })
        #expect(Set(ended.keys) == Set(queued.keys))
        #expect(ended.values.allSatisfy { $0.count == 1 })
        for (job, outcomes) in ended {
            #expect((outcomes[0] == .cancelled) == (started[job] == nil))
        }
        let outcomes = ended.values.map { $0[0] }
        let completed = outcomes.filter { $0 == .completed }.count
        let failedJobs = outcomes.filter { $0 == .failed }.count
        let cancelled = outcomes.filter { $0 == .cancelled }.count
        let discarded = outcomes.filter { $0 == .discarded }.count
        #expect(cancelled > 0 && completed > 0)

        // Events: one per completed or failed job, nothing else.
        #expect(events.filter { if case .ready = $0 { true } else { false } }.count == completed)
        #expect(events.filter { if case .failed = $0 { true } else { false } }.count == failedJobs)

        // The counters agree with the trace.
        #expect(s.largeQueued == queued.count)
        #expect(s.largeCompleted == completed && s.largeFailed == failedJobs)
        #expect(s.largeCancelled == cancelled && s.largeDiscarded == discarded)
        #expect(s.largeQueued == s.largeCancelled + s.largeStarted)
        #expect(s.largeStarted == s.largeCompleted + s.largeDiscarded + s.largeFailed)
        #expect(s.queued == 0 && s.running == 0)

        // Coalescing held throughout; the budget was never exceeded.
        #expect(rig.decoder.overlaps == 0)
        #expect(s.cacheHighWaterMark <= budget)
        #expect(maxCacheBytes <= budget)
        #expect(s.cacheHighWaterMark > budget / 2)               // and the cache was really used
    }
}
