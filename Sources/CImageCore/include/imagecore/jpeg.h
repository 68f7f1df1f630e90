/**
 * @file imagecore/jpeg.h
 * @brief JPEG codec over caller-owned memory: header probe, full / scaled / cropped /
 *        streamed decode to RGBA8, RGB8, GRAY8, I420 or NV12, and encode from the same
 *        formats. Built on libjpeg-turbo (jpeglib.h); included by imagecore.h.
 *
 * Memory
 * - Decode writes into the caller's ::ic_image. The codec never allocates pixel memory.
 *   Its scratch is bounded by the image width, not its area: at most a few bands of
 *   rows (see each function), plus libjpeg's own state. One exception is libjpeg's:
 *   a progressive (or otherwise multi-scan) file needs a coefficient buffer for the whole
 *   image (2 bytes per sample: 3 bytes per pixel for 4:2:0, 6 for 4:4:4), which
 *   ::ic_jpeg_decode_options::max_memory can cap. Progressive files decoded at 1/8 or 1/4
 *   need none: the reduced progressive decoder keeps one iMCU row of coefficients (see
 *   ::ic_jpeg_decode).
 * - Input is a byte range in memory, read in place (no FILE*, no copy).
 *
 * Errors
 * - Every entry point returns an ::ic_status and never crashes, hangs, over-reads or leaks,
 *   whatever the input: libjpeg's error manager is routed through setjmp/longjmp and the
 *   decompressor is destroyed on every path.
 * - Empty, non-JPEG, corrupt and truncated input: IC_ERR_CORRUPT_DATA. Valid JPEG features
 *   libjpeg-turbo does not decode (12-bit, lossless, ...): IC_ERR_UNSUPPORTED. A header
 *   beyond the pixel limit: IC_ERR_TOO_LARGE, checked right after the header is read,
 *   before anything image-sized is allocated.
 * - libjpeg's warnings (recoverable corruption, e.g. a truncated scan that decodes as grey)
 *   are counted and the last one kept in ::ic_jpeg_decode_result; with ::IC_JPEG_STRICT the
 *   first warning is an error (IC_ERR_CORRUPT_DATA).
 * - Data-sanity rule: a decode reports how many of its output rows came from real entropy
 *   data (::ic_jpeg_decode_result::valid_rows) and fails with IC_ERR_CORRUPT_DATA when that is
 *   below ::ic_jpeg_decode_options::min_valid_permille of its rows (default 500: half), so a
 *   file that runs out of data early is an error, not a mostly grey image.
 */
#ifndef IMAGECORE_JPEG_H
#define IMAGECORE_JPEG_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** @name Header probe                                                          */
/* ------------------------------------------------------------------------- */

/** Colour space of a JPEG file's components (libjpeg's reading of the JFIF / Adobe markers). */
typedef enum ic_jpeg_colorspace {
    IC_JPEG_CS_UNKNOWN = 0,
    IC_JPEG_CS_GRAY = 1,
    IC_JPEG_CS_YCBCR = 2,
    IC_JPEG_CS_RGB = 3,
    IC_JPEG_CS_CMYK = 4,
    IC_JPEG_CS_YCCK = 5
} ic_jpeg_colorspace;

/** Chroma subsampling of a JPEG file, or the subsampling to encode with. */
typedef enum ic_jpeg_subsampling {
    IC_JPEG_SUBSAMP_UNKNOWN = 0,  /**< Probe: none of the below. Encode: the default (4:2:0; gray for GRAY8). */
    IC_JPEG_SUBSAMP_444 = 1,
    IC_JPEG_SUBSAMP_422 = 2,
    IC_JPEG_SUBSAMP_420 = 3,
    IC_JPEG_SUBSAMP_GRAY = 4,
    IC_JPEG_SUBSAMP_440 = 5,
    IC_JPEG_SUBSAMP_411 = 6
} ic_jpeg_subsampling;

/** What a JPEG file's header says, read without decoding any pixels. */
typedef struct ic_jpeg_info {
    int32_t width;
    int32_t height;
    int32_t components;              /**< 1 (gray), 3 (YCbCr / RGB) or 4 (CMYK / YCCK). */
    ic_jpeg_colorspace colorspace;
    ic_jpeg_subsampling subsampling;
    int32_t progressive;             /**< 1 for a progressive (SOF2) file, else 0. */
    int32_t arithmetic;              /**< 1 for arithmetic coding, else 0 (Huffman). */
    int32_t restart_interval;        /**< MCUs between restart markers (DRI before the first scan); 0 = none. */
    int32_t orientation;             /**< EXIF orientation 1..8; 1 when there is no valid tag. */
    int32_t has_exif;                /**< 1 when an APP1 "Exif" segment is present. */
    int32_t has_icc;                 /**< 1 when APP2 "ICC_PROFILE" chunks are present. */
    uint32_t icc_size;               /**< Bytes of ICC profile data over all chunks (0 if none). */
    int32_t adobe;                   /**< 1 when an Adobe APP14 segment is present (CMYK is then stored inverted). */
    uint32_t thumbnail_offset;       /**< The EXIF thumbnail (IFD1's JPEGInterchangeFormat): byte offset of its
                                          JPEG data in the file; with thumbnail_length 0 when there is none. Only
                                          a well-formed one is reported: inside its APP1 segment, not overlapping
                                          the TIFF header or IFD0/IFD1, starting with SOI. */
    uint32_t thumbnail_length;       /**< Its length in bytes; 0 = no EXIF thumbnail. */
    int32_t thumbnail_width;         /**< Its stored size, from its own frame header (0 when unreadable). */
    int32_t thumbnail_height;
    int32_t thumbnail_same_shape;    /**< 1 when its aspect ratio is the main image's within a pixel of rounding
                                          (|th * W - tw * H| <= max(W, H)); 0 for another shape (letterboxed, or
                                          cropped: see ::ic_jpeg_find_exif_thumbnail). */
    uint32_t exif_offset;            /**< The first APP1 "Exif" segment's TIFF structure (after the
                                          "Exif\0" prefix and its pad byte, "\0" by the standard but
                                          read whatever it is): byte offset in the file (what the encoders'
                                          `exif` option takes back); 0 with exif_length 0 when there is none. */
    uint32_t exif_length;            /**< Its length in bytes (the segment's payload less 6); 0 = none. */
} ic_jpeg_info;

/**
 * Reads a JPEG file's header (everything before the first scan) without decoding pixels.
 * The EXIF orientation and ICC presence come from a bounds-checked walk of the marker
 * segments; the TIFF structure inside APP1 is parsed in both byte orders and bad offsets
 * or counts simply mean "no orientation".
 * @param data  the JPEG file's bytes (NULL only with size 0).
 * @param size  their count.
 * @param out   receives the header's fields.
 * @return IC_ERR_CORRUPT_DATA for empty (size 0), non-JPEG or unreadable headers;
 *         IC_ERR_UNSUPPORTED for valid files libjpeg-turbo cannot decode (e.g. 12-bit);
 *         IC_ERR_INVALID_ARGUMENT for a null `out`, or null `data` with size > 0.
 */
IC_API ic_status ic_jpeg_probe(const uint8_t *data, size_t size, ic_jpeg_info *out);

/** An EXIF thumbnail found usable as a smaller copy of the main image (::ic_jpeg_find_exif_thumbnail). */
typedef struct ic_jpeg_exif_thumbnail {
    uint32_t offset;            /**< Its JPEG bytes are data[offset .. offset + length). */
    uint32_t length;
    int32_t width;              /**< Its stored size (the main image's orientation: apply the main EXIF
                                     orientation to it, as to the main image). */
    int32_t height;
    int32_t letterboxed;        /**< 1 when the picture sits between dark bars, which the content
                                     rectangle leaves out; 0 when the thumbnail is the picture. */
    int32_t content_x;          /**< The picture inside the thumbnail, in its pixels. */
    int32_t content_y;
    int32_t content_width;
    int32_t content_height;
} ic_jpeg_exif_thumbnail;

/**
 * Finds a JPEG file's EXIF (IFD1) thumbnail and checks that it is a smaller copy of the main
 * image: its shape is the main image's within a pixel of rounding, or the main image's shape
 * fitted into it (centred) between dark bars on the two other sides (letterbox or pillarbox),
 * and its data decodes without a warning. The check decodes the thumbnail once, to gray in
 * 16-row bands with libjpeg (its pixels are not kept): a few kilobytes. Bars: every bar pixel
 * at most 48 and each bar's mean at most 16 (the row or column next to the picture, which
 * shares DCT blocks with it, is left out when a bar is 3 or more wide). A thumbnail of another
 * shape without such bars (a crop), one above 16 MP, or one whose header or data libjpeg
 * cannot read cleanly is refused.
 * @param data  the JPEG file's bytes (NULL only with size 0).
 * @param size  their count.
 * @param out   receives the thumbnail's place, size and picture rectangle (zeroed on failure).
 * @return IC_OK when a usable thumbnail was found;
 *         IC_ERR_UNSUPPORTED when there is none or it is not usable (the caller decodes the
 *         main image);
 *         IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED as ::ic_jpeg_probe for the main file;
 *         IC_ERR_INVALID_ARGUMENT for a null `out`, or null `data` with size > 0.
 */
IC_API ic_status ic_jpeg_find_exif_thumbnail(const uint8_t *data, size_t size, ic_jpeg_exif_thumbnail *out);

/**
 * The EXIF orientation stored in `data`, which is an APP1 payload ("Exif\0\0" followed by a
 * TIFF structure) or a bare TIFF structure ("II*\0" or "MM\0*"). Only IFD0 is read (that is
 * where the tag lives), so offset loops cannot make the parse long; every offset and count is
 * checked against `size`. Never reads outside `data[0..size)`.
 * @param data  an APP1 payload or a bare TIFF structure.
 * @param size  its byte count.
 * @return 1..8, or 0 when there is no valid orientation tag (absent, bad type, out of range,
 *         truncated or malformed structure).
 */
IC_API int32_t ic_exif_orientation(const uint8_t *data, size_t size);

/**
 * Rewrites the orientation tag in IFD0 of `data` (an APP1 payload or a bare TIFF structure, as
 * ::ic_exif_orientation reads) to `orientation` (1..8), in place. Nothing else changes.
 * @return 1 when the tag was found and rewritten, 0 when there is no well-formed tag (then
 *         nothing was written) or `orientation` is out of range.
 */
IC_API int32_t ic_exif_set_orientation(uint8_t *data, size_t size, int32_t orientation);

/**
 * Copies the file's ICC profile, reassembled from its APP2 "ICC_PROFILE" chunks, into
 * `out[0..capacity)`. The chunks must agree on their count, number 1..count each exactly once
 * and may appear in any order; anything else is IC_ERR_CORRUPT_DATA (the profile is then not
 * to be trusted; the image still decodes). `*profile_size` gets the size, also when it does
 * not fit (IC_ERR_BUFFER_TOO_SMALL, nothing written), so `out` NULL and capacity 0 asks for
 * it. A file without chunks gives IC_OK and size 0. Only the marker segments before the first
 * scan are read.
 * @return IC_OK, IC_ERR_CORRUPT_DATA (not a JPEG, or bad chunks), IC_ERR_BUFFER_TOO_SMALL,
 *         IC_ERR_INVALID_ARGUMENT.
 */
IC_API ic_status ic_jpeg_icc_profile(const uint8_t *data, size_t size, uint8_t *out, size_t capacity,
                              size_t *profile_size);

/* ------------------------------------------------------------------------- */
/** @name Scale selection                                                      */
/* ------------------------------------------------------------------------- */

/** Default decode pixel limit: 100 megapixels (source width x height). */
enum { IC_JPEG_DEFAULT_MAX_PIXELS = 100000000 };

/** Default limit on progressive scans (TurboJPEG's TJFLAG_LIMITSCANS uses the same value). */
enum { IC_JPEG_DEFAULT_MAX_SCANS = 500 };

/** Default data-sanity rule: at least 500/1000 of the output rows must come from real data
 *  (see ::ic_jpeg_decode_options::min_valid_permille). */
enum { IC_JPEG_DEFAULT_MIN_VALID_PERMILLE = 500 };

/**
 * The size of a `width` x `height` image decoded at scale `scale_num`/8:
 * ceil(width * scale_num / 8) x ceil(height * scale_num / 8), exactly as libjpeg computes it.
 * @param scale_num      1..8 (1/8 ... 8/8).
 * @param width          source width, >= 1.
 * @param height         source height, >= 1.
 * @param scaled_width   receives the scaled width.
 * @param scaled_height  receives the scaled height.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a size < 1, a scale outside 1..8 or a null output.
 */
IC_API ic_status ic_jpeg_scaled_size(int32_t width, int32_t height, int32_t scale_num,
                              int32_t *scaled_width, int32_t *scaled_height);

/**
 * Picks the smallest scale M/8 (M = 1..8) whose decoded size still covers
 * `target_width` x `target_height` multiplied by `min_residual`, or 8 if none does.
 *
 * `min_residual` >= 1 leaves that much reduction to a later resize: block-scaled output is
 * slightly soft, so a thumbnailer (libvips does this) decodes at a scale at least 2x its target
 * and lets a proper filter do the rest (`min_residual` = 2). Values below 1 (and NaN) mean 1.
 * A target side of 0 leaves that side unconstrained (fit by the other one). Orientation is
 * not considered: swap the target for EXIF orientations 5..8.
 * @param width          source width, >= 1.
 * @param height         source height, >= 1.
 * @param target_width   the width to cover, >= 0 (0: unconstrained).
 * @param target_height  the height to cover, >= 0 (0: unconstrained).
 * @param min_residual   the factor left to a later resize (< 1 or NaN: 1).
 * @param scale_num      receives M.
 * @return IC_ERR_INVALID_ARGUMENT for a size < 1, a negative target or both targets 0.
 */
IC_API ic_status ic_jpeg_pick_scale(int32_t width, int32_t height, int32_t target_width,
                             int32_t target_height, double min_residual, int32_t *scale_num);

/* ------------------------------------------------------------------------- */
/** @name Decode                                                               */
/* ------------------------------------------------------------------------- */

/** Decode flags (::ic_jpeg_decode_options::flags). The defaults mirror TurboJPEG's, so
 *  output is pixel-identical to tjDecompress2 / tjDecompressToYUV2 with the matching flags. */
typedef enum ic_jpeg_decode_flags {
    IC_JPEG_STRICT = 1 << 0,         /**< Treat libjpeg warnings (recoverable corruption) as errors. */
    IC_JPEG_FAST_UPSAMPLE = 1 << 1,  /**< Box chroma upsampling (TJFLAG_FASTUPSAMPLE); default: fancy (triangle). */
    IC_JPEG_FAST_DCT = 1 << 2,       /**< Fast integer IDCT (TJFLAG_FASTDCT); default: accurate (JDCT_ISLOW).
                                          I420/NV12 below full size keep the accurate IDCT: libjpeg's scaled
                                          IDCTs are all of that kind, and TurboJPEG's own combination of the
                                          two mixes dequantisation tables. */
    IC_JPEG_LIBJPEG_ONLY = 1 << 3,   /**< Decode every file with libjpeg, never with the reduced progressive
                                          decoder (see ::ic_jpeg_decode, "Progressive files at 1/8 and 1/4"):
                                          the output is the same, libjpeg needs a coefficient buffer for the
                                          whole image. For comparisons and benchmarks. */
    IC_JPEG_EXIF_THUMBNAIL = 1 << 4, /**< Decode the file's EXIF thumbnail (see ::ic_jpeg_info::thumbnail_offset)
                                          instead of the main image: scale, crop, format and limits apply to the
                                          thumbnail; the result's orientation is the main image's. No thumbnail:
                                          IC_ERR_UNSUPPORTED. */
    IC_JPEG_PARALLEL_ANY_SIZE = 1 << 5, /**< Decode restart-interval stripes in parallel whatever the image size
                                          (by default only above the size where it pays; see ::ic_jpeg_scan_restarts). */
    IC_JPEG_STREAM_RESTART = 1 << 6  /**< ::ic_jpeg_decode_stream: the callback accepts the bands again from row 0
                                          (a band with `first_row` 0 after later ones: start over). The reduced
                                          progressive decoder then hands bands out as it decodes them; by default
                                          it entropy-decodes the kept scans once more first, to check the data
                                          before the first band. If it meets data it leaves to libjpeg halfway,
                                          libjpeg delivers every band again from row 0, and those are the result.
                                          Ignored by the other decodes (they never deliver a band twice). */
} ic_jpeg_decode_flags;

/**
 * Reads the next bytes of a JPEG file for a streamed decode (::ic_jpeg_decode_options::read).
 * @param context   ::ic_jpeg_decode_options::read_context.
 * @param buffer    receives the bytes.
 * @param capacity  bytes at `buffer` (> 0).
 * @return the number of bytes read, 1..capacity; 0 at the end of the file or on a read error
 *         (the decoder then ends the data as for a truncated file: a JWRN_JPEG_EOF warning, the
 *         missing rows grey, under the data-sanity rule). A host that must tell a read error
 *         from the end keeps it in its context.
 */
typedef size_t (*ic_jpeg_read_fn)(void *context, uint8_t *buffer, size_t capacity);

/**
 * Reads a streamed file's bytes at a position (::ic_jpeg_decode_options::read_at), like
 * pread(2): without moving the position ::ic_jpeg_read_fn reads from.
 * @param context   ::ic_jpeg_decode_options::read_context.
 * @param offset    position in the file, counted from `data[0]` of the decode call (the bytes
 *                  `data[0..size)` themselves are never asked for).
 * @param buffer    receives the bytes.
 * @param capacity  bytes at `buffer` (> 0).
 * @return the number of bytes read, 1..capacity (fewer is allowed: the decoder asks again for
 *         the rest); 0 at or past the end or on a read error (the reduced decoder then leaves
 *         the file to libjpeg, which reads it through ::ic_jpeg_read_fn as it always does).
 */
typedef size_t (*ic_jpeg_read_at_fn)(void *context, uint64_t offset, uint8_t *buffer, size_t capacity);

/**
 * Decode options. A zeroed struct (or a NULL pointer) means: full size, no crop, the
 * default limits, non-strict. ::ic_jpeg_decode_options_init gives the same values.
 *
 * Crop. The rectangle is in output coordinates, i.e. after scaling, and the decode writes
 * exactly that rectangle, pixel-identical to the same rectangle of a full decode.
 * - RGB/RGBA/GRAY: libjpeg's jpeg_crop_scanline can only start at an iMCU column (a multiple
 *   of max_h_samp * 8 * M/8 output pixels, e.g. 16 for 4:2:0 at full size). The codec asks for
 *   one pixel more on each side than requested (so the chroma upsampling of the edge pixels
 *   sees their real neighbours) and for at least 3 chroma samples (libjpeg switches to box
 *   upsampling for narrower components), lets libjpeg widen the left edge to the iMCU
 *   boundary, decodes those rows into a scratch band of 16 rows and copies the requested
 *   columns out. Rows above the rectangle are skipped with jpeg_skip_scanlines (entropy
 *   decoding only, plus the iMCU row it lands in); rows below it are never decoded.
 * - I420/NV12: libjpeg cannot crop raw data. Whole iMCU rows are decoded from the top down to
 *   the rectangle's last row (the rest of the file is not decoded) and the rectangle is copied
 *   out of the bands. x and y must be even, so that the 4:2:0 chroma grid stays aligned.
 */
typedef struct ic_jpeg_decode_options {
    ic_format format;        /**< Output format for ::ic_jpeg_decode_stream / ::ic_jpeg_decode_size
                                  (IC_FORMAT_INVALID = RGBA8). ::ic_jpeg_decode takes the destination's
                                  format; a non-zero value here must match it. */
    int32_t scale_num;       /**< Decode at scale_num/8, 1..8; 0 = 8 (full size). */
    int32_t crop_x;          /**< Crop rectangle in scaled output pixels; crop_width or crop_height */
    int32_t crop_y;          /**< 0 = no crop (then crop_x and crop_y must be 0). */
    int32_t crop_width;
    int32_t crop_height;
    uint32_t flags;          /**< ::ic_jpeg_decode_flags. */
    uint64_t max_pixels;     /**< Refuse sources with more than this many pixels (width x height,
                                  before scaling); 0 = ::IC_JPEG_DEFAULT_MAX_PIXELS. */
    int32_t max_scans;       /**< Refuse files with more scans than this; 0 = ::IC_JPEG_DEFAULT_MAX_SCANS. */
    int32_t band_rows;       /**< ::ic_jpeg_decode_stream: rows per band (rounded up to even for
                                  I420/NV12); 0 = 16. Ignored by ::ic_jpeg_decode. */
    uint64_t max_memory;     /**< Memory budget of the decode in bytes, besides the destination: every
                                  allocation libjpeg and the codec make (decoder state, row buffers,
                                  a multi-scan file's whole-image coefficient buffer, scratch and stream
                                  bands) is counted, with libjpeg's per-object overhead, before it is
                                  made, and one that would exceed the budget fails the decode with
                                  IC_ERR_TOO_LARGE (nothing larger is allocated). Not counted: about
                                  2 KB libjpeg allocates when the decompressor is created, and the
                                  slack of libjpeg's small-object pools (under 32 KB). 0 = no budget.
                                  ::ic_jpeg_decode_result::peak_memory reports what a decode used. */
    int32_t min_valid_permille; /**< Data-sanity rule. The decode fails with IC_ERR_CORRUPT_DATA as soon
                                  as fewer than ceil(min_valid_permille * height / 1000) of its `height`
                                  output rows can have come from entropy data (see
                                  ::ic_jpeg_decode_result::valid_rows). 1..1000; 0 =
                                  ::IC_JPEG_DEFAULT_MIN_VALID_PERMILLE (500); negative = no rule (missing
                                  rows decode grey with a warning). Values above 1000: invalid. */
    ic_jpeg_read_fn read;    /**< Optional: the file continues after `data[0..size)` and the decoder
                                  reads the rest through this function as it needs it (a file
                                  streamed from a descriptor: a 64 KiB buffer is resident instead of
                                  the whole file). `data` must then hold the headers through the
                                  first SOS marker (::ic_jpeg_probe succeeds on it). Used by the
                                  decodes that read pixels (::ic_jpeg_decode, ::ic_jpeg_decode_stream
                                  and the calls built on them) of the main image with libjpeg; never
                                  by ::ic_jpeg_decode_size (headers only) nor an EXIF thumbnail decode
                                  (its bytes are in the headers). The progressive low-frequency
                                  decoder reads a streamed file through `read_at` (below); without
                                  it a progressive file is decoded by libjpeg, with its whole-image
                                  coefficient buffer. NULL = the file is `data[0..size)`. */
    void *read_context;      /**< Passed to `read` and `read_at`. */
    ic_jpeg_read_at_fn read_at; /**< Optional, with `read`: positional reads of the same file (a
                                  descriptor's pread). Lets a streamed progressive file at 1/8 or 1/4
                                  take the reduced decoder (see ::ic_jpeg_decode): it walks the file
                                  forward through a 128 KiB window (the scans it skips pass through
                                  it unkept) and then reads each kept scan through a window of its
                                  own (4 to 32 KiB), so neither the file nor a scan is ever resident
                                  whole; the output, warnings and errors are those of the in-memory
                                  decode. When it leaves the file to libjpeg (see ::ic_jpeg_decode),
                                  libjpeg reads through `read` from where the headers ended, as
                                  without `read_at`. Ignored without `read`. */
    const uint8_t *cmyk_profile; /**< Optional: a CMYK ICC profile (the file's own, ::ic_jpeg_icc_profile)
                                  through which a CMYK or YCCK file's pixels are converted to sRGB by
                                  Little CMS (perceptual intent; Adobe's inverted storage read as such),
                                  instead of the formula R = C'K' / 255 ...; GRAY8 is the luma of that
                                  RGB. Ignored for other files. A profile Little CMS cannot read:
                                  IC_ERR_CORRUPT_DATA; one that is not CMYK: IC_ERR_UNSUPPORTED. The
                                  transform's tables (Little CMS's) are outside `max_memory`. NULL =
                                  the formula. */
    size_t cmyk_profile_size; /**< Bytes at `cmyk_profile`. */
} ic_jpeg_decode_options;

/**
 * Sets `options` to the defaults (all zero).
 * @param options  set to the defaults (all zero); NULL is ignored.
 */
IC_API void ic_jpeg_decode_options_init(ic_jpeg_decode_options *options);

/** Length of ::ic_jpeg_decode_result::message, including the terminating NUL. */
enum { IC_JPEG_MESSAGE_LENGTH = 200 };

/** What a decode reports besides its status. Every field is set on every return that got
 *  past argument checking (zeros and "" where nothing is known). */
typedef struct ic_jpeg_decode_result {
    int32_t width;           /**< Output width (after scaling and cropping). */
    int32_t height;          /**< Output height. */
    int32_t orientation;     /**< EXIF orientation 1..8 (1 when absent). */
    int32_t warnings;        /**< libjpeg warnings seen (recoverable corruption). */
    char message[IC_JPEG_MESSAGE_LENGTH]; /**< The error on failure, else the last warning, else "". */
    int32_t valid_rows;      /**< Output rows decoded from real entropy data before it ran out or went
                                  corrupt: `height` when no such problem was seen. Counted in whole
                                  iMCU rows (8 to 16 x scale/8 output rows): the first warning about the
                                  data during decoding (libjpeg's "premature end of data segment",
                                  a bad Huffman or arithmetic code, a missing restart marker, ...)
                                  loses the iMCU row being decoded and everything below it, even where
                                  a later restart marker would resynchronise. Running out of bytes with
                                  every bit decoded (a missing EOI marker, a progressive file cut between
                                  scans) is not a data problem; a problem in a later scan of a multi-scan
                                  (progressive) file leaves every row with its first scan's data, so all
                                  rows count. 0 from ::ic_jpeg_decode_size (nothing decoded). */
    uint64_t peak_memory;    /**< Most bytes the decode held at once, as ::ic_jpeg_decode_options::max_memory
                                  counts them. */
    int32_t decoder;         /**< ::ic_jpeg_decoder_kind that produced the pixels (decode and stream only). */
    int32_t stripes;         /**< Restart-interval stripes decoded in parallel; 1 for a serial decode
                                  (0 when the decode stopped before it started). */
} ic_jpeg_decode_result;

/** Which decoder produced a decode's pixels (::ic_jpeg_decode_result::decoder). */
typedef enum ic_jpeg_decoder_kind {
    IC_JPEG_DECODER_LIBJPEG = 0,     /**< libjpeg (every file, every request). */
    IC_JPEG_DECODER_LOWFREQ = 1      /**< The reduced progressive decoder: a progressive file at 1/8 or 1/4
                                          from the scans those scales read (see ::ic_jpeg_decode). */
} ic_jpeg_decoder_kind;

/**
 * The size a decode with `options` will produce (the crop size if cropping, else the
 * scaled size), after checking the header, the pixel limit and the crop rectangle.
 * @param result optional; gets the size, the orientation and, on failure, the message.
 * @param data     the JPEG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  NULL = defaults (see ::ic_jpeg_decode_options).
 * @param width    receives the output width.
 * @param height   receives the output height.
 * @return as ::ic_jpeg_decode, without decoding pixels.
 */
IC_API ic_status ic_jpeg_decode_size(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                              int32_t *width, int32_t *height, ic_jpeg_decode_result *result);

/**
 * Decodes the JPEG `data[0..size)` into `dst`, whose format (RGBA8, RGB8, GRAY8, I420 or NV12)
 * selects the output and whose width and height must equal the decode size
 * (::ic_jpeg_decode_size). Any strides; padding bytes are never written.
 *
 * - RGBA8: alpha is 255. Pixel-identical to tjDecompress2(TJPF_RGBA) at the same scale and flags;
 *   RGB8 and GRAY8 likewise with TJPF_RGB / TJPF_GRAY.
 * - I420 / NV12 (libjpeg raw output, no colour conversion): from a 4:2:0 file the planes are
 *   identical to tjDecompressToYUV2's at every scale (true 4:2:0 at reduced scale, by the same
 *   IDCT override TurboJPEG uses); NV12 holds the same samples interleaved and is produced in
 *   row bands, never through a full-size temporary. Other subsamplings are converted to 4:2:0
 *   from the file's own chroma samples: 4:4:4 by the rounded 2x2 mean, 4:2:2 by the vertical
 *   pair mean, 4:4:0 by the horizontal pair mean, 4:1:1 by the vertical mean of each sample
 *   (horizontally repeated); a pair at an odd image edge uses the edge sample twice. Gray
 *   files give U = V = 128. RGB-, CMYK- and YCCK-coded files: IC_ERR_UNSUPPORTED.
 * - CMYK / YCCK (4-component) files decode to RGB8/RGBA8/GRAY8: libjpeg gives CMYK (YCCK is
 *   converted by libjpeg), then R = C*K/255, G = M*K/255, B = Y*K/255 rounded to nearest, on
 *   the stored values when an Adobe APP14 marker is present (Adobe stores CMYK inverted, 255 =
 *   no ink), else on 255 - the stored values. GRAY8 is then the library's luma of that RGB,
 *   (9798 R + 19235 G + 3735 B + 16384) >> 15 (see ::ic_convert_channels).
 *
 * - Progressive files at 1/8 and 1/4 (scale_num 1 or 2) to RGBA8, RGB8 or GRAY8 without a crop
 *   are decoded by ImageCore's reduced progressive decoder instead of libjpeg: it entropy-decodes
 *   only the scans holding coefficients that the reduced IDCTs of this decode read (libjpeg's
 *   jidctred.c: 1x1 reads the DC coefficient, 2x2 and 4x4 read frequencies up to 7), skipping
 *   the others marker to marker, and advances all kept scans together one iMCU row at a time,
 *   so it holds one iMCU row of coefficients (tens of KB; never the whole-image buffer libjpeg
 *   needs). At 1/8 it reads the DC scans of 4:4:4, 4:2:2 and gray files (and the chroma scans
 *   of 4:2:0, whose chroma libjpeg decodes with the 2x2 IDCT); at 1/4 every scan. The pixels
 *   are libjpeg's, byte for byte: the same reduced IDCTs, upsampling and YCbCr conversion.
 *   Everything else goes to libjpeg, which then decodes exactly as without this decoder: files
 *   libjpeg would smooth (some of the first nine AC coefficients never completely sent) or
 *   whose scan script it would warn about, libjpeg's vertical triangle upsampling (4:4:0 at
 *   1/4), RGB/CMYK/YCCK files, IC_JPEG_STRICT, IC_JPEG_FAST_UPSAMPLE, IC_JPEG_LIBJPEG_ONLY, a
 *   truncated file, a segment out of place, and any irregularity in the data of a scan it
 *   reads (a stream's data is checked before its first band). Not reported on this path:
 *   damage inside the entropy-coded data of a scan it skips, which libjpeg would warn about but
 *   which does not change these pixels (use IC_JPEG_STRICT to have every scan checked).
 *   ::ic_jpeg_decode_result::decoder says which decoder made the pixels.
 *
 * Scratch: none for an uncropped RGB/RGBA/GRAY decode of a 3- or 1-component file (rows go
 * straight into `dst`); otherwise bands of at most 2 iMCU rows of the (scaled) width, from
 * libjpeg's memory pool, freed before return. The reduced progressive decoder: one iMCU row
 * of coefficients and samples of the kept components, Huffman tables per kept scan.
 *
 * @param result optional; see ::ic_jpeg_decode_result.
 * @param data     the JPEG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  NULL = defaults (see ::ic_jpeg_decode_options).
 * @param dst      a valid image of the output format and exactly the decode's size.
 * @return IC_ERR_INVALID_ARGUMENT (bad descriptor, options, crop, or a destination larger
 *         than the decode), IC_ERR_BUFFER_TOO_SMALL (destination smaller than the decode),
 *         IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED, IC_ERR_TOO_LARGE, IC_ERR_OUT_OF_MEMORY.
 *         On failure the destination may be partly written.
 */
IC_API ic_status ic_jpeg_decode(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                         ic_image *dst, ic_jpeg_decode_result *result);

/**
 * Receives one band of decoded rows. `band` describes `band->height` rows (the last band may
 * be shorter) of width `band->width` in the stream's format, starting at output row
 * `first_row`; for I420/NV12 the chroma planes hold the band's ceil(height/2) chroma rows
 * (first_row is even). The memory is the decoder's and is valid only during the call.
 * @return 0 to continue, non-zero to stop: the decode then returns IC_ERR_CANCELLED.
 */
typedef int (*ic_jpeg_band_fn)(void *context, const ic_image *band, int32_t first_row);

/**
 * Decodes like ::ic_jpeg_decode but delivers the rows in bands of `options->band_rows` rows
 * (default 16) to `fn`, top to bottom, so a consumer (a resizer, an encoder) can work while
 * rows arrive and the full image never exists in memory. The output format is
 * `options->format` (RGBA8 if unset). Pixels are identical to ::ic_jpeg_decode's.
 * Scratch: one band (band_rows x the output row bytes, all planes) plus what
 * ::ic_jpeg_decode uses, from libjpeg's memory pool.
 * @param data     the JPEG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  NULL = defaults; `format` and `band_rows` pick the bands' format and height.
 * @param fn       called once per band, top to bottom (with ::IC_JPEG_STREAM_RESTART in the
 *                 options' flags possibly again from row 0: the last pass is the decode).
 * @param context  passed to `fn`.
 * @param result   optional; see ::ic_jpeg_decode_result.
 * @return as ::ic_jpeg_decode; IC_ERR_INVALID_ARGUMENT for a null `fn`;
 *         IC_ERR_CANCELLED when `fn` returned non-zero (the bands delivered before stand);
 *         IC_ERR_CORRUPT_DATA also when a streamed file (::ic_jpeg_decode_options::read_at)
 *         could not be read again after the reduced progressive decoder had checked its data.
 */
IC_API ic_status ic_jpeg_decode_stream(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                                ic_jpeg_band_fn fn, void *context, ic_jpeg_decode_result *result);

/* ------------------------------------------------------------------------- */
/** @name Restart intervals                                                    */
/* ------------------------------------------------------------------------- */

/** What one pass over a file's entropy-coded data says about decoding it in parallel. */
typedef struct ic_jpeg_restart_info {
    int32_t restart_interval; /**< MCUs between restart markers (0: none). */
    int32_t intervals;        /**< Restart intervals in the image: ceil(MCUs / restart_interval). */
    int32_t mcu_rows;         /**< MCU rows (one MCU row is 8 or 16 pixel rows at full size). */
    int32_t cut_rows;         /**< MCU rows below the first where a stripe of a parallel decode can start:
                                   rows where an interval numbered 0 mod 8 begins. */
    int32_t splittable;       /**< 1 when ::ic_jpeg_decode can decode the file in stripes: one interleaved
                                   baseline Huffman scan, every restart marker where the interval puts it
                                   (in sequence, around non-empty data), EOI at the end, cut_rows >= 1. */
} ic_jpeg_restart_info;

/**
 * Reads the header and makes the one pass over the entropy-coded data that a parallel decode
 * makes before it splits a file (a vectorised search for markers; about a thousandth of a
 * full-size decode's time). No pixel is decoded and nothing image-sized is allocated.
 *
 * Parallel decode: ::ic_jpeg_decode splits a splittable file
 * into as many stripes as there are threads (::ic_get_num_threads, read once per call),
 * each decoded by an independent libjpeg decompressor straight into its rows of the
 * destination, when the decode is large enough to gain (about 512 kilopixels of output or
 * 96 KB of data; ::IC_JPEG_PARALLEL_ANY_SIZE splits whatever the size). Output, warnings and
 * ::ic_jpeg_decode_result are byte for byte a serial decode's, for every format, scale and
 * crop; a stripe that meets corrupt data makes the decode redo serially.
 * ::ic_jpeg_decode_stream decodes in waves of one chunk per thread when a chunk of at least
 * 16 MCU rows fits its buffer budget (8 MiB for all chunks), which holds for scaled decodes,
 * and hands the bands to its callback on the calling thread, the serial decode's bands.
 * @param data  the JPEG file's bytes (NULL only with size 0).
 * @param size  their count.
 * @param out   receives the result (zeroed on failure).
 * @return IC_OK (with `splittable` 0 or 1); IC_ERR_INVALID_ARGUMENT for a null `out`, or null
 *         `data` with size > 0; otherwise the errors of ::ic_jpeg_probe (IC_ERR_CORRUPT_DATA,
 *         IC_ERR_UNSUPPORTED).
 */
IC_API ic_status ic_jpeg_scan_restarts(const uint8_t *data, size_t size, ic_jpeg_restart_info *out);

/* ------------------------------------------------------------------------- */
/** @name Encode                                                               */
/* ------------------------------------------------------------------------- */

/** Encode flags (::ic_jpeg_encode_options::flags). */
typedef enum ic_jpeg_encode_flags {
    IC_JPEG_PROGRESSIVE = 1 << 0,     /**< Progressive (jpeg_simple_progression); implies optimised Huffman tables. */
    IC_JPEG_OPTIMIZE = 1 << 1,        /**< Optimised Huffman tables (a second pass over the coefficients). */
    IC_JPEG_ACCURATE_DCT = 1 << 2     /**< Accurate forward DCT. Default as TurboJPEG: accurate at quality >= 96, fast below. */
} ic_jpeg_encode_flags;

/** Images of at least this many pixels get a restart marker every MCU row unless the options
 *  say otherwise (::ic_jpeg_encode_options::restart_rows), so that they encode and later decode
 *  in parallel. The markers cost about 0.05 % of the file (bench jpeg-encode-rgba-q85). */
enum { IC_JPEG_AUTO_RESTART_PIXELS = 1 << 20 };

/** Encode options. A zeroed struct (or NULL) means quality 85, 4:2:0 (gray for GRAY8),
 *  baseline, standard Huffman tables, no EXIF, and a restart marker every MCU row from
 *  ::IC_JPEG_AUTO_RESTART_PIXELS pixels up.
 *
 *  Parallel encode: with restart markers at MCU-row boundaries (restart_rows, or a
 *  restart_interval that is a multiple or a divisor of the MCUs in a row), no progressive
 *  mode and no optimised Huffman tables (both need statistics of the whole image), the image
 *  is cut into stripes of whole intervals, one per thread (::ic_get_num_threads, read once per
 *  call), each encoded by its own libjpeg compressor, and the stripes are joined with their
 *  markers renumbered: the bytes are the serial encoder's with the same settings. Small images
 *  (under about 512 kilopixels) are encoded serially. */
typedef struct ic_jpeg_encode_options {
    int32_t quality;                 /**< 1..100; 0 = 85. libjpeg's quality scaling of the standard tables. */
    ic_jpeg_subsampling subsampling; /**< 444, 422, 420, 440 or GRAY; UNKNOWN (0) = 420 for colour input, GRAY
                                          for GRAY8. GRAY8 input allows only GRAY; I420/NV12 input only 420
                                          (straight from the planes) or GRAY (the Y plane alone). */
    uint32_t flags;                  /**< ::ic_jpeg_encode_flags. */
    int32_t restart_interval;        /**< MCUs between restart markers (0: see restart_rows); when set, it wins. */
    int32_t orientation;             /**< 1..8 writes a minimal EXIF APP1 with this orientation; 0 = no EXIF.
                                          With `exif` given, sets the orientation tag of the copy written. */
    const uint8_t *icc_profile;      /**< ICC profile to embed as APP2 "ICC_PROFILE" chunks (libjpeg's
                                          jpeg_write_icc_profile); NULL = none. */
    size_t icc_size;                 /**< Bytes at `icc_profile`; at most 255 chunks of 65519 bytes. */
    const uint8_t *exif;             /**< EXIF to embed as APP1: a TIFF structure, with or without the
                                          "Exif\0\0" prefix; NULL = none (then `orientation` alone decides).
                                          With `orientation` 1..8, the copy written has IFD0's orientation
                                          tag set to it where the tag exists (::ic_exif_set_orientation). */
    size_t exif_size;                /**< Bytes at `exif`; with the prefix at most 65533. */
    int32_t restart_rows;            /**< With restart_interval 0: a restart marker every this many MCU rows
                                          (libjpeg's restart_in_rows; 1..65535); 0 = automatic (every MCU row
                                          from ::IC_JPEG_AUTO_RESTART_PIXELS pixels up, none below); -1 = none
                                          (TurboJPEG's tjCompress2 writes none). */
} ic_jpeg_encode_options;

/**
 * Sets `options` to the defaults (all zero).
 * @param options  set to the defaults (all zero); NULL is ignored.
 */
IC_API void ic_jpeg_encode_options_init(ic_jpeg_encode_options *options);

/**
 * An upper bound on the encoded size of a `width` x `height` image with `options`:
 * TurboJPEG's tjBufSize for the subsampling plus the EXIF segment. Encoding into a buffer of
 * this size does not fail for lack of space in practice; if it ever would, the encoder
 * returns IC_ERR_BUFFER_TOO_SMALL rather than write past the buffer.
 * @param width    image width, >= 1.
 * @param height   image height, >= 1.
 * @param options  NULL = defaults (see ::ic_jpeg_encode_options).
 * @param bound    receives the byte count.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a size < 1, bad options or a null `bound`;
 *         IC_ERR_TOO_LARGE for a size > ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_jpeg_encode_bound(int32_t width, int32_t height, const ic_jpeg_encode_options *options,
                               size_t *bound);

/**
 * Encodes `src` (RGBA8, RGB8, GRAY8, I420 or NV12; any strides) into `dst[0..capacity)`,
 * storing the byte count in `*size`. RGBA8's alpha is ignored. RGB input is converted and
 * subsampled by libjpeg (output byte-identical to tjCompress2 with the same settings); I420
 * planes go to libjpeg's raw-data input with no colour round trip (byte-identical to
 * tjCompressFromYUVPlanes), and NV12 chroma is de-interleaved in bands of one iMCU row
 * (16 rows), never into a full-size temporary. Scratch: at most one iMCU row of all planes.
 * @param src       a valid RGBA8, RGB8, GRAY8, I420 or NV12 image.
 * @param options   NULL = defaults (see ::ic_jpeg_encode_options).
 * @param dst       the output buffer.
 * @param capacity  its size in bytes (::ic_jpeg_encode_bound is always enough).
 * @param size      receives the encoded byte count.
 * @return IC_ERR_BUFFER_TOO_SMALL when the output does not fit (nothing past `capacity` is
 *         written); IC_ERR_UNSUPPORTED for a subsampling the input cannot give (see
 *         ::ic_jpeg_encode_options::subsampling); IC_ERR_INVALID_ARGUMENT for bad arguments.
 */
IC_API ic_status ic_jpeg_encode(const ic_image *src, const ic_jpeg_encode_options *options, uint8_t *dst,
                         size_t capacity, size_t *size);

/**
 * Receives encoded bytes, in order. Return IC_OK to continue; any other status stops the
 * encode, which returns that status.
 */
typedef ic_status (*ic_jpeg_write_fn)(void *context, const uint8_t *data, size_t size);

/**
 * Encodes like ::ic_jpeg_encode, handing the bytes to `write` in chunks of up to 64 KiB
 * (from a 64 KiB scratch buffer) as they are produced. `*size` (optional) gets the total.
 * @param src      as for ::ic_jpeg_encode.
 * @param options  NULL = defaults (see ::ic_jpeg_encode_options).
 * @param write    receives the bytes in order.
 * @param context  passed to `write`.
 * @param size     optional; receives the total byte count.
 * @return as ::ic_jpeg_encode (but never IC_ERR_BUFFER_TOO_SMALL); IC_ERR_INVALID_ARGUMENT for a
 *         null `write`; any other status `write` returns, which stops the encode.
 */
IC_API ic_status ic_jpeg_encode_to(const ic_image *src, const ic_jpeg_encode_options *options,
                            ic_jpeg_write_fn write, void *context, size_t *size);

/**
 * Encodes like ::ic_jpeg_encode into a buffer the codec allocates with malloc and grows by
 * doubling. On success `*out` owns `*size` bytes and the CALLER frees it with ::ic_jpeg_free
 * (plain free() also works). On failure `*out` is NULL and nothing needs freeing.
 * @param src      as for ::ic_jpeg_encode.
 * @param options  NULL = defaults (see ::ic_jpeg_encode_options).
 * @param out      receives the malloc'ed bytes (NULL on failure).
 * @param size     receives their count.
 * @return as ::ic_jpeg_encode (but never IC_ERR_BUFFER_TOO_SMALL); IC_ERR_INVALID_ARGUMENT for a
 *         null `out` or `size`; IC_ERR_OUT_OF_MEMORY when the buffer cannot grow.
 */
IC_API ic_status ic_jpeg_encode_alloc(const ic_image *src, const ic_jpeg_encode_options *options,
                               uint8_t **out, size_t *size);

/**
 * How many stripes the last ::ic_jpeg_encode, ::ic_jpeg_encode_to or ::ic_jpeg_encode_alloc
 * call on the calling thread was encoded in. For benchmarks and tests; the bytes never depend
 * on it.
 * @return 1 for a serial encode, >= 2 for a parallel one, 0 before any encode on this thread
 *         or after one that failed before encoding.
 */
IC_API int32_t ic_jpeg_last_encode_stripes(void);

/**
 * Frees a buffer from ::ic_jpeg_encode_alloc. NULL is ignored.
 * @param buffer  from ::ic_jpeg_encode_alloc, or NULL.
 */
IC_API void ic_jpeg_free(void *buffer);

/* ------------------------------------------------------------------------- */
/** @name Lossless transform (rotate and flip without re-encoding)             */
/* ------------------------------------------------------------------------- */

/** ::ic_jpeg_transform_options::flags: drop the partial iMCU column at the right edge and the
 *  partial iMCU row at the bottom edge (of the source) where the transform moves them, instead
 *  of refusing; ::ic_jpeg_transform_result says how many pixels went. */
enum { IC_JPEG_TRANSFORM_TRIM = 1u };

/** Default coefficient-memory budget of a transform: 1 GiB. */
enum { IC_JPEG_TRANSFORM_DEFAULT_MAX_MEMORY = 1024 * 1024 * 1024 };

/** What ::ic_jpeg_transform does. Zero-initialise, then set `orientation`. */
typedef struct ic_jpeg_transform_options {
    int32_t orientation;      /**< The transform, as an EXIF orientation 1..8 applied to the stored pixels
                                   (1 copies, 2 mirrors left-right, 3 rotates 180°, 4 mirrors top-bottom,
                                   5 transposes, 6 rotates 90° clockwise, 7 transverses, 8 rotates 90°
                                   counter-clockwise), as ::ic_image_orient does. */
    uint32_t flags;           /**< 0 or ::IC_JPEG_TRANSFORM_TRIM. */
    int32_t exif_orientation; /**< 1..8: the orientation tag of the output's (copied) EXIF is rewritten in
                                   place to this (::ic_exif_set_orientation); 0 leaves the copied tag as
                                   it was. A file without the tag gets none. */
    uint64_t max_pixels;      /**< Refuse larger sources (width x height); 0 = ::IC_JPEG_DEFAULT_MAX_PIXELS. */
    uint64_t max_memory;      /**< Refuse sources whose DCT coefficients (source and transformed copy,
                                   2 bytes a sample of every component at full resolution, an upper
                                   bound) need more bytes; 0 = ::IC_JPEG_TRANSFORM_DEFAULT_MAX_MEMORY. */
} ic_jpeg_transform_options;

/** What ::ic_jpeg_transform did (filled as far as it got, also on IC_ERR_UNSUPPORTED for an
 *  imperfect transform, so a caller can say what trimming would drop). */
typedef struct ic_jpeg_transform_result {
    int32_t width;             /**< The output's size (0 on failure). */
    int32_t height;
    int32_t imcu_width;        /**< The source's iMCU (8 x 8 for gray and 4:4:4, 16 x 16 for 4:2:0, ...);
                                   0 for a sampling the probe does not name. */
    int32_t imcu_height;
    int32_t perfect;           /**< 1 when the transform moves no partial iMCU (no edge pixel is lost). */
    int32_t dropped_columns;   /**< Source columns dropped at the RIGHT edge of the stored image by the trim
                                   (width mod iMCU width, for orientations 2, 3, 7 and 8); on an imperfect
                                   refusal, what the trim would drop. */
    int32_t dropped_rows;      /**< Source rows dropped at the BOTTOM edge (height mod iMCU height, for
                                   orientations 3, 4, 6 and 7), as `dropped_columns`. */
    int32_t exif_rewritten;    /**< 1 when the output's EXIF orientation tag was rewritten. */
} ic_jpeg_transform_result;

/**
 * Rotates or flips a JPEG without decoding its pixels: TurboJPEG's tjTransform moves the DCT
 * coefficients, so no generation loss. Every marker (EXIF APP1, ICC APP2 chunks, comments) is
 * copied; the EXIF orientation tag is then rewritten in place to `exif_orientation`. A
 * progressive source gives a progressive output, any other a baseline Huffman one.
 *
 * iMCU-edge rule: a transform that moves the right edge (orientations 2, 3, 7, 8) needs the
 * width to be a multiple of the iMCU width, one that moves the bottom edge (3, 4, 6, 7) the
 * height a multiple of the iMCU height (5, transpose, is always perfect); otherwise libjpeg
 * cannot place the partial iMCU and the call refuses with IC_ERR_UNSUPPORTED (detail in
 * ::ic_last_error, `result` filled), unless ::IC_JPEG_TRANSFORM_TRIM drops it. A moved edge
 * shorter than one iMCU (e.g. a 4:2:0 image under 16 px high turned by 6) is refused even
 * with the trim, which would leave nothing.
 *
 * Limits (pixels, coefficient memory, TurboJPEG's progressive scan limit) are checked from
 * the header before anything image-sized is allocated. Corrupt data, even what a decode would
 * only warn about, is refused: a lossless copy of damage is not what the caller asked for.
 *
 * @param data     the JPEG file's bytes.
 * @param size     their count.
 * @param options  the transform; NULL or orientation 0 is invalid.
 * @param out      receives the output file, allocated by the call (malloc); the CALLER frees
 *                 it with ::ic_jpeg_free. NULL on failure.
 * @param out_size receives its byte count (0 on failure).
 * @param result   receives what was done; may be NULL.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for null pointers, an orientation outside 1..8 or unknown flags;
 *         IC_ERR_CORRUPT_DATA for non-JPEG, truncated or corrupt data (warnings included);
 *         IC_ERR_UNSUPPORTED for an imperfect transform without ::IC_JPEG_TRANSFORM_TRIM, for
 *         one whose moved edge is shorter than one iMCU (trim or not: nothing would be left),
 *         and files the probe refuses as unsupported (12-bit);
 *         IC_ERR_TOO_LARGE above `max_pixels`, `max_memory` or the scan limit;
 *         IC_ERR_OUT_OF_MEMORY when TurboJPEG cannot allocate.
 */
IC_API ic_status ic_jpeg_transform(const uint8_t *data, size_t size, const ic_jpeg_transform_options *options,
                                   uint8_t **out, size_t *out_size, ic_jpeg_transform_result *result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_JPEG_H */
