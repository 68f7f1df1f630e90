import CImageCore

extension JPEG {
    /// The file's ICC profile, reassembled from its APP2 "ICC_PROFILE" chunks (checked: one
    /// count, every number 1…count exactly once), byte for byte; `nil` without chunks.
    /// - Throws: `.corruptData` for a non-JPEG or inconsistent chunks.
    public static func iccProfile(_ bytes: borrowing some ByteSource & ~Escapable) throws(ImageError) -> [UInt8]? {
        try bytes.withBytes { (bytes) throws(ImageError) -> [UInt8]? in
            var size = 0
            let first = ic_jpeg_icc_profile(bytes.bytePointer, bytes.count, nil, 0, &size)
            if first == IC_OK { return nil }
            guard first == IC_ERR_BUFFER_TOO_SMALL else { try ImageError.check(first, "ICC profile chunks of a JPEG"); return nil }
            var profile = [UInt8](repeating: 0, count: size)
            let status = profile.withUnsafeMutableBufferPointer { out in
                ic_jpeg_icc_profile(bytes.bytePointer, bytes.count, out.baseAddress, out.count, &size)
            }
            try ImageError.check(status, "ICC profile chunks of a JPEG")
            return profile
        }
    }
}
