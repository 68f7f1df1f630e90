#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Row-by-row file I/O shared by the uncompressed formats (PNM, raw YUV): pixels go
/// straight between the file and a buffer's rows, without padding and without an
/// intermediate copy of the image.
enum PlaneFileIO {
    /// The `.io` error for a failed open of `path`, with the system's reason.
    static func openError(_ path: String) -> ImageError {
        ImageError(.io, "\(path): \(String(cString: strerror(errno)))")
    }

    /// Reads every plane's rows (row bytes only) of `buffer` from `input`; false if the
    /// input ends first.
    static func readRows<I: PNMInput>(_ input: inout I, into buffer: inout PixelBuffer) -> Bool {
        for p in 0..<buffer.planeCount {
            let g = buffer.plane(p)
            let ok = buffer.withMutablePlane(p) { span in
                span.withUnsafeMutableBytes { raw in
                    (0..<g.rows).allSatisfy { y in input.read(into: raw.baseAddress! + y * g.stride, count: g.rowBytes) == g.rowBytes }
                }
            }
            if !ok { return false }
        }
        return true
    }

    /// Writes `header`, then every plane's rows of `buffer`, to `path`. If anything fails, a
    /// file this call created is removed; an existing non-regular file (a device node, a
    /// FIFO) is never removed.
    static func write(_ buffer: borrowing PixelBuffer, header: [UInt8], path: String) throws(ImageError) {
        var st = stat()
        let created = stat(path, &st) != 0
        let keep = !created && (st.st_mode & S_IFMT) != S_IFREG
        guard let f = fopen(path, "wb") else { throw openError(path) }
        do throws(ImageError) { try write(buffer, header: header, file: f, name: path) } catch {
            if !keep { unlink(path) }
            throw error
        }
    }

    /// Writes `header` and the rows to an open descriptor (left open), e.g. a temporary file
    /// that the caller renames into place, or standard output.
    static func write(_ buffer: borrowing PixelBuffer, header: [UInt8], fileDescriptor fd: Int32, name: String) throws(ImageError) {
        let copy = dup(fd)
        guard copy >= 0, let f = fdopen(copy, "wb") else {
            if copy >= 0 { close(copy) }
            throw ImageError(.io, "\(name): \(String(cString: strerror(errno)))")
        }
        try write(buffer, header: header, file: f, name: name)
    }

    /// Writes and closes `f`.
    private static func write(_ buffer: borrowing PixelBuffer, header: [UInt8], file f: UnsafeMutablePointer<FILE>, name: String) throws(ImageError) {
        var ok = header.isEmpty || header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
        for p in 0..<buffer.planeCount where ok {
            let g = buffer.plane(p)
            ok = buffer.withPlane(p) { span in
                span.withUnsafeBytes { raw in
                    (0..<g.rows).allSatisfy { y in fwrite(raw.baseAddress! + y * g.stride, 1, g.rowBytes, f) == g.rowBytes }
                }
            }
        }
        let reason = ok ? 0 : errno
        let closed = fclose(f) == 0
        guard ok && closed else {
            throw ImageError(.io, "\(name): \(String(cString: strerror(ok ? errno : reason)))")
        }
    }
}
