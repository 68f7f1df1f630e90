import CImageCore

/// The one error type of ImageCore, thrown with typed throws.
///
/// Every C status maps to a ``Code`` in one place (``ImageError/check(_:_:)``), so Swift callers
/// see the same categories as C hosts. `detail` says what was wrong where the code alone
/// would not (a file name, the decoder's message).
public struct ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category, equal to the C core's `ic_status` value.
    public enum Code: Int32, Sendable, CaseIterable {
        case invalidArgument = -1
        case unsupported = -2
        case corruptData = -3
        case tooLarge = -4
        case outOfMemory = -5
        case cancelled = -6
        case bufferTooSmall = -7
        case io = -8
        case internalError = -9
    }

    public let code: Code
    public let detail: String?

    public init(_ code: Code, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// Maps a C status; `nil` for `IC_OK`. Unknown values map to `.internalError`.
    public init?(status: ic_status, detail: String? = nil) {
        if status == IC_OK { return nil }
        self.init(Code(rawValue: status.rawValue) ?? .internalError, detail)
    }

    /// Throws the error for a failing C status; returns for `IC_OK`.
    @inlinable
    public static func check(_ status: ic_status, _ detail: @autoclosure () -> String? = nil) throws(ImageError) {
        if status != IC_OK { throw ImageError(status: status, detail: detail())! }
    }

    /// The C core's name for the code, e.g. "too large".
    public var name: String {
        String(cString: ic_status_string(ic_status(rawValue: code.rawValue)))
    }

    public var description: String {
        if let detail { return "\(name): \(detail)" }
        return name
    }
}
