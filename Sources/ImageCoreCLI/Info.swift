import ArgumentParser
import ImageCore

/// `imagecore info FILE`: what a JPEG or PNM file holds, without decoding its pixels.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what a JPEG's or PNM's header says, without decoding pixels.")

    @Argument(help: "A JPEG or PNM (P5/P6/P7) file.")
    var file: String

    func run() throws {
        switch try FileKind.detect(path: file) {
        case .jpeg:
            let bytes = try FileBytes.read(path: file)
            let info: JPEG.Info
            do { info = try JPEG.info(bytes) } catch { throw ImageError(error.code, "\(file): \(error.detail ?? error.name)") }
            print("file: \(file)")
            print("format: jpeg")
            print("width: \(info.width)")
            print("height: \(info.height)")
            print("components: \(info.components)")
            print("colorspace: \(info.colorSpace)")
            print("subsampling: \(info.subsampling.rawValue)")
            print("progressive: \(info.isProgressive)")
            print("arithmetic: \(info.isArithmeticCoded)")
            print("restart interval: \(info.restartInterval)")
            print("orientation: \(info.orientation.exifValue)")
            print("exif: \(info.hasEXIF)")
            print("icc profile: \(info.hasICCProfile ? "\(info.iccProfileSize) bytes" : "none")")
            print("adobe marker: \(info.hasAdobeMarker)")
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
