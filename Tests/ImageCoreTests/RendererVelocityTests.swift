import Testing
@testable import ImageCore

/// Scroll velocity and the gate it drives: no large job is queued while the scroll is
/// fast; when it slows, the visible items are queued, most recently shown first.
@Suite struct RendererVelocityTests {
    // Times are multiples of 1/64 s so that every figure below is exact in binary.
    static let dt = 1.0 / 64

    @Test func velocityIsDisplacementOverTheWindow() {
        let dt = Self.dt
        var v = ScrollVelocity(window: 4 * dt, idleInterval: 8 * dt)
        #expect(v.velocity(at: 0) == 0)                          // no sample
        v.record(offset: 0, at: 0)
        #expect(v.velocity(at: 0) == 0)                          // one sample
        for f in 1...10 { v.record(offset: Double(f) * 10, at: Double(f) * dt) }
        #expect(v.velocity(at: 10 * dt) == 10 / dt)              // 640 units/s
        // Stops: the window fills with the same offset and the velocity falls to 0.
        for f in 11...16 { v.record(offset: 100, at: Double(f) * dt) }
        #expect(v.velocity(at: 16 * dt) == 0)
        // Upwards is negative: 10 units over the 4-sample window.
        v.record(offset: 90, at: 17 * dt)
        #expect(v.velocity(at: 17 * dt) == -10 / (4 * dt))
        // A sample from the past is ignored; one at the same time replaces the last.
        v.record(offset: 0, at: 5 * dt)
        v.record(offset: 80, at: 17 * dt)
        #expect(v.velocity(at: 17 * dt) == -20 / (4 * dt))
    }

    @Test func velocityReadsZeroWhenTheHostStopsReporting() {
        let dt = Self.dt
        var v = ScrollVelocity(window: 4 * dt, idleInterval: 8 * dt)
        v.record(offset: 0, at: 0)
        v.record(offset: 50, at: dt)
        #expect(v.velocity(at: 2 * dt) == 50 / dt)
        #expect(v.velocity(at: 9 * dt) == 50 / dt)               // idle for exactly the interval
        #expect(v.velocity(at: 9 * dt + 1e-9) == 0)
    }

    @Test func aSparseSampleStillGivesAVelocity() {
        var v = ScrollVelocity(window: 0.0625, idleInterval: 1)
        v.record(offset: 0, at: 0)
        v.record(offset: 100, at: 0.5)                           // older than the window
        #expect(v.velocity(at: 0.5) == 200)
    }

    /// Reports a scroll at `speed` units/s for `frames` frames at 60 Hz from the clock's time.
    func scroll(_ rig: Rig, from offset: inout Double, speed: Double, frames: Int) {
        for _ in 0..<frames {
            rig.clock.advance(by: 1.0 / 60)
            offset += speed / 60
            rig.renderer.scrolled(to: offset, at: rig.clock.now)
        }
    }

    @Test func nothingIsQueuedWhileFastAndVisibleItemsQueueNewestFirstWhenSlow() {
        let rig = Rig()
        var offset = 0.0
        rig.renderer.scrolled(to: offset, at: 0)
        rig.renderer.setVisible([1, 2])                          // slow: queued
        #expect(rig.renderer.statistics.largeQueued == 2)
        scroll(rig, from: &offset, speed: 5000, frames: 4)       // fling
        #expect(rig.renderer.isScrollingFast)
        #expect(rig.renderer.statistics.queued == 0)             // the queue was emptied
        #expect(rig.renderer.statistics.largeCancelled == 2)
        // Items fly by while fast: none is queued.
        rig.renderer.setVisible([2, 3])
        scroll(rig, from: &offset, speed: 5000, frames: 1)
        rig.renderer.setVisible([3, 4])
        scroll(rig, from: &offset, speed: 5000, frames: 1)
        rig.renderer.setVisible([4, 5, 6])
        #expect(!rig.renderer.runNextJob())
        #expect(rig.renderer.statistics.largeQueued == 2)
        // Slows below the threshold: the visible items are queued, most recently shown first.
        scroll(rig, from: &offset, speed: 200, frames: 4)
        #expect(!rig.renderer.isScrollingFast)
        rig.drain()
        #expect(rig.decoder.keys(.large) == [6, 5, 4])
        #expect(rig.decoder.keys(.small).isEmpty)
    }

    @Test func theGateFollowsTheThresholdBothWays() {
        let rig = Rig { $0.velocityThreshold = 600 }
        var offset = 0.0
        rig.renderer.setVisible([1])
        scroll(rig, from: &offset, speed: 590, frames: 5)
        #expect(!rig.renderer.isScrollingFast)
        #expect(rig.renderer.statistics.queued == 1)
        scroll(rig, from: &offset, speed: 610, frames: 5)
        #expect(rig.renderer.isScrollingFast)
        #expect(rig.renderer.statistics.queued == 0)
        scroll(rig, from: &offset, speed: 590, frames: 5)
        #expect(!rig.renderer.isScrollingFast)
        #expect(rig.renderer.statistics.queued == 1)
        #expect(rig.renderer.statistics.largeQueued == 2)        // cancelled, then queued again
    }

    @Test func anIdleScrollOpensTheGateOnRefresh() {
        let rig = Rig()
        var offset = 0.0
        scroll(rig, from: &offset, speed: 5000, frames: 3)
        rig.renderer.setVisible([7, 8])
        #expect(rig.renderer.statistics.queued == 0)
        // The host stops reporting offsets; after the idle interval a refresh queues.
        rig.clock.advance(by: rig.renderer.configuration.idleInterval / 2)
        rig.renderer.refresh()
        #expect(rig.renderer.statistics.queued == 0)
        rig.clock.advance(by: rig.renderer.configuration.idleInterval)
        rig.renderer.refresh()
        #expect(!rig.renderer.isScrollingFast)
        rig.drain()
        #expect(rig.decoder.keys(.large) == [8, 7])
    }

    @Test func aJobRunningWhenTheScrollTurnsFastStillLands() {
        let rig = Rig()
        rig.decoder.onDecode { call in
            guard call.key == 1 else { return }
            var offset = 0.0
            for f in 1...3 {
                offset += 100
                rig.renderer.scrolled(to: offset, at: Double(f) / 60)
            }
        }
        rig.clock.set(0)
        rig.renderer.setVisible([1, 2])
        #expect(rig.renderer.runNextJob())                       // 2
        rig.renderer.setVisible([1])
        rig.renderer.setVisible([1, 3])
        #expect(rig.renderer.runNextJob())                       // 3
        #expect(rig.renderer.runNextJob())                       // 1: the fling starts mid-decode
        #expect(rig.renderer.isScrollingFast)
        #expect(rig.renderer.cachedImage(for: 1)?.tier == .large)   // still visible: kept
    }
}
