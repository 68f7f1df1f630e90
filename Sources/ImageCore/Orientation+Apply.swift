import CImageCore

extension Orientation {
    /// The C core's value.
    var cValue: ic_orientation { ic_orientation(rawValue: UInt32(rawValue)) }

    /// The orientation that undoes this one: applying `o` and then `o.inverse` (or the
    /// other way round) gives back the original pixels. ``right`` and ``left`` are each
    /// other's inverse; every other orientation is its own.
    public var inverse: Orientation {
        Orientation(rawValue: UInt8(ic_orientation_inverse(cValue).rawValue))!
    }

    /// The single orientation equivalent to applying this one and then `next`:
    /// `image.applying(a).applying(b)` has the pixels of `image.applying(a.followed(by: b))`.
    ///
    /// Composition is associative but not commutative (``upMirrored`` followed by
    /// ``right`` is ``rightMirrored``; the other order is ``leftMirrored``), and
    /// ``up`` is its identity.
    public func followed(by next: Orientation) -> Orientation {
        Orientation(rawValue: UInt8(ic_orientation_compose(cValue, next.cValue).rawValue))!
    }
}

extension PixelBuffer {
    /// Writes this image with `transform` applied into `destination`, which must have the
    /// same format and the size ``Orientation/displaySize(width:height:)`` gives (width and
    /// height swapped for ``Orientation/leftMirrored`` … ``Orientation/left``).
    ///
    /// Pixels move whole (RGBA as 4 bytes, NV12 chroma as UV pairs) and nothing is
    /// interpolated, so the result is exact. I420/NV12 chroma planes get the same transform
    /// as the luma; see the README ("Orientation") for what that means at odd sizes.
    ///
    /// The destination's ``orientation`` becomes the one that displays the result as this
    /// image's displayed picture with `transform` applied, so rotating an upright
    /// (``Orientation/up``) image gives an upright result. To apply the buffer's own
    /// orientation and get an upright image, use ``upright()``.
    ///
    /// - Throws: `.invalidArgument` for a format or size mismatch.
    public borrowing func apply(_ transform: Orientation, into destination: inout PixelBuffer) throws(ImageError) {
        let (ow, oh) = transform.displaySize(width: width, height: height)
        guard destination.format == format, destination.width == ow, destination.height == oh else {
            throw ImageError(.invalidArgument,
                "orientation \(transform) of \(width)x\(height) \(format) needs \(ow)x\(oh) \(format), got \(destination.width)x\(destination.height) \(destination.format)")
        }
        let status = withUnsafeImage { src in
            destination.withUnsafeMutableImage { dst in ic_image_orient(src, dst, transform.cValue) }
        }
        try ImageError.check(status, "orientation \(transform)")
        destination.alphaMode = alphaMode
        destination.orientation = Self.orientation(after: transform, of: orientation)
    }

    /// A new buffer holding this image with `transform` applied (see ``apply(_:into:)``).
    public borrowing func applying(_ transform: Orientation) throws(ImageError) -> PixelBuffer {
        let (ow, oh) = transform.displaySize(width: width, height: height)
        var result = try PixelBuffer(width: ow, height: oh, format: format, alphaMode: alphaMode,
                                     orientation: orientation, alignment: alignment)
        try apply(transform, into: &result)
        return result
    }

    /// Applies a size-preserving `transform` in place: ``Orientation/up`` (nothing),
    /// ``Orientation/upMirrored``, ``Orientation/down`` and ``Orientation/downMirrored``.
    /// No pixel memory is allocated. ``orientation`` is updated as in ``apply(_:into:)``.
    ///
    /// - Throws: `.unsupported` for the orientations that swap width and height.
    public mutating func apply(_ transform: Orientation) throws(ImageError) {
        guard !transform.swapsDimensions else {
            throw ImageError(.unsupported, "orientation \(transform) changes the size; it cannot be applied in place")
        }
        let status = withUnsafeMutableImage { image in ic_image_orient_in_place(image, transform.cValue) }
        try ImageError.check(status, "orientation \(transform)")
        orientation = Self.orientation(after: transform, of: orientation)
    }

    /// A new buffer with this buffer's ``orientation`` applied: the pixels as they are
    /// meant to be displayed, with ``orientation`` ``Orientation/up``.
    public borrowing func upright() throws(ImageError) -> PixelBuffer {
        var result = try applying(orientation)
        result.orientation = .up
        return result
    }

    /// The metadata orientation that keeps the displayed picture consistent when the pixels
    /// are transformed by `t`: the old display, then `t`, expressed from the new pixels
    /// (t⁻¹, then `old`, then t).
    static func orientation(after t: Orientation, of old: Orientation) -> Orientation {
        t.inverse.followed(by: old).followed(by: t)
    }
}
