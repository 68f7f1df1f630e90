#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import CImageCore

/// The rest of a file for a streamed decode (`ic_jpeg_decode_options.read`): `read(2)` from
/// a descriptor into the decoder's chunk, at most `remaining` bytes in all (the size the
/// caller checked), so a file that grows while it is read cannot make the decode longer.
struct DescriptorReader {
    var descriptor: Int32
    var remaining: Int

    /// The C callback; `context` points at a `DescriptorReader`. 0 at the end or on an error.
    static let read: ic_jpeg_read_fn = { context, buffer, capacity in
        guard let context, let buffer else { return 0 }
        let r = context.assumingMemoryBound(to: DescriptorReader.self)
        let want = min(capacity, r.pointee.remaining)
        guard want > 0 else { return 0 }
        while true {
            let n = posixRead(r.pointee.descriptor, buffer, want)
            if n > 0 {
                r.pointee.remaining -= n
                return n
            }
            if n < 0 && errno == EINTR { continue }
            return 0
        }
    }
}

/// `read(2)` under a name the reader's `read` does not shadow.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
