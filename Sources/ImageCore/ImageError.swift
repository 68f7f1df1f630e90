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
    init?(status: ic_status, detail: String? = nil) {
        if status == IC_OK { return nil }
        self.init(Code(rawValue: status.rawValue) ?? .internalError, detail)
    }

    /// Throws the error for a failing C status; returns for `IC_OK`. The detail is the
    /// caller's context followed by the C core's own reason, when the call that failed
    /// recorded one (`ic_last_error`, per thread): validation happens once, in C, and its
    /// message reaches ``detail``.
    static func check(_ status: ic_status, _ detail: @autoclosure () -> String? = nil) throws(ImageError) {
        if status != IC_OK { throw ImageError(status: status, detail: joined(detail(), reason(for: status)))! }
    }

    /// The C core's recorded reason for `status` on this thread (consumed), if it has one.
    static func reason(for status: ic_status) -> String? {
        var text = [CChar](repeating: 0, count: Int(IC_DETAIL_LENGTH))
        let recorded = ic_last_error(&text, text.count)
        guard recorded == status, text[0] != 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func joined(_ context: String?, _ reason: String?) -> String? {
        switch (context, reason) {
        case let (c?, r?) where !c.isEmpty: return "\(c): \(r)"
        case let (_, r?): return r
        default: return context
        }
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
