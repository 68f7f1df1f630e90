import ImageCore

/// Deterministic, photo-like synthetic images for the bench and the tests, so neither
/// needs a file: smooth gradients and soft blobs (what resizers and encoders see most),
/// fine texture, hard-edged shapes and thin lines (what antialiasing and sharpness
/// measures react to), and per-pixel noise (what defeats run-length shortcuts).
///
/// Integer arithmetic only, so the pixels are identical on every platform.
public enum SyntheticImage {
    /// The default bench image size: a 12 MP phone photo.
    public static let defaultWidth = 4032
    public static let defaultHeight = 3024

    /// A new opaque RGBA8 (or RGB8 / GRAY8) photo-like image.
    public static func photo(width: Int = defaultWidth, height: Int = defaultHeight,
                             format: PixelFormat = .rgba8, seed: UInt32 = 1) throws(ImageError) -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: format,
                                     alphaMode: format == .rgba8 ? .opaque : .straight)
        try draw(into: &buffer, seed: seed)
        return buffer
    }

    /// Draws the pattern into a GRAY8, RGB8 or RGBA8 buffer.
    public static func draw(into buffer: inout PixelBuffer, seed: UInt32 = 1) throws(ImageError) {
        let channels: Int
        switch buffer.format {
        case .gray8: channels = 1
        case .rgb8: channels = 3
        case .rgba8: channels = 4
        default: throw ImageError(.unsupported, "synthetic images are GRAY8, RGB8 or RGBA8")
        }
        let w = buffer.width, h = buffer.height
        let stride = buffer.plane(0).stride
        let shapes = Shapes(width: w, height: h, seed: seed)
        buffer.withMutablePlane(0) { span in
            span.withUnsafeMutableBufferPointer { p in
                for y in 0..<h {
                    let row = p.baseAddress! + y * stride
                    for x in 0..<w {
                        var (r, g, b) = pixel(x: x, y: y, w: w, h: h, seed: seed, shapes: shapes)
                        if channels == 1 { r = (r * 77 + g * 150 + b * 29 + 128) >> 8; g = r; b = r }
                        let o = x * channels
                        row[o] = UInt8(r)
                        if channels >= 3 { row[o + 1] = UInt8(g); row[o + 2] = UInt8(b) }
                        if channels == 4 { row[o + 3] = 255 }
                    }
                }
            }
        }
    }

    /// A 32-bit integer hash (lowbias32), the source of all texture and noise.
    @inline(__always)
    public static func hash(_ v: UInt32) -> UInt32 {
        var x = v
        x ^= x >> 16; x &*= 0x7feb_352d
        x ^= x >> 15; x &*= 0x846c_a68b
        x ^= x >> 16
        return x
    }

    struct Shapes {
        var rects: [(x0: Int, y0: Int, x1: Int, y1: Int, r: Int, g: Int, b: Int)] = []
        var disc: (cx: Int, cy: Int, r2: Int)
        var lineY0: Int
        var lineY1: Int

        init(width w: Int, height h: Int, seed: UInt32) {
            for i in 0..<6 {
                let a = SyntheticImage.hash(seed &* 31 &+ UInt32(i))
                let x0 = Int(a % UInt32(max(w, 1))), y0 = Int((a >> 8) % UInt32(max(h, 1)))
                let rw = max(1, w / 10 + Int(a >> 20) % max(1, w / 6)), rh = max(1, h / 10 + Int(a >> 12) % max(1, h / 6))
                rects.append((x0, y0, min(w, x0 + rw), min(h, y0 + rh),
                              Int(a & 255), Int((a >> 5) & 255), Int((a >> 11) & 255)))
            }
            let r = max(1, min(w, h) / 6)
            disc = (w * 2 / 3, h / 3, r * r)
            lineY0 = h * 3 / 4
            lineY1 = min(h, lineY0 + max(1, h / 12))
        }
    }

    @inline(__always)
    static func pixel(x: Int, y: Int, w: Int, h: Int, seed: UInt32, shapes: Shapes) -> (Int, Int, Int) {
        // Smooth gradients (sky-like) with a soft quadratic vignette.
        let fx = x * 256 / max(w, 1), fy = y * 256 / max(h, 1)
        let dx = fx - 128, dy = fy - 128
        let vignette = (dx * dx + dy * dy) >> 9 // 0…64
        var r = 60 + fx / 2 - vignette
        var g = 90 + fy / 3 + (fx * fy >> 10) - vignette
        var b = 170 - fy / 3 + (fx >> 3) - vignette
        // Fine texture: a 4–8 px woven pattern, stronger in the lower half (like foliage).
        let t = Int(SyntheticImage.hash(UInt32(truncatingIfNeeded: (x >> 2) &* 7919 &+ (y >> 2) &* 104729) ^ seed) & 31) - 16
        let weight = y > h / 2 ? 2 : 1
        r += t * weight / 2; g += t * weight / 2; b += t * weight / 3
        // Hard-edged shapes.
        for s in shapes.rects where x >= s.x0 && x < s.x1 && y >= s.y0 && y < s.y1 {
            r = (r + 3 * s.r) >> 2; g = (g + 3 * s.g) >> 2; b = (b + 3 * s.b) >> 2
        }
        let cx = x - shapes.disc.cx, cy = y - shapes.disc.cy
        if cx * cx + cy * cy < shapes.disc.r2 { r = 235; g = 220; b = 40 }
        // Thin dark lines, like text or wires: 1 px on, 3 px off.
        if y >= shapes.lineY0 && y < shapes.lineY1 && (y & 3) == 0 && (x / 97) % 2 == 0 { r = 20; g = 20; b = 25 }
        // Sensor-like noise, ±6.
        let n = Int(SyntheticImage.hash(UInt32(truncatingIfNeeded: y &* 65_537 &+ x) &+ seed &* 2_654_435_761) % 13) - 6
        return (clamp(r + n), clamp(g + n), clamp(b + n))
    }

    @inline(__always)
    static func clamp(_ v: Int) -> Int { v < 0 ? 0 : (v > 255 ? 255 : v) }
}
