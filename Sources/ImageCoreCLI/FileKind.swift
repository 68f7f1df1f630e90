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
        let head = try FileBytes.read(path: path, limit: 2)
        if head.count >= 2 && head[0] == 0xFF && head[1] == 0xD8 { return .jpeg }
        if head.count >= 2 && head[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]) { return .pnm }
        return .unknown
    }
}

