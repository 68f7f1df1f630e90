import CImageCore

extension JPEG {
    /// What one pass over a file's entropy-coded data says about decoding it in parallel
    /// (``JPEG/scanRestarts(_:)``).
    ///
    /// A baseline JPEG with restart markers at MCU-row boundaries (phone cameras and many
    /// editors write one every MCU row or so; ImageCore's encoder does for large images) is
    /// decoded by ``JPEG/decode(_:into:options:)`` in stripes, one
    /// per thread, each by its own decompressor straight into its rows of the output, with the
    /// serial decode's pixels and report.
    public struct RestartInfo: Sendable, Hashable {
        /// MCUs between restart markers (0: none).
        public var restartInterval: Int
        /// Restart intervals in the image.
        public var intervals: Int
        /// MCU rows (8 or 16 pixel rows each at full size).
        public var mcuRows: Int
        /// MCU rows below the first where a stripe can start (an interval numbered 0 mod 8 begins there).
        public var cutRows: Int
        /// Whether the decoder can split the file: one interleaved baseline Huffman scan, every
        /// restart marker where the interval puts it, EOI at the end, and a row to cut at.
        public var splittable: Bool

        init(_ c: ic_jpeg_restart_info) {
            restartInterval = Int(c.restart_interval)
            intervals = Int(c.intervals)
            mcuRows = Int(c.mcu_rows)
            cutRows = Int(c.cut_rows)
            splittable = c.splittable != 0
        }
    }

    /// Reads the header and scans the entropy-coded data for restart markers, as a parallel
    /// decode does before it splits the file (about a thousandth of a full decode's time).
    /// The bytes are read in place.
    /// - Throws: the errors of ``JPEG/info(_:)``.
    public static func scanRestarts(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> RestartInfo {
        var c = ic_jpeg_restart_info()
        let status = bytes.withBytes { raw in ic_jpeg_scan_restarts(raw.bytePointer, raw.count, &c) }
        try ImageError.check(status, "not a readable JPEG header")
        return RestartInfo(c)
    }
}
