import CImageCore

/// Resampling filters of ``PixelBuffer/resize(into:filter:)`` and ``ResizePlan``.
public enum ResizeFilter: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Box: area average on downscale, nearest neighbour on upscale. Support 0.5.
    case box
    /// Triangle (bilinear). Support 1.
    case triangle
    /// Catmull-Rom cubic (B = 0, C = ½). Support 2.
    case catmullRom = "catmull-rom"
    /// Mitchell–Netravali cubic (B = C = ⅓). Support 2.
    case mitchell
    /// Lanczos-3: sinc(x)·sinc(x/3), |x| < 3. Support 3.
    case lanczos3

    var cValue: ic_resize_filter {
        switch self {
        case .box: IC_RESIZE_BOX
        case .triangle: IC_RESIZE_TRIANGLE
        case .catmullRom: IC_RESIZE_CATMULL_ROM
        case .mitchell: IC_RESIZE_MITCHELL
        case .lanczos3: IC_RESIZE_LANCZOS3
        }
    }

    /// The kernel's support radius at scale 1.
    public var support: Double { ic_resize_filter_support(cValue) }

    public var description: String { rawValue }
}

/// How a resize filters: the filter, box pre-reduction and linear light.
public struct ResizeOptions: Sendable, Hashable {
    /// The resampling filter.
    public var filter: ResizeFilter
    /// Whether large downscales (factor ≥ 4) first average integer blocks (see `resize.h`).
    public var preReduce: Bool
    /// Filter in linear light: the samples are decoded from sRGB (a table), filtered as light
    /// intensities in 16-bit fixed point and encoded back — the gamma-correct downscale (a fine
    /// black-and-white pattern becomes sRGB 188, not 128), within 1 LSB of a float64 reference.
    /// GRAY8, RGB8 and RGBA8 with straight or opaque alpha; premultiplied RGBA and YUV throw
    /// `.unsupported`. See "Linear light" in `imagecore/resize.h`.
    public var linearLight: Bool

    public init(filter: ResizeFilter = .lanczos3, preReduce: Bool = true, linearLight: Bool = false) {
        self.filter = filter
        self.preReduce = preReduce
        self.linearLight = linearLight
    }

    /// The C flags of these options.
    var cFlags: UInt32 {
        (preReduce ? 0 : UInt32(IC_RESIZE_NO_PREREDUCE.rawValue)) | (linearLight ? UInt32(IC_RESIZE_LINEAR_LIGHT.rawValue) : 0)
    }
}

/// A reusable resize: the coefficient tables of one format, alpha mode and pair of sizes,
/// computed once, plus per-thread scratch rows — the only memory a resize needs.
///
/// Making the plan allocates ``byteCount`` bytes (reported exactly by the C core); each
/// ``resize(_:into:)`` then allocates nothing. A plan runs one resize at a time: a call made
/// while another is in progress on the same plan throws `.invalidArgument` and writes
/// nothing. See `imagecore/resize.h` for the numeric contract (14-bit weights, clamp borders,
/// premultiplied alpha, box pre-reduction for factors ≥ 4).
public final class ResizePlan: @unchecked Sendable {
    // @unchecked Sendable: the C plan is immutable after creation except for its scratch,
    // which the C core guards with an atomic busy flag.
    public let format: PixelFormat
    public let alphaMode: AlphaMode
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let width: Int
    public let height: Int
    public let filter: ResizeFilter
    /// Whether large downscales first average integer blocks (see `resize.h`).
    public let preReduce: Bool
    /// Whether the plan filters in linear light (``ResizeOptions/linearLight``).
    public let linearLight: Bool
    /// Worker threads the plan holds scratch for; a resize uses at most this many.
    public let maxThreads: Int
    /// Bytes of the plan's one allocation.
    public let byteCount: Int
    private let plan: OpaquePointer

    /// The C parameters of a resize (shared with ``StreamingResizer``).
    static func cValue(format: PixelFormat, alphaMode: AlphaMode, sourceWidth: Int, sourceHeight: Int, width: Int,
                        height: Int, options: ResizeOptions, maxThreads: Int) -> ic_resize_params {
        var p = ic_resize_params()
        p.format = format.cValue
        p.alpha = alphaMode.cValue
        p.src_width = Int32(clamping: sourceWidth)
        p.src_height = Int32(clamping: sourceHeight)
        p.dst_width = Int32(clamping: width)
        p.dst_height = Int32(clamping: height)
        p.filter = options.filter.cValue
        p.flags = options.cFlags
        p.max_threads = Int32(clamping: maxThreads)
        return p
    }

    /// Makes a plan for resizing `sourceWidth`×`sourceHeight` images of `format` to
    /// `width`×`height`.
    /// - Parameters:
    ///   - maxThreads: scratch for this many threads; 0 = the current ``ImageCoreRuntime/threads``.
    /// - Throws: `.invalidArgument` / `.tooLarge` for bad sizes, `.outOfMemory`.
    public convenience init(format: PixelFormat, alphaMode: AlphaMode = .straight, sourceWidth: Int, sourceHeight: Int,
                            width: Int, height: Int, filter: ResizeFilter = .lanczos3, preReduce: Bool = true,
                            maxThreads: Int = 0) throws(ImageError) {
        try self.init(format: format, alphaMode: alphaMode, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                      width: width, height: height, options: ResizeOptions(filter: filter, preReduce: preReduce),
                      maxThreads: maxThreads)
    }

    /// Makes a plan with ``ResizeOptions`` (filter, pre-reduction, linear light).
    /// - Throws: as ``init(format:alphaMode:sourceWidth:sourceHeight:width:height:filter:preReduce:maxThreads:)``;
    ///   `.unsupported` for linear light on premultiplied RGBA or YUV.
    public init(format: PixelFormat, alphaMode: AlphaMode = .straight, sourceWidth: Int, sourceHeight: Int,
                width: Int, height: Int, options: ResizeOptions, maxThreads: Int = 0) throws(ImageError) {
        var p = Self.cValue(format: format, alphaMode: alphaMode, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                             width: width, height: height, options: options, maxThreads: maxThreads)
        var size = 0
        let detail = "\(sourceWidth)x\(sourceHeight) -> \(width)x\(height) \(format) \(options.filter)\(options.linearLight ? " linear light" : "")"
        try ImageError.check(ic_resize_plan_size(&p, &size), detail)
        var made: OpaquePointer? = nil
        try ImageError.check(ic_resize_plan_create(&p, &made), detail)
        var resolved = ic_resize_params()
        _ = ic_resize_plan_params(made, &resolved)
        self.plan = made!
        self.format = format
        self.alphaMode = alphaMode
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        self.filter = options.filter
        self.preReduce = options.preReduce
        self.linearLight = options.linearLight
        self.maxThreads = Int(resolved.max_threads)
        self.byteCount = size
    }

    deinit { ic_resize_plan_destroy(plan) }

    /// Resizes `source` into `destination` (both must match the plan; `source` also its
    /// alpha mode). The destination takes the source's alpha mode and orientation.
    public func resize(_ source: borrowing PixelBuffer, into destination: inout PixelBuffer) throws(ImageError) {
        let status = source.withUnsafeImage { src in
            destination.withUnsafeMutableImage { dst in ic_resize_plan_execute(plan, src, dst) }
        }
        try ImageError.check(status, "plan \(sourceWidth)x\(sourceHeight) -> \(width)x\(height) \(format): "
                             + "source \(source.width)x\(source.height) \(source.format), "
                             + "destination \(destination.width)x\(destination.height) \(destination.format)")
        destination.alphaMode = source.alphaMode
        destination.orientation = source.orientation
    }
}

extension PixelBuffer {
    /// Resizes this image into `destination` (same format, any size) with a one-shot plan.
    /// Antialiased on downscale; see ``ResizePlan`` and `imagecore/resize.h` for the contract.
    /// The destination takes this image's alpha mode and orientation.
    public borrowing func resize(into destination: inout PixelBuffer, filter: ResizeFilter = .lanczos3) throws(ImageError) {
        guard destination.format == format else {
            throw ImageError(.invalidArgument, "resize \(format) into \(destination.format)")
        }
        let status = withUnsafeImage { src in
            destination.withUnsafeMutableImage { dst in ic_resize(src, dst, filter.cValue) }
        }
        try ImageError.check(status, "resize \(width)x\(height) -> \(destination.width)x\(destination.height) \(format) \(filter)")
        destination.alphaMode = alphaMode
        destination.orientation = orientation
    }

    /// Resizes this image into `destination` (same format, any size) with ``ResizeOptions``
    /// (e.g. linear light), through a one-shot plan.
    public borrowing func resize(into destination: inout PixelBuffer, options: ResizeOptions) throws(ImageError) {
        guard destination.format == format else {
            throw ImageError(.invalidArgument, "resize \(format) into \(destination.format)")
        }
        let plan = try ResizePlan(format: format, alphaMode: alphaMode, sourceWidth: width, sourceHeight: height,
                                  width: destination.width, height: destination.height, options: options)
        try plan.resize(self, into: &destination)
    }

    /// A new image of `width`×`height` resized from this one with ``ResizeOptions``.
    public borrowing func resized(width: Int, height: Int, options: ResizeOptions) throws(ImageError) -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: format, alphaMode: alphaMode,
                                  orientation: orientation, alignment: alignment)
        try resize(into: &out, options: options)
        return out
    }

    /// A new image of `width`×`height` resized from this one.
    public borrowing func resized(width: Int, height: Int, filter: ResizeFilter = .lanczos3) throws(ImageError) -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: format, alphaMode: alphaMode,
                                  orientation: orientation, alignment: alignment)
        try resize(into: &out, filter: filter)
        return out
    }

    /// A new image `width` wide, the height keeping the aspect ratio (rounded, at least 1).
    public borrowing func resized(width: Int, filter: ResizeFilter = .lanczos3) throws(ImageError) -> PixelBuffer {
        let size = ResizeGeometry.scaled(width: self.width, height: self.height, toWidth: width)
        return try resized(width: size.width, height: size.height, filter: filter)
    }

    /// A new image `height` tall, the width keeping the aspect ratio (rounded, at least 1).
    public borrowing func resized(height: Int, filter: ResizeFilter = .lanczos3) throws(ImageError) -> PixelBuffer {
        let size = ResizeGeometry.scaled(width: self.width, height: self.height, toHeight: height)
        return try resized(width: size.width, height: size.height, filter: filter)
    }

    /// A new image as large as fits inside `maxWidth`×`maxHeight` keeping the aspect ratio
    /// (see ``ResizeGeometry/fit(width:height:maxWidth:maxHeight:upscale:)``).
    public borrowing func resized(fittingWidth maxWidth: Int, height maxHeight: Int, upscale: Bool = true,
                                  filter: ResizeFilter = .lanczos3) throws(ImageError) -> PixelBuffer {
        let size = try ResizeGeometry.fit(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight, upscale: upscale)
        return try resized(width: size.width, height: size.height, filter: filter)
    }
}

/// Output sizes that keep an image's aspect ratio.
public enum ResizeGeometry {
    /// `(toWidth, round(height · toWidth / width))`, the height at least 1.
    public static func scaled(width: Int, height: Int, toWidth: Int) -> (width: Int, height: Int) {
        (toWidth, max(1, Int((Double(height) * Double(toWidth) / Double(max(width, 1))).rounded())))
    }

    /// `(round(width · toHeight / height), toHeight)`, the width at least 1.
    public static func scaled(width: Int, height: Int, toHeight: Int) -> (width: Int, height: Int) {
        (max(1, Int((Double(width) * Double(toHeight) / Double(max(height, 1))).rounded())), toHeight)
    }

    /// The largest size with the aspect ratio of `width`×`height` inside `maxWidth`×`maxHeight`:
    /// the limiting side is exactly its maximum, the other rounded (at least 1). With
    /// `upscale` false an image already inside the box keeps its size.
    /// - Throws: `.invalidArgument` for sizes < 1.
    public static func fit(width: Int, height: Int, maxWidth: Int, maxHeight: Int,
                           upscale: Bool = true) throws(ImageError) -> (width: Int, height: Int) {
        guard width >= 1, height >= 1, maxWidth >= 1, maxHeight >= 1 else {
            throw ImageError(.invalidArgument, "fit \(width)x\(height) into \(maxWidth)x\(maxHeight)")
        }
        if !upscale && width <= maxWidth && height <= maxHeight { return (width, height) }
        // Compare the aspect ratios exactly: width/height > maxWidth/maxHeight.
        if width * maxHeight >= height * maxWidth {
            return (maxWidth, min(maxHeight, max(1, Int((Double(height) * Double(maxWidth) / Double(width)).rounded()))))
        }
        return (min(maxWidth, max(1, Int((Double(width) * Double(maxHeight) / Double(height)).rounded()))), maxHeight)
    }
}
