import CImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A separable Lanczos-3 resize that consumes source rows one at a time, top to bottom, as a
/// streamed decode delivers them (``JPEG/decodeStream(_:format:options:_:)-(UnsafeRawBufferPointer,_,_,_)``),
/// and writes each output row as soon as the last source row it needs has arrived.
///
/// Each arriving row is resized horizontally into a float row, which is added with its
/// vertical weight into the accumulators of the output rows that use it. Accumulators live in
/// a ring just deep enough for the output rows in progress at once (about 6 for a downscale),
/// so the whole memory is: the destination, `ring + 1` float rows of the destination's width,
/// and the coefficient tables. The ring is a ``PixelBuffer`` so the counting allocator
/// (``PixelAllocator``) sees it. GRAY8 and RGBA8 (opaque: no premultiplication).
public struct StreamingResizer: ~Copyable {
    public let sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
    let channels: Int
    // Horizontal: per output x, first source x and `hTaps` weights.
    let hStart: [Int32]; let hTaps: Int; let hWeights: [Float]
    // Vertical: per output y, first and last source row and weights (vTaps per output row).
    let vStart: [Int]; let vEnd: [Int]; let vTaps: Int; let vWeights: [Float]
    // Per source row, the first output row that uses it.
    let firstOut: [Int]; let lastOut: [Int]
    /// Output rows in progress at once.
    public let ringRows: Int
    var scratch: PixelBuffer
    /// The next source row expected.
    public private(set) var nextRow = 0

    /// Weights of a Lanczos-3 resize of `n` samples to `m`: first index and `taps` weights each.
    static func coefficients(_ n: Int, _ m: Int) -> (start: [Int], end: [Int], taps: Int, weights: [Float]) {
        let scale = Double(n) / Double(m)
        let fs = max(scale, 1)
        let support = 3 * fs
        func lanczos(_ x: Double) -> Double {
            let ax = abs(x)
            if ax < 1e-12 { return 1 }
            if ax >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
        var starts = [Int](), ends = [Int](), rows = [[Double]]()
        for i in 0..<m {
            let c = (Double(i) + 0.5) * scale
            let lo = max(0, Int((c - support).rounded(.down)))
            let hi = min(n - 1, Int((c + support).rounded(.up)))
            var w = [Double](); var sum = 0.0
            for j in lo...hi { let v = lanczos((Double(j) + 0.5 - c) / fs); w.append(v); sum += v }
            if sum == 0 { sum = 1 }
            w = w.map { $0 / sum }
            var a = 0, b = w.count - 1
            while a < b, abs(w[a]) < 1e-7 { a += 1 }
            while b > a, abs(w[b]) < 1e-7 { b -= 1 }
            starts.append(lo + a); ends.append(lo + b); rows.append(Array(w[a...b]))
        }
        let taps = rows.map(\.count).max() ?? 1
        var flat = [Float](repeating: 0, count: taps * m)
        for (i, r) in rows.enumerated() { for (k, v) in r.enumerated() { flat[i * taps + k] = Float(v) } }
        return (starts, ends, taps, flat)
    }

    /// A resizer from `sourceWidth`×`sourceHeight` to `width`×`height` for `format` (GRAY8 or RGBA8).
    /// - Throws: `.unsupported` for other formats, `.invalidArgument` for sizes < 1.
    public init(format: PixelFormat, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) throws(ImageError) {
        guard format == .gray8 || format == .rgba8 else { throw ImageError(.unsupported, "streaming resize of \(format)") }
        guard sourceWidth >= 1, sourceHeight >= 1, width >= 1, height >= 1,
              sourceWidth <= 65535, sourceHeight <= 65535, width <= 65535, height <= 65535 else {
            throw ImageError(.invalidArgument, "streaming resize \(sourceWidth)x\(sourceHeight) -> \(width)x\(height)")
        }
        let ch = format == .rgba8 ? 4 : 1
        let h = Self.coefficients(sourceWidth, width)
        // Shift starts left where the taps would overrun the row, so every tap reads inside it.
        var hw = h.weights
        var hs = h.start.map { Int32($0) }
        for i in 0..<width where Int(hs[i]) + h.taps > sourceWidth {
            let shift = Int(hs[i]) + h.taps - sourceWidth
            for k in Swift.stride(from: h.taps - 1, through: 0, by: -1) {
                hw[i * h.taps + k] = k >= shift ? hw[i * h.taps + k - shift] : 0
            }
            hs[i] -= Int32(shift)
        }
        let v = Self.coefficients(sourceHeight, height)
        var first = [Int](repeating: Int.max, count: sourceHeight), last = [Int](repeating: -1, count: sourceHeight)
        for y in 0..<height {
            for s in v.start[y]...v.end[y] { first[s] = min(first[s], y); last[s] = max(last[s], y) }
        }
        // Output rows live at source row s: started (start ≤ s) and not finished (end ≥ s).
        var ring = 1, lo = 0
        for s in 0..<sourceHeight {
            while lo < height, v.end[lo] < s { lo += 1 }
            var live = 0, y = lo
            while y < height, v.start[y] <= s { if v.end[y] >= s { live += 1 }; y += 1 }
            ring = max(ring, live)
        }
        let sc = try PixelBuffer(width: width * ch * 4, height: ring + 1, format: .gray8, alignment: 64)
        self.sourceWidth = sourceWidth; self.sourceHeight = sourceHeight
        self.width = width; self.height = height
        channels = ch
        hStart = hs; hTaps = h.taps; hWeights = hw; _hs = hs
        vStart = v.start; vEnd = v.end; vTaps = v.taps; vWeights = v.weights
        firstOut = first; lastOut = last
        ringRows = ring
        scratch = sc
    }
    let _hs: [Int32]

    /// Bytes of the float ring and row (the only pixel memory besides the destination).
    public var scratchBytes: Int { scratch.byteCount }

    /// Adds source row ``nextRow`` (`sourceWidth` pixels of the format at `row`) and writes
    /// every output row it completes into `destination` (`width`×`height`, same format).
    public mutating func push(row: UnsafePointer<UInt8>, into destination: inout PixelBuffer) throws(ImageError) {
        guard nextRow < sourceHeight else { throw ImageError(.invalidArgument, "streaming resize: more than \(sourceHeight) rows") }
        guard destination.width == width, destination.height == height, destination.plane(0).rowBytes == width * channels else {
            throw ImageError(.invalidArgument, "streaming resize destination \(destination.width)x\(destination.height) \(destination.format)")
        }
        let s = nextRow
        nextRow += 1
        let C = channels, W = width, taps = hTaps, ring = ringRows
        let stride = scratch.plane(0).stride
        let dstStride = destination.plane(0).stride
        let fo = firstOut[s], lo = lastOut[s]
        let base = UnsafeMutableRawPointer(scratch.descriptor.planes.0.data!)
        let out0 = UnsafeMutablePointer<UInt8>(destination.descriptor.planes.0.data!)
        let hrow = (base + ring * stride).assumingMemoryBound(to: Float.self)
        _hs.withUnsafeBufferPointer { hs in
            hWeights.withUnsafeBufferPointer { hw in
                for x in 0..<W {
                    let src = row + Int(hs[x]) * C
                    let w = hw.baseAddress! + x * taps
                    if C == 4 {
                        var a = SIMD4<Float>(repeating: 0)
                        let px = UnsafeRawPointer(src)
                        for k in 0..<taps {
                            let v = px.loadUnaligned(fromByteOffset: k * 4, as: SIMD4<UInt8>.self)
                            a += w[k] * SIMD4<Float>(v)
                        }
                        UnsafeMutableRawPointer(hrow + x * 4).storeBytes(of: a, as: SIMD4<Float>.self)
                    } else {
                        var a: Float = 0
                        for k in 0..<taps { a += w[k] * Float(src[k]) }
                        hrow[x] = a
                    }
                }
            }
        }
        guard fo != Int.max else { return }
        let n = W * C
        for y in fo...lo {
            let acc = (base + (y % ring) * stride).assumingMemoryBound(to: Float.self)
            let wv = vWeights[y * vTaps + (s - vStart[y])]
            if s == vStart[y] {
                for i in 0..<n { acc[i] = wv * hrow[i] }
            } else {
                for i in 0..<n { acc[i] += wv * hrow[i] }
            }
            if s == vEnd[y] {
                let out = out0 + y * dstStride
                for i in 0..<n {
                    let v = acc[i] + 0.5
                    out[i] = v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v))
                }
            }
        }
    }
}
