/// The eight EXIF orientations: how stored pixels must be transformed to display upright.
///
/// Raw values are the EXIF `Orientation` tag values (1…8). Names follow the position of the
/// stored image's first row and column, as in UIKit's `UIImage.Orientation`.
public enum Orientation: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left–right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top–bottom.
    case downMirrored = 4
    /// 5: transposed (mirror across the main diagonal).
    case leftMirrored = 5
    /// 6: display needs a 90° clockwise rotation.
    case right = 6
    /// 7: transverse (mirror across the anti-diagonal).
    case rightMirrored = 7
    /// 8: display needs a 90° counter-clockwise rotation.
    case left = 8

    /// The EXIF tag value, 1…8.
    public var exifValue: Int { Int(rawValue) }

    /// Creates an orientation from an EXIF tag value; `nil` outside 1…8.
    public init?(exifValue: Int) {
        guard (1...8).contains(exifValue) else { return nil }
        self.init(rawValue: UInt8(exifValue))
    }

    /// Whether displaying swaps width and height (orientations 5–8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The size an image of stored size `width` × `height` has when displayed.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    public var description: String { "\(rawValue)" }
}
