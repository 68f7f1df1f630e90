#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Byte counts of pixel memory: what is live now, the high-water mark, and how many
/// allocations were made.
public struct PixelMemoryUsage: Sendable, Hashable, CustomStringConvertible {
    /// Bytes held by pixel buffers that are still alive.
    public var liveBytes: Int
    /// The largest `liveBytes` seen since the counter was created or reset.
    public var peakBytes: Int
    /// Number of pixel allocations made.
    public var allocations: Int
    /// Sum of the sizes of all allocations made.
    public var allocatedBytes: Int

    public init(liveBytes: Int = 0, peakBytes: Int = 0, allocations: Int = 0, allocatedBytes: Int = 0) {
        self.liveBytes = liveBytes
        self.peakBytes = peakBytes
        self.allocations = allocations
        self.allocatedBytes = allocatedBytes
    }

    public var description: String {
        "live \(liveBytes) B, peak \(peakBytes) B, \(allocations) allocations (\(allocatedBytes) B)"
    }
}

/// Counters for one measurement scope; scopes nest, and a charge reaches every enclosing one.
final class PixelMemoryCounter: Sendable {
    let parent: PixelMemoryCounter?
    private let state: PosixMutex<PixelMemoryUsage>  // not Mutex: see PosixMutex (TSan)

    init(parent: PixelMemoryCounter?) {
        self.parent = parent
        self.state = PosixMutex(PixelMemoryUsage())
    }

    func charge(_ bytes: Int) {
        var c: PixelMemoryCounter? = self
        while let counter = c {
            counter.state.withLock { u in
                u.liveBytes += bytes
                u.allocations += 1
                u.allocatedBytes += bytes
                if u.liveBytes > u.peakBytes { u.peakBytes = u.liveBytes }
            }
            c = counter.parent
        }
    }

    func release(_ bytes: Int) {
        var c: PixelMemoryCounter? = self
        while let counter = c {
            counter.state.withLock { $0.liveBytes -= bytes }
            c = counter.parent
        }
    }

    var usage: PixelMemoryUsage { state.withLock { $0 } }

    func resetPeak() { state.withLock { $0.peakBytes = $0.liveBytes } }
}

/// The one allocator of pixel memory. Every ``PixelBuffer`` allocation goes through it, so
/// tests can prove that a pipeline made no copy and the bench can report peak pixel bytes.
///
/// Two kinds of counters:
/// - process-wide (``usage``, ``resetPeak()``), for the bench and tools;
/// - scoped (``measure(_:)``): counts only the buffers allocated inside the closure by the
///   current task or thread and its child tasks. Scopes nest and are safe when tests run
///   in parallel. A buffer remembers the scope it was allocated in and releases its bytes
///   there, wherever it is freed.
///
/// All counters are thread-safe.
public enum PixelAllocator {
    static let global = PixelMemoryCounter(parent: nil)

    @TaskLocal static var scope: PixelMemoryCounter? = nil

    /// Process-wide pixel memory counts.
    public static var usage: PixelMemoryUsage { global.usage }

    /// Sets the process-wide peak to the bytes live now.
    public static func resetPeak() { global.resetPeak() }

    /// Runs `body` and returns its result with the pixel memory allocated during it.
    /// `liveBytes` in the result is what `body` allocated and did not free.
    public static func measure<R>(_ body: () throws -> R) rethrows -> (result: R, usage: PixelMemoryUsage) {
        let counter = PixelMemoryCounter(parent: scope ?? global)
        let r = try $scope.withValue(counter) { try body() }
        return (r, counter.usage)
    }

    /// Async variant of ``measure(_:)``; child tasks are counted too.
    public static func measure<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> (result: R, usage: PixelMemoryUsage) {
        let counter = PixelMemoryCounter(parent: scope ?? global)
        let r = try await $scope.withValue(counter) { try await body() }
        return (r, counter.usage)
    }

    private static let budgetBytes = Atomic<Int>(0)
    private static let budgetPixels = Atomic<Int>(0)

    /// A process-wide budget of live pixel bytes (0: none). An allocation that would take the
    /// bytes held by all live buffers above it fails with `.tooLarge` before anything is
    /// allocated. Tools set it once at start (the CLI's `--max-memory`); concurrent
    /// allocations are checked one by one, so the budget is exact for one thread and may be
    /// passed by at most one buffer per other thread allocating at the same moment.
    public static var maxLiveBytes: Int {
        get { budgetBytes.load(ordering: .relaxed) }
        set { budgetBytes.store(max(0, newValue), ordering: .relaxed) }
    }

    /// Largest buffer, in pixels, that may be allocated (0: no limit beyond the layout's own);
    /// larger requests fail with `.tooLarge` before allocating. The CLI's `--max-pixels`.
    public static var maxPixelsPerBuffer: Int {
        get { budgetPixels.load(ordering: .relaxed) }
        set { budgetPixels.store(max(0, newValue), ordering: .relaxed) }
    }

    /// Throws `.tooLarge` if a `width` × `height` buffer of `bytes` bytes would pass a limit.
    static func checkLimits(width: Int, height: Int, bytes: Int) throws(ImageError) {
        let px = maxPixelsPerBuffer
        if px > 0 && width * height > px {
            throw ImageError(.tooLarge, "\(width)x\(height) is \(width * height) pixels, above the limit of \(px)")
        }
        let budget = maxLiveBytes
        if budget > 0 && global.usage.liveBytes + bytes > budget {
            throw ImageError(.tooLarge, "\(width)x\(height) needs \(bytes) bytes of pixel memory; with \(global.usage.liveBytes) in use that passes the budget of \(budget)")
        }
    }

    /// Allocates `bytes` bytes aligned to `alignment` and charges them. `nil` when the
    /// system has no memory to give.
    static func allocate(bytes: Int, alignment: Int) -> (UnsafeMutableRawPointer, PixelMemoryCounter)? {
        var p: UnsafeMutableRawPointer? = nil
        let a = max(alignment, MemoryLayout<UnsafeRawPointer>.size)
        guard posix_memalign(&p, a, max(bytes, 1)) == 0, let p else { return nil }
        let counter = scope ?? global
        counter.charge(bytes)
        return (p, counter)
    }

    static func free(_ p: UnsafeMutableRawPointer, bytes: Int, counter: PixelMemoryCounter) {
        counter.release(bytes)
        #if canImport(Glibc)
        Glibc.free(p)
        #elseif canImport(Darwin)
        Darwin.free(p)
        #else
        Musl.free(p)
        #endif
    }
}
