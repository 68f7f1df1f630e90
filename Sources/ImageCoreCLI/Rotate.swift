import ArgumentParser
import ImageCore

/// `imagecore rotate IN OUT --orientation N`: applies EXIF orientation N (1…8) to a PNM
/// or raw .yuv image, writing the same kind of file (5…8 swap width and height).
struct Rotate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply an EXIF orientation (1-8) to a PNM or raw .yuv image.",
        discussion: """
            1 copies, 2 mirrors left-right, 3 rotates 180°, 4 mirrors top-bottom, 5 transposes, \
            6 rotates 90° clockwise, 7 transverses, 8 rotates 90° counter-clockwise: the result \
            is what a viewer shows for a file tagged with that orientation. The output has the \
            input's kind and format; raw .yuv input needs --size WxH and --layout.
            """)

    @Argument(help: "Input: PNM, or raw .yuv with --size and --layout.")
    var input: String

    @Argument(help: "Output, of the same kind as the input (.yuv for .yuv).")
    var output: String

    @Option(help: "EXIF orientation to apply, 1-8.")
    var orientation: String

    @Option(help: "Size of a raw .yuv input, WxH (the output size follows the orientation).")
    var size: String?

    @Option(help: "Layout of raw .yuv files: i420 or nv12 (default i420).")
    var layout: String?

    func run() throws {
        guard let value = Int(orientation), let o = Orientation(exifValue: value) else {
            throw ImageError(.invalidArgument, "--orientation '\(orientation)': expected 1 to 8")
        }
        guard try ImageFiles.inputKind(of: input) == ImageFiles.kind(of: output) else {
            throw ImageError(.invalidArgument, "\(output): rotate writes the input's kind of file")
        }
        let image = try ImageFiles.read(input, size: size, layout: layout)
        try ImageFiles.write(try image.applying(o), to: output)
    }
}
