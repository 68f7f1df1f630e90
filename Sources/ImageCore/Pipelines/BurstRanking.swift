/// Burst sharpness ranking (the seed's "variance of Laplacian"): each JPEG is decoded as luma
/// only (GRAY8) at the DCT scale whose long side is nearest ``Options/targetLongSide``, scored
/// by the fused 3×3 Laplacian standard deviation (``PixelBuffer/laplacianScore(roi:)``), and
/// freed before the worker takes the next image. Images are scored in parallel on a bounded
/// ``WorkerPool``; a worker holds at most two frames at once (the luma and, on request, its
/// Laplacian view).
///
/// PNG and PNM files (by content) are scored at the same size a JPEG of their dimensions
/// would be: PNG has no reduced-scale decode, so its rows stream (non-interlaced) into a
/// Lanczos-3 resize to the scaled size, as GRAY8 (the BT.601 luma) and upright (the score is
/// the same for every orientation: the 3×3 Laplacian is symmetric); a PNM is read whole,
/// turned to GRAY8 and resized the same way.
public enum BurstRanking {
    public struct Options: Sendable, Hashable {
        /// The long side the decode scale aims at (nearest n/8).
        public var targetLongSide: Int
        /// Worker threads (≤ 0: ``ImageCoreRuntime/threads``).
        public var workers: Int
        /// Decode limits and strictness (`maxPixels`, `maxMemory`, `strict`, `minValidShare`);
        /// the scale is the ranking's.
        public var limits: JPEG.DecodeOptions
        public init(targetLongSide: Int = 1280, workers: Int = 0, limits: JPEG.DecodeOptions = .init()) {
            self.targetLongSide = targetLongSide; self.workers = workers; self.limits = limits
        }
    }

    /// One image's outcome, in input order.
    public struct Entry: Sendable {
        public var index: Int
        /// The score, or the error that stopped this image (the others are still ranked).
        public var result: Result<SharpnessScore, ImageError>
        /// The DCT scale n/8 and the scored size (0 on failure before decoding).
        public var scale: Int
        public var width: Int
        public var height: Int
        /// The decoder's warnings (recovered corruption).
        public var warnings = JPEG.Warnings()
    }

    public struct Ranking: Sendable {
        public var entries: [Entry]
        /// Indices of the scored images, sharpest first (ties keep input order).
        public var order: [Int]
        /// Peak pixel bytes of the whole ranking (``PixelAllocator`` scope).
        public var peakPixelBytes: Int
    }

    /// The n/8 whose scaled long side is nearest `target` (ties: the larger).
    public static func scale(width: Int, height: Int, targetLongSide target: Int) -> Int {
        let long = Double(max(width, height))
        var best = 8, bestError = Double.infinity
        for n in stride(from: 8, through: 1, by: -1) {
            let e = abs((long * Double(n) / 8).rounded(.up) - Double(target))
            if e < bestError { best = n; bestError = e }
        }
        return best
    }

    /// Scores one JPEG, PNG or PNM (by content). With `display`, also makes its Laplacian view (the signed response
    /// clamped to 0…255 through the 1/2.2 gamma, turned upright by the EXIF orientation) and
    /// hands it over; the luma frame is freed before the view is turned.
    public static func score(_ jpeg: borrowing some ByteSource & ~Escapable, targetLongSide: Int = 1280,
                             limits: JPEG.DecodeOptions = .init(),
                             display: ((borrowing PixelBuffer) throws(ImageError) -> Void)? = nil)
        throws(ImageError) -> Scored {
        try jpeg.withBytes { (jpeg) throws(ImageError) -> Scored in
            if let decoded = try scoreDecoded(jpeg, targetLongSide: targetLongSide, limits: limits, display: display) { return decoded }
            let info = try JPEG.info(jpeg)
            let n = scale(width: info.width, height: info.height, targetLongSide: targetLongSide)
            var view: PixelBuffer? = nil
            let s: SharpnessScore, w: Int, h: Int
            var warnings = JPEG.Warnings()
            do {
                // One header read here and one in the decode (JPEG.decode(format:) would read it a
                // third time to size the buffer); the pixel limit is checked before allocating.
                var o = limits
                o.scale = .eighths(n); o.crop = nil
                guard info.width * info.height <= o.maxPixels else {
                    throw ImageError(.tooLarge, "\(info.width)x\(info.height) is above the limit of \(o.maxPixels) pixels")
                }
                let size = try JPEG.scaledSize(width: info.width, height: info.height, eighths: n)
                var luma = try PixelBuffer(width: size.width, height: size.height, format: .gray8)
                warnings.add(try JPEG.decode(jpeg, into: &luma, options: o))
                s = try luma.laplacianScore()
                w = luma.width; h = luma.height
                if display != nil {
                    var v = try luma.laplacianDisplay(gamma: true)
                    v.orientation = luma.orientation
                    view = consume v
                }
            } // the luma frame is freed here
            if let display, var v = view.take() {
                if v.orientation.swapsDimensions {
                    v = try v.upright()
                } else {
                    try v.apply(v.orientation)
                    v.orientation = .up
                }
                try display(v)
            }
            return Scored(score: s, scale: n, width: w, height: h, warnings: warnings)
        }
    }

    /// The score of a PNG or PNM (nil for anything else): its luma at the size a JPEG of its
    /// dimensions would be decoded at for `targetLongSide`.
    static func scoreDecoded(_ bytes: UnsafeRawBufferPointer, targetLongSide: Int, limits: JPEG.DecodeOptions,
                             display: ((borrowing PixelBuffer) throws(ImageError) -> Void)?) throws(ImageError) -> Scored? {
        let isPNM = PNM.isPNM(bytes)
        guard PNG.isPNG(bytes) || isPNM else { return nil }
        var warnings = JPEG.Warnings()
        let luma: PixelBuffer, n: Int
        if isPNM {
            let h = try PNM.header(bytes)
            guard h.width * h.height <= limits.maxPixels else {
                throw ImageError(.tooLarge, "\(h.width)x\(h.height) is above the limit of \(limits.maxPixels) pixels")
            }
            n = scale(width: h.width, height: h.height, targetLongSide: targetLongSide)
            let size = try JPEG.scaledSize(width: h.width, height: h.height, eighths: n)
            let image = try PNM.decode(bytes)
            let gray = image.format == .gray8 ? image : try image.converted(to: .gray8)
            luma = n == 8 ? gray : try gray.resized(width: size.width, height: size.height)
        } else {
            let info = try PNG.info(bytes)
            n = scale(width: info.width, height: info.height, targetLongSide: targetLongSide)
            let size = try JPEG.scaledSize(width: info.width, height: info.height, eighths: n)
            let box = info.orientation.swapsDimensions ? (size.height, size.width) : (size.width, size.height)
            let t = try Thumbnailer.thumbnail(png: bytes, maxWidth: box.0, maxHeight: box.1, format: .gray8,
                                              limits: PNG.DecodeOptions(limits))
            warnings.add(t.report)
            luma = t.take()
        }
        let s = try luma.laplacianScore()
        if let display { try display(try luma.laplacianDisplay(gamma: true)) }
        return Scored(score: s, scale: n, width: luma.width, height: luma.height, warnings: warnings)
    }

    /// One image's score, the DCT scale n/8 and the scored size.
    public struct Scored: Sendable, Hashable {
        public var score: SharpnessScore
        public var scale: Int
        public var width: Int
        public var height: Int
        /// The decoder's warnings (recovered corruption).
        public var warnings = JPEG.Warnings()
    }

    static func scoreOne(_ bytes: [UInt8], index i: Int, targetLongSide: Int, limits: JPEG.DecodeOptions,
                         display: (@Sendable (Int, borrowing PixelBuffer) throws(ImageError) -> Void)?) throws(ImageError) -> Scored {
        guard let display else { return try score(bytes, targetLongSide: targetLongSide, limits: limits) }
        return try score(bytes, targetLongSide: targetLongSide, limits: limits,
                         display: { (v: borrowing PixelBuffer) throws(ImageError) in try display(i, v) })
    }

    /// Ranks `count` JPEGs by sharpness. `load(i)` returns image `i`'s bytes (called on the
    /// worker, so only the images in progress are in memory); `display`, if given, receives
    /// each Laplacian view (on the worker thread). A failing image gets an error entry and
    /// is left out of ``Ranking/order``. `finished`, if given, is called on the worker as each
    /// image is done (for progress).
    public static func rank(count: Int, options: Options = .init(),
                            load: @Sendable (Int) throws(ImageError) -> [UInt8],
                            display: (@Sendable (Int, borrowing PixelBuffer) throws(ImageError) -> Void)? = nil,
                            finished: (@Sendable (Entry) -> Void)? = nil) -> Ranking {
        let results = PosixMutex([Entry?](repeating: nil, count: count))
        let (_, usage) = PixelAllocator.measure {
            WorkerPool.run(count: count, workers: options.workers) { i in
                var entry = Entry(index: i, result: .failure(ImageError(.internalError, "not scored")), scale: 0, width: 0, height: 0)
                do throws(ImageError) {
                    let bytes = try load(i)
                    let r = try scoreOne(bytes, index: i, targetLongSide: options.targetLongSide, limits: options.limits, display: display)
                    entry = Entry(index: i, result: .success(r.score), scale: r.scale, width: r.width, height: r.height,
                                  warnings: r.warnings)
                } catch {
                    entry.result = .failure(error)
                }
                results.withLock { $0[i] = entry }
                finished?(entry)
            }
        }
        let entries = results.withLock { $0.map { $0! } }
        let scored = entries.compactMap { e -> (Int, Double)? in
            if case .success(let s) = e.result { return (e.index, s.standardDeviation) }
            return nil
        }
        let order = scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.map(\.0)
        return Ranking(entries: entries, order: order, peakPixelBytes: usage.peakBytes)
    }

    /// Ranks JPEGs held in memory.
    public static func rank(_ jpegs: [[UInt8]], options: Options = .init()) -> Ranking {
        rank(count: jpegs.count, options: options, load: { (i: Int) throws(ImageError) -> [UInt8] in jpegs[i] })
    }
}
