#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
@testable import ImageCore

// Test doubles for the renderer's scheduling logic. None of this decodes an image: the
// "encoded bytes" are the item key and the tier, and the "thumbnail" is a gray buffer
// filled with the key's low byte.

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time = PosixMutex(0.0)
    var now: Double { time.withLock { $0 } }
    func set(_ t: Double) { time.withLock { $0 = t } }
    func advance(by dt: Double) { time.withLock { $0 += dt } }
    var rendererClock: RendererClock { RendererClock { [self] in now } }
}

/// A one-shot barrier: `wait()` blocks until `open()`.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let isOpen = PosixMutex(false)
    func open() {
        let first = isOpen.withLock { o in defer { o = true }; return !o }
        if first { semaphore.signal() }
    }
    func wait() {
        semaphore.wait()
        semaphore.signal()  // let every other waiter through too
    }
}

/// The encoded form the test source hands out: the key as 8 bytes, then the tier.
func testEncoding(_ key: Int, _ tier: ThumbnailTier) -> [UInt8] {
    withUnsafeBytes(of: Int64(key).littleEndian) { Array($0) } + [UInt8(tier.rawValue)]
}

/// A source of ``testEncoding(_:_:)`` bytes (prepared variants, one per tier).
let testSource = ThumbnailSource<Int>.preparedVariants { key, tier in testEncoding(key, tier) }

/// A deterministic decoder that records its calls, can fail for chosen keys, can block
/// on a gate, can run a hook in the middle of a decode, and can break its size contract.
final class TestDecoder: ThumbnailDecoder {
    struct Call: Sendable, Equatable {
        var key: Int
        var tier: ThumbnailTier
        var maxPixelSize: Int
    }

    let failing: Set<Int>
    let oversize: Bool
    let spinMicroseconds: Int
    private let log = PosixMutex<[Call]>([])
    private let gates = PosixMutex<[Int: Gate]>([:])
    private let entered = PosixMutex<[Int: Gate]>([:])
    private let hook = PosixMutex<(@Sendable (Call) -> Void)?>(nil)
    private let inFlight = PosixMutex<(now: Set<ThumbnailID<Int>>, overlaps: Int)>(([], 0))

    /// Times a decode started while another of the same item and tier was still running.
    var overlaps: Int { inFlight.withLock { $0.overlaps } }

    init(failing: Set<Int> = [], oversize: Bool = false, spinMicroseconds: Int = 0) {
        self.failing = failing
        self.oversize = oversize
        self.spinMicroseconds = spinMicroseconds
    }

    var calls: [Call] { log.withLock { $0 } }
    func keys(_ tier: ThumbnailTier) -> [Int] { calls.filter { $0.tier == tier }.map(\.key) }

    /// Makes decodes of `key` block until the returned gate opens.
    func block(_ key: Int) -> Gate {
        let g = Gate()
        gates.withLock { $0[key] = g }
        return g
    }

    /// A gate that opens when a decode of `key` has started (and recorded its call).
    func entry(_ key: Int) -> Gate {
        entered.withLock { e in
            if let g = e[key] { return g }
            let g = Gate()
            e[key] = g
            return g
        }
    }

    /// Runs `body` inside every decode, after the call is recorded.
    func onDecode(_ body: @escaping @Sendable (Call) -> Void) { hook.withLock { $0 = body } }

    func thumbnail(from bytes: RawSpan, maxPixelSize: Int) throws(ImageError) -> PixelBuffer {
        let (key, tier) = bytes.withUnsafeBytes { raw in
            (Int(Int64(littleEndian: raw.loadUnaligned(as: Int64.self))), ThumbnailTier(rawValue: Int(raw[8]))!)
        }
        let call = Call(key: key, tier: tier, maxPixelSize: maxPixelSize)
        let id = ThumbnailID(key, tier)
        inFlight.withLock { if !$0.now.insert(id).inserted { $0.overlaps += 1 } }
        defer { inFlight.withLock { _ = $0.now.remove(id) } }
        log.withLock { $0.append(call) }
        entry(key).open()
        hook.withLock { $0 }?(call)
        gates.withLock { $0[key] }?.wait()
        if spinMicroseconds > 0 {
            let start = RendererClock.monotonic.now()
            while RendererClock.monotonic.now() - start < Double(spinMicroseconds) * 1e-6 {}
        }
        if failing.contains(key) { throw ImageError(.corruptData, "test decoder: key \(key) fails") }
        let side = oversize ? maxPixelSize + 1 : maxPixelSize
        var pixels = try PixelBuffer(width: side, height: max(1, side * 3 / 4), format: .gray8)
        try pixels.fill([Self.value(key)])
        return pixels
    }

    /// The gray level a thumbnail of `key` is filled with.
    static func value(_ key: Int) -> UInt8 { UInt8(truncatingIfNeeded: key &* 37 &+ 11) }
}

/// Every job-trace record, in the order the renderer produced them.
final class TraceLog: Sendable {
    private let records = PosixMutex<[JobTrace<Int>]>([])
    var all: [JobTrace<Int>] { records.withLock { $0 } }
    var hook: @Sendable (JobTrace<Int>) -> Void { { [self] r in records.withLock { $0.append(r) } } }

    /// Keys in the order workers started them.
    var startedKeys: [Int] {
        all.compactMap { if case .started(_, let id) = $0 { id.key } else { nil } }
    }
}

/// A renderer over the test source and decoder, with a manual clock and no worker threads
/// unless asked (tests step the queue with `runNextJob()`).
struct Rig {
    let renderer: ThumbnailRenderer<Int>
    let decoder: TestDecoder
    let clock: ManualClock
    let trace: TraceLog

    static let small = 8
    static let large = 16

    init(workers: Int = 0, budget: Int = 1 << 24, prefetch: Int = 0, decoder: TestDecoder = TestDecoder(),
         configure: (inout ThumbnailRenderer<Int>.Configuration) -> Void = { _ in }) {
        let clock = ManualClock()
        let trace = TraceLog()
        var c = ThumbnailRenderer<Int>.Configuration()
        c.smallPixelSize = Self.small
        c.largePixelSize = Self.large
        c.workerCount = workers
        c.cacheBudget = budget
        c.prefetchDistance = prefetch
        c.clock = clock.rendererClock
        c.trace = trace.hook
        configure(&c)
        self.renderer = ThumbnailRenderer(source: testSource, decoder: decoder, configuration: c)
        self.decoder = decoder
        self.clock = clock
        self.trace = trace
    }

    /// Runs queued jobs on this thread until the queue is empty; returns how many ran.
    @discardableResult
    func drain() -> Int {
        var n = 0
        while renderer.runNextJob() { n += 1 }
        return n
    }

    /// Shuts the renderer down and returns every event it sent.
    func events() async -> [ThumbnailEvent<Int>] {
        renderer.shutdown()
        var out: [ThumbnailEvent<Int>] = []
        for await e in renderer.events { out.append(e) }
        return out
    }

    /// Bytes of the buffer the test decoder makes for a tier.
    static func bytes(_ tier: ThumbnailTier) -> Int {
        let side = tier == .small ? small : large
        return try! PixelBuffer(width: side, height: max(1, side * 3 / 4), format: .gray8).byteCount
    }
}

/// Spins (yielding the CPU) until `condition` holds; fails the test after `seconds`. For
/// waiting on another thread to reach a state the renderer's counters make visible —
/// a condition, not a fixed sleep.
func waitFor(_ what: Comment, seconds: Double = 10, _ condition: () -> Bool) {
    let deadline = RendererClock.monotonic.now() + seconds
    while !condition() {
        if RendererClock.monotonic.now() > deadline {
            Issue.record("timed out waiting for \(what)")
            return
        }
        sched_yield()
    }
}

/// A started thread to wait for.
final class TestThread: Sendable {
    fileprivate let done = Gate()
    func wait() { done.wait() }
}

/// Runs `body` on a new thread of its own, outside the Swift concurrency pool and
/// libdispatch's (both are only as wide as the cores, so a test that blocks one of their
/// threads could wait on work that never gets a thread).
func onThread(_ body: @escaping @Sendable () -> Void) -> TestThread {
    let thread = TestThread()
    let started = WorkerThreads.start(name: "test") {
        body()
        thread.done.open()
    }
    precondition(started, "could not start a thread")
    return thread
}
