import ArgumentParser
import ImageCore

/// `imagecore info FILE`: what a JPEG or PNM file holds, without decoding its pixels.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a JPEG's or PNM's size and format without decoding pixels.")

    @Argument(help: "A JPEG or PNM (P5/P6/P7) file.")
    var file: String

    func run() throws {
        switch try FileKind.detect(path: file) {
        case .jpeg:
            let bytes = try readFile(path: file)
            let header = try JPEGHeader(bytes: bytes)
            print("file: \(file)")
            print("format: jpeg")
            print("width: \(header.width)")
            print("height: \(header.height)")
            print("colorspace: \(header.colorSpace)")
            print("subsampling: \(header.subsampling.rawValue)")
        case .pnm:
            let h = try PNM.readHeader(path: file)
            print("file: \(file)")
            print("format: pnm \(h.magic)")
            print("width: \(h.width)")
            print("height: \(h.height)")
            print("channels: \(h.channels)")
            print("maxval: \(h.maxValue)")
            print("pixel format: \(h.format)")
        case .unknown:
            throw ImageError(.unsupported, "\(file): neither JPEG nor PNM")
        }
    }
}
