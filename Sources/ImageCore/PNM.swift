#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Lossless PNM/PAM reading and writing: the interchange format of the CLI and the tests.
///
/// Supported: P5 (8-bit gray → ``PixelFormat/gray8``), P6 (8-bit RGB → ``PixelFormat/rgb8``) and
/// P7 PAM with `TUPLTYPE` `GRAYSCALE`, `RGB` or `RGB_ALPHA` (→ ``PixelFormat/rgba8`` with
/// straight alpha), all with `MAXVAL 255`. Other PNM variants (ASCII P1–P3, 16-bit, gray +
/// alpha) are refused with `.unsupported`. Sizes are checked against the data present before
/// any pixel memory is allocated, and pixels are read straight into the new buffer's rows.
public enum PNM {
    /// What a PNM header says.
    public struct Header: Sendable, Hashable {
        /// "P5", "P6" or "P7".
        public var magic: String
        public var width: Int
        public var height: Int
        /// Channels per pixel: 1, 3 or 4.
        public var channels: Int
        public var maxValue: Int
        /// Offset of the first pixel byte.
        public var dataOffset: Int

        /// The buffer format these pixels load into.
        public var format: PixelFormat {
            switch channels {
            case 1: .gray8
            case 3: .rgb8
            default: .rgba8
            }
        }
    }

    /// The largest header accepted (comments included), so garbage cannot make a parse long.
    static let maxHeaderBytes = 1 << 16

    // MARK: reading

    /// Reads a PNM file into a new buffer.
    public static func read(path: String, alignment: Int = 64) throws(ImageError) -> PixelBuffer {
        guard let f = fopen(path, "rb") else { throw PlaneFileIO.openError(path) }
        defer { fclose(f) }
        var input = FileInput(file: f)
        do {
            return try load(&input, alignment: alignment)
        } catch {
            throw ImageError(error.code, "\(path): \(error.detail ?? error.name)")
        }
    }

    /// Reads the header of a PNM file.
    public static func readHeader(path: String) throws(ImageError) -> Header {
        guard let f = fopen(path, "rb") else { throw PlaneFileIO.openError(path) }
        defer { fclose(f) }
        var input = FileInput(file: f)
        return try parseHeader(&input)
    }

    /// Decodes PNM bytes held in memory into a new buffer.
    public static func decode(_ bytes: borrowing some ByteSource & ~Escapable, alignment: Int = 64) throws(ImageError) -> PixelBuffer {
        try bytes.withBytes { (bytes) throws(ImageError) -> PixelBuffer in
            var input = MemoryInput(bytes: bytes)
            return try load(&input, alignment: alignment)
        }
    }

    /// The header of PNM bytes held in memory (for limit checks before ``decode(_:alignment:)``).
    static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Header {
        var input = MemoryInput(bytes: bytes)
        return try parseHeader(&input)
    }

    /// Whether `bytes` start like a PNM file ("P1"…"P7").
    static func isPNM(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1])
    }

    static func load<I: PNMInput>(_ input: inout I, alignment: Int) throws(ImageError) -> PixelBuffer {
        let h = try parseHeader(&input)
        let rowBytes = h.width * h.channels
        let needed = rowBytes * h.height // ≤ 65535² · 4: no overflow on 64-bit
        if let remaining = input.remaining, remaining < needed {
            throw ImageError(.corruptData, "truncated: \(needed) pixel bytes expected, \(remaining) present")
        }
        var buffer = try PixelBuffer(width: h.width, height: h.height, format: h.format,
                                     alphaMode: .straight, alignment: alignment)
        guard PlaneFileIO.readRows(&input, into: &buffer) else { throw ImageError(.corruptData, "truncated pixel data") }
        return buffer
    }

    static func parseHeader<I: PNMInput>(_ input: inout I) throws(ImageError) -> Header {
        var reader = HeaderReader(input: input)
        defer { input = reader.input }
        guard reader.next() == UInt8(ascii: "P"), let kind = reader.next() else {
            throw ImageError(.corruptData, "not a PNM file")
        }
        switch kind {
        case UInt8(ascii: "5"), UInt8(ascii: "6"):
            let width = try reader.number(), height = try reader.number(), maxValue = try reader.number()
            // number() consumed the single whitespace byte that ends the header.
            return try validated(Header(magic: kind == UInt8(ascii: "5") ? "P5" : "P6", width: width, height: height,
                                        channels: kind == UInt8(ascii: "5") ? 1 : 3, maxValue: maxValue,
                                        dataOffset: reader.offset))
        case UInt8(ascii: "7"):
            return try parsePAM(&reader)
        case UInt8(ascii: "1")...UInt8(ascii: "4"):
            throw ImageError(.unsupported, "PNM P\(Character(Unicode.Scalar(kind))) (ASCII or bitmap) is not supported; use P5, P6 or P7")
        default:
            throw ImageError(.corruptData, "not a PNM file")
        }
    }

    static func parsePAM<I: PNMInput>(_ reader: inout HeaderReader<I>) throws(ImageError) -> Header {
        var width = -1, height = -1, depth = -1, maxValue = -1
        var tuple = ""
        while true {
            let line = try reader.line()
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let key = parts.first else { continue }
            if key.hasPrefix("#") { continue }
            if key == "ENDHDR" { break }
            guard parts.count >= 2 else { throw ImageError(.corruptData, "bad PAM header line") }
            let value = String(parts[1])
            switch key {
            case "WIDTH": width = try HeaderReader<I>.parse(value)
            case "HEIGHT": height = try HeaderReader<I>.parse(value)
            case "DEPTH": depth = try HeaderReader<I>.parse(value)
            case "MAXVAL": maxValue = try HeaderReader<I>.parse(value)
            case "TUPLTYPE": tuple = value
            default: break // unknown keys are allowed by the format
            }
        }
        guard width >= 0, height >= 0, depth >= 0, maxValue >= 0 else {
            throw ImageError(.corruptData, "PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL")
        }
        let expectedDepth = ["GRAYSCALE": 1, "RGB": 3, "RGB_ALPHA": 4][tuple]
        guard let expectedDepth, expectedDepth == depth else {
            throw ImageError(.unsupported, "PAM TUPLTYPE \(tuple.isEmpty ? "(none)" : tuple) with DEPTH \(depth)")
        }
        return try validated(Header(magic: "P7", width: width, height: height, channels: depth,
                                    maxValue: maxValue, dataOffset: reader.offset))
    }

    static func validated(_ h: Header) throws(ImageError) -> Header {
        guard h.width >= 1, h.height >= 1 else { throw ImageError(.corruptData, "PNM size \(h.width)x\(h.height)") }
        guard h.width <= ImageCoreRuntime.maxDimension, h.height <= ImageCoreRuntime.maxDimension else {
            throw ImageError(.tooLarge, "PNM size \(h.width)x\(h.height)")
        }
        guard h.maxValue == 255 else {
            if h.maxValue >= 1 && h.maxValue <= 65535 { throw ImageError(.unsupported, "PNM MAXVAL \(h.maxValue); only 255") }
            throw ImageError(.corruptData, "PNM MAXVAL \(h.maxValue)")
        }
        return h
    }

    // MARK: writing

    /// The header a buffer is written with, or an error if the format has no PNM form.
    static func headerBytes(for buffer: borrowing PixelBuffer) throws(ImageError) -> [UInt8] {
        let text: String
        switch buffer.format {
        case .gray8: text = "P5\n\(buffer.width) \(buffer.height)\n255\n"
        case .rgb8: text = "P6\n\(buffer.width) \(buffer.height)\n255\n"
        case .rgba8:
            guard buffer.alphaMode != .premultiplied else {
                throw ImageError(.unsupported, "PAM stores straight alpha; un-premultiply first")
            }
            text = "P7\nWIDTH \(buffer.width)\nHEIGHT \(buffer.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        case .i420, .nv12:
            throw ImageError(.unsupported, "\(buffer.format) has no PNM form; convert to RGB first or write raw .yuv")
        }
        return Array(text.utf8)
    }

    /// Encodes a gray, RGB or (straight/opaque) RGBA buffer as P5, P6 or P7 bytes.
    public static func encode(_ buffer: borrowing PixelBuffer) throws(ImageError) -> [UInt8] {
        var out = try headerBytes(for: buffer)
        let g = buffer.plane(0)
        out.reserveCapacity(out.count + g.rowBytes * g.rows)
        buffer.withPlane(0) { span in
            span.withUnsafeBufferPointer { p in
                for y in 0..<g.rows { out.append(contentsOf: p[(y * g.stride)..<(y * g.stride + g.rowBytes)]) }
            }
        }
        return out
    }

    /// Writes a gray, RGB or RGBA buffer to a file as P5, P6 or P7, row by row from the
    /// buffer (no intermediate copy of the image).
    public static func write(_ buffer: borrowing PixelBuffer, path: String) throws(ImageError) {
        try PlaneFileIO.write(buffer, header: try headerBytes(for: buffer), path: path)
    }

    /// Writes a gray, RGB or RGBA buffer as P5, P6 or P7 to an open file descriptor (left
    /// open), row by row from the buffer. `name` is used in error messages.
    public static func write(_ buffer: borrowing PixelBuffer, fileDescriptor: Int32, name: String) throws(ImageError) {
        try PlaneFileIO.write(buffer, header: try headerBytes(for: buffer), fileDescriptor: fileDescriptor, name: name)
    }
}

// MARK: - inputs

protocol PNMInput {
    mutating func readByte() -> UInt8?
    /// Reads up to `count` bytes; returns how many were read.
    mutating func read(into p: UnsafeMutableRawPointer, count: Int) -> Int
    /// Bytes left, when knowable without reading (regular files, memory).
    var remaining: Int? { get }
}

struct MemoryInput: PNMInput {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    mutating func readByte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func read(into p: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = min(count, bytes.count - position)
        if n > 0 { p.copyMemory(from: bytes.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }

    var remaining: Int? { bytes.count - position }
}

struct FileInput: PNMInput {
    let file: UnsafeMutablePointer<FILE>

    mutating func readByte() -> UInt8? {
        let c = getc(file)
        return c == EOF ? nil : UInt8(c)
    }

    mutating func read(into p: UnsafeMutableRawPointer, count: Int) -> Int { fread(p, 1, count, file) }

    var remaining: Int? {
        var st = stat()
        guard fstat(fileno(file), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let position = ftell(file)
        guard position >= 0 else { return nil }
        return Int(st.st_size) - position
    }
}

/// Tokenises a PNM header with a byte budget.
struct HeaderReader<I: PNMInput> {
    var input: I
    var offset = 0

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (0x09...0x0d).contains(c) }

    mutating func next() -> UInt8? {
        guard offset < PNM.maxHeaderBytes, let c = input.readByte() else { return nil }
        offset += 1
        return c
    }

    /// A decimal number after whitespace and `#` comments (P5/P6 syntax).
    mutating func number() throws(ImageError) -> Int {
        var c = next()
        while let ch = c, Self.isSpace(ch) || ch == UInt8(ascii: "#") {
            if ch == UInt8(ascii: "#") {
                while let d = next(), d != 0x0a, d != 0x0d {}
            }
            c = next()
        }
        guard let first = c, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw ImageError(.corruptData, "bad PNM header")
        }
        var value = Int(first - UInt8(ascii: "0"))
        while true {
            guard let d = next() else { throw ImageError(.corruptData, "truncated PNM header") }
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) {
                value = min(value * 10 + Int(d - UInt8(ascii: "0")), 1 << 40) // saturate, never overflow
            } else if Self.isSpace(d) {
                return value
            } else {
                throw ImageError(.corruptData, "bad PNM header")
            }
        }
    }

    /// One header line (PAM syntax), without its newline.
    mutating func line() throws(ImageError) -> String {
        var bytes: [UInt8] = []
        while true {
            guard let c = next() else { throw ImageError(.corruptData, "truncated PAM header") }
            if c == 0x0a { break }
            bytes.append(Self.isSpace(c) ? 0x20 : c)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func parse(_ s: String) throws(ImageError) -> Int {
        guard s.count <= 12, let v = Int(s), v >= 0 else { throw ImageError(.corruptData, "bad PAM number \(s)") }
        return v
    }
}
