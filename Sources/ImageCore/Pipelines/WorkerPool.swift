import Dispatch

/// A bounded pool: runs `body(i)` for every `i` in `0..<count` on at most `workers` threads
/// (`workers` ≤ 0: ``ImageCoreRuntime/threads``), each worker taking the next index when it is
/// done with one, so at most `workers` items are in progress at once. Returns when all are
/// done. Pixel buffers allocated by `body` are charged to the caller's ``PixelAllocator``
/// scope. Kernels called by `body` use the worker's share of the cores
/// (``ImageCoreRuntime/withThreads(_:_:)``: cores / workers, at least 1).
public enum WorkerPool {
    public static func run(count: Int, workers: Int = 0, _ body: @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let cores = max(1, ImageCoreRuntime.threads)
        let n = min(count, workers > 0 ? workers : cores)
        let next = PosixMutex(0)
        let scope = PixelAllocator.scope
        // Each worker's kernels get its share of the cores: with as many workers as cores,
        // one thread each, so no worker starts a team of its own on cores the others use.
        let share = max(1, cores / n)
        DispatchQueue.concurrentPerform(iterations: n) { _ in
            PixelAllocator.$scope.withValue(scope) {
                ImageCoreRuntime.withThreads(share) {
                    while true {
                        let i = next.withLock { (v: inout Int) -> Int in defer { v += 1 }; return v }
                        if i >= count { return }
                        body(i)
                    }
                }
            }
        }
    }
}
