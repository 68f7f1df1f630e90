import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The options many commands share, declared once. A new common option (say `--srgb`) is
/// added to a group here and read in `Settings`; every command with that group gets it, in
/// its help, completions and man page.
enum CommonOptions {
    /// Every command that reads images: limits, decoder strictness, threads, output style.
    static let process: [OptionSpec] = [
        .value("max-pixels", "N", "Refuse inputs and outputs of more than N pixels (before any pixel memory is allocated). Default from IC_MAX_PIXELS.",
               default: "100000000"),
        .value("max-memory", "BYTES", "Budget of pixel memory for the whole process (and libjpeg's coefficient buffer), e.g. 512M; above it a file fails before allocating.",
               default: "none"),
        .value("max-input", "BYTES", "Refuse input files larger than this (read only up to it), e.g. 64M.", default: "128M"),
        .flag("strict", "Treat decoder warnings (truncated or corrupt data that was recovered) as failures."),
        .flag("allow-truncated", "Accept JPEGs whose data runs out before half of their rows (the missing rows decode grey; still a warning)."),
        .value("min-valid", "SHARE", "Smallest share 0...1 of a JPEG's rows that must come from real data; below it the file fails.", default: "0.5"),
        .value("threads", "N", "Threads of the C core for one image (0: one per core). Default from IC_NUM_THREADS.", default: "0"),
        .flag("json", "Print one JSON object per file on standard output (input, output, sizes, decode scale, warnings, milliseconds, error)."),
        .flag("quiet", short: "q", "Print no progress, per-file notes or summary on standard error (errors and warnings still)."),
    ]

    /// Commands that map each input file to an output file.
    static let batch: [OptionSpec] = [
        .value("output", short: "o", "TEMPLATE",
               "Output name for every input: a template with {dir} {name} {stem} {ext} {reldir} (see 'Output names'), or a folder (created if missing).",
               completion: .file),
        .flag("recursive", short: "r", "Take the image files of folders and all their subfolders ({reldir} mirrors the tree)."),
        OptionSpec(long: "files-from", value: "FILE", help: "Read input paths from FILE, one per line or NUL-separated ('-': standard input).",
                   completion: .file, repeatable: true),
        .flag("skip-existing", "Leave inputs whose output already exists (outputs are only ever complete: they are renamed into place)."),
        .value("workers", "N", "Files processed at once (0: one per core).", default: "0"),
    ]

    /// Commands that read many files and write none (info, detect, sharpest).
    static let inputsOnly: [OptionSpec] = batch.filter { ["recursive", "files-from", "workers"].contains($0.long) }

    /// Commands that write JPEG.
    static let jpegOutput: [OptionSpec] = [
        .value("quality", "Q", "JPEG quality 1...100 of JPEG outputs.", default: "85"),
        .flag("srgb", "Convert RGB pixels of an input with an ICC profile to sRGB (Little CMS, perceptual) and write no profile."),
    ]

    /// Commands that carry metadata to JPEG and PNG outputs (the ICC profile always, unless --srgb).
    static let metadata: [OptionSpec] = [
        .flag("keep-metadata", "Also copy the input's EXIF to JPEG and PNG outputs (its orientation tag set to the output's, 1 when oriented); by default only the ICC profile is kept."),
    ]

    /// Commands that read a photo whole and write its pixels for display (convert, decode, rotate,
    /// resize, rectify, enhance, laplacian); thumbnail, scan and contact-sheet always orient.
    static let orienting: [OptionSpec] = [
        .flag("no-auto-orient", "Keep the pixels in their stored orientation (and the EXIF tag); by default the input's EXIF orientation is applied and the output is upright with no tag."),
    ]

    /// Commands that resample (resize, thumbnail).
    static let resampling: [OptionSpec] = [
        .flag("linear", "Resize in linear light: sRGB decoded, filtered as light intensities, encoded again (the gamma-correct downscale; slower)."),
    ]

    /// Commands that read raw .yuv.
    static let rawInput: [OptionSpec] = [
        .value("size", "WxH", "Size of a raw .yuv input."),
        .value("layout", "LAYOUT", "Plane layout of raw .yuv files.", default: "i420", completion: .choices(["i420", "nv12"])),
    ]

    static let outputNamesHelp = """
        Output names: '-o TEMPLATE' names each input's output. Placeholders: {dir} the input's folder, {name} its file name, \
        {stem} the name without extension, {ext} its extension, {reldir} its folder relative to the folder argument it was \
        found under ('.' for files named directly). '-o DIR' (no braces) means 'DIR/{reldir}/' + the command's default name. \
        Two inputs mapping to one output are refused before anything runs; files that match the template are not taken as inputs. \
        '-' reads standard input or writes standard output.
        """
}

/// The process-wide settings from the common options, validated once before any file is
/// touched and applied (limits, threads) before any work starts.
struct Settings {
    var maxPixels = 100_000_000
    var maxMemory = 0
    /// Largest input file read whole (a JPEG); more is refused, so /dev/zero cannot grow the process.
    var maxInput = 128 << 20
    var strict = false
    /// Share of a JPEG's rows that must decode from real data (the library's data-sanity rule).
    var minValidShare = JPEG.DecodeOptions().minValidShare
    var threads = 0
    var json = false
    var quiet = false
    var quality = 85
    /// Convert inputs with an ICC profile to sRGB (the output then carries no profile).
    var srgb = false
    /// Apply the input's EXIF orientation to the pixels (outputs upright, tag 1); off with
    /// `--no-auto-orient` (stored pixels, the tag carried).
    var autoOrient = true
    /// Copy the input's EXIF to JPEG/PNG outputs (`--keep-metadata`).
    var keepMetadata = false
    /// Decode every JPEG with libjpeg, never with the reduced progressive decoder (environment
    /// IC_JPEG_LIBJPEG_ONLY=1; same pixels): the comparison `make peers` and farm-bench pair.
    var libjpegOnly = getenv("IC_JPEG_LIBJPEG_ONLY").map { String(cString: $0) != "0" } ?? false

    init(_ a: ParsedArguments) throws(CLIError) {
        if let env = getenv("IC_MAX_PIXELS").map({ String(cString: $0) }) {
            maxPixels = try ParsedArguments.int(env, option: "max-pixels (IC_MAX_PIXELS)", 1...Int(Int32.max) * 4)
        }
        maxPixels = try a.int("max-pixels", default: maxPixels, 1...Int(Int32.max) * 4)
        maxMemory = try a.bytes("max-memory") ?? 0
        maxInput = try a.bytes("max-input") ?? maxInput
        strict = a.flag("strict")
        if let share = try a.double("min-valid", 0...1) { minValidShare = share }
        if a.flag("allow-truncated") {
            guard !a.has("min-valid") else { throw .usage("--allow-truncated and --min-valid exclude each other") }
            minValidShare = 0
        }
        threads = try a.int("threads", default: 0, 0...1024)
        json = a.flag("json")
        quiet = a.flag("quiet")
        quality = try a.int("quality", default: 85, 1...100)
        srgb = a.flag("srgb")
        autoOrient = !a.flag("no-auto-orient")
        keepMetadata = a.flag("keep-metadata")
    }

    /// Sets the allocator's limits, the input cap and the C core's threads.
    func apply() {
        ImageFiles.maxInputBytes = maxInput
        PixelAllocator.maxPixelsPerBuffer = maxPixels
        PixelAllocator.maxLiveBytes = maxMemory
        if threads > 0 { ImageCoreRuntime.threads = threads }
    }

    /// Decode options carrying the limits.
    func decodeOptions() -> JPEG.DecodeOptions {
        JPEG.DecodeOptions(maxPixels: maxPixels, strict: strict, maxMemory: maxMemory, minValidShare: minValidShare,
                           libjpegOnly: libjpegOnly)
    }
}
