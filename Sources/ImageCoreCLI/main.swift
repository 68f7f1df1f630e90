import ArgumentParser
import ImageCore

struct ImageCoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagecore",
        abstract: "Fast, memory-frugal image tools built on ImageCore.",
        discussion: "Errors go to standard error as one line, with a non-zero exit status.",
        version: ImageCoreRuntime.version,
        subcommands: [Info.self, Convert.self, Decode.self, Encode.self, Rotate.self, LaplacianCommand.self, ResizeCommand.self,
                      Detect.self, Rectify.self, Enhance.self,
                      ScanCommand.self, SharpestCommand.self, ThumbnailCommand.self, ContactSheet.self]
    )
}

ImageCoreCommand.main()
