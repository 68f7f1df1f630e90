import CImageCore

extension JPEG {
    /// A band of decoded rows lent to a streaming consumer. It is `~Copyable` and passed
    /// `borrowing`, so it cannot outlive the callback: its memory is the decoder's band
    /// buffer, reused for the next band.
    public struct Band: ~Copyable {
        /// The output row of the band's first row (even for I420/NV12).
        public let firstRow: Int
        /// Rows in this band (the last band may be shorter).
        public let rowCount: Int
        /// Width of every row.
        public let width: Int
        public let format: PixelFormat
        let image: UnsafePointer<ic_image>

        init(_ image: UnsafePointer<ic_image>, firstRow: Int32) {
            self.image = image
            self.firstRow = Int(firstRow)
            self.rowCount = Int(image.pointee.height)
            self.width = Int(image.pointee.width)
            self.format = PixelFormat(image.pointee.format) ?? .rgba8
        }

        /// Number of planes (as the format's).
        public var planeCount: Int { format.planeCount }

        /// Geometry of plane `index`: for I420/NV12 chroma planes, ⌈rowCount/2⌉ rows.
        public func plane(_ index: Int) -> PlaneLayout {
            precondition(index >= 0 && index < planeCount, "plane \(index) out of range 0..<\(planeCount)")
            var rowBytes = 0
            var rows: Int32 = 0
            _ = ic_plane_geometry(format.cValue, Int32(width), Int32(rowCount), Int32(index), &rowBytes, &rows)
            return PlaneLayout(rowBytes: rowBytes, rows: Int(rows), stride: stride(index))
        }

        func stride(_ index: Int) -> Int {
            withUnsafeBytes(of: image.pointee.planes) { raw in
                raw.load(fromByteOffset: index * MemoryLayout<ic_plane>.stride, as: ic_plane.self).stride
            }
        }

        /// Lends plane `index`'s rows as a span (row `y` starts at `y * stride`; the last row
        /// ends at its row bytes).
        public func withPlane<R: ~Copyable, E: Error>(_ index: Int, _ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
            let g = plane(index)
            let p = withUnsafeBytes(of: image.pointee.planes) { raw in
                raw.load(fromByteOffset: index * MemoryLayout<ic_plane>.stride, as: ic_plane.self).data
            }
            let count = g.stride * (g.rows - 1) + g.rowBytes
            return try body(UnsafeBufferPointer(start: p, count: count).span)
        }

        /// Lends the band's C descriptor (for C kernels that consume rows, e.g. a resizer).
        public func withUnsafeImage<R: ~Copyable, E: Error>(_ body: (UnsafePointer<ic_image>) throws(E) -> R) throws(E) -> R {
            try body(image)
        }
    }

    /// Decodes in bands of ``DecodeOptions/bandRows`` rows, calling `body` for each, top to
    /// bottom, so a consumer can process rows as they arrive and the full image never exists
    /// in memory. Pixels are identical to a full decode's. An error thrown by `body` stops the
    /// decode and is rethrown.
    @discardableResult
    public static func decodeStream(_ bytes: borrowing some ByteSource & ~Escapable, format: PixelFormat = .rgba8,
                                    options: DecodeOptions = .init(),
                                    _ body: (borrowing Band) throws(ImageError) -> Void) throws(ImageError) -> DecodeReport {
        try bytes.withBytes { (bytes) throws(ImageError) -> DecodeReport in
            var o = try options.cValue(format: format, bytes: bytes)
            var r = ic_jpeg_decode_result()
            let status = try options.withCMYKProfile(&o) { (o) throws(ImageError) -> ic_status in
                try Band.stream(body) { callback, context in
                    ic_jpeg_decode_stream(bytes.bytePointer, bytes.count, &o, callback, context, &r)
                }
            }
            try ImageError.check(status, DecodeReport.text(r))
            return DecodeReport(r)
        }
    }
}

extension JPEG.Band {
    /// The C band callback's signature (`ic_jpeg_band_fn`, `ic_png_band_fn`).
    typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ic_image>?, Int32) -> Int32

    /// State shared with the C callback: the consumer and the error it threw, if any.
    private struct StreamContext {
        var body: (borrowing JPEG.Band) throws(ImageError) -> Void
        var error: ImageError?
    }

    /// Runs a C band decoder with `body` as its consumer: `run` starts the decode with the
    /// callback and context it is given. Returns the decoder's status; an error thrown by
    /// `body` is rethrown instead (it wins over the cancellation it caused). The one bridge
    /// of every streaming decoder (JPEG, PNG).
    static func stream(_ body: (borrowing JPEG.Band) throws(ImageError) -> Void,
                       _ run: (Callback, UnsafeMutableRawPointer) -> ic_status) throws(ImageError) -> ic_status {
        let (status, thrown): (ic_status, ImageError?) = withoutActuallyEscaping(body) { escapable in
            var context = StreamContext(body: escapable, error: nil)
            let st = withUnsafeMutablePointer(to: &context) { ctx in
                run({ raw, band, first in
                    let c = raw!.assumingMemoryBound(to: StreamContext.self)
                    do throws(ImageError) {
                        try c.pointee.body(JPEG.Band(band!, firstRow: first))
                        return 0
                    } catch {
                        c.pointee.error = error
                        return 1
                    }
                }, UnsafeMutableRawPointer(ctx))
            }
            return (st, context.error)
        }
        if let thrown { throw thrown }
        return status
    }
}
