import CImageCore
import CLibJPEG
import CTurboJPEG
import Foundation
@testable import ImageCore
import ImageCoreSynthetic

/// JPEG fixtures made at test time (TurboJPEG and libjpeg called directly, never our encoder
/// unless the test is about it) and TurboJPEG reference decodes.
enum JPEGFixtures {
    // MARK: pixels

    /// Packed photo-like pixels (the synthetic image): 1, 3 or 4 channels.
    static func pixels(width: Int, height: Int, channels: Int, seed: UInt32 = 1) -> [UInt8] {
        let format: PixelFormat = channels == 1 ? .gray8 : channels == 3 ? .rgb8 : .rgba8
        let image = try! SyntheticImage.photo(width: width, height: height, format: format, seed: seed)
        return packed(image, plane: 0)
    }

    /// CMYK pixels with every channel varying independently.
    static func cmykPixels(width: Int, height: Int, seed: UInt64 = 7) -> [UInt8] {
        let rgb = pixels(width: width, height: height, channels: 3, seed: UInt32(seed))
        var rng = SplitMix64(seed: seed)
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            out[4 * i] = rgb[3 * i]
            out[4 * i + 1] = rgb[3 * i + 1]
            out[4 * i + 2] = rgb[3 * i + 2]
            out[4 * i + 3] = UInt8(truncatingIfNeeded: (Int(rgb[3 * i]) + Int(rng.next() & 63)) & 255)
        }
        return out
    }

    /// A plane's pixels without row padding.
    static func packed(_ image: borrowing PixelBuffer, plane: Int) -> [UInt8] {
        let g = image.plane(plane)
        var out: [UInt8] = []
        out.reserveCapacity(g.rowBytes * g.rows)
        image.withPlane(plane) { span in
            span.withUnsafeBufferPointer { p in
                for y in 0..<g.rows { out.append(contentsOf: p[(y * g.stride)..<(y * g.stride + g.rowBytes)]) }
            }
        }
        return out
    }

    /// A PixelBuffer holding packed pixels.
    static func buffer(_ pixels: [UInt8], width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
        var b = try! PixelBuffer(width: width, height: height, format: format)
        var offset = 0
        for p in 0..<b.planeCount {
            let g = b.plane(p)
            b.withMutablePlane(p) { span in
                span.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<g.rows {
                        for x in 0..<g.rowBytes { dst[y * g.stride + x] = pixels[offset + y * g.rowBytes + x] }
                    }
                }
            }
            offset += g.rowBytes * g.rows
        }
        return b
    }

    // MARK: TurboJPEG encode

    static func tjCompress(_ pixels: [UInt8], width: Int, height: Int, pf: TJPF, subsampling: TJSAMP,
                           quality: Int = 90, flags: Int32 = 0) -> [UInt8] {
        let h = tjInitCompress()!
        defer { tjDestroy(h) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let rc = tjCompress2(h, pixels, Int32(width), 0, Int32(height), Int32(pf.rawValue), &out, &size,
                             Int32(subsampling.rawValue), Int32(quality), flags)
        precondition(rc == 0, String(cString: tjGetErrorStr2(h)))
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// A photo-like JPEG from TurboJPEG.
    static func photo(width: Int, height: Int, subsampling: TJSAMP = TJSAMP_420, quality: Int = 90,
                      progressive: Bool = false, seed: UInt32 = 1) -> [UInt8] {
        let gray = subsampling == TJSAMP_GRAY
        return tjCompress(pixels(width: width, height: height, channels: gray ? 1 : 3, seed: seed),
                          width: width, height: height, pf: gray ? TJPF_GRAY : TJPF_RGB, subsampling: subsampling,
                          quality: quality, flags: progressive ? Int32(TJFLAG_PROGRESSIVE) : 0)
    }

    // MARK: libjpeg encode (anything TurboJPEG cannot make)

    struct Spec {
        var width: Int
        var height: Int
        var inputComponents = 3
        var inputSpace = JCS_RGB
        var jpegSpace = JCS_YCbCr
        /// (h, v) per component; empty = libjpeg's defaults for the colour space.
        var sampling: [(Int, Int)] = []
        var quality = 90
        var progressive = false
        var restartInterval = 0
        var arithmetic = false
        /// nil = libjpeg's choice (written for CMYK/YCCK).
        var adobeMarker: Bool? = nil
        var jfif: Bool? = nil
        /// Sequential, one scan per component (not interleaved): a multi-scan baseline file.
        var nonInterleaved = false
        /// (marker code, payload) written after the headers.
        var markers: [(Int32, [UInt8])] = []
        /// A scan script of our own (progressive when any scan is a band or an approximation),
        /// as cjpeg -scans writes it.
        var scans: [jpeg_scan_info] = []
    }

    /// One line of a scan script: components, band Ss...Se, successive approximation Ah/Al.
    static func scan(_ components: [Int], _ ss: Int, _ se: Int, ah: Int = 0, al: Int = 0) -> jpeg_scan_info {
        var c: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &c) { raw in
            for (i, v) in components.enumerated() { raw.storeBytes(of: Int32(v), toByteOffset: 4 * i, as: Int32.self) }
        }
        return jpeg_scan_info(comps_in_scan: Int32(components.count), component_index: c, Ss: Int32(ss), Se: Int32(se),
                              Ah: Int32(ah), Al: Int32(al))
    }

    static func libjpeg(_ spec: Spec, _ pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == spec.width * spec.height * spec.inputComponents)
        let err = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
        let out = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
        let size = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        defer { err.deallocate(); cinfo.deallocate(); out.deallocate(); size.deallocate() }
        out.pointee = nil
        size.pointee = 0
        cinfo.initialize(to: jpeg_compress_struct())
        cinfo.pointee.err = jpeg_std_error(err)
        jpeg_CreateCompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        jpeg_mem_dest(cinfo, out, size)
        cinfo.pointee.image_width = JDIMENSION(spec.width)
        cinfo.pointee.image_height = JDIMENSION(spec.height)
        cinfo.pointee.input_components = Int32(spec.inputComponents)
        cinfo.pointee.in_color_space = spec.inputSpace
        jpeg_set_defaults(cinfo)
        jpeg_set_colorspace(cinfo, spec.jpegSpace)
        jpeg_set_quality(cinfo, Int32(spec.quality), 1)
        for (i, (h, v)) in spec.sampling.enumerated() {
            cinfo.pointee.comp_info[i].h_samp_factor = Int32(h)
            cinfo.pointee.comp_info[i].v_samp_factor = Int32(v)
        }
        if spec.progressive { jpeg_simple_progression(cinfo) }
        let scans = UnsafeMutablePointer<jpeg_scan_info>.allocate(capacity: max(4, spec.scans.count))
        defer { scans.deallocate() }
        if !spec.scans.isEmpty {
            for (i, scan) in spec.scans.enumerated() { scans[i] = scan }
            cinfo.pointee.scan_info = UnsafePointer(scans)
            cinfo.pointee.num_scans = Int32(spec.scans.count)
        } else if spec.nonInterleaved {
            let n = Int(cinfo.pointee.num_components)
            for c in 0..<n {
                scans[c] = jpeg_scan_info(comps_in_scan: 1, component_index: (Int32(c), 0, 0, 0), Ss: 0, Se: 63, Ah: 0, Al: 0)
            }
            cinfo.pointee.scan_info = UnsafePointer(scans)
            cinfo.pointee.num_scans = Int32(n)
        }
        cinfo.pointee.restart_interval = UInt32(spec.restartInterval)
        cinfo.pointee.arith_code = spec.arithmetic ? 1 : 0
        if let adobe = spec.adobeMarker { cinfo.pointee.write_Adobe_marker = adobe ? 1 : 0 }
        if let jfif = spec.jfif { cinfo.pointee.write_JFIF_header = jfif ? 1 : 0 }
        jpeg_start_compress(cinfo, 1)
        for (code, payload) in spec.markers {
            payload.withUnsafeBufferPointer { jpeg_write_marker(cinfo, code, $0.baseAddress, UInt32($0.count)) }
        }
        let rowBytes = spec.width * spec.inputComponents
        pixels.withUnsafeBufferPointer { p in
            let row = UnsafeMutablePointer<JSAMPROW?>.allocate(capacity: 1)
            defer { row.deallocate() }
            while cinfo.pointee.next_scanline < cinfo.pointee.image_height {
                row.pointee = UnsafeMutablePointer(mutating: p.baseAddress! + Int(cinfo.pointee.next_scanline) * rowBytes)
                _ = jpeg_write_scanlines(cinfo, row, 1)
            }
        }
        jpeg_finish_compress(cinfo)
        jpeg_destroy_compress(cinfo)
        defer { free(out.pointee) }
        return Array(UnsafeBufferPointer(start: out.pointee, count: Int(size.pointee)))
    }

    // MARK: segments

    /// Inserts a marker segment right after SOI.
    static func insertSegment(_ jpeg: [UInt8], marker: UInt8, payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, marker, UInt8(length >> 8), UInt8(length & 255)] + payload + jpeg[2...]
    }

    /// An APP1 EXIF payload whose IFD0 holds `entries` (tag, type, count, value bytes as stored).
    /// `ifd0Offset` and `nextIFD` allow hostile layouts.
    static func exif(bigEndian: Bool, entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])],
                     ifd0Offset: UInt32 = 8, nextIFD: UInt32 = 0, declaredCount: UInt16? = nil, header: Bool = true) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)]
            return bigEndian ? b : b.reversed()
        }
        var tiff: [UInt8] = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(ifd0Offset)
        while tiff.count < Int(min(ifd0Offset, 64)) { tiff.append(0) }
        tiff += u16(declaredCount ?? UInt16(entries.count))
        for e in entries {
            var value = e.value
            while value.count < 4 { value.append(0) }
            tiff += u16(e.tag) + u16(e.type) + u32(e.count) + value.prefix(4)
        }
        tiff += u32(nextIFD)
        return (header ? Array("Exif".utf8) + [0, 0] : []) + tiff
    }

    /// An orientation entry (SHORT, count 1) in the given byte order.
    static func orientationEntry(_ value: Int, bigEndian: Bool) -> (tag: UInt16, type: UInt16, count: UInt32, value: [UInt8]) {
        let v = UInt16(value)
        return (0x0112, 3, 1, bigEndian ? [UInt8(v >> 8), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8)])
    }

    // MARK: TurboJPEG references

    /// TurboJPEG's scaling factor for a request of exactly `w` x `h` (it takes the first,
    /// largest factor whose output fits), as n/8, or nil if it is not an eighth.
    static func tjChosenEighths(width: Int, height: Int, scaledWidth: Int, scaledHeight: Int) -> Int? {
        var n: Int32 = 0
        let factors = tjGetScalingFactors(&n)!
        for i in 0..<Int(n) {
            let f = factors[i]
            let w = (width * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
            let h = (height * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
            if w <= scaledWidth && h <= scaledHeight {
                return 8 % Int(f.denom) == 0 ? Int(f.num) * (8 / Int(f.denom)) : nil
            }
        }
        return nil
    }

    /// tjDecompress2 at a scaled size, packed rows.
    static func tjDecode(_ jpeg: [UInt8], width: Int, height: Int, pf: TJPF, flags: Int32 = 0) -> [UInt8]? {
        let h = tjInitDecompress()!
        defer { tjDestroy(h) }
        let size = width * height * pixelSize(pf)
        var out = [UInt8](repeating: 0, count: size)
        let rc = tjDecompress2(h, jpeg, UInt(jpeg.count), &out, Int32(width), 0, Int32(height), Int32(pf.rawValue), flags)
        return rc == 0 ? out : nil
    }

    static func pixelSize(_ pf: TJPF) -> Int {
        switch pf {
        case TJPF_GRAY: 1
        case TJPF_RGB, TJPF_BGR: 3
        default: 4
        }
    }

    /// tjDecompressToYUV2 planes (TurboJPEG geometry: widths and heights padded to the MCU
    /// sampling, pad 1) at a scaled size.
    struct TJPlanes {
        var planes: [[UInt8]]
        var widths: [Int]
        var heights: [Int]
        func sample(_ p: Int, _ x: Int, _ y: Int) -> UInt8 { planes[p][y * widths[p] + x] }
    }

    static func tjDecodeYUV(_ jpeg: [UInt8], width: Int, height: Int, subsampling: TJSAMP, flags: Int32 = 0) -> TJPlanes? {
        let h = tjInitDecompress()!
        defer { tjDestroy(h) }
        let count = Int(tjBufSizeYUV2(Int32(width), 1, Int32(height), Int32(subsampling.rawValue)))
        var buf = [UInt8](repeating: 0, count: count)
        let rc = tjDecompressToYUV2(h, jpeg, UInt(jpeg.count), &buf, Int32(width), 1, Int32(height), flags)
        guard rc == 0 else { return nil }
        let n = subsampling == TJSAMP_GRAY ? 1 : 3
        var planes: [[UInt8]] = [], widths: [Int] = [], heights: [Int] = []
        var offset = 0
        for p in 0..<n {
            let w = Int(tjPlaneWidth(Int32(p), Int32(width), Int32(subsampling.rawValue)))
            let ht = Int(tjPlaneHeight(Int32(p), Int32(height), Int32(subsampling.rawValue)))
            planes.append(Array(buf[offset..<(offset + w * ht)]))
            widths.append(w); heights.append(ht)
            offset += w * ht
        }
        return TJPlanes(planes: planes, widths: widths, heights: heights)
    }

    /// `body` with a libjpeg decompressor reading `jpeg` from memory (libjpeg's default error
    /// handler: the tests' references are made from valid files), destroyed after.
    static func withLibjpegDecompressor<T>(_ jpeg: [UInt8], _ body: (UnsafeMutablePointer<jpeg_decompress_struct>) -> T) -> T {
        let err = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        let cinfo = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
        defer { err.deallocate(); cinfo.deallocate() }
        cinfo.initialize(to: jpeg_decompress_struct())
        cinfo.pointee.err = jpeg_std_error(err)
        jpeg_CreateDecompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        defer { jpeg_destroy_decompress(cinfo) }
        return jpeg.withUnsafeBufferPointer { src in
            jpeg_mem_src(cinfo, src.baseAddress, UInt(src.count))
            return body(cinfo)
        }
    }

    /// libjpeg's own scanline decode at scale/8 (for sizes where TurboJPEG would pick another
    /// factor, e.g. 1x1, where every factor gives 1x1).
    static func libjpegDecode(_ jpeg: [UInt8], scale: Int, space: J_COLOR_SPACE) -> [UInt8] {
        return JPEGFixtures.withLibjpegDecompressor(jpeg) { cinfo in
            _ = jpeg_read_header(cinfo, 1)
            cinfo.pointee.scale_num = UInt32(scale)
            cinfo.pointee.scale_denom = 8
            cinfo.pointee.out_color_space = space
            _ = jpeg_start_decompress(cinfo)
            let rowBytes = Int(cinfo.pointee.output_width) * Int(cinfo.pointee.output_components)
            var out = [UInt8](repeating: 0, count: rowBytes * Int(cinfo.pointee.output_height))
            out.withUnsafeMutableBufferPointer { dst in
                let row = UnsafeMutablePointer<JSAMPROW?>.allocate(capacity: 1)
                defer { row.deallocate() }
                while cinfo.pointee.output_scanline < cinfo.pointee.output_height {
                    row.pointee = dst.baseAddress! + Int(cinfo.pointee.output_scanline) * rowBytes
                    _ = jpeg_read_scanlines(cinfo, row, 1)
                }
            }
            _ = jpeg_finish_decompress(cinfo)
            return out
        }
    }

    // MARK: our decode through the C API into guard-page planes

    /// Decodes through `ic_jpeg_decode` into planes that end at a PROT_NONE page (and padded
    /// strides whose padding must stay untouched); returns the packed planes.
    static func decodeGuarded(_ jpeg: [UInt8], format: ic_format, options: ic_jpeg_decode_options,
                              padding: Int = 3) -> (status: ic_status, planes: [[UInt8]], result: ic_jpeg_decode_result) {
        var o = options
        var w: Int32 = 0, h: Int32 = 0
        o.format = format
        var sizeResult = ic_jpeg_decode_result()
        let sized = ic_jpeg_decode_size(jpeg, jpeg.count, &o, &w, &h, &sizeResult)
        guard sized == IC_OK else { return (sized, [], sizeResult) }
        let g = GuardedImage(format, Int(w), Int(h), padding: padding)
        // Mark the padding so that a write into it shows.
        for p in 0..<Int(ic_format_plane_count(format)) {
            let pl = g.plane(p)
            for y in 0..<pl.rows { for x in pl.rowBytes..<pl.stride where y < pl.rows - 1 { pl.data[y * pl.stride + x] = 0xA5 } }
        }
        var image = g.image
        var r = ic_jpeg_decode_result()
        let st = ic_jpeg_decode(jpeg, jpeg.count, &o, &image, &r)
        var padIntact = true
        for p in 0..<Int(ic_format_plane_count(format)) {
            let pl = g.plane(p)
            for y in 0..<(pl.rows - 1) { for x in pl.rowBytes..<pl.stride where pl.data[y * pl.stride + x] != 0xA5 { padIntact = false } }
        }
        precondition(padIntact, "decode wrote into the stride padding")
        return (st, (0..<Int(ic_format_plane_count(format))).map { g.packed($0) }, r)
    }

    static func options(scale: Int = 8, crop: (Int, Int, Int, Int)? = nil, flags: UInt32 = 0) -> ic_jpeg_decode_options {
        var o = ic_jpeg_decode_options()
        o.scale_num = Int32(scale)
        if let crop {
            o.crop_x = Int32(crop.0); o.crop_y = Int32(crop.1); o.crop_width = Int32(crop.2); o.crop_height = Int32(crop.3)
        }
        o.flags = flags
        return o
    }

    /// The rectangle (x, y, w, h) of packed rows of `rowWidth` elements of `channels` bytes.
    static func subRect(_ data: [UInt8], rowWidth: Int, channels: Int, x: Int, y: Int, w: Int, h: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(w * h * channels)
        for r in y..<(y + h) { out.append(contentsOf: data[((r * rowWidth + x) * channels)..<((r * rowWidth + x + w) * channels)]) }
        return out
    }

    /// PSNR in dB between two equally long byte arrays.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0
        for i in a.indices { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}

/// "" when equal, else a short description of the first difference (keeps failure output
/// readable for megapixel arrays).
func byteDiff(_ a: [UInt8]?, _ b: [UInt8]?) -> String {
    guard let a, let b else { return a == nil && b == nil ? "" : "one side is nil" }
    if a.count != b.count { return "sizes \(a.count) vs \(b.count)" }
    if a == b { return "" } // the stdlib's compiled comparison; the scan below is for failures
    guard let i = a.indices.first(where: { a[$0] != b[$0] }) else { return "" }
    let n = a.indices.filter { a[$0] != b[$0] }.count
    return "\(n) bytes differ, first at \(i): \(a[i]) vs \(b[i])"
}
