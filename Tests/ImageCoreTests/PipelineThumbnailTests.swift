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

    @Test("12 MP → 256 px: peak pixel bytes ≈ output + a few rows; never the decoded frame")
    func memoryBound() throws {
        let jpeg = PipelineFixtures.photo12MP
        let (thumb, usage) = try PixelAllocator.measure { () throws -> (Int, Int, Int, Int) in
            let t = try Thumbnailer.thumbnail(jpeg, maxWidth: 256, maxHeight: 256)
            return (t.image.byteCount, t.image.width, t.decodedWidth, t.decodedHeight)
        }
        #expect(thumb.1 == 256)
        // "A few rows": 16 float rows of the output's width (RGBA, 4 B a channel).
        let fewRows = 16 * thumb.1 * 4 * 4
        #expect(usage.peakBytes <= thumb.0 + fewRows, "peak \(usage.peakBytes), output \(thumb.0)")
        #expect(usage.peakBytes < thumb.2 * thumb.3 * 4 / 2, "the decoded frame must never exist whole")
    }

    @Test("corrupt and truncated input throw ImageError")
    func badInput() throws {
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail([0xFF, 0xD8, 0x00], maxWidth: 64, maxHeight: 64) }
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail([UInt8](), maxWidth: 64, maxHeight: 64) }
        let jpeg = JPEGFixtures.photo(width: 300, height: 200)
        #expect(throws: ImageError.self) { _ = try Thumbnailer.thumbnail(jpeg, maxWidth: 0, maxHeight: 64) }
    }

    @Test("the streaming resizer, fed row by row, matches the plan's Lanczos-3 resize")
    func streamingResizer() throws {
        let src = try SyntheticImage.photo(width: 333, height: 251, format: .gray8, seed: 2)
        var out = try PixelBuffer(width: 100, height: 77, format: .gray8)
        var r = try StreamingResizer(format: .gray8, sourceWidth: 333, sourceHeight: 251, width: 100, height: 77)
        let stride = src.plane(0).stride
        try src.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
            try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                for y in 0..<251 { try r.push(row: p.baseAddress! + y * stride, into: &out) }
            }
        }
        let reference = try src.resized(width: 100, height: 77)
        let p = JPEGFixtures.psnr(PipelineFixtures.packed(out), PipelineFixtures.packed(reference))
        #expect(p > 40, "PSNR \(p) vs the plan's Lanczos-3")
    }
}
