// libFuzzer harness over the Swift readers: PNM (P5/P6/P7 from memory and from a file),
// raw YUV files and FileBytes. Built by fuzz/run.sh with `swiftc -sanitize=fuzzer,address`
// into one module with the ImageCore sources (so the internal readers are the ones the
// package ships), against the C core built with ASan + UBSan.
//
// The input is the file; its last byte picks the file reader's options. Every input is also
// written to a scratch file once, then read back through each path-taking reader:
// - PNM: memory and file decodes agree (same pixels or the same error code); a decoded image
//   is the header's size and its pixels are the input's bytes after the header; encoding it
//   and decoding again gives the same bytes.
// - RawYUV: a fuzzer-chosen size and format reads only when the file is exactly that size,
//   and its planes are the file's bytes in order.
// - FileBytes: with a fuzzer-chosen limit and cap, the bytes are the file's prefix, or
//   `.tooLarge` exactly when the file is larger than the cap and more was asked for.
#if canImport(Glibc)
import Glibc
#endif

/// A scratch file per process (the fuzzer runs one input at a time).
private let scratchPath: String = {
    let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    return "\(dir)/imagecore-readers-fuzz-\(getpid()).bin"
}()

private func fail(_ why: String) -> Never {
    let text = "fuzz invariant failed: \(why)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    abort()
}

private func writeScratch(_ bytes: UnsafeRawBufferPointer) {
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fail("cannot create \(scratchPath)") }
    var done = 0
    while done < bytes.count {
        let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
        guard n > 0 else { fail("cannot write \(scratchPath)") }
        done += n
    }
    close(fd)
}

/// The rows of plane `p`, packed (no stride padding).
private func packed(_ image: borrowing PixelBuffer, plane p: Int) -> [UInt8] {
    let g = image.plane(p)
    var out: [UInt8] = []
    out.reserveCapacity(g.rowBytes * g.rows)
    image.withPlane(p) { span in
        span.withUnsafeBufferPointer { b in
            for y in 0..<g.rows { out.append(contentsOf: b[(y * g.stride)..<(y * g.stride + g.rowBytes)]) }
        }
    }
    return out
}

private func checkPNM(_ bytes: UnsafeRawBufferPointer) {
    let fromMemory: Result<[UInt8], ImageError>
    do {
        let image = try PNM.decode(bytes)
        let header = try PNM.readHeader(path: scratchPath)
        guard image.width == header.width, image.height == header.height, image.format == header.format else {
            fail("PNM decode \(image.width)x\(image.height) \(image.format) vs header \(header)")
        }
        let pixels = packed(image, plane: 0)
        guard pixels.count == header.width * header.height * header.channels,
              header.dataOffset + pixels.count <= bytes.count,
              pixels.elementsEqual(bytes[header.dataOffset..<(header.dataOffset + pixels.count)]) else {
            fail("PNM pixels are not the bytes after the header")
        }
        let encoded = try PNM.encode(image)
        let again = try PNM.decode(encoded)
        guard packed(again, plane: 0) == pixels, try PNM.encode(again) == encoded else { fail("PNM round trip") }
        fromMemory = .success(pixels)
    } catch {
        fromMemory = .failure(error)
    }
    let fromFile: Result<[UInt8], ImageError>
    do {
        let image = try PNM.read(path: scratchPath)
        fromFile = .success(packed(image, plane: 0))
    } catch {
        fromFile = .failure(error)
    }
    switch (fromMemory, fromFile) {
    case let (.success(a), .success(b)): if a != b { fail("PNM memory and file pixels differ") }
    case let (.failure(a), .failure(b)): if a.code != b.code { fail("PNM errors differ: \(a) / \(b)") }
    default: fail("PNM memory \(fromMemory) vs file \(fromFile)")
    }
}

private func checkRawYUV(_ bytes: UnsafeRawBufferPointer, choice: UInt8) {
    // A size near the one the file could hold, so that exact matches happen.
    let formats: [PixelFormat] = [.i420, .nv12, .rgb8]
    let format = formats[Int(choice % 3)]
    let width = 1 + Int(choice >> 2) % 40
    var height = 1
    while RawYUV.fileSize(width: width, height: height + 1) <= bytes.count && height < 4096 { height += 1 }
    if choice & 2 != 0 { height += 1 }
    do {
        let image = try RawYUV.read(path: scratchPath, width: width, height: height, format: format)
        guard format.isYUV, bytes.count == RawYUV.fileSize(width: width, height: height) else {
            fail("RawYUV read \(width)x\(height) \(format) from \(bytes.count) bytes")
        }
        var all: [UInt8] = []
        for p in 0..<format.planeCount { all += packed(image, plane: p) }
        guard all.elementsEqual(bytes) else { fail("RawYUV planes are not the file's bytes") }
    } catch {
        if format.isYUV, bytes.count == RawYUV.fileSize(width: width, height: height) {
            fail("RawYUV refused an exact file: \(error)")
        }
    }
}

private func checkFileBytes(_ bytes: UnsafeRawBufferPointer, choice: UInt8) {
    let n = bytes.count
    let limit = choice & 1 != 0 ? Int.max : Int(choice >> 1) % (n + 2)
    let cap = choice & 0x80 != 0 ? FileBytes.maxBytes : Int(choice >> 2) % (n + 2)
    do {
        let got = try FileBytes.read(path: scratchPath, limit: limit, maxBytes: cap)
        guard got.count == min(n, limit, cap), got.elementsEqual(bytes.prefix(got.count)) else {
            fail("FileBytes gave \(got.count) bytes for limit \(limit), cap \(cap), file \(n)")
        }
        if n > cap && limit > cap { fail("FileBytes accepted \(n) bytes over the cap \(cap)") }
    } catch {
        guard error.code == .tooLarge, n > cap, limit > cap else {
            fail("FileBytes failed for limit \(limit), cap \(cap), file \(n): \(error)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func readersFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    let choice = bytes.last ?? 0
    writeScratch(bytes)
    checkPNM(bytes)
    checkRawYUV(bytes, choice: choice)
    checkFileBytes(bytes, choice: choice)
    return 0
}
