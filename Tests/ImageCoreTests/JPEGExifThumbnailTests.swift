import CImageCore
import CTurboJPEG
import Foundation
@testable import ImageCore
import ImageCoreSynthetic
import Testing

/// The EXIF (IFD1) thumbnail: the probe's report, its decode, the letterbox check, and the
/// small thumbnails made from it. Files are built here: a main image from TurboJPEG and an APP1
/// segment from ``ExifWriter`` (the test support's EXIF writer), well-formed and broken.
@Suite("JPEG EXIF thumbnail")
struct JPEGExifThumbnailTests {
    /// A main image of `w` x `h` and, if `thumb` is given, an EXIF thumbnail (its bytes).
    static func camera(_ w: Int, _ h: Int, thumb: [UInt8]?, layout: ExifWriter.Layout = .init(), seed: UInt32 = 2) -> [UInt8] {
        let main = JPEGFixtures.photo(width: w, height: h, subsampling: TJSAMP_420, quality: 85, seed: seed)
        guard let thumb else { return main }
        return ExifWriter.insertingAPP1(main, payload: ExifWriter.app1(thumbnail: thumb, layout: layout))
    }

    /// A thumbnail JPEG of the same scene (the synthetic photo at another size).
    static func thumbnail(_ w: Int, _ h: Int, seed: UInt32 = 2) -> [UInt8] {
        JPEGFixtures.photo(width: w, height: h, subsampling: TJSAMP_420, quality: 80, seed: seed)
    }

    /// A `w` x `h` thumbnail whose picture (the synthetic photo, `pw` x `ph`) sits centred
    /// between black bars.
    static func letterboxed(_ w: Int, _ h: Int, picture pw: Int, _ ph: Int, bar: UInt8 = 0) -> [UInt8] {
        let pic = JPEGFixtures.pixels(width: pw, height: ph, channels: 3, seed: 2)
        var px = [UInt8](repeating: bar, count: w * h * 3)
        let (x0, y0) = ((w - pw) / 2, (h - ph) / 2)
        for y in 0..<ph { for x in 0..<(pw * 3) { px[((y0 + y) * w + x0) * 3 + x] = pic[(y * pw) * 3 + x] } }
        return JPEGFixtures.tjCompress(px, width: w, height: h, pf: TJPF_RGB, subsampling: TJSAMP_420, quality: 90)
    }

    static func smallWidth(_ file: [UInt8], embedded: Bool) throws -> Int {
        try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: embedded).image.width
    }

    static func bytesOf(_ file: [UInt8], _ t: JPEG.Info.EmbeddedThumbnail) -> [UInt8] { Array(file[t.offset..<(t.offset + t.length)]) }

    @Test("the probe reports IFD1's thumbnail in both byte orders: offset, length, size, shape")
    func probe() throws {
        let thumb = Self.thumbnail(160, 120)
        for bigEndian in [false, true] {
            var layout = ExifWriter.Layout(bigEndian: bigEndian, orientation: 6)
            let file = Self.camera(640, 480, thumb: thumb, layout: layout)
            let info = try JPEG.info(file)
            let t = try #require(info.exifThumbnail)
            #expect(Self.bytesOf(file, t) == thumb)
            #expect(t.width == 160 && t.height == 120 && t.hasSameShape)
            #expect(info.orientation == .right && info.width == 640)
            layout.tagType = 3 // SHORT offsets, as some writers use
            let short = try #require(try JPEG.info(Self.camera(640, 480, thumb: thumb, layout: layout)).exifThumbnail)
            #expect(short.width == 160)
        }
        #expect(try JPEG.info(Self.camera(640, 480, thumb: nil)).exifThumbnail == nil)
        // Within a pixel of rounding: 161x120 for 4:3; 160x90 is 16:9, another shape.
        #expect(try JPEG.info(Self.camera(640, 480, thumb: Self.thumbnail(161, 120))).exifThumbnail?.hasSameShape == true)
        #expect(try JPEG.info(Self.camera(640, 480, thumb: Self.thumbnail(160, 90))).exifThumbnail?.hasSameShape == false)
        #expect(try JPEG.info(Self.camera(640, 360, thumb: Self.thumbnail(160, 90))).exifThumbnail?.hasSameShape == true)
    }

    @Test("malformed IFD1 (out of the segment, overlapping, huge, looping, not a JPEG): no thumbnail, never a crash")
    func malformed() throws {
        let thumb = Self.thumbnail(160, 120)
        var cases: [(String, ExifWriter.Layout)] = []
        func add(_ name: String, _ change: (inout ExifWriter.Layout) -> Void) {
            for be in [false, true] { var l = ExifWriter.Layout(bigEndian: be); change(&l); cases.append(("\(name) be \(be)", l)) }
        }
        add("offset past the segment") { $0.thumbnailOffset = 60_000 }
        add("length past the segment") { $0.thumbnailLength = UInt32(thumb.count + 1) }
        add("huge length") { $0.thumbnailLength = 0xFFFF_FFF0 }
        add("offset + length wraps") { $0.thumbnailOffset = 0xFFFF_FFF0; $0.thumbnailLength = 0x20 }
        add("overlaps the TIFF header") { $0.thumbnailOffset = 4 }
        add("overlaps IFD0") { $0.thumbnailOffset = 10 }
        add("overlaps IFD1") { $0.thumbnailOffset = 20 }
        add("IFD1 is IFD0 (a loop)") { $0.ifd1Offset = 8 }
        add("IFD1 past the segment") { $0.ifd1Offset = 1_000_000 }
        add("no IFD1") { $0.ifd1Offset = 0 }
        add("not JPEG bytes") { $0.thumbnailOffset = 57; $0.thumbnailLength = UInt32(thumb.count - 1) }
        add("uncompressed") { $0.compression = 1 }
        add("wrong tag type") { $0.tagType = 2 }
        add("no thumbnail tags") { $0.omitThumbnailTags = true }
        add("zero length") { $0.thumbnailLength = 0 }
        for (name, layout) in cases {
            let file = Self.camera(320, 240, thumb: thumb, layout: layout)
            let info = try JPEG.info(file)
            #expect(info.exifThumbnail == nil, "\(name)")
            #expect(try JPEG.exifThumbnail(file) == nil, "\(name)")
            #expect(throws: ImageError.self, "\(name)") { _ = try JPEG.decode(file, format: .rgb8, options: .init(exifThumbnail: true)) }
            // The small thumbnail comes from the main image.
            let small = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75)
            #expect(small.source == .mainImage && small.image.width == 75 && small.image.height == 56, "\(name)")
        }
        // A thumbnail whose own data is damaged but whose structure is fine: the probe reports
        // it; a strict decode of it fails, and the small thumbnail comes from the main image.
        var damaged = thumb
        for i in stride(from: damaged.count / 2, to: damaged.count - 4, by: 3) { damaged[i] = 0xFF; damaged[i + 1] = 0x00 }
        let file = Self.camera(320, 240, thumb: damaged)
        #expect(try JPEG.info(file).exifThumbnail != nil)
        let small = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75)
        #expect(small.source == .mainImage)
        let reference = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: false)
        #expect(byteDiff(JPEGFixtures.packed(small.image, plane: 0), JPEGFixtures.packed(reference.image, plane: 0)) == "")
        // Truncated APP1 segments and random byte changes in the EXIF block never crash the probe.
        var rng = SplitMix64(seed: 77)
        let good = Self.camera(96, 72, thumb: Self.thumbnail(32, 24))
        for _ in 0..<400 {
            var v = good
            let at = 4 + Int(rng.next() % 200)
            v[at] = UInt8(truncatingIfNeeded: rng.next())
            if let info = try? JPEG.info(v), let t = info.exifThumbnail {
                #expect(t.offset + t.length <= v.count && v[t.offset] == 0xFF && v[t.offset + 1] == 0xD8)
            }
            _ = try? JPEG.exifThumbnail(v)
            _ = try? Thumbnailer.thumbnail(v, maxWidth: 20, maxHeight: 20)
        }
    }

    @Test("decode of the embedded thumbnail: TurboJPEG's pixels of its bytes, the main image's orientation")
    func decode() throws {
        let thumb = Self.thumbnail(160, 120)
        let file = Self.camera(640, 480, thumb: thumb, layout: .init(orientation: 8))
        for scale in [8, 4, 1] {
            var o = JPEGFixtures.options(scale: scale, flags: UInt32(IC_JPEG_EXIF_THUMBNAIL.rawValue))
            o.format = IC_FORMAT_RGBA8
            let ours = JPEGFixtures.decodeGuarded(file, format: IC_FORMAT_RGBA8, options: o)
            let (w, h) = ((160 * scale + 7) / 8, (120 * scale + 7) / 8)
            #expect(ours.status == IC_OK && ours.result.width == Int32(w) && ours.result.orientation == 8)
            #expect(byteDiff(ours.planes.first, JPEGFixtures.tjDecode(thumb, width: w, height: h, pf: TJPF_RGBA)) == "")
        }
        let none = JPEGFixtures.decodeGuarded(Self.camera(64, 48, thumb: nil), format: IC_FORMAT_RGBA8,
                                              options: JPEGFixtures.options(flags: UInt32(IC_JPEG_EXIF_THUMBNAIL.rawValue)))
        #expect(none.status == IC_ERR_UNSUPPORTED)
        // Not a JPEG at all stays corrupt data, as without the flag.
        var o = JPEGFixtures.options(flags: UInt32(IC_JPEG_EXIF_THUMBNAIL.rawValue))
        var w: Int32 = 0, h: Int32 = 0
        let junk: [UInt8] = [1, 2, 3, 4, 5, 6]
        #expect(ic_jpeg_decode_size(junk, junk.count, &o, &w, &h, nil) == IC_ERR_CORRUPT_DATA)
    }

    @Test("letterboxed and pillarboxed thumbnails: bars found and cropped; another shape without bars refused")
    func letterbox() throws {
        // 16:9 main in a 160x120 thumbnail: 160x90 between two 15-row bars.
        let file = Self.camera(1280, 720, thumb: Self.letterboxed(160, 120, picture: 160, 90))
        let t = try #require(try JPEG.exifThumbnail(file))
        #expect(t.isLetterboxed && t.content == PixelRect(x: 0, y: 15, width: 160, height: 90))
        // 3:2 main: 160x107 between bars of 6 and 7 rows.
        let threeTwo = try #require(try JPEG.exifThumbnail(Self.camera(960, 640, thumb: Self.letterboxed(160, 120, picture: 160, 107))))
        #expect(threeTwo.isLetterboxed && threeTwo.content == PixelRect(x: 0, y: 6, width: 160, height: 107))
        // Portrait 3:4 main in a 160x120 thumbnail: 90x120 between columns of bars.
        let pillar = try #require(try JPEG.exifThumbnail(Self.camera(480, 640, thumb: Self.letterboxed(160, 120, picture: 90, 120))))
        #expect(pillar.isLetterboxed && pillar.content == PixelRect(x: 35, y: 0, width: 90, height: 120))
        // The same shapes without bars (a crop of the scene), or with bright bars: refused.
        #expect(try JPEG.exifThumbnail(Self.camera(1280, 720, thumb: Self.thumbnail(160, 120))) == nil)
        #expect(try JPEG.exifThumbnail(Self.camera(1280, 720, thumb: Self.letterboxed(160, 120, picture: 160, 90, bar: 200))) == nil)
        // Same shape: the whole thumbnail.
        let same = try #require(try JPEG.exifThumbnail(Self.camera(640, 480, thumb: Self.thumbnail(160, 120))))
        #expect(!same.isLetterboxed && same.content == PixelRect(x: 0, y: 0, width: 160, height: 120))

        // The small thumbnail of the letterboxed file is the picture between the bars.
        let small = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75)
        #expect(small.source == .exifThumbnail && small.image.width == 75 && small.image.height == 42)
        // Reference: at 4/8 (80x60) the picture is rows 8 ..< 52 (15 * 4/8 rounded in, 105 * 4/8 rounded out).
        #expect(small.scale == 4)
        let picture = try JPEG.decode(Array(file[t.offset..<(t.offset + t.length)]), format: .rgba8,
                                      options: .init(scale: .eighths(4), crop: PixelRect(x: 0, y: 8, width: 80, height: 44)))
        let reference = try picture.resized(width: 75, height: 42)
        #expect(byteDiff(JPEGFixtures.packed(small.image, plane: 0), JPEGFixtures.packed(reference, plane: 0)) == "")
    }

    @Test("small thumbnails: the EXIF thumbnail when it covers the target (orientation applied), else the main image")
    func thumbnails() throws {
        let thumb = Self.thumbnail(160, 120)
        for orientation in 1...8 {
            let file = Self.camera(640, 480, thumb: thumb, layout: .init(orientation: orientation))
            let small = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75)
            #expect(small.source == .exifThumbnail, "orientation \(orientation)")
            // Reference: the thumbnail decoded at the smallest n/8 that covers 75x56 (4/8: 80x60),
            // resized to the stored-orientation target, turned upright.
            let swaps = orientation >= 5
            let (w, h) = swaps ? (56, 75) : (75, 56)
            #expect(small.image.width == w && small.image.height == h && small.image.orientation == .up && small.scale == 4)
            var resized = try JPEG.decode(thumb, format: .rgba8, options: .init(scale: .eighths(4))).resized(width: 75, height: 56)
            resized.orientation = Orientation(exifValue: orientation)!
            let upright = try resized.upright()
            #expect(byteDiff(JPEGFixtures.packed(small.image, plane: 0), JPEGFixtures.packed(upright, plane: 0)) == "",
                    "orientation \(orientation)")
        }
        let file = Self.camera(1024, 768, thumb: thumb)
        // A target the thumbnail does not cover at 1x, and the option to forbid it: the main image.
        #expect(try Thumbnailer.thumbnail(file, maxWidth: 256, maxHeight: 256).source == .mainImage)
        #expect(try Thumbnailer.thumbnail(file, maxWidth: 160, maxHeight: 160).source == .exifThumbnail)
        #expect(try Thumbnailer.thumbnail(file, maxWidth: 161, maxHeight: 161).source == .mainImage)
        let exact = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: false)
        #expect(exact.source == .mainImage)
        let fromMain = try Thumbnailer.thumbnail(Self.camera(1024, 768, thumb: nil), maxWidth: 75, maxHeight: 75)
        #expect(byteDiff(JPEGFixtures.packed(exact.image, plane: 0), JPEGFixtures.packed(fromMain.image, plane: 0)) == "")
        // Gray output and a scale below 8/8 for a large embedded thumbnail (640x480 -> 75 px at 1/8... 2/8).
        let big = Self.camera(1280, 960, thumb: Self.thumbnail(640, 480))
        let g = try Thumbnailer.thumbnail(big, maxWidth: 100, maxHeight: 100, format: .gray8)
        #expect(g.source == .exifThumbnail && g.scale == 2 && g.image.width == 100 && g.image.height == 75)
        // Pixel memory: the output and the resizer's scratch, no more than the main path's.
        let (_, viaThumb) = try PixelAllocator.measure { try Self.smallWidth(file, embedded: true) }
        let (_, viaMain) = try PixelAllocator.measure { try Self.smallWidth(file, embedded: false) }
        #expect(viaThumb.peakBytes <= viaMain.peakBytes && viaThumb.allocations == viaMain.allocations)
    }

    @Test("the renderer's decoder: the small tier from the EXIF thumbnail unless told otherwise")
    func rendererDecoder() throws {
        let file = Self.camera(1024, 768, thumb: Self.thumbnail(160, 120), layout: .init(orientation: 3))
        let small = try JPEGThumbnailDecoder().thumbnail(from: file.span.bytes, maxPixelSize: 75)
        let viaThumb = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75)
        #expect(viaThumb.source == .exifThumbnail)
        #expect(byteDiff(JPEGFixtures.packed(small, plane: 0), JPEGFixtures.packed(viaThumb.image, plane: 0)) == "")
        let exact = try JPEGThumbnailDecoder(useEmbeddedThumbnails: false).thumbnail(from: file.span.bytes, maxPixelSize: 75)
        let viaMain = try Thumbnailer.thumbnail(file, maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: false)
        #expect(byteDiff(JPEGFixtures.packed(exact, plane: 0), JPEGFixtures.packed(viaMain.image, plane: 0)) == "")
    }

    @Test("ThumbnailRenderer's small tier: the EXIF thumbnail, upright, bars left out; forbidden, broken or absent -> the main image")
    func rendererSmallTier() throws {
        // The EXIF thumbnails show another scene (seed 9) than the main images (seed 2), so a small
        // tier made from a main image cannot pass for one made from its thumbnail.
        let thumb = Self.thumbnail(160, 120, seed: 9)
        var broken = ExifWriter.Layout(orientation: 6)
        broken.thumbnailOffset = 60_000 // past the APP1 segment
        let files: [[UInt8]] = [
            Self.camera(1024, 768, thumb: thumb, layout: .init(orientation: 6)),
            Self.camera(1280, 720, thumb: Self.letterboxed(160, 120, picture: 160, 90), layout: .init(orientation: 3)),
            Self.camera(1024, 768, thumb: thumb, layout: broken),
            Self.camera(1024, 768, thumb: nil),
        ]
        func renderer(_ decoder: JPEGThumbnailDecoder) -> ThumbnailRenderer<Int> {
            var c = ThumbnailRenderer<Int>.Configuration()
            c.workerCount = 0 // image(for:) decodes the small tier on this thread
            return ThumbnailRenderer(source: ThumbnailSource<Int>.fullSizePhotos { files[$0] }, decoder: decoder, configuration: c)
        }
        let embedded = renderer(JPEGThumbnailDecoder())
        let exact = renderer(JPEGThumbnailDecoder(useEmbeddedThumbnails: false))
        defer { embedded.shutdown(); exact.shutdown() }
        func small(_ r: ThumbnailRenderer<Int>, _ key: Int) throws -> (width: Int, height: Int, bytes: [UInt8]) {
            try r.withImage(for: key) { (image, tier) throws(ImageError) in
                #expect(tier == .small && image.orientation == .up, "item \(key)")
                return (image.width, image.height, JPEGFixtures.packed(image, plane: 0))
            }
        }
        func fromMain(_ key: Int) throws -> [UInt8] {
            let t = try Thumbnailer.thumbnail(files[key], maxWidth: 75, maxHeight: 75, useEmbeddedThumbnail: false)
            #expect(t.source == .mainImage)
            return JPEGFixtures.packed(t.image, plane: 0)
        }
        // Item 0: the thumbnail decoded at 4/8 (80x60, the smallest n/8 that covers 75x56), resized
        // to 75x56, turned by orientation 6 to 56x75.
        var reference = try JPEG.decode(thumb, format: .rgba8, options: .init(scale: .eighths(4))).resized(width: 75, height: 56)
        reference.orientation = Orientation(exifValue: 6)!
        let upright = try reference.upright()
        let item0 = try small(embedded, 0)
        #expect(item0.width == 56 && item0.height == 75)
        #expect(byteDiff(item0.bytes, JPEGFixtures.packed(upright, plane: 0)) == "")
        // Forbidden: the main image's pixels, which differ from the thumbnail's scene.
        let exact0 = try small(exact, 0)
        #expect(exact0.width == 56 && exact0.height == 75)
        let main0 = try fromMain(0)
        #expect(byteDiff(exact0.bytes, main0) == "" && exact0.bytes != item0.bytes)
        // Item 1: a 16:9 photo with a letterboxed 4:3 thumbnail: the picture between the bars, 75x42
        // (orientation 3 keeps the shape), as Thumbnailer makes it from the thumbnail.
        let item1 = try small(embedded, 1)
        let viaThumb = try Thumbnailer.thumbnail(files[1], maxWidth: 75, maxHeight: 75)
        #expect(viaThumb.source == .exifThumbnail && item1.width == 75 && item1.height == 42)
        let main1 = try fromMain(1)
        #expect(byteDiff(item1.bytes, JPEGFixtures.packed(viaThumb.image, plane: 0)) == "" && item1.bytes != main1)
        // Items 2 and 3: an IFD1 offset out of the segment, and no thumbnail: the main image, in both renderers.
        for key in [2, 3] {
            let a = try small(embedded, key), b = try small(exact, key)
            let (w, h) = key == 2 ? (56, 75) : (75, 56) // item 2 keeps its orientation 6
            #expect(a.width == w && a.height == h, "item \(key)")
            let main = try fromMain(key)
            #expect(byteDiff(a.bytes, main) == "" && a.bytes == b.bytes, "item \(key)")
        }
    }
}
