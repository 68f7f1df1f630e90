import ArgumentParser
import ImageCore

/// `imagecore laplacian IN OUT.pgm [--gamma] [--roi x,y,w,h]`: the sharpness score and the
/// clipped response as an image.
struct LaplacianCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "laplacian",
        abstract: "Print the Laplacian sharpness score (mean, variance, std-dev) and write the response.",
        discussion: """
            The 3x3 Laplacian (-1 around, 8 in the centre, reflect-101 borders) of the image's \
            luma (gray and YUV as is; RGB/RGBA converted to full-range BT.601 luma). The score is the population standard deviation of the signed \
            response, computed exactly. OUT is the response clamped to 0...255 (negative values \
            show black), optionally through the 1/2.2 display gamma.
            """)

    @Argument(help: "Input image (PNM).")
    var input: String

    @Argument(help: "Output image of the clipped response (.pgm).")
    var output: String

    @Flag(help: "Apply the 1/2.2 display gamma to the output image.")
    var gamma = false

    @Option(help: "Region of interest x,y,width,height (default: the whole image).")
    var roi: String?

    func run() throws {
        let region = try roi.map { text throws(ImageError) -> PixelRect in
            let v = text.split(separator: ",").map { Int($0.filter { $0 != " " }) }
            guard v.count == 4, v.allSatisfy({ $0 != nil }) else {
                throw ImageError(.invalidArgument, "--roi takes x,y,width,height, got '\(text)'")
            }
            return PixelRect(x: v[0]!, y: v[1]!, width: v[2]!, height: v[3]!)
        }
        let image = try ImageFiles.read(path: input)
        let gray: PixelBuffer = switch image.format {
        case .gray8, .i420, .nv12: image
        case .rgb8, .rgba8: try image.converted(to: .gray8)
        }
        let score = try gray.laplacianScore(roi: region)
        let display = try gray.laplacianDisplay(roi: region, gamma: gamma)
        try ImageFiles.write(display, path: output)
        print("mean: \(score.mean)")
        print("variance: \(score.variance)")
        print("std-dev: \(score.standardDeviation)")
    }
}
