import ArgumentParser
import ImageCore

/// `imagecore convert IN OUT`: PNM ↔ PNM (lossless), PNM → raw .yuv, raw .yuv → PNM and
/// .yuv → .yuv (layout change). One buffer for the input and one for the output; the
/// conversion writes straight into the output.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert between PNM (P5/P6/P7) and raw I420/NV12 .yuv files.",
        discussion: """
            The output kind comes from its extension: .yuv (raw planes, --output-layout or \
            --layout) or .pgm/.ppm/.pam/.pnm. PNM to PNM is a lossless rewrite in the input's \
            format. From YUV, .pgm writes the luma as gray, .ppm and .pnm RGB, .pam RGBA. Raw \
            .yuv input needs --size WxH and --layout (default i420). --matrix and --range \
            describe the YUV side (default bt601, full: JPEG's).
            """)

    @Argument(help: "Input: JPEG, PNM, or raw .yuv with --size and --layout.")
    var input: String

    @Argument(help: "Output: .jpg, .pgm, .ppm, .pam, .pnm or .yuv.")
    var output: String

    @Option(help: "Size of a raw .yuv input, WxH.")
    var size: String?

    @Option(help: "Layout of raw .yuv files: i420 or nv12 (default i420).")
    var layout: String?

    @Option(help: "Layout of a raw .yuv output when the input is .yuv too (default: --layout).")
    var outputLayout: String?

    @Option(help: "YCbCr matrix: bt601 or bt709.")
    var matrix: String = "bt601"

    @Option(help: "YUV range: full or video.")
    var range: String = "full"

    func run() throws {
        let matrix = try ImageFiles.matrix(self.matrix), range = try ImageFiles.range(self.range)
        let inKind = try ImageFiles.inputKind(of: input), outKind = try ImageFiles.kind(of: output)
        let image = try ImageFiles.read(input, size: size, layout: layout)
        let target: PixelFormat
        switch (inKind, outKind) {
        case (.pnm, .pnm):
            try PNM.write(image, path: output)
            return
        case (.jpeg, .pnm), (_, .jpeg):
            try ImageFiles.write(image, to: output) // JPEG encodes gray, RGB(A) and YUV planes directly
            return
        case (.pnm, .yuv), (.jpeg, .yuv): target = try ImageFiles.layout(layout)
        case (.yuv, .yuv): target = try ImageFiles.layout(outputLayout ?? layout)
        case (.yuv, .pnm):
            let ext = ImageFiles.ext(output)
            target = ext == "pgm" ? .gray8 : ext == "pam" ? .rgba8 : .rgb8
        }
        let converted = try image.converted(to: target, matrix: matrix, range: range)
        try ImageFiles.write(converted, to: output)
    }
}
