/// Lends the storage of an optional ICC profile and optional EXIF bytes to a C call (pointer
/// and count each; nil and 0 when absent), without copying.
@inline(__always)
func withMetadataPointers<R>(_ icc: [UInt8]?, _ exif: [UInt8]?,
                             _ body: (UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int) -> R) -> R {
    func lend(_ bytes: [UInt8]?, _ f: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let bytes, !bytes.isEmpty else { return f(nil, 0) }
        return bytes.withUnsafeBufferPointer { f($0.baseAddress, $0.count) }
    }
    return lend(icc) { ip, ic in lend(exif) { ep, ec in body(ip, ic, ep, ec) } }
}
