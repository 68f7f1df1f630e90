import Testing
@testable import ImageCore
import ImageCoreSynthetic

/// One generic byte input (``ByteSource``) behind every decoder, probe and pipeline: each
/// conformance lends its own storage (pointer identity, so no copy), and the entry points read
/// the bytes only through the source they were given.
@Suite("Byte sources: one generic entry point, copy-free")
struct ByteSourceTests {
    /// The address and length a source lends.
    func lent(_ source: borrowing some ByteSource & ~Escapable) -> [UInt] {
        source.withBytes { [UInt(bitPattern: $0.baseAddress), UInt($0.count)] }
    }

    @Test("every conformance lends its own storage: same address, same length")
    func identity() {
        let array = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let base = array.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(base != 0)
        #expect(lent(array) == [base, 200])
        #expect(lent(array[10..<50]) == [base + 10, 40])
        #expect(lent(array[190...]) == [base + 190, 10])
        #expect(lent(array.span) == [base, 200])
        #expect(lent(array.span.bytes) == [base, 200])
        array.withUnsafeBytes { raw in #expect(lent(raw) == [base, 200]) }
        array.withUnsafeBufferPointer { typed in #expect(lent(typed) == [base, 200]) }

        let contiguous = ContiguousArray(array)
        let contiguousBase = contiguous.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(lent(contiguous) == [contiguousBase, 200])

        var mutable = array
        mutable.withUnsafeMutableBytes { raw in
            #expect(lent(raw) == [UInt(bitPattern: raw.baseAddress), 200])
        }
        #expect(lent([UInt8]()).last == 0)
    }

    /// A source that records every lend, to show what an entry point reads.
    final class Lends: @unchecked Sendable { var addresses: [UInt] = [] }
    struct Recording: ByteSource {
        let bytes: [UInt8]
        let lends: Lends
        func withBytes<R: ~Copyable, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
            try bytes.withBytes { (raw) throws(E) -> R in
                lends.addresses.append(UInt(bitPattern: raw.baseAddress))
                return try body(raw)
            }
        }
    }

    /// Runs `body` on a recording source over `bytes`; expects at least one lend and every lend
    /// to be the array's own storage.
    func readsInPlace(_ bytes: [UInt8], _ what: String, _ body: (Recording) throws -> Void,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lends = Lends()
        try body(Recording(bytes: bytes, lends: lends))
        let base = bytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(!lends.addresses.isEmpty, "\(what) did not read its source", sourceLocation: sourceLocation)
        #expect(lends.addresses.allSatisfy { $0 == base }, "\(what) read other memory", sourceLocation: sourceLocation)
    }

    @Test("JPEG, PNG, PNM and the pipelines read the caller's bytes in place")
    func entryPoints() throws {
        let photo = try SyntheticImage.photo(width: 64, height: 48, format: .rgba8, seed: 5)
        let jpeg = try JPEG.encode(photo)
        let png = try PNG.encode(photo)
        let pnm = try PNM.encode(try photo.converted(to: .rgb8))

        try readsInPlace(jpeg, "JPEG.info") { (s: Recording) throws in #expect(try JPEG.info(s).width == 64) }
        try readsInPlace(jpeg, "JPEG.decodedSize") { (s: Recording) throws in
            #expect(try JPEG.decodedSize(s, options: .init(scale: .eighths(4))) == (32, 24))
        }
        try readsInPlace(jpeg, "JPEG.decode") { (s: Recording) throws in #expect(try JPEG.decode(s).height == 48) }
        try readsInPlace(jpeg, "JPEG.decode(into:)") { (s: Recording) throws in
            var image = try PixelBuffer(width: 64, height: 48, format: .gray8)
            #expect(try JPEG.decode(s, into: &image).height == 48)
        }
        try readsInPlace(jpeg, "JPEG.decodeStream") { (s: Recording) throws in
            var rows = 0
            try JPEG.decodeStream(s, format: .gray8) { (band: borrowing JPEG.Band) throws(ImageError) in rows += band.rowCount }
            #expect(rows == 48)
        }
        try readsInPlace(jpeg, "JPEG.exifThumbnail") { (s: Recording) throws in #expect(try JPEG.exifThumbnail(s) == nil) }
        try readsInPlace(jpeg, "JPEG.iccProfile") { (s: Recording) throws in #expect(try JPEG.iccProfile(s) == nil) }
        try readsInPlace(jpeg, "Thumbnailer.thumbnail") { (s: Recording) throws in
            #expect(try Thumbnailer.thumbnail(s, maxWidth: 16, maxHeight: 16).image.width == 16)
        }
        try readsInPlace(jpeg, "BurstRanking.score") { (s: Recording) throws in #expect(try BurstRanking.score(s, targetLongSide: 32).width == 32) }

        try readsInPlace(png, "PNG.isPNG") { (s: Recording) throws in #expect(PNG.isPNG(s)) }
        try readsInPlace(png, "PNG.info") { (s: Recording) throws in #expect(try PNG.info(s).height == 48) }
        try readsInPlace(png, "PNG.iccProfile") { (s: Recording) throws in #expect(try PNG.iccProfile(s) == nil) }
        try readsInPlace(png, "PNG.decode") { (s: Recording) throws in #expect(try PNG.decode(s).width == 64) }
        try readsInPlace(png, "PNG.decode(into:)") { (s: Recording) throws in
            var image = try PixelBuffer(width: 64, height: 48, format: .rgba8)
            #expect(try PNG.decode(s, into: &image).width == 64)
        }
        try readsInPlace(png, "PNG.decodeStream") { (s: Recording) throws in
            var rows = 0
            try PNG.decodeStream(s) { (band: borrowing PNG.Band) throws(ImageError) in rows += band.rowCount }
            #expect(rows == 48)
        }
        try readsInPlace(png, "Thumbnailer.thumbnail(png:)") { (s: Recording) throws in
            #expect(try Thumbnailer.thumbnail(png: s, maxWidth: 16, maxHeight: 16).image.width == 16)
        }
        try readsInPlace(pnm, "PNM.decode") { (s: Recording) throws in #expect(try PNM.decode(s).width == 64) }
    }

    @Test("a slice inside a larger buffer decodes exactly like the file on its own")
    func slices() throws {
        let photo = try SyntheticImage.photo(width: 40, height: 30, format: .rgba8, seed: 9)
        for file in [try JPEG.encode(photo), try PNG.encode(photo)] {
            // Junk that is not a valid file start on either side: a slice that ignored its
            // start index would read it.
            let padded = [UInt8](repeating: 0x5A, count: 37) + file + [UInt8](repeating: 0xA5, count: 11)
            let slice = padded[37..<(37 + file.count)]
            let isPNG = PNG.isPNG(file)
            #expect(PNG.isPNG(slice) == isPNG && !PNG.isPNG(padded))
            let whole = isPNG ? try PNG.decode(file) : try JPEG.decode(file)
            let sliced = isPNG ? try PNG.decode(slice) : try JPEG.decode(slice)
            #expect(JPEGFixtures.packed(sliced, plane: 0) == JPEGFixtures.packed(whole, plane: 0))
            #expect(throws: ImageError.self) { _ = isPNG ? try PNG.decode(padded) : try JPEG.decode(padded) }
        }
    }
}
