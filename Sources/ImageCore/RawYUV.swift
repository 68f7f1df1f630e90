import CImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Raw `.yuv` files: I420 or NV12 planes stored back to back with no row padding and no
/// header (the format of ffmpeg's `-f rawvideo`), so the size and layout come from the caller.
public enum RawYUV {
    /// Bytes a raw file of this size and layout holds: w·h + 2·⌈w/2⌉·⌈h/2⌉.
    public static func fileSize(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Reads a raw I420 or NV12 file straight into a new buffer's rows.
    /// - Throws: `.invalidArgument` for a format other than I420/NV12; `.corruptData` when the
    ///   file's size is not exactly ``fileSize(width:height:)`` (checked before allocating).
    public static func read(path: String, width: Int, height: Int, format: PixelFormat,
                            alignment: Int = 64) throws(ImageError) -> PixelBuffer {
        guard format.isYUV else { throw ImageError(.invalidArgument, "raw .yuv holds I420 or NV12, not \(format)") }
        // The C core's size rule (1...IC_MAX_DIMENSION a side), before the file is opened.
        try ImageError.check(ic_image_size(format.cValue, Int32(clamping: width), Int32(clamping: height), 0, nil),
                             "raw .yuv size \(width)x\(height)")
        guard let f = fopen(path, "rb") else { throw PlaneFileIO.openError(path) }
        defer { fclose(f) }
        var input = FileInput(file: f)
        let expected = fileSize(width: width, height: height)
        if let size = input.remaining, size != expected {
            throw ImageError(.corruptData, "\(path): \(size) bytes, but \(width)x\(height) \(format) needs \(expected)")
        }
        var buffer = try PixelBuffer(width: width, height: height, format: format, alignment: alignment)
        guard PlaneFileIO.readRows(&input, into: &buffer) else { throw ImageError(.corruptData, "\(path): truncated") }
        return buffer
    }

    /// Writes an I420 or NV12 buffer's planes, rows without padding, straight from the buffer.
    public static func write(_ buffer: borrowing PixelBuffer, path: String) throws(ImageError) {
        guard buffer.format.isYUV else { throw ImageError(.invalidArgument, "raw .yuv holds I420 or NV12, not \(buffer.format)") }
        try PlaneFileIO.write(buffer, header: [], path: path)
    }

    /// Writes an I420 or NV12 buffer's planes to an open file descriptor (left open).
    /// `name` is used in error messages.
    public static func write(_ buffer: borrowing PixelBuffer, fileDescriptor: Int32, name: String) throws(ImageError) {
        guard buffer.format.isYUV else { throw ImageError(.invalidArgument, "raw .yuv holds I420 or NV12, not \(buffer.format)") }
        try PlaneFileIO.write(buffer, header: [], fileDescriptor: fileDescriptor, name: name)
    }
}
