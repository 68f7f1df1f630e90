import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every subcommand, in the order `--help` lists them.
nonisolated let commands: [CommandSpec] = [
    Info.spec, Convert.spec, Decode.spec, Encode.spec, Rotate.spec, LaplacianCommand.spec, ResizeCommand.spec,
    Detect.spec, Rectify.spec, Enhance.spec, ScanCommand.spec, SharpestCommand.spec, ThumbnailCommand.spec,
    ContactSheet.spec,
]

/// Parses the command line, runs the subcommand and returns the exit status. Usage errors
/// exit 2 before any file is touched.
func runMain(_ argv: [String]) -> Int32 {
    guard let first = argv.first else {
        Console.err(Help.root(commands, version: ImageCoreRuntime.version))
        return ExitStatus.usage
    }
    switch first {
    case "--version":
        Console.out(ImageCoreRuntime.version)
        return ExitStatus.ok
    case "-h", "--help":
        Console.out(Help.root(commands, version: ImageCoreRuntime.version))
        return ExitStatus.ok
    case "help":
        if argv.count > 1, let c = commands.first(where: { $0.name == argv[1] }) { Console.out(Help.command(c)) } else {
            Console.out(Help.root(commands, version: ImageCoreRuntime.version))
        }
        return ExitStatus.ok
    case "--generate-completion-script":
        guard argv.count == 2, let s = Completions.script(argv[1], commands) else {
            Console.err("imagecore: --generate-completion-script needs bash, zsh or fish")
            return ExitStatus.usage
        }
        Console.out(s)
        return ExitStatus.ok
    case "--generate-manual":
        Console.out(ManPage.render(commands, version: ImageCoreRuntime.version))
        return ExitStatus.ok
    default: break
    }
    guard let command = commands.first(where: { $0.name == first }) else {
        Console.err("imagecore: unknown subcommand '\(first)'; see 'imagecore --help'")
        return ExitStatus.usage
    }
    do throws(CLIError) {
        let args = try parseArguments(Array(argv.dropFirst()), for: command)
        if args.flag("help") {
            Console.out(Help.command(command))
            return ExitStatus.ok
        }
        return try command.run(args)
    } catch {
        switch error {
        case .usage(let m):
            Console.err("imagecore: \(m)")
            return ExitStatus.usage
        case .failed(let m):
            Console.err("imagecore: \(m)")
            return ExitStatus.failures
        }
    }
}

#if canImport(Glibc)
// Buffers of 128 KiB and more (a photo's pixels, a detection's scratch) always from mmap, given
// back when freed: glibc's default threshold rises to the largest buffer freed so far and serves
// the next ones from the heap, which then fragments over a batch (`detect` over 24 photos of
// 12 MP peaked at 168 MiB, 118 with this; README, "At scale").
// (mallopt is in <malloc.h>, outside Swift's Glibc module: looked up; M_MMAP_THRESHOLD is -3.)
if let mallopt = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") { // RTLD_DEFAULT
    _ = unsafeBitCast(mallopt, to: (@convention(c) (Int32, Int32) -> Int32).self)(-3, 128 * 1024)
}
#endif
exit(runMain(Array(CommandLine.arguments.dropFirst())))
