import ArgumentParser
import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `imagecore encode IN.(pnm|yuv) OUT.jpg`: encode a PNM (gray, RGB, RGBA) or raw I420/NV12
/// planes (straight to libjpeg's raw input) as a JPEG.
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode a PNM (P5/P6/P7) or a raw .yuv (I420/NV12) as a JPEG.",
        discussion: "A raw .yuv input needs --size WxH and --layout i420|nv12; it is encoded 4:2:0 (or gray).")

    @Argument(help: "Input file: a PNM, or a raw .yuv.")
    var input: String

    @Argument(help: "Output JPEG file.")
    var output: String

    @Option(help: "Quality 1…100.")
    var quality: Int = 85

    @Option(help: "Chroma subsampling: 420, 422, 444, 440, 411 or gray (default 420; gray for gray input).")
    var subsampling: String?

    @Flag(help: "Write a progressive JPEG.")
    var progressive = false

    @Flag(help: "Optimise the Huffman tables.")
    var optimize = false

    @Option(help: "Raw .yuv input: the image size, WxH.")
    var size: String?

    @Option(help: "Raw .yuv input: the plane layout, i420 or nv12.")
    var layout: String?

    @Option(help: "Write an EXIF orientation tag (1…8).")
    var orientation: Int?

    func run() throws {
        var options = JPEG.EncodeOptions(quality: quality, progressive: progressive, optimizeHuffman: optimize)
        if let subsampling { options.subsampling = try Self.subsampling(subsampling) }
        if let orientation {
            guard let o = Orientation(exifValue: orientation) else { throw ImageError(.invalidArgument, "--orientation \(orientation): 1…8") }
            options.orientation = o
        }
        let image: PixelBuffer
        if input.lowercased().hasSuffix(".yuv") {
            guard let size, let layout else { throw ImageError(.invalidArgument, "\(input): a raw .yuv needs --size WxH and --layout i420|nv12") }
            let (w, h) = try CLIParse.size(size)
            guard let format = try CLIParse.pixelFormat(layout), format.isYUV else {
                throw ImageError(.invalidArgument, "--layout \(layout): use i420 or nv12")
            }
            image = try RawYUV.read(path: input, width: w, height: h, format: format)
        } else {
            guard size == nil, layout == nil else { throw ImageError(.invalidArgument, "--size and --layout are for raw .yuv input") }
            image = try PNM.read(path: input)
        }
        let bytes = try JPEG.encode(image, options: options)
        try writeFile(path: output, bytes: bytes)
        print("\(output): \(bytes.count) bytes, \(image.width)x\(image.height) from \(image.format)")
    }

    static func subsampling(_ s: String) throws(ImageError) -> JPEG.Subsampling {
        switch s.lowercased() {
        case "444", "4:4:4": return .s444
        case "422", "4:2:2": return .s422
        case "420", "4:2:0": return .s420
        case "440", "4:4:0": return .s440
        case "411", "4:1:1": return .s411
        case "gray", "grey": return .gray
        default: throw ImageError(.invalidArgument, "--subsampling \(s): use 420, 422, 444, 440, 411 or gray")
        }
    }
}

/// Writes encoded bytes to a file (removing a partial file on failure).
func writeFile(path: String, bytes: [UInt8]) throws(ImageError) {
    guard let f = fopen(path, "wb") else { throw ImageError(.io, "\(path): \(String(cString: strerror(errno)))") }
    let ok = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
    let closed = fclose(f) == 0
    guard ok && closed else {
        let reason = String(cString: strerror(errno))
        unlink(path)
        throw ImageError(.io, "\(path): \(reason)")
    }
}
