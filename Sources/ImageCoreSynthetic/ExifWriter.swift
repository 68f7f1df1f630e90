/// A small EXIF writer for the tests and the bench: an APP1 "Exif" segment with IFD0 (an
/// optional orientation) linked to IFD1 holding a JPEG thumbnail, as cameras write them, in
/// either byte order, with knobs that break the structure the ways hostile files do.
public enum ExifWriter {
    /// How to lay out the segment. The defaults give a well-formed file.
    public struct Layout: Sendable {
        public var bigEndian = false
        /// EXIF orientation 1...8 in IFD0; nil = no tag.
        public var orientation: Int? = nil
        /// IFD1's JPEGInterchangeFormat; nil = where the writer puts the thumbnail.
        public var thumbnailOffset: UInt32? = nil
        /// IFD1's JPEGInterchangeFormatLength; nil = the thumbnail's length.
        public var thumbnailLength: UInt32? = nil
        /// IFD0's link to IFD1; nil = where the writer puts IFD1 (0 = no IFD1).
        public var ifd1Offset: UInt32? = nil
        /// The TIFF type of the two thumbnail tags (4 = LONG; 3 = SHORT; others are invalid).
        public var tagType: UInt16 = 4
        /// IFD1's Compression tag (6 = JPEG); nil = no tag.
        public var compression: UInt16? = 6
        /// Leave the thumbnail tags out of IFD1.
        public var omitThumbnailTags = false

        public init(bigEndian: Bool = false, orientation: Int? = nil) {
            self.bigEndian = bigEndian
            self.orientation = orientation
        }
    }

    /// The APP1 payload ("Exif\0\0" + TIFF structure) carrying `thumbnail`.
    public static func app1(thumbnail: [UInt8], layout: Layout = .init()) -> [UInt8] {
        let be = layout.bigEndian
        func u16(_ v: UInt16) -> [UInt8] { be ? [UInt8(v >> 8), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)]
            return be ? b : b.reversed()
        }
        func entry(_ tag: UInt16, _ type: UInt16, _ value: UInt32) -> [UInt8] {
            // SHORT values sit left-justified in the 4-byte field.
            let field = type == 3 ? u16(UInt16(truncatingIfNeeded: value)) + [0, 0] : u32(value)
            return u16(tag) + u16(type) + u32(1) + field
        }
        // TIFF header (8) | IFD0 | IFD1 | thumbnail.
        let ifd0Entries = layout.orientation.map { [entry(0x0112, 3, UInt32($0))] } ?? []
        let ifd0At: UInt32 = 8
        let ifd0Size = UInt32(2 + 12 * ifd0Entries.count + 4)
        let ifd1At = ifd0At + ifd0Size
        var ifd1Count = 0
        if layout.compression != nil { ifd1Count += 1 }
        if !layout.omitThumbnailTags { ifd1Count += 2 }
        let ifd1Size = UInt32(2 + 12 * ifd1Count + 4)
        let thumbAt = ifd1At + ifd1Size

        var tiff: [UInt8] = (be ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(ifd0At)
        tiff += u16(UInt16(ifd0Entries.count))
        for e in ifd0Entries { tiff += e }
        tiff += u32(layout.ifd1Offset ?? ifd1At)
        tiff += u16(UInt16(ifd1Count))
        if let c = layout.compression { tiff += entry(0x0103, 3, UInt32(c)) }
        if !layout.omitThumbnailTags {
            tiff += entry(0x0201, layout.tagType, layout.thumbnailOffset ?? thumbAt)
            tiff += entry(0x0202, layout.tagType, layout.thumbnailLength ?? UInt32(thumbnail.count))
        }
        tiff += u32(0)
        tiff += thumbnail
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` with `payload` as an APP1 segment right after SOI (at most 65533 bytes).
    public static func insertingAPP1(_ jpeg: [UInt8], payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 65533 && jpeg.count >= 2)
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + payload + jpeg[2...]
    }
}
