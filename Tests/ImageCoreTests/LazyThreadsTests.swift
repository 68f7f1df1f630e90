import Foundation
import ImageCore
import Testing

/// Issue #17 item 3: work too small to split runs on the calling thread, so the OpenMP
/// runtime's threads are never started for it. The runtime's threads live for the rest of the
/// process once started, and other tests start them, so the measurement runs in a fresh child
/// process (this test binary again, filtered to this test, with `IC_LAZY_THREADS_CHILD=1`),
/// which counts its threads in /proc/self/task before and after.
@Suite("Lazy threads (SwiftPM build, OpenMP runtime)")
struct LazyThreadsTests {
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    @Test("a 256 px thumbnail's work starts no thread; a 12 MP rotation does")
    func smallWorkStaysSerial() throws {
        if ProcessInfo.processInfo.environment["IC_LAZY_THREADS_CHILD"] == "1" {
            try Self.measure()
            return
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "LazyThreadsTests"]
        var env = ProcessInfo.processInfo.environment
        env["IC_LAZY_THREADS_CHILD"] = "1"
        child.environment = env
        let out = Pipe()
        child.standardOutput = out
        child.standardError = out
        try child.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        if let line = text.split(separator: "\n").first(where: { $0.contains("lazy threads:") }) { print(line) }
        #expect(child.terminationStatus == 0, "\(text.suffix(2000))")
        #expect(text.contains("lazy threads:"), "\(text.suffix(2000))")
    }

    /// In the child: the work of a 256 px thumbnail (decode at 1/8, resize, orient, rank,
    /// convert, ICC conversion to sRGB) with 2 threads allowed, then one large call.
    static func measure() throws {
        ImageCoreRuntime.threads = 2
        let before = threadCount()
        var photo = try PixelBuffer(width: 512, height: 384, format: .rgba8)
        try photo.fill([90, 120, 200, 255])
        let jpeg = try JPEG.encode(photo, options: .init(quality: 85))
        let decoded = try JPEG.decode(jpeg, format: .rgba8, options: .init(scale: .eighths(4)))
        let thumb = try decoded.resized(width: 256)
        let upright = try thumb.applying(.right)
        let gray = try upright.converted(to: .nv12)
        _ = try gray.laplacianScore()
        var srgb = try thumb.converted(to: .rgb8)
        try srgb.convertToSRGB(from: ColorProfileTests.displayP3())
        let afterSmall = threadCount()
        var big = try PixelBuffer(width: 4032, height: 3024, format: .rgba8)
        try big.fill([1, 2, 3, 255])
        _ = try big.applying(.right)
        let afterLarge = threadCount()
        print("lazy threads: \(before) before, \(afterSmall) after the thumbnail's work, \(afterLarge) after a 12 MP rotation (backend \(ImageCoreRuntime.parallelBackend))")
        #expect(afterSmall == before)
        #expect(afterLarge > afterSmall)
    }
}
