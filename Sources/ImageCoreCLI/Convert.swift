import ArgumentParser
import ImageCore

/// `imagecore convert IN OUT`: lossless PNM to PNM (P5, P6, P7), read straight into one
/// buffer and written straight from it.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a PNM (P5/P6/P7) and write it again losslessly.",
        discussion: "Gray is written as P5, RGB as P6 and RGBA as P7 (PAM RGB_ALPHA).")

    @Argument(help: "Input PNM file.")
    var input: String

    @Argument(help: "Output PNM file.")
    var output: String

    func run() throws {
        let image = try PNM.read(path: input)
        try PNM.write(image, path: output)
    }
}
