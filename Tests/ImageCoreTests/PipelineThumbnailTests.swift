import CTurboJPEG
import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// Shared inputs of the pipeline tests, made once.
enum PipelineFixtures {
    /// A 12 MP (4032×3024) 4:2:0 photo-like JPEG, quality 90, from TurboJPEG.
    static let photo12MP: [UInt8] = JPEGFixtures.photo(width: 4032, height: 3024)

    /// Packed plane bytes (no padding).
    static func packed(_ image: borrowing PixelBuffer, plane: Int = 0) -> [UInt8] {
        JPEGFixtures.packed(image, plane: plane)
    }
}

@Suite("Pipelines: thumbnails")
struct PipelineThumbnailTests {
    @Test("matches decode-full-then-resize within 30 dB", arguments: [(200, 200), (256, 256), (120, 300)])
    func matchesFullDecode(size: (Int, Int)) throws {
        let jpeg = JPEGFixtures.photo(width: 1600, height: 1200, seed: 3)
        let thumb = try Thumbnailer.thumbnail(jpeg, maxWidth: size.0, maxHeight: size.1)
        let full = try JPEG.decode(jpeg, format: .rgba8)
        let expected = try ResizeGeometry.fit(width: 1600, height: 1200, maxWidth: size.0, maxHeight: size.1, upscale: false)
        #expect(thumb.image.width == expected.width && thumb.image.height == expected.height)
        let reference = try full.resized(width: expected.width, height: expected.height)
        let p = JPEGFixtures.psnr(PipelineFixtures.packed(thumb.image), PipelineFixtures.packed(reference))
        #expect(p > 30, "PSNR \(p) dB at scale \(thumb.scale)/8")
        #expect(thumb.scale == (try JPEG.pickScale(width: 1600, height: 1200, targetWidth: expected.width, targetHeight: expected.height)))
    }

    @Test("gray thumbnails match the resized full luma")
    func gray() throws {
        let jpeg = JPEGFixtures.photo(width: 1000, height: 700, seed: 5)
        let thumb = try Thumbnailer.thumbnail(jpeg, maxWidth: 100, maxHeight: 100, format: .gray8)
        let reference = try JPEG.decode(jpeg, format: .gray8).resized(width: thumb.image.width, height: thumb.image.height)
        let p = JPEGFixtures.psnr(PipelineFixtures.packed(thumb.image), PipelineFixtures.packed(reference))
        #expect(p > 30, "PSNR \(p)")
    }

    @Test("EXIF orientations 1-8 give upright thumbnails", arguments: Orientation.allCases)
    func orientation(_ o: Orientation) throws {
        // The upright picture U; the file stores U turned by o's inverse and tagged o.
        let upright = try SyntheticImage.photo(width: 480, height: 320, format: .rgba8, seed: 9)
        var stored = try upright.applying(o.inverse)
        stored.orientation = .up
        let jpeg = try JPEG.encode(stored, options: .init(quality: 95, orientation: o))
        #expect(try JPEG.info(jpeg).orientation == o)
        let thumb = try Thumbnailer.thumbnail(jpeg, maxWidth: 240, maxHeight: 240)
        #expect(thumb.image.width == 240 && thumb.image.height == 160, "\(o): \(thumb.image.width)x\(thumb.image.height)")
        #expect(thumb.image.orientation == .up && thumb.orientation == o)
        let reference = try upright.resized(width: 240, height: 160)
        let p = JPEGFixtures.psnr(PipelineFixtures.packed(thumb.image), PipelineFixtures.packed(reference))
        #expect(p > 25, "\(o): PSNR \(p)")
    }

    @Test("12 MP → 256 px: peak pixel bytes = output + the resizer's ring and tables; never the decoded frame")
    func memoryBound() throws {
        let jpeg = PipelineFixtures.photo12MP
        let (thumb, usage) = try PixelAllocator.measure { () throws -> (Int, Int, Int, Int, Int) in
            let t = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256)
            return (t.image.byteCount, t.image.width, t.image.height, t.decodedWidth, t.decodedHeight)
        }
        #expect(thumb.1 == 256 && thumb.2 == 192)
        // Two allocations: the thumbnail and the resizer's one scratch block (upright file: no turn).
        #expect(usage.allocations == 2, "\(usage)")
        // The scratch: a ring of int16 rows of the output's width, one per vertical tap (12 for
        // Lanczos-3 at 378 -> 192; allow 16), and the coefficient tables: per output column
        // 128 B (start, count, 12 int16 weights, and the AVX2 copy replicated over the four
        // channels: 8 B a tap), per output row at most 64 B (start, count, 12 weights and
        // their pmaddwd pairs). Measured: 68928 B (24576 ring, 43520 tables, 832 the rest).
        let ring = 16 * thumb.1 * 4 * 2
        let tables = thumb.1 * 128 + thumb.2 * 64
        #expect(usage.peakBytes <= thumb.0 + ring + tables, "peak \(usage.peakBytes), output \(thumb.0)")
        #expect(usage.peakBytes < thumb.3 * thumb.4 * 4 / 2, "the decoded frame must never exist whole")
    }

    @Test("corrupt and truncated input throw ImageError")
    func badInput() throws {
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail([0xFF, 0xD8, 0x00], maxWidth: 64, maxHeight: 64) }
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail([UInt8](), maxWidth: 64, maxHeight: 64) }
        let jpeg = JPEGFixtures.photo(width: 300, height: 200)
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 0, maxHeight: 64) }
    }

    @Test("the streaming resizer, fed row by row or in bands, equals the one-shot Lanczos-3 resize byte for byte")
    func streamingResizer() throws {
        for format in [PixelFormat.gray8, .rgba8] {
            var src = try SyntheticImage.photo(width: 333, height: 251, format: format, seed: 2)
            src.alphaMode = .opaque
            let reference = try src.resized(width: 100, height: 77)
            let stride = src.plane(0).stride
            for band in [1, 16] {
                var out = try PixelBuffer(width: 100, height: 77, format: format)
                var r = try StreamingResizer(format: format, sourceWidth: 333, sourceHeight: 251, width: 100, height: 77)
                try src.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
                    try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                        var y = 0
                        while y < 251 {
                            let n = min(band, 251 - y)
                            if n == 1 { try r.push(row: p.baseAddress! + y * stride, into: &out) }
                            else { try r.push(rows: p.baseAddress! + y * stride, stride: stride, count: n, into: &out) }
                            y += n
                            #expect(r.nextRow == y && r.rowsWritten <= 77)
                        }
                    }
                }
                #expect(r.isComplete && r.rowsWritten == 77)
                #expect(PipelineFixtures.packed(out) == PipelineFixtures.packed(reference), "\(format), bands of \(band)")
            }
        }
    }

    @Test("the streaming resizer throws typed errors and consumes nothing on a bad push")
    func streamingResizerErrors() throws {
        func code(_ body: () throws -> Void) -> ImageError.Code? {
            do { try body(); return nil } catch { return (error as? ImageError)?.code }
        }
        #expect(code { _ = try StreamingResizer(format: .i420, sourceWidth: 10, sourceHeight: 10, width: 5, height: 5) } == .unsupported)
        #expect(code { _ = try StreamingResizer(format: .nv12, sourceWidth: 10, sourceHeight: 10, width: 5, height: 5) } == .unsupported)
        #expect(code { _ = try StreamingResizer(format: .gray8, sourceWidth: 0, sourceHeight: 10, width: 5, height: 5) } == .invalidArgument)
        #expect(code { _ = try StreamingResizer(format: .gray8, sourceWidth: 10, sourceHeight: 10, width: 5, height: 70000) } == .tooLarge)
        let src = try SyntheticImage.photo(width: 40, height: 6, format: .gray8, seed: 1)
        let stride = src.plane(0).stride
        var r = try StreamingResizer(format: .gray8, sourceWidth: 40, sourceHeight: 6, width: 10, height: 3)
        var out = try PixelBuffer(width: 10, height: 3, format: .gray8)
        var wrongSize = try PixelBuffer(width: 11, height: 3, format: .gray8)
        var wrongFormat = try PixelBuffer(width: 10, height: 3, format: .rgba8)
        try src.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
            try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                let base = p.baseAddress!
                #expect(code { try r.push(row: base, into: &wrongSize) } == .invalidArgument)
                #expect(code { try r.push(row: base, into: &wrongFormat) } == .invalidArgument)
                #expect(code { try r.push(rows: base, stride: 39, count: 2, into: &out) } == .invalidArgument)
                #expect(code { try r.push(rows: base, stride: stride, count: 7, into: &out) } == .invalidArgument)
                #expect(code { try r.push(rows: base, stride: stride, count: 0, into: &out) } == .invalidArgument)
                #expect(r.nextRow == 0)
                try r.push(rows: base, stride: stride, count: 6, into: &out)
                #expect(code { try r.push(row: base, into: &out) } == .invalidArgument) // after completion
                #expect(r.nextRow == 6 && r.rowsWritten == 3)
                r.reset()
                #expect(r.nextRow == 0 && r.rowsWritten == 0)
                for y in 0..<6 { try r.push(row: base + y * stride, into: &out) }
            }
        }
        #expect(PipelineFixtures.packed(out) == PipelineFixtures.packed(try src.resized(width: 10, height: 3)))
    }
}
