import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that picks a file's codec: inputs by content (JPEG, PNG, PNM; raw `.yuv` by
/// extension with a size and layout), outputs by extension. A new codec plugs in here:
/// `Kind`, `sniff`, `outputKind`, `read`, `write`.
///
/// Every read honours the process limits (`Settings`: `--max-pixels`, `--max-memory`,
/// `--strict`), names the file in every error, and notes decoder warnings in the file's
/// `FileResult`. Every write goes through `OutputFile` (a temporary renamed into place).
enum ImageFiles {
    enum Kind: Equatable { case pnm, yuv, jpeg, png }

    /// Raw YUV input: size and layout.
    struct Raw {
        var width: Int
        var height: Int
        var format: PixelFormat
    }

    /// The lower-cased extension of the file name, if any.
    static func ext(_ path: String) -> String? {
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: ".") else { return nil }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "pgm", "ppm", "pam", "pnm"]
    static let jpegExtensions: Set<String> = ["jpg", "jpeg"]
    /// What the batch photo commands (thumbnail, sharpest, contact sheet) take from folders.
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let outputExtensions: Set<String> = ["jpg", "jpeg", "pgm", "ppm", "pam", "pnm", "yuv", "png"]

    /// Whether a file found in a folder is an image input (by extension).
    static func isImageName(_ name: String) -> Bool { ext(name).map(imageExtensions.contains) ?? false }
    static func isJPEGName(_ name: String) -> Bool { ext(name).map(jpegExtensions.contains) ?? false }
    static func isPhotoName(_ name: String) -> Bool { ext(name).map(photoExtensions.contains) ?? false }

    /// What the first bytes say (PNG needs 8, the others 2).
    static func sniff(_ head: ArraySlice<UInt8>) -> Kind? {
        if head.count >= 2 && head[head.startIndex] == 0xFF && head[head.startIndex + 1] == 0xD8 { return .jpeg }
        if head.count >= 8 && head.elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count >= 2 && head[head.startIndex] == UInt8(ascii: "P")
            && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[head.startIndex + 1]) { return .pnm }
        return nil
    }

    /// An output's kind from its extension; `-` (stdout) takes `stdoutKind`.
    static func outputKind(of path: String, stdoutKind: Kind? = nil) throws(ImageError) -> Kind {
        if path == "-", let stdoutKind { return stdoutKind }
        switch ext(path) {
        case "yuv": return .yuv
        case "pgm", "ppm", "pam", "pnm": return .pnm
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        default: throw ImageError(.unsupported, "\(path): unknown output extension; use .jpg, .png, .pgm, .ppm, .pam, .pnm or .yuv")
        }
    }

    /// `--max-input`, set once before any work.
    nonisolated(unsafe) static var maxInputBytes = 128 << 20

    /// Whether `path` is a regular file (not `-`, a FIFO, a device, a folder).
    static func isRegular(_ path: String) -> Bool {
        var st = stat()
        return path != "-" && stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads a whole input (`-`: standard input), at most `maxInputBytes` of it. A FIFO is
    /// opened without waiting for a writer: one with no writer reads as empty instead of
    /// blocking forever (a shell's `<(cmd)` has its writer already).
    static func bytes(_ path: String) throws(ImageError) -> [UInt8] {
        var st = stat()
        let data: [UInt8]
        if path != "-", stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO {
            data = try readFIFO(path, limit: maxInputBytes + 1)
        } else {
            do throws(ImageError) { data = try FileBytes.read(path: path == "-" ? "/dev/stdin" : path, limit: maxInputBytes + 1) } catch {
                throw named(path, error)
            }
        }
        guard data.count <= maxInputBytes else {
            throw ImageError(.tooLarge, "\(path == "-" ? "<stdin>" : path): larger than --max-input \(maxInputBytes) bytes")
        }
        return data
    }

    /// A FIFO's bytes up to `limit`, opened without blocking for a writer, then read
    /// blocking; with no writer the read ends at once with no bytes.
    static func readFIFO(_ path: String, limit: Int) throws(ImageError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw OutputFile.error(path) }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { sysRead(fd, $0.baseAddress, min($0.count, limit - out.count)) }
            if n > 0 { out.append(contentsOf: chunk[0..<n]) } else if n < 0 && errno == EINTR { continue } else if n < 0 {
                throw OutputFile.error(path)
            } else { break }
        }
        return out
    }

    /// Prefixes `path` to an error's detail unless it names it already.
    static func named(_ path: String, _ e: ImageError) -> ImageError {
        let shown = path == "-" ? "<stdin>" : path
        if let d = e.detail, d.hasPrefix(path) || d.hasPrefix(shown) { return e }
        return ImageError(e.code, "\(shown): \(e.detail ?? e.name)")
    }

    // MARK: reading

    /// Reads a JPEG (RGBA8, or GRAY8 for a gray JPEG unless `format` is given), a PNG, a PNM (as
    /// stored), or raw YUV (`raw` given, or an error for a `.yuv` name without it). A JPEG's
    /// or PNG's EXIF orientation is applied (``upright(_:settings:)``) unless `orient` is false
    /// (the caller fuses it into a later stage) or `--no-auto-orient` was given. With
    /// `minimumLongSide`, a JPEG is decoded at the smallest of 1/8, 1/4 and 1/2 whose long side
    /// reaches it, if one does (`result.scale` and `result.storedSize` then say so).
    static func read(_ path: String, raw: Raw? = nil, format: PixelFormat? = nil, settings: Settings,
                     orient: Bool = true, minimumLongSide: Int? = nil, result: inout FileResult) throws(ImageError) -> PixelBuffer {
        if let raw {
            do throws(ImageError) {
                if path == "-" {
                    throw ImageError(.unsupported, "raw .yuv from standard input is not supported; name the file")
                }
                return try RawYUV.read(path: path, width: raw.width, height: raw.height, format: raw.format)
            } catch { throw named(path, error) }
        }
        if ext(path) == "yuv" { throw ImageError(.invalidArgument, "\(path): raw .yuv needs --size WxH (and --layout)") }
        do throws(ImageError) {
            // A regular file is sniffed from its first bytes, so a PNM streams from the file into
            // its buffer; standard input, FIFOs and devices are read once, whole.
            let regular = isRegular(path)
            let head = regular ? try FileBytes.read(path: path, limit: 8) : nil
            var data = regular ? [] : try bytes(path)
            switch sniff((head ?? data).prefix(8)) {
            case .jpeg:
                if head != nil { data = try bytes(path) }
                result.iccProfile = iccProfile(data)
                if settings.keepMetadata { result.exif = exif(data) }
                var options = settings.decodeOptions()
                options.cmykProfile = cmykProfile(result.iccProfile)
                if let minimumLongSide {
                    let info = try JPEG.info(data)
                    let n = JPEG.fastScale(width: info.width, height: info.height, longSideAtLeast: minimumLongSide)
                    if n < 8 { options.scale = .eighths(n); result.scale = n; result.storedSize = (info.width, info.height) }
                }
                var image = try decodeJPEG(data, format: format, options: options, result: &result)
                try toSRGB(&image, settings: settings, result: &result)
                if orient { try upright(&image, settings: settings) }
                return image
            case .png:
                if head != nil { data = try bytes(path) }
                result.iccProfile = iccProfile(data)
                if settings.keepMetadata { result.exif = exif(data) }
                var image = try decodePNG(data, format: format, options: pngOptions(settings), result: &result)
                try toSRGB(&image, settings: settings, result: &result)
                if orient { try upright(&image, settings: settings) }
                return image
            case .pnm:
                let image = head != nil ? try PNM.read(path: path) : try PNM.decode(data)
                result.width = image.width
                result.height = image.height
                return image
            default:
                throw ImageError(.unsupported, "neither JPEG, PNG nor PNM")
            }
        } catch { throw named(path, error) }
    }

    /// With auto-orient (the default): the image's EXIF orientation applied to its pixels
    /// (in place for the orientations that keep the size; a turned copy for 5...8, the
    /// source freed) and its ``PixelBuffer/orientation`` `.up`, so outputs are upright and
    /// carry no tag. With `--no-auto-orient` the image stays as stored and keeps its
    /// orientation, which JPEG and PNG outputs write as their tag.
    static func upright(_ image: inout PixelBuffer, settings: Settings) throws(ImageError) {
        guard settings.autoOrient, image.orientation != .up else { return }
        if image.orientation.swapsDimensions {
            image = try image.upright()
        } else {
            try image.apply(image.orientation)
            image.orientation = .up
        }
    }

    /// The ICC profile of JPEG or PNG bytes, byte for byte; nil without one, and for one that is
    /// malformed (inconsistent JPEG chunks, an iCCP beyond the limits): the pixels still decode.
    static func iccProfile(_ data: [UInt8]) -> [UInt8]? {
        switch sniff(data.prefix(8)) {
        case .jpeg: return (try? JPEG.iccProfile(data)) ?? nil
        case .png: return (try? PNG.iccProfile(data)) ?? nil
        default: return nil
        }
    }

    /// The EXIF (TIFF bytes) of JPEG (the first APP1 "Exif" segment) or PNG (eXIf) bytes, nil
    /// without; a copy, as the encoders take it.
    static func exif(_ data: [UInt8]) -> [UInt8]? {
        let range: Range<Int>? = switch sniff(data.prefix(8)) {
        case .jpeg: (try? JPEG.info(data))?.exifRange
        case .png: (try? PNG.info(data))?.exifRange
        default: nil
        }
        guard let range, range.upperBound <= data.count else { return nil }
        return Array(data[range])
    }

    /// `icc` when it is a CMYK profile ('CMYK' data colour space), for the decoder to convert a
    /// CMYK or YCCK JPEG's pixels through (``JPEG/DecodeOptions/cmykProfile``; other files
    /// ignore it). Always applied: no output carries CMYK, so the file's profile is the only
    /// faithful reading of its inks, and the formula's colours are what viewers do not show.
    static func cmykProfile(_ icc: [UInt8]?) -> [UInt8]? {
        dataColorSpace(icc) == "CMYK" ? icc : nil
    }

    /// An ICC profile's data colour space ('RGB ', 'GRAY', 'CMYK', ...: header bytes 16..<20).
    static func dataColorSpace(_ icc: [UInt8]?) -> String? {
        guard let icc, icc.count >= 20 else { return nil }
        return String(decoding: icc[16..<20], as: UTF8.self)
    }

    /// `icc` when it describes `image`'s colour space (the profile header's data colour space:
    /// 'RGB ' for RGB, RGBA and YUV images, 'GRAY' for gray), else nil: an RGB profile is not
    /// written into a gray file, nor a CMYK one (its pixels were converted) into anything.
    static func profile(_ icc: [UInt8]?, for image: borrowing PixelBuffer) -> [UInt8]? {
        guard let space = dataColorSpace(icc) else { return nil }
        return (space == "GRAY") == (image.format == .gray8) && (space == "GRAY" || space == "RGB ") ? icc : nil
    }

    /// With `--srgb`: converts an RGB or RGBA image whose input carried an RGB profile to sRGB
    /// in place, and forgets the profile (the output is written without one). Gray images and
    /// other profiles are left as they are.
    static func toSRGB(_ image: inout PixelBuffer, settings: Settings, result: inout FileResult) throws(ImageError) {
        guard settings.srgb, let icc = profile(result.iccProfile, for: image), image.format == .rgb8 || image.format == .rgba8 else { return }
        try image.convertToSRGB(from: icc)
        result.iccProfile = nil
    }

    /// The process limits for the PNG decoder (``PNG/DecodeOptions/init(_:bandRows:)``).
    static func pngOptions(_ settings: Settings) -> PNG.DecodeOptions {
        PNG.DecodeOptions(settings.decodeOptions())
    }

    /// Decodes PNG bytes into a new buffer (RGBA8 with straight alpha for a file with alpha,
    /// else GRAY8 or RGB8 as stored, unless `format` is given), noting warnings.
    static func decodePNG(_ data: [UInt8], format: PixelFormat?, options: PNG.DecodeOptions,
                          result: inout FileResult) throws(ImageError) -> PixelBuffer {
        let info = try PNG.info(data)
        let f = format ?? (info.hasAlpha ? .rgba8 : info.colorType == .gray ? .gray8 : .rgb8)
        guard info.width * info.height <= options.maxPixels else {
            throw ImageError(.tooLarge, "\(info.width)x\(info.height) is above the limit of \(options.maxPixels) pixels")
        }
        var image = try PixelBuffer(width: info.width, height: info.height, format: f)
        let report = try PNG.decode(data, into: &image, options: options)
        result.note(report)
        result.width = image.width
        result.height = image.height
        return image
    }

    /// Bytes of a file's start that hold the headers of nearly every JPEG (EXIF with its
    /// thumbnail, ICC profile, tables) through the first SOS marker.
    static let headerBytes = 128 << 10

    /// A thumbnail of the file at `path`; `result` receives its ICC profile (and with
    /// `--keep-metadata` its EXIF bytes). A regular JPEG file (baseline or progressive) larger
    /// than ``headerBytes`` is streamed: its headers read, the rest fed to the decoder from the
    /// descriptor (baseline: 64 KiB chunks; progressive at 1/8 and 1/4: windows read by offset),
    /// so the whole file is never in memory (2.8 MiB less peak memory for a 12 MP photo, 16 MB
    /// for the 18 MP progressive Elephants file). Anything else (PNG, headers longer than that,
    /// standard input, FIFOs) is read whole with the same checks as ``bytes(_:)``.
    static func thumbnail(path: String, box: (Int, Int), settings: Settings, linearLight: Bool = false,
                          result: inout FileResult) throws(ImageError) -> StreamedThumbnail {
        var st = stat()
        if path != "-", stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) > headerBytes,
           Int(st.st_size) <= maxInputBytes {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputFile.error(path) }
            defer { close(fd) }
            let headers = UnsafeMutableRawBufferPointer.allocate(byteCount: headerBytes, alignment: 64)
            defer { headers.deallocate() }
            var got = 0
            while got < headerBytes {
                let r = readFile(fd, headers.baseAddress! + got, headerBytes - got)
                if r > 0 { got += r } else if r < 0 && errno == EINTR { continue } else { break }
            }
            let raw = UnsafeRawBufferPointer(headers)
            if got == headerBytes, let info = try? JPEG.info(raw) {
                result.iccProfile = info.hasICCProfile ? ((try? JPEG.iccProfile(raw)) ?? nil) : nil
                if settings.keepMetadata, let range = info.exifRange, range.upperBound <= got { result.exif = Array(raw[range]) }
                var limits = settings.decodeOptions()
                limits.cmykProfile = cmykProfile(result.iccProfile)
                do throws(ImageError) {
                    return try Thumbnailer.thumbnail(headers: raw, descriptor: fd, remaining: Int(st.st_size) - got,
                                                     maxWidth: box.0, maxHeight: box.1, limits: limits,
                                                     linearLight: linearLight)
                } catch { throw named(path, error) }
            }
        }
        let bytes = try bytes(path)
        result.iccProfile = iccProfile(bytes)
        if settings.keepMetadata { result.exif = exif(bytes) }
        do throws(ImageError) {
            return try thumbnail(bytes, box: box, settings: settings, linearLight: linearLight,
                                 cmykProfile: cmykProfile(result.iccProfile))
        } catch { throw named(path, error) }
    }

    /// A streamed thumbnail of a JPEG or PNG (by content); a CMYK JPEG converted through
    /// `cmykProfile` (its own, ``cmykProfile(_:)``).
    static func thumbnail(_ data: [UInt8], box: (Int, Int), settings: Settings, linearLight: Bool = false,
                          cmykProfile: [UInt8]? = nil) throws(ImageError) -> StreamedThumbnail {
        switch sniff(data.prefix(8)) {
        case .jpeg:
            var limits = settings.decodeOptions()
            limits.cmykProfile = cmykProfile
            return try Thumbnailer.thumbnail(data, maxWidth: box.0, maxHeight: box.1, limits: limits, linearLight: linearLight)
        case .png: return try Thumbnailer.thumbnail(png: data, maxWidth: box.0, maxHeight: box.1, linearLight: linearLight,
                                                    limits: pngOptions(settings))
        default: throw ImageError(.unsupported, "neither JPEG nor PNG")
        }
    }

    /// Encodes for a `.jpg` or `.png` output, with `icc` embedded where it fits the image and
    /// `exif` (with `--keep-metadata`) with its orientation tag set to the image's (1 when
    /// upright; a JPEG takes at most one 64 KiB segment, so a larger PNG eXIf is left out).
    static func encode(_ image: borrowing PixelBuffer, kind: Kind, quality: Int, icc: [UInt8]? = nil,
                       exif: [UInt8]? = nil) throws(ImageError) -> [UInt8] {
        let profile = profile(icc, for: image)
        let exif = kind == .jpeg && (exif?.count ?? 0) > 65_527 ? nil : exif
        let tag: Orientation? = exif != nil ? image.orientation : nil // nil: the image's, none when .up
        switch kind {
        case .png:
            let options = PNG.EncodeOptions(orientation: tag, iccProfile: profile, exif: exif)
            if image.format.isYUV || (image.format == .rgba8 && image.alphaMode == .premultiplied) {
                return try PNG.encode(try image.converted(to: .rgb8), options: options)
            }
            return try PNG.encode(image, options: options)
        default:
            return try JPEG.encode(image, options: .init(quality: quality, orientation: tag, iccProfile: profile, exif: exif))
        }
    }

    /// Decodes JPEG bytes into a new buffer, noting warnings.
    static func decodeJPEG(_ data: [UInt8], format: PixelFormat?, options: JPEG.DecodeOptions,
                           result: inout FileResult) throws(ImageError) -> PixelBuffer {
        let info = try JPEG.info(data)
        let f = format ?? (info.colorSpace == .gray ? .gray8 : .rgba8)
        let size = try JPEG.decodedSize(data, format: f, options: options)
        var image = try PixelBuffer(width: size.width, height: size.height, format: f)
        let report = try JPEG.decode(data, into: &image, options: options)
        result.note(report)
        result.width = image.width
        result.height = image.height
        return image
    }

    /// Reads an image for the document kernels, which take GRAY8, RGBA8 or YUV: RGB8 PNM
    /// becomes opaque RGBA8.
    static func readForDocuments(_ path: String, raw: Raw?, settings: Settings, orient: Bool = true,
                                 minimumLongSide: Int? = nil, result: inout FileResult) throws(ImageError) -> PixelBuffer {
        let image = try read(path, raw: raw, settings: settings, orient: orient, minimumLongSide: minimumLongSide, result: &result)
        return image.format == .rgb8 ? try image.converted(to: .rgba8) : image
    }

    // MARK: writing

    /// Writes by extension, converting where the extension asks for another format: `.pgm`
    /// gray (luma of colour), `.ppm` RGB (alpha dropped, gray spread), `.pam`/`.pnm` gray,
    /// RGB or RGBA as they are (YUV as RGB), `.yuv` I420/NV12 (`yuvLayout` for non-YUV
    /// images), `.jpg` gray, RGB, RGBA or YUV planes at `quality`, `.png` gray, RGB or RGBA
    /// (YUV as RGB). JPEG and PNG outputs embed `icc` (the input's profile) where it fits.
    static func write(_ image: borrowing PixelBuffer, to path: String, quality: Int,
                      yuvLayout: PixelFormat = .i420, stdoutKind: Kind? = nil, icc: [UInt8]? = nil,
                      exif: [UInt8]? = nil) throws(ImageError) {
        let kind = try outputKind(of: path, stdoutKind: stdoutKind)
        switch kind {
        case .yuv:
            if image.format.isYUV {
                try writeOutput(path) { (f: OutputFile) throws(ImageError) in try RawYUV.write(image, fileDescriptor: f.fd, name: path) }
            } else {
                let yuv = try image.converted(to: yuvLayout)
                try writeOutput(path) { (f: OutputFile) throws(ImageError) in try RawYUV.write(yuv, fileDescriptor: f.fd, name: path) }
            }
        case .pnm:
            let want: PixelFormat? = switch ext(path) {
            case "pgm": .gray8
            case "ppm": .rgb8
            default: image.format.isYUV ? .rgb8 : nil
            }
            if let want, want != image.format {
                let converted = try image.converted(to: want)
                try writeOutput(path) { (f: OutputFile) throws(ImageError) in try PNM.write(converted, fileDescriptor: f.fd, name: path) }
            } else {
                try writeOutput(path) { (f: OutputFile) throws(ImageError) in try PNM.write(image, fileDescriptor: f.fd, name: path) }
            }
        case .jpeg, .png:
            try writeBytes(try encode(image, kind: kind, quality: quality, icc: icc, exif: exif), to: path)
        }
    }

    /// Writes encoded bytes atomically.
    static func writeBytes(_ bytes: [UInt8], to path: String) throws(ImageError) {
        try writeOutput(path) { (f: OutputFile) throws(ImageError) in try f.write(bytes) }
    }
}

/// `read(2)` (the name is taken inside types that have a `read`).
func sysRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, p, count)
    #else
    Darwin.read(fd, p, count)
    #endif
}

/// `read(2)` under a name `ImageFiles.read` does not shadow.
private func readFile(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
