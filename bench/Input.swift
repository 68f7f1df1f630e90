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
        let head = try FileBytes.read(path: path)
        if head.count >= 2 && head[0] == 0xFF && head[1] == 0xD8 {
            return try decodeJPEG(head)
        }
        let image = try PNM.read(path: path)
        if image.format != .rgba8 { return try image.converted(to: .rgba8) }
        return image
    }

    static func describe(path: String?) -> String { path ?? "built-in synthetic photo" }

    static func decodeJPEG(_ bytes: [UInt8]) throws -> PixelBuffer {
        let header = try JPEG.info(bytes)
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
}
