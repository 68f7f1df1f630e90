import CImageCore

/// Process-wide settings of the C core: version, threads and CPU dispatch.
public enum ImageCoreRuntime {
    /// The largest width or height the C core accepts anywhere (`IC_MAX_DIMENSION`, the JPEG
    /// limit): the one place the number lives for Swift callers.
    public static let maxDimension = Int(IC_MAX_DIMENSION)

    /// The library version, e.g. "0.1.0".
    public static var version: String { String(cString: ic_version_string()) }

    /// Threads used by the kernels. Setting a value ≤ 0 restores the default: the
    /// `IC_NUM_THREADS` environment variable, else the number of online CPUs.
    public static var threads: Int {
        get { Int(ic_get_num_threads()) }
        set { ic_set_num_threads(Int32(clamping: newValue)) }
    }

    /// Runs `body` with the kernels it calls on this thread limited to `threads` threads
    /// (≥ 1), then restores the thread's previous setting. Other threads are not affected.
    /// A pool that runs one image per worker uses it to give each worker its share of the
    /// cores, so the kernels inside do not start a team of threads per worker.
    public static func withThreads<R: ~Copyable, E: Error>(_ threads: Int, _ body: () throws(E) -> R) throws(E) -> R {
        let previous = ic_set_local_num_threads(Int32(clamping: max(1, threads)))
        defer { ic_set_local_num_threads(previous) }
        return try body()
    }

    /// The compiled-in threading backend: "openmp", "omp-runtime", "dispatch" or "serial".
    public static var parallelBackend: String { String(cString: ic_parallel_backend()) }

    /// Instruction-set extensions the kernels may use.
    public struct CPUFeatures: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let sse2 = CPUFeatures(rawValue: UInt32(IC_CPU_SSE2.rawValue))
        public static let ssse3 = CPUFeatures(rawValue: UInt32(IC_CPU_SSSE3.rawValue))
        public static let sse41 = CPUFeatures(rawValue: UInt32(IC_CPU_SSE41.rawValue))
        public static let avx2 = CPUFeatures(rawValue: UInt32(IC_CPU_AVX2.rawValue))
        /// AVX-512 F (reported only with ``avx2``); the page detector's Hough votes use it.
        public static let avx512 = CPUFeatures(rawValue: UInt32(IC_CPU_AVX512.rawValue))
        /// AVX-512 BW and VNNI (reported only with ``avx512``); the page detector's convolutions
        /// use it with ``avx512`` (masking either off masks both).
        public static let avx512vnni = CPUFeatures(rawValue: UInt32(IC_CPU_AVX512VNNI.rawValue))
        public static let neon = CPUFeatures(rawValue: UInt32(IC_CPU_NEON.rawValue))
        public static let all = CPUFeatures(rawValue: .max)

        public var description: String {
            let names: [(CPUFeatures, String)] = [(.sse2, "sse2"), (.ssse3, "ssse3"), (.sse41, "sse4.1"), (.avx2, "avx2"), (.avx512, "avx512"), (.avx512vnni, "avx512vnni"), (.neon, "neon")]
            let s = names.filter { contains($0.0) }.map(\.1)
            return s.isEmpty ? "scalar" : s.joined(separator: ",")
        }
    }

    /// What the CPU has.
    public static var detectedCPUFeatures: CPUFeatures { CPUFeatures(rawValue: ic_cpu_features_detected()) }

    /// What the kernels may use: detected features restricted by ``cpuMask``.
    public static var cpuFeatures: CPUFeatures { CPUFeatures(rawValue: ic_cpu_features()) }

    /// Restricts the features kernels may use; `[]` forces the scalar reference paths.
    /// Starts as ``CPUFeatures/all`` or the `IC_CPU_MASK` environment variable.
    public static var cpuMask: CPUFeatures {
        get { CPUFeatures(rawValue: ic_get_cpu_mask()) }
        set { ic_set_cpu_mask(newValue.rawValue) }
    }
}
