import CImageCore
import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// The C core's one-call thumbnail and scan (`ic_thumbnail_jpeg`, `ic_scan_jpeg`), which
/// ``Thumbnailer`` and ``Scanner`` now are, against the Swift pipelines they replaced,
/// composed here from the public pieces: byte for byte.
@Suite("Pipelines: the one-call C thumbnail and scan equal the Swift pipelines")
struct PipelineOneCallTests {
    /// The Swift thumbnail pipeline as it was: streamed decode at the picked scale, rows
    /// pushed into a ``StreamingResizer``, the EXIF orientation applied to the result.
    static func swiftThumbnail(_ jpeg: [UInt8], maxWidth: Int, maxHeight: Int, format: PixelFormat,
                               minResidual: Double = 1, linearLight: Bool = false) throws -> PixelBuffer {
        let info = try JPEG.info(jpeg)
        let (tw, th) = info.orientation.swapsDimensions ? (maxHeight, maxWidth) : (maxWidth, maxHeight)
        let out = try ResizeGeometry.fit(width: info.width, height: info.height, maxWidth: tw, maxHeight: th, upscale: false)
        let scale = try JPEG.pickScale(width: info.width, height: info.height, targetWidth: out.width,
                                       targetHeight: out.height, minResidual: minResidual)
        let options = JPEG.DecodeOptions(scale: .eighths(scale), bandRows: 16)
        let decoded = try JPEG.decodedSize(jpeg, format: format, options: options)
        var resizer = try StreamingResizer(format: format, sourceWidth: decoded.width, sourceHeight: decoded.height,
                                           width: out.width, height: out.height, linearLight: linearLight)
        var image = try PixelBuffer(width: out.width, height: out.height, format: format,
                                    alphaMode: format == .rgba8 ? .opaque : .straight)
        let report = try JPEG.decodeStream(jpeg, format: format, options: options) { (band: borrowing JPEG.Band) throws(ImageError) in
            let stride = band.plane(0).stride
            try band.withPlane(0) { (span: Span<UInt8>) throws(ImageError) in
                try span.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ImageError) in
                    try resizer.push(rows: p.baseAddress!, stride: stride, count: band.rowCount, into: &image)
                }
            }
        }
        image.orientation = report.orientation
        return try image.upright()
    }

    @Test("thumbnails: every orientation, RGBA and gray, several boxes and residuals",
          arguments: Orientation.allCases)
    func thumbnail(_ o: Orientation) throws {
        // Settings held fixed: the C and Swift runs must take the same kernels and threads.
        try ProcessSettings.with { try thumbnailBody(o) }
    }

    func thumbnailBody(_ o: Orientation) throws {
        let upright = try SyntheticImage.photo(width: 500, height: 333, format: .rgba8, seed: 4)
        var stored = try upright.applying(o.inverse)
        stored.orientation = .up
        let jpeg = try JPEG.encode(stored, options: .init(quality: 92, orientation: o))
        for (box, format, residual) in [((120, 120), PixelFormat.rgba8, 1.0), ((200, 90), .gray8, 1.0),
                                        ((64, 300), .rgba8, 2.0), ((600, 600), .gray8, 1.0)] {
            let c = try Thumbnailer.thumbnail(jpeg, maxWidth: box.0, maxHeight: box.1, format: format, minResidual: residual)
            let s = try Self.swiftThumbnail(jpeg, maxWidth: box.0, maxHeight: box.1, format: format, minResidual: residual)
            #expect(c.image.width == s.width && c.image.height == s.height, "\(o) \(box) \(format)")
            #expect(PipelineFixtures.packed(c.image) == PipelineFixtures.packed(s), "\(o) \(box) \(format) residual \(residual)")
            #expect(c.orientation == o && c.image.orientation == .up)
        }
        // Linear light: the plan's resize flag reaches the stream.
        for format in [PixelFormat.rgba8, .gray8] {
            let c = try Thumbnailer.thumbnail(jpeg, maxWidth: 90, maxHeight: 90, format: format, linearLight: true)
            let s = try Self.swiftThumbnail(jpeg, maxWidth: 90, maxHeight: 90, format: format, linearLight: true)
            let plain = try Self.swiftThumbnail(jpeg, maxWidth: 90, maxHeight: 90, format: format)
            #expect(PipelineFixtures.packed(c.image) == PipelineFixtures.packed(s), "\(o) \(format) linear")
            #expect(PipelineFixtures.packed(c.image) != PipelineFixtures.packed(plain), "\(o) \(format) linear")
        }
    }

    /// The Swift scan pipeline as it was: decode the plan's crop at its scale, rectify with
    /// the orientation composed in, enhance, encode.
    static func swiftScan(_ jpeg: [UInt8], corners: Quad, size: RectifiedSize, mode: EnhanceMode, enhance: Bool,
                          interpolation: Interpolation) throws -> (jpeg: [UInt8], plan: Scanner.Plan) {
        let info = try JPEG.info(jpeg)
        let plan = try Scanner.plan(width: info.width, height: info.height, corners: corners, size: size)
        let format: PixelFormat = mode == .color ? .nv12 : .gray8
        let crop = try JPEG.decode(jpeg, format: format, options: .init(scale: .eighths(plan.scale), crop: plan.crop))
        let shown = crop.orientation.displaySize(width: plan.width, height: plan.height)
        var page = try PixelBuffer(width: shown.width, height: shown.height, format: format)
        try page.rectify(from: crop, quad: plan.quadInCrop, orientation: crop.orientation,
                         interpolation: interpolation, fill: format == .nv12 ? [255, 128, 128] : [255])
        if enhance { try page.enhance(mode: mode) }
        return (try JPEG.encode(page, options: .init(quality: 85, orientation: .up)), plan)
    }

    @Test("scans: colour, gray and black-and-white, orientations 1 and 6, with and without enhancement")
    func scan() throws {
        // Settings held fixed: warp and enhancement differ (within 1) between scalar and AVX2.
        try ProcessSettings.with { try scanBody() }
    }

    func scanBody() throws {
        let q = Quad(topLeft: Point(x: 150, y: 60), topRight: Point(x: 725, y: 80),
                     bottomRight: Point(x: 700, y: 550), bottomLeft: Point(x: 170, y: 530))
        let photo = try SyntheticImage.photo(width: 800, height: 600, format: .rgba8, seed: 8)
        for o in [Orientation.up, .right] {
            let jpeg = try JPEG.encode(photo, options: .init(quality: 90, orientation: o))
            for (mode, enhance, interpolation) in [(EnhanceMode.color, true, Interpolation.bilinear), (.gray, true, .bicubic),
                                                   (.bw, true, .bilinear), (.color, false, .bicubic)] {
                for size in [RectifiedSize.paper(.a5, dpi: 50), .pixels(width: 333, height: 250)] {
                    let c = try Scanner.scan(jpeg, options: .init(corners: q, size: size, mode: mode, enhance: enhance,
                                                                  interpolation: interpolation))
                    let s = try Self.swiftScan(jpeg, corners: q, size: size, mode: mode, enhance: enhance,
                                               interpolation: interpolation)
                    #expect(c.plan == s.plan, "\(o) \(mode) \(size)")
                    #expect(c.encoded == s.jpeg, "\(o) \(mode) enhance \(enhance) \(interpolation) \(size)")
                }
            }
        }
    }
}
