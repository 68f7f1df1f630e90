import Foundation
import Testing
@testable import ImageCore
import ImageCoreSynthetic

@Suite("Pipelines: providers")
struct PipelineProviderTests {
    @Test("a screen-sized crop of a 12 MP JPEG decodes only the crop at a reduced scale")
    func jpegCrop() throws {
        let provider = try JPEGProvider(bytes: PipelineFixtures.photo12MP)
        #expect(provider.width == 4032 && provider.height == 3024)
        let request = ImageRequest(format: .gray8, crop: PixelRect(x: 1000, y: 1000, width: 800, height: 600),
                                   size: .atLeast(width: 400, height: 300))
        #expect(try provider.plan(request).scale == 4)
        let (packed, usage) = try PixelAllocator.measure { () throws -> ([UInt8], Int, Int) in
            try provider.withBuffer(request) { (b: borrowing PixelBuffer) throws(ImageError) in
                (JPEGFixtures.packed(b, plane: 0), b.width, b.height)
            }
        }
        #expect(packed.1 == 400 && packed.2 == 300)
        #expect(usage.peakBytes < 400 * 300 * 2, "peak \(usage.peakBytes): only the crop at 1/2")
        // Against decode-everything-then-crop-then-resize.
        let full = try JPEG.decode(PipelineFixtures.photo12MP, format: .gray8)
        let crop = BufferProvider(full)
        let ref = try crop.withBuffer(ImageRequest(format: .gray8, crop: PixelRect(x: 1000, y: 1000, width: 800, height: 600),
                                                   size: .exactly(width: 400, height: 300))) { (b: borrowing PixelBuffer) throws(ImageError) in
            JPEGFixtures.packed(b, plane: 0)
        }
        let p = JPEGFixtures.psnr(packed.0, ref)
        #expect(p > 30, "PSNR \(p)")
    }

    @Test("orientation is reported and carried, not applied")
    func lazyOrientation() throws {
        let img = try SyntheticImage.photo(width: 200, height: 100, format: .rgba8)
        let jpeg = try JPEG.encode(img, options: .init(orientation: .right))
        let provider = try JPEGProvider(bytes: jpeg)
        #expect(provider.orientation == .right)
        #expect(provider.displaySize == (width: 100, height: 200))
        let b = try provider.buffer(ImageRequest(format: .nv12, size: .exactly(width: 100, height: 50)))
        #expect(b.width == 100 && b.height == 50 && b.orientation == .right)
    }

    @Test("a buffer provider lends itself without a copy, crops and resizes from a view")
    func bufferProvider() throws {
        let img = try SyntheticImage.photo(width: 300, height: 200, format: .rgba8, seed: 7)
        let whole = JPEGFixtures.packed(img, plane: 0)
        let provider = BufferProvider(img)
        let (same, usage) = try PixelAllocator.measure { () throws -> Bool in
            try provider.withBuffer(ImageRequest(format: .rgba8)) { (b: borrowing PixelBuffer) throws(ImageError) in
                JPEGFixtures.packed(b, plane: 0) == whole
            }
        }
        #expect(same && usage.peakBytes == 0)
        let rect = PixelRect(x: 30, y: 20, width: 120, height: 90)
        let cropped = try provider.buffer(ImageRequest(format: .rgba8, crop: rect))
        var expected: [UInt8] = []
        for y in 20..<110 { expected += whole[(y * 300 + 30) * 4..<(y * 300 + 150) * 4] }
        #expect(JPEGFixtures.packed(cropped, plane: 0) == expected)
        let resized = try provider.buffer(ImageRequest(format: .rgba8, crop: rect, size: .exactly(width: 60, height: 45)))
        #expect(JPEGFixtures.packed(resized, plane: 0) == JPEGFixtures.packed(try cropped.resized(width: 60, height: 45), plane: 0))
        #expect(throws: ImageError.self) { _ = try provider.buffer(ImageRequest(format: .gray8)) }
        #expect(throws: ImageError.self) { _ = try provider.buffer(ImageRequest(format: .rgba8, crop: PixelRect(x: 250, y: 0, width: 100, height: 10))) }
    }

    @Test("a JPEG file provider reads the header; a missing or corrupt file is an ImageError")
    func fileProvider() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagecore-prov-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("a.jpg").path, bad = dir.appendingPathComponent("b.jpg").path
        try Data(JPEGFixtures.photo(width: 320, height: 240)).write(to: URL(fileURLWithPath: good))
        try Data([0xFF, 0xD8, 0x00, 0x01]).write(to: URL(fileURLWithPath: bad))
        let p = try JPEGProvider(path: good)
        #expect(p.width == 320 && p.height == 240 && p.orientation == .up)
        let b = try p.buffer(ImageRequest(format: .i420, crop: PixelRect(x: 33, y: 17, width: 100, height: 80), size: .atLeast(width: 50, height: 40)))
        #expect(b.width >= 50 && b.height >= 40 && b.width <= 60 && b.height <= 50)
        #expect(throws: ImageError.self) { _ = try JPEGProvider(path: bad) }
        #expect(throws: ImageError.self) { _ = try JPEGProvider(path: dir.appendingPathComponent("none.jpg").path) }
    }
}
