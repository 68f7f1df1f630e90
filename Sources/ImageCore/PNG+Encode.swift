import CImageCore

extension PNG {
    /// The row filters the encoder may choose from, per row, by libspng's heuristic.
    public struct Filters: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let none = Filters(rawValue: UInt32(IC_PNG_FILTER_NONE.rawValue))
        public static let sub = Filters(rawValue: UInt32(IC_PNG_FILTER_SUB.rawValue))
        public static let up = Filters(rawValue: UInt32(IC_PNG_FILTER_UP.rawValue))
        public static let average = Filters(rawValue: UInt32(IC_PNG_FILTER_AVG.rawValue))
        public static let paeth = Filters(rawValue: UInt32(IC_PNG_FILTER_PAETH.rawValue))
        public static let all: Filters = [.none, .sub, .up, .average, .paeth]
    }

    /// How to encode: zlib level, filters, and an EXIF orientation.
    public struct EncodeOptions: Sendable, Hashable {
        /// zlib level 0…9 (0 stores without compression; 6 is zlib's default).
        public var compressionLevel: Int
        /// The filters libspng may pick per row (at least one).
        public var filters: Filters
        /// The orientation to write in an eXIf chunk. `nil` writes the image's own
        /// ``PixelBuffer/orientation`` when it is not `.up` (and no eXIf otherwise).
        public var orientation: Orientation?
        /// An ICC profile to embed as iCCP, byte for byte; `nil`: none.
        public var iccProfile: [UInt8]?
        /// EXIF to embed as eXIf (a TIFF structure; an "Exif\0\0" prefix is dropped); `nil`: only
        /// the orientation, as above. With an orientation to write, the copy written has its
        /// orientation tag set to it.
        public var exif: [UInt8]?

        public init(compressionLevel: Int = 6, filters: Filters = .all, orientation: Orientation? = nil,
                    iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil) {
            self.iccProfile = iccProfile
            self.exif = exif
            self.compressionLevel = compressionLevel
            self.filters = filters
            self.orientation = orientation
        }

        func cValue(imageOrientation: Orientation) throws(ImageError) -> ic_png_encode_options {
            guard (0...9).contains(compressionLevel) else {
                throw ImageError(.invalidArgument, "PNG compression level \(compressionLevel): 0…9")
            }
            guard !filters.isEmpty, filters.isSubset(of: .all) else { throw ImageError(.invalidArgument, "PNG filters: at least one") }
            var o = ic_png_encode_options()
            o.compression_level = compressionLevel == 0 ? -1 : Int32(compressionLevel)
            o.filters = filters.rawValue
            let tag = orientation ?? (imageOrientation == .up ? nil : imageOrientation)
            o.orientation = Int32(tag?.exifValue ?? 0)
            return o
        }
    }

    /// An upper bound on the encoded size: a buffer this large never fails for lack of space.
    public static func encodeBound(width: Int, height: Int, format: PixelFormat,
                                   options: EncodeOptions = .init()) throws(ImageError) -> Int {
        var o = try options.cValue(imageOrientation: .right) // any non-up value: count the eXIf chunk
        var bound = 0
        let st = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return ic_png_encode_bound(format.cValue, Int32(clamping: width), Int32(clamping: height), &o, &bound)
        }
        try ImageError.check(st,
                             "PNG encode bound of \(width)x\(height) \(format)")
        return bound
    }

    /// Encodes `image` (GRAY8, RGB8, or RGBA8 with straight or opaque alpha) into `buffer` and
    /// returns the bytes written. Size `buffer` with ``encodeBound(width:height:format:options:)``.
    /// - Throws: `.bufferTooSmall` when the output does not fit (nothing is written past the
    ///   buffer); `.unsupported` for YUV or premultiplied input.
    public static func encode(_ image: borrowing PixelBuffer, into buffer: UnsafeMutableRawBufferPointer,
                              options: EncodeOptions = .init()) throws(ImageError) -> Int {
        var o = try options.cValue(imageOrientation: image.orientation)
        var size = 0
        let status = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return image.withUnsafeImage { src in
            ic_png_encode(src, &o, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, &size)
        }
        }
        try ImageError.check(status, "PNG encode \(image.width)x\(image.height) \(image.format) \(image.alphaMode)")
        return size
    }

    /// Encodes `image` into a new array, appended to as libspng produces bytes.
    public static func encode(_ image: borrowing PixelBuffer, options: EncodeOptions = .init()) throws(ImageError) -> [UInt8] {
        var o = try options.cValue(imageOrientation: image.orientation)
        var out: [UInt8] = []
        let status = withMetadataPointers(options.iccProfile, options.exif) { ip, ic, ep, ec in
            o.icc_profile = ip; o.icc_size = ic; o.exif = ep; o.exif_size = ec
            return withUnsafeMutablePointer(to: &out) { target in
            image.withUnsafeImage { src in
                ic_png_encode_to(src, &o, { context, data, count in
                    let array = context!.assumingMemoryBound(to: [UInt8].self)
                    array.pointee.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                    return IC_OK
                }, target, nil)
            }
        }
        }
        try ImageError.check(status, "PNG encode \(image.width)x\(image.height) \(image.format) \(image.alphaMode)")
        return out
    }
}
