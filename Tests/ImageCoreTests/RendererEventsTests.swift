import Dispatch
import Testing
@testable import ImageCore

/// Events, worker threads, small-tier coalescing across threads, and shutdown.
@Suite struct RendererEventsTests {
    @Test func eachFinishedJobSendsExactlyOneEvent() async {
        let rig = Rig(workers: 2, decoder: TestDecoder(failing: [13, 27]))
        rig.renderer.setVisible(Array(0..<40))
        await rig.renderer.waitUntilIdle()
        let s = rig.renderer.statistics
        let events = await rig.events()
        var ready: [Int] = [], failed: [Int] = []
        for e in events {
            switch e {
            case .ready(let key, let tier):
                #expect(tier == .large)
                ready.append(key)
            case .failed(let key, _, let error):
                #expect(error.code == .corruptData)
                failed.append(key)
            }
        }
        #expect(ready.sorted() == Array(0..<40).filter { $0 != 13 && $0 != 27 })
        #expect(failed.sorted() == [13, 27])
        #expect(s.largeCompleted == 38)
        #expect(s.largeFailed == 2)
        #expect(rig.decoder.keys(.large).count == 40)
        #expect(rig.decoder.overlaps == 0)
    }

    @Test func noEventForCancelledOrDiscardedJobs() async {
        let rig = Rig()
        rig.decoder.onDecode { call in if call.key == 2 { rig.renderer.setVisible([]) } }
        rig.renderer.setVisible([1, 2])
        rig.renderer.setVisible([2])                             // 1 cancelled
        #expect(rig.renderer.runNextJob())                       // 2 discarded mid-decode
        #expect(!rig.renderer.runNextJob())
        let events = await rig.events()
        #expect(events.isEmpty)
        let s = rig.renderer.statistics
        #expect(s.largeCancelled == 1 && s.largeDiscarded == 1 && s.largeCompleted == 0)
    }

    @Test func aDecoderBreakingItsSizeContractFailsTheItem() async throws {
        let rig = Rig(decoder: TestDecoder(oversize: true))
        #expect(throws: ImageError.self) { _ = try rig.renderer.image(for: 1) }
        rig.renderer.setVisible([1])
        rig.drain()
        let events = await rig.events()
        guard case .failed(1, .large, let error)? = events.first else {
            Issue.record("expected a failed event, got \(events)")
            return
        }
        #expect(error.code == .internalError)
        #expect(rig.renderer.cachedImage(for: 1) == nil)
    }

    @Test func aThumbnailLargerThanTheBudgetFailsInsteadOfLooping() async {
        let rig = Rig(budget: Rig.bytes(.large) - 1)
        rig.renderer.setVisible([1])
        rig.drain()
        rig.renderer.setVisible([1])
        #expect(!rig.renderer.runNextJob())                      // not queued again
        let events = await rig.events()
        guard case .failed(1, .large, let error)? = events.first, events.count == 1 else {
            Issue.record("expected one failed event, got \(events)")
            return
        }
        #expect(error.code == .tooLarge)
    }

    @Test func concurrentSmallRequestsForOneItemDecodeOnce() throws {
        let rig = Rig()
        let gate = rig.decoder.block(5)
        let results = PosixMutex<[Thumbnail]>([])
        let first = onThread { if let t = try? rig.renderer.image(for: 5) { results.withLock { $0.append(t) } } }
        rig.decoder.entry(5).wait()                              // the first caller is decoding
        let second = onThread { if let t = try? rig.renderer.image(for: 5) { results.withLock { $0.append(t) } } }
        waitFor("the second caller to wait") { rig.renderer.statistics.smallCoalesced == 1 }
        gate.open()
        first.wait()
        second.wait()
        let got = results.withLock { $0 }
        #expect(got.count == 2)
        #expect(got.count == 2 && got[0] === got[1])
        #expect(rig.decoder.keys(.small) == [5])
        #expect(rig.renderer.statistics.smallDecodes == 1)
    }

    @Test func concurrentSmallRequestsShareAFailure() {
        let rig = Rig(decoder: TestDecoder(failing: [5]))
        let gate = rig.decoder.block(5)
        let errors = PosixMutex<[ImageError]>([])
        let body: @Sendable () -> Void = {
            do throws(ImageError) { _ = try rig.renderer.image(for: 5) } catch { errors.withLock { $0.append(error) } }
        }
        let first = onThread(body)
        rig.decoder.entry(5).wait()
        let second = onThread(body)
        waitFor("the second caller to wait") { rig.renderer.statistics.smallCoalesced == 1 }
        gate.open()
        first.wait()
        second.wait()
        #expect(errors.withLock { $0.map(\.code) } == [.corruptData, .corruptData])
        #expect(rig.decoder.keys(.small) == [5])
    }

    @Test func shutdownLetsTheRunningJobReportAndCancelsTheRest() async throws {
        let rig = Rig(workers: 1)
        let gate = rig.decoder.block(1)
        rig.renderer.setVisible([2, 1])                          // 1 is newest: it runs first
        rig.decoder.entry(1).wait()
        let opener = onThread {
            waitFor("shutdown to cancel the queue") { rig.renderer.statistics.largeCancelled == 1 }
            gate.open()
        }
        let events = await rig.events()                          // shutdown() waits for the worker
        opener.wait()
        #expect(events.map(\.key) == [1])
        let s = rig.renderer.statistics
        #expect(s.largeCompleted == 1 && s.largeCancelled == 1 && s.running == 0)
        rig.renderer.setVisible([3])                             // after shutdown nothing is queued
        #expect(rig.renderer.statistics.queued == 0)
        #expect(try rig.renderer.image(for: 3).tier == .small)   // the small tier still works
    }

    @Test func workersPickUpJobsQueuedAfterAnIdlePeriod() async {
        let rig = Rig(workers: 2)
        rig.renderer.setVisible([1])
        await rig.renderer.waitUntilIdle()
        rig.renderer.setVisible([1, 2, 3])
        await rig.renderer.waitUntilIdle()
        #expect(rig.renderer.statistics.largeCompleted == 3)
        #expect(rig.renderer.cachedImage(for: 3)?.tier == .large)
        rig.renderer.shutdown()
    }

    @Test func droppingTheRendererStopsItsWorkersAndFinishesTheStream() async {
        let decoder = TestDecoder()
        var c = ThumbnailRenderer<Int>.Configuration()
        c.workerCount = 2
        var renderer: ThumbnailRenderer<Int>? = ThumbnailRenderer(source: testSource, decoder: decoder, configuration: c)
        let events = renderer!.events
        renderer!.setVisible([1, 2, 3])
        await renderer!.waitUntilIdle()
        renderer = nil
        var n = 0
        for await _ in events { n += 1 }                         // ends: the stream finished
        #expect(n == 3)
    }
}
