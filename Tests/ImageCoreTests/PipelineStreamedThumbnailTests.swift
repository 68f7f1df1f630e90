import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Thumbnails of files streamed from a descriptor (`ic_jpeg_decode_options.read`): the headers
/// in memory, the rest read in chunks. The pixels must equal the in-memory thumbnail's.
@Suite("Pipelines: streamed thumbnails")
struct PipelineStreamedThumbnailTests {
    /// What a test compares of a thumbnail (copyable, unlike the thumbnail).
    struct Snap: Equatable {
        var pixels: [UInt8], width: Int, height: Int, scale: Int, warnings: Int, validRows: Int
        init(_ t: borrowing StreamedThumbnail) {
            pixels = PipelineFixtures.packed(t.image); width = t.image.width; height = t.image.height
            scale = t.scale; warnings = t.report.warnings; validRows = t.report.validRows
        }
    }

    /// Writes `bytes` to a temporary file and runs `body` with a descriptor positioned after
    /// the first `headerCount` bytes and those bytes.
    static func withFile(_ bytes: [UInt8], headerCount: Int,
                         _ body: (UnsafeRawBufferPointer, Int32) throws -> StreamedThumbnail) throws -> Snap {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString).jpg")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(lseek(fd, off_t(headerCount), SEEK_SET) == off_t(headerCount))
        return try Array(bytes.prefix(headerCount)).withUnsafeBytes { Snap(try body($0, fd)) }
    }

    @Test("equals the in-memory thumbnail byte for byte", arguments: [(256, 1), (256, 6), (100, 3)])
    func equalsInMemory(size: Int, orientation: Int) throws {
        let upright = try SyntheticImage.photo(width: 1600, height: 1200, seed: 7)
        let jpeg = try JPEG.encode(upright, options: .init(quality: 90, orientation: Orientation(exifValue: orientation)!))
        let memory = Snap(try Thumbnailer.thumbnail(jpeg, maxWidth: size, maxHeight: size))
        for headerCount in [2048, 20_000] {
            let streamed = try Self.withFile(jpeg, headerCount: headerCount) { raw, fd in
                try Thumbnailer.thumbnail(headers: raw, descriptor: fd, remaining: jpeg.count - headerCount,
                                          maxWidth: size, maxHeight: size)
            }
            #expect(streamed.width == memory.width && streamed.height == memory.height)
            #expect(streamed.pixels == memory.pixels)
            #expect(streamed.warnings == 0 && streamed.scale == memory.scale)
        }
    }

    @Test("a file cut short, or `remaining` short of its end, warns as the in-memory truncated bytes do")
    func truncated() throws {
        let upright = try SyntheticImage.photo(width: 1600, height: 1200, seed: 7)
        let jpeg = try JPEG.encode(upright, options: .init(quality: 90))
        let cut = jpeg.count * 7 / 10
        let limits = JPEG.DecodeOptions(minValidShare: 0)
        let memory = Snap(try Thumbnailer.thumbnail(Array(jpeg.prefix(cut)), maxWidth: 200, maxHeight: 200, limits: limits))
        #expect(memory.warnings > 0 && memory.validRows < memory.height)
        // The file itself cut, and a whole file with `remaining` stopping at the same byte.
        for bytes in [Array(jpeg.prefix(cut)), jpeg] {
            let streamed = try Self.withFile(bytes, headerCount: 4096) { raw, fd in
                try Thumbnailer.thumbnail(headers: raw, descriptor: fd, remaining: cut - 4096, maxWidth: 200, maxHeight: 200,
                                          limits: limits)
            }
            #expect(streamed == memory)
        }
    }

    @Test("a progressive file streams through the reduced decoder by offset (a pipe: libjpeg), equal to the in-memory thumbnail")
    func progressive() throws {
        let jpeg = JPEGFixtures.photo(width: 1200, height: 900, progressive: true, seed: 4)
        let memoryThumbnail = try Thumbnailer.thumbnail(jpeg, maxWidth: 150, maxHeight: 150)
        #expect(memoryThumbnail.report.decoder == .progressiveLowFrequency)
        let memory = Snap(memoryThumbnail)
        var decoder: JPEG.DecodeReport.Decoder = .library
        let streamed = try Self.withFile(jpeg, headerCount: 1024) { raw, fd in
            let t = try Thumbnailer.thumbnail(headers: raw, descriptor: fd, remaining: jpeg.count - 1024, maxWidth: 150, maxHeight: 150)
            decoder = t.report.decoder
            return t
        }
        #expect(decoder == .progressiveLowFrequency)
        #expect(streamed == memory)
        // A pipe cannot be read by offset: libjpeg decodes it, to the same pixels.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let rest = Array(jpeg[1024...])
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            rest.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + done, raw.count - done)
                    if n <= 0 { break }
                    done += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        let piped = try Array(jpeg.prefix(1024)).withUnsafeBytes { raw in
            let t = try Thumbnailer.thumbnail(headers: raw, descriptor: readEnd, remaining: rest.count, maxWidth: 150, maxHeight: 150)
            decoder = t.report.decoder
            return Snap(t)
        }
        #expect(decoder == .library)
        #expect(piped == memory)
    }
}
