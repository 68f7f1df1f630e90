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
/// On a seekable descriptor also positional reads (`read_at`, `pread(2)`, which leave `read`'s
/// position alone) within the same bytes, for the reduced progressive decoder.
struct DescriptorReader {
    var descriptor: Int32
    var remaining: Int
    /// Descriptor offset of the decode's `data[0]`, and of the end of the checked size;
    /// -1 when the descriptor cannot seek (a pipe): no positional reads.
    var base: Int64 = -1
    var end: Int64 = -1

    /// `headers` bytes were read from the descriptor just before its current position.
    init(descriptor: Int32, remaining: Int, headers: Int) {
        self.descriptor = descriptor
        self.remaining = remaining
        let position = lseek(descriptor, 0, SEEK_CUR)
        if position >= Int64(headers) {
            base = Int64(position) - Int64(headers)
            end = Int64(position) + Int64(remaining)
        }
    }

    /// Whether `readAt` may be used.
    var canReadAt: Bool { base >= 0 }

    /// The positional C callback; `offset` counts from `data[0]`. 0 past the end or on an error.
    static let readAt: ic_jpeg_read_at_fn = { context, offset, buffer, capacity in
        guard let context, let buffer else { return 0 }
        let r = context.assumingMemoryBound(to: DescriptorReader.self).pointee
        guard r.base >= 0, offset <= UInt64(Int64.max - r.base) else { return 0 }
        let at = r.base + Int64(offset)
        guard at < r.end else { return 0 }
        let want = Int(min(Int64(capacity), r.end - at))
        while true {
            let n = pread(r.descriptor, buffer, want, off_t(at))
            if n > 0 { return n }
            if n < 0 && errno == EINTR { continue }
            return 0
        }
    }

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
