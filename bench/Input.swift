#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTurboJPEG
import ImageCore
import ImageCoreSynthetic

/// The bench's input image: the built-in synthetic 12 MP photo, or a file.
enum BenchInput {
    /// Loads `path` as RGBA8 (PNM through ImageCore; JPEG through a bare TurboJPEG decode
    /// straight into the buffer), or generates the built-in image when `path` is nil.
    static func load(path: String?) throws -> PixelBuffer {
        CodecWorkloads.imagePath = path
        guard let path else { return try SyntheticImage.photo() }
        let head = try readAll(path: path)
        if head.count >= 2 && head[0] == 0xFF && head[1] == 0xD8 {
            return try decodeJPEG(head)
        }
        let image = try PNM.read(path: path)
        if image.format != .rgba8 { return try toRGBA(image) }
        return image
    }

    static func describe(path: String?) -> String { path ?? "built-in synthetic photo" }

    static func decodeJPEG(_ bytes: [UInt8]) throws -> PixelBuffer {
        let header = try JPEGHeader(bytes: bytes)
        var image = try PixelBuffer(width: header.width, height: header.height, format: .rgba8, alphaMode: .opaque)
        let stride = image.plane(0).stride
        let status = image.withMutablePlane(0) { span in
            span.withUnsafeMutableBufferPointer { p in
                bytes.withUnsafeBufferPointer { src -> Int32 in
                    guard let h = tjInitDecompress() else { return -1 }
                    defer { tjDestroy(h) }
                    return tjDecompress2(h, src.baseAddress, UInt(src.count), p.baseAddress,
                                         Int32(header.width), Int32(stride), Int32(header.height),
                                         Int32(TJPF_RGBA.rawValue), Int32(TJFLAG_ACCURATEDCT))
                }
            }
        }
        guard status == 0 else { throw ImageError(.corruptData, "TurboJPEG could not decode the file") }
        return image
    }

    /// Gray or RGB to opaque RGBA (a bench-only helper until the conversion kernels land).
    static func toRGBA(_ src: borrowing PixelBuffer) throws -> PixelBuffer {
        var dst = try PixelBuffer(width: src.width, height: src.height, format: .rgba8, alphaMode: .opaque)
        let channels = src.format == .gray8 ? 1 : 3
        let sg = src.plane(0), dg = dst.plane(0)
        src.withPlane(0) { s in
            s.withUnsafeBufferPointer { sp in
                dst.withMutablePlane(0) { d in
                    d.withUnsafeMutableBufferPointer { dp in
                        for y in 0..<src.height {
                            for x in 0..<src.width {
                                let si = y * sg.stride + x * channels, di = y * dg.stride + x * 4
                                dp[di] = sp[si]
                                dp[di + 1] = sp[si + (channels == 3 ? 1 : 0)]
                                dp[di + 2] = sp[si + (channels == 3 ? 2 : 0)]
                                dp[di + 3] = 255
                            }
                        }
                    }
                }
            }
        }
        return dst
    }

    /// RGBA to RGB (drops alpha), for writing the input as a PPM.
    static func toRGB(_ src: borrowing PixelBuffer) throws -> PixelBuffer {
        var dst = try PixelBuffer(width: src.width, height: src.height, format: .rgb8)
        let sg = src.plane(0), dg = dst.plane(0)
        src.withPlane(0) { s in
            s.withUnsafeBufferPointer { sp in
                dst.withMutablePlane(0) { d in
                    d.withUnsafeMutableBufferPointer { dp in
                        for y in 0..<src.height {
                            for x in 0..<src.width {
                                for c in 0..<3 { dp[y * dg.stride + x * 3 + c] = sp[y * sg.stride + x * 4 + c] }
                            }
                        }
                    }
                }
            }
        }
        return dst
    }

    static func readAll(path: String) throws -> [UInt8] {
        guard let f = fopen(path, "rb") else { throw ImageError(.io, "\(path): \(String(cString: strerror(errno)))") }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}
