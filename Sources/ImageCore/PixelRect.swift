import CImageCore

/// A rectangle of pixels: columns `x ..< x + width`, rows `y ..< y + height`. The one
/// rectangle type of the API: crops, regions of interest, views.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// The C value, or `nil` when a field does not fit in 32 bits (the C core then refuses it).
    var cValue: ic_rect? {
        guard let x = Int32(exactly: x), let y = Int32(exactly: y),
              let w = Int32(exactly: width), let h = Int32(exactly: height) else { return nil }
        return ic_rect(x: x, y: y, width: w, height: h)
    }
}
