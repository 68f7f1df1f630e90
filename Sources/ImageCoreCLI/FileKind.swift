import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What kind of file a path holds, from its first bytes.
enum FileKind: Equatable {
    case jpeg, pnm, unknown

    static func detect(path: String) throws(ImageError) -> FileKind {
        let head = try readFile(path: path, limit: 2)
        if head.count >= 2 && head[0] == 0xFF && head[1] == 0xD8 { return .jpeg }
        if head.count >= 2 && head[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]) { return .pnm }
        return .unknown
    }
}

/// Reads up to `limit` bytes of a file (encoded data, not pixels).
func readFile(path: String, limit: Int = .max) throws(ImageError) -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw ImageError(.io, "\(path): \(String(cString: strerror(errno)))") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while out.count < limit {
        let want = min(chunk.count, limit - out.count)
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, want, f) }
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    if ferror(f) != 0 { throw ImageError(.io, "\(path): read failed") }
    return out
}
