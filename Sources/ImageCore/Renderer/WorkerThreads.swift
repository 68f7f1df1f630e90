#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Starts detached POSIX threads that run a closure.
///
/// The renderer's background decodes are long, blocking C calls (milliseconds each). Run
/// as Swift `Task`s they would occupy threads of the cooperative pool — which has only as
/// many threads as cores (2 on the machines this was written on) — and stall every other
/// `async` job in the process while they run. Dedicated threads keep the pool free, give
/// an exact worker count, and park in a semaphore wait when the queue is empty.
enum WorkerThreads {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `body`; `false` if the system refused.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body { nameCurrentThread(name); body() }).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, nil, { raw in
            #if canImport(Darwin)
            let box = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
            #else
            let box = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            #endif
            box.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        #if canImport(Darwin)
        pthread_detach(thread!)
        #else
        pthread_detach(thread)
        #endif
        return true
    }

    /// Names the calling thread (visible in debuggers). Apple platforms only: Glibc's
    /// `pthread_setname_np` needs `_GNU_SOURCE`, which the Swift importer does not set.
    static func nameCurrentThread(_ name: String) {
        #if canImport(Darwin)
        pthread_setname_np(name)
        #endif
    }
}
