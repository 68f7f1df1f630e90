import CImageCore

/// The decoders' data-sanity rule (JPEG and PNG alike): the share of output rows that must
/// come from real image data, given as a share 0…1 and handed to C in thousandths.
enum DataSanityRule {
    /// `share` in thousandths, rounded up so the rule is never weaker than asked; 0 turns the
    /// rule off (C: negative). Shares outside 0…1 are `.invalidArgument`.
    static func permille(_ share: Double) throws(ImageError) -> Int32 {
        guard share >= 0, share <= 1 else {
            throw ImageError(.invalidArgument, "decode options: minValidShare \(share) is not within 0…1")
        }
        return share == 0 ? -1 : max(1, Int32((share * 1000).rounded(.up)))
    }
}
