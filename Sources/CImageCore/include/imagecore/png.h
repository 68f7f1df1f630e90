/**
 * @file imagecore/png.h
 * @brief PNG codec over caller-owned memory: chunk probe, decode to GRAY8 / RGB8 / RGBA8
 *        (whole or streamed in row bands), encode from the same formats. Built on libspng
 *        (spng.h); included by imagecore.h.
 *
 * Memory
 * - Decode writes into the caller's ::ic_image; the codec never allocates pixel memory.
 *   Its scratch is bounded by the image width: libspng's context and two or three rows,
 *   one conversion row (16-bit files, GRAY8 from colour), one band for a stream, plus the
 *   metadata libspng keeps (iCCP, eXIf, text), capped by ::ic_png_decode_options::max_memory.
 * - Input is a byte range in memory, read in place.
 *
 * Errors
 * - Every entry point returns an ::ic_status and never crashes, hangs, over-reads or leaks.
 * - Empty, non-PNG, corrupt (bad CRC of a critical chunk, bad zlib data, bad filter) and
 *   truncated input: IC_ERR_CORRUPT_DATA. A header beyond the pixel limit, and metadata beyond
 *   libspng's chunk limits (a zlib bomb in iCCP, thousands of text chunks):
 *   IC_ERR_TOO_LARGE, before any pixel row is decoded (more than ::IC_PNG_MAX_CHUNKS stored
 *   ancillary chunks too).
 * - Recoverable damage is a warning, as with the JPEG codec: a non-interlaced file whose image
 *   data ends early (truncated download) or fails its checksum after some rows decodes those
 *   rows, fills the rest with zeros and counts a warning in ::ic_png_decode_result (when at
 *   least ::ic_png_decode_options::min_valid_permille of the rows came from data, default half,
 *   negative = any share; else IC_ERR_CORRUPT_DATA); ::IC_PNG_STRICT makes it an error. libspng drops ancillary chunks with a bad CRC (strict:
 *   an error).
 *
 * All entry points are pure functions of their byte input (no global state), so each is a
 * fuzzing target as it stands.
 */
#ifndef IMAGECORE_PNG_H
#define IMAGECORE_PNG_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** @name Probe                                                                 */
/* ------------------------------------------------------------------------- */

/** PNG colour types (the IHDR values). */
typedef enum ic_png_color_type {
    IC_PNG_COLOR_GRAY = 0,
    IC_PNG_COLOR_RGB = 2,
    IC_PNG_COLOR_PALETTE = 3,
    IC_PNG_COLOR_GRAY_ALPHA = 4,
    IC_PNG_COLOR_RGBA = 6
} ic_png_color_type;

/** What a PNG file's chunks before the image data say, read without decoding pixels. */
typedef struct ic_png_info {
    int32_t width;
    int32_t height;
    int32_t bit_depth;               /**< 1, 2, 4, 8 or 16 bits per sample (palette: per index). */
    ic_png_color_type color_type;
    int32_t interlaced;              /**< 1 for Adam7, 0 for none. */
    int32_t has_alpha;               /**< 1 when the image has an alpha channel or a tRNS chunk. */
    int32_t has_trns;                /**< 1 when a tRNS chunk is present. */
    int32_t has_icc;                 /**< 1 when an iCCP chunk is present (and inflated within the limits). */
    uint32_t icc_size;               /**< Bytes of the inflated ICC profile (0 if none). */
    int32_t has_srgb;                /**< 1 when an sRGB chunk is present. */
    int32_t srgb_intent;             /**< Its rendering intent 0..3 (0 without the chunk). */
    int32_t has_gamma;               /**< 1 when a gAMA chunk is present. */
    uint32_t gamma;                  /**< gAMA value x 100000 (45455 for 1/2.2); 0 without the chunk. */
    int32_t has_exif;                /**< 1 when an eXIf chunk is present. */
    int32_t orientation;             /**< EXIF orientation 1..8 from eXIf; 1 when there is no valid tag. */
    uint32_t exif_offset;            /**< The eXIf chunk's data (a TIFF structure): byte offset in the file
                                          (what the encoders' `exif` option takes back); 0 when there is none. */
    uint32_t exif_length;            /**< Its length in bytes; 0 = none. */
} ic_png_info;

/**
 * Reads a PNG file's signature, IHDR and the chunks before the first IDAT (PLTE, tRNS, iCCP,
 * sRGB, gAMA, eXIf, text) without decoding pixels. The iCCP profile is inflated (to learn its
 * size) within the default metadata cap (::IC_PNG_DEFAULT_MAX_MEMORY). An eXIf chunk after the
 * image data is found by a bounds-checked walk over the chunk headers.
 * @param data  the PNG file's bytes (NULL only with size 0).
 * @param size  their count.
 * @param out   receives the header's fields.
 * @return IC_OK; IC_ERR_CORRUPT_DATA for empty, non-PNG or malformed headers;
 *         IC_ERR_TOO_LARGE when metadata exceeds the chunk limits;
 *         IC_ERR_INVALID_ARGUMENT for a null `out`, or null `data` with size > 0.
 */
IC_API ic_status ic_png_probe(const uint8_t *data, size_t size, ic_png_info *out);

/**
 * Copies the file's ICC profile (the inflated iCCP chunk) into `out[0..capacity)`.
 * `*profile_size` gets the profile's size, also when it does not fit (then nothing is written
 * and the status is IC_ERR_BUFFER_TOO_SMALL), so a first call with `out` NULL and capacity 0
 * asks for the size. A file without a profile gives IC_OK and size 0.
 * @param data          the PNG file's bytes (NULL only with size 0).
 * @param size          their count.
 * @param out           receives the inflated profile.
 * @param capacity      bytes at `out`.
 * @param profile_size  receives the profile's size.
 * @return as ::ic_png_probe, plus IC_ERR_BUFFER_TOO_SMALL.
 */
IC_API ic_status ic_png_icc_profile(const uint8_t *data, size_t size, uint8_t *out, size_t capacity,
                             size_t *profile_size);

/* ------------------------------------------------------------------------- */
/** @name Decode                                                                */
/* ------------------------------------------------------------------------- */

/** Default decode pixel limit: 100 megapixels (width x height), as the JPEG codec's. */
enum { IC_PNG_DEFAULT_MAX_PIXELS = 100000000 };

/** Default cap on the metadata libspng keeps while decoding (iCCP, eXIf, text): 64 MiB. */
enum { IC_PNG_DEFAULT_MAX_MEMORY = 64 * 1024 * 1024 };

/** Limit on stored ancillary chunks (text, eXIf, sPLT): libspng's built-in 1000; beyond it
 *  IC_ERR_TOO_LARGE. Not configurable: libspng 0.7's SPNG_CHUNK_COUNT_LIMIT setter refuses any
 *  value above the number of chunks already read, so only its default can be in force. */
enum { IC_PNG_MAX_CHUNKS = 1000 };

/** Decode flags (::ic_png_decode_options::flags). */
typedef enum ic_png_decode_flags {
    IC_PNG_STRICT = 1 << 0           /**< Recoverable damage (truncated or corrupt image data after some
                                          rows, bad CRC of an ancillary chunk) is an error. */
} ic_png_decode_flags;

/**
 * Decode options. A zeroed struct (or NULL) means: the default limits, non-strict, bands of 16
 * rows. ::ic_png_decode_options_init gives the same values.
 */
typedef struct ic_png_decode_options {
    ic_format format;        /**< Output format for ::ic_png_decode_stream (IC_FORMAT_INVALID = RGBA8).
                                  ::ic_png_decode takes the destination's format; a non-zero value here
                                  must match it. */
    uint32_t flags;          /**< ::ic_png_decode_flags. */
    uint64_t max_pixels;     /**< Refuse images with more pixels; 0 = ::IC_PNG_DEFAULT_MAX_PIXELS. */
    uint64_t max_memory;     /**< Cap on metadata held while decoding (libspng's chunk cache limit; also
                                  the largest inflated iCCP / zTXt / iTXt); 0 = ::IC_PNG_DEFAULT_MAX_MEMORY. */
    int32_t band_rows;       /**< ::ic_png_decode_stream: rows per band; 0 = 16. */
    int32_t min_valid_permille; /**< Data-sanity rule, as the JPEG codec's: image data that ends or breaks
                                  after fewer than ceil(min_valid_permille * height / 1000) rows is
                                  IC_ERR_CORRUPT_DATA instead of a warning. 1..1000; 0 = 500 (half);
                                  negative = no rule (image data that ends or breaks anywhere, even
                                  before the first row, leaves the missing rows 0 with a warning).
                                  Values above 1000: invalid. */
} ic_png_decode_options;

/**
 * Sets `options` to the defaults (all zero).
 * @param options  set to the defaults (all zero); NULL is ignored.
 */
IC_API void ic_png_decode_options_init(ic_png_decode_options *options);

/** Length of ::ic_png_decode_result::message, including the terminating NUL. */
enum { IC_PNG_MESSAGE_LENGTH = 200 };

/** What a decode reports besides its status (::ic_jpeg_decode_result's fields and has_alpha). */
typedef struct ic_png_decode_result {
    int32_t width;           /**< Image width. */
    int32_t height;          /**< Image height. */
    int32_t orientation;     /**< EXIF orientation 1..8 from eXIf (1 when absent). */
    int32_t warnings;        /**< Recoverable damage seen (0 or 1: decoding stops at the first). */
    int32_t has_alpha;       /**< 1 when the file has an alpha channel or tRNS (RGBA8 output then carries
                                  straight alpha; else its alpha is 255). */
    int32_t valid_rows;      /**< Rows decoded from image data: `height` when it was whole; rows from here
                                  on were set to 0 (a warning). */
    char message[IC_PNG_MESSAGE_LENGTH]; /**< The error on failure, else the warning, else "". */
} ic_png_decode_result;

/**
 * Decodes the PNG `data[0..size)` into `dst` (GRAY8, RGB8 or RGBA8, any strides; its size must
 * equal the image's). Padding bytes are never written.
 *
 * Conversions (each output sample):
 * - Palette entries are expanded; tRNS gives RGBA8 its alpha (palette alpha, or 0 for the
 *   tRNS colour of a gray / RGB image); RGBA8 from a file without alpha has alpha 255.
 * - Gray to RGB8 / RGBA8 repeats the sample; gray + alpha to RGBA8 is (g, g, g, a).
 *   Samples of 1, 2 and 4 bits are scaled to 8 bits (v * 255 / (2^bits - 1)).
 * - 16-bit samples are rounded to 8 bits: round(v * 255 / 65535) = (v + 128) / 257.
 * - RGB8 drops alpha and tRNS (colour as stored). GRAY8 from a colour file is the BT.601 luma
 *   of the 8-bit RGB (::ic_convert_channels' weights), alpha dropped.
 * - Adam7 files are de-interlaced straight into `dst`, pass by pass.
 * No gamma or colour-profile conversion is applied (see ::ic_png_probe for the chunks).
 *
 * @param result optional; width, height, orientation, warnings and the message.
 * @param data     the PNG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  NULL = defaults (see ::ic_png_decode_options).
 * @param dst      a valid GRAY8, RGB8 or RGBA8 image of the file's size.
 * @return IC_ERR_INVALID_ARGUMENT (bad descriptor or options), IC_ERR_UNSUPPORTED (another
 *         format), IC_ERR_BUFFER_TOO_SMALL / IC_ERR_INVALID_ARGUMENT (destination smaller /
 *         larger than the image), IC_ERR_CORRUPT_DATA, IC_ERR_TOO_LARGE, IC_ERR_OUT_OF_MEMORY.
 *         On failure the destination may be partly written.
 */
IC_API ic_status ic_png_decode(const uint8_t *data, size_t size, const ic_png_decode_options *options,
                        ic_image *dst, ic_png_decode_result *result);

/**
 * Receives one band of decoded rows: `band->height` rows (the last band may be shorter) starting
 * at image row `first_row`. The memory is the decoder's and valid only during the call.
 * @return 0 to continue, non-zero to stop (the decode then returns IC_ERR_CANCELLED).
 */
typedef int (*ic_png_band_fn)(void *context, const ic_image *band, int32_t first_row);

/**
 * Decodes like ::ic_png_decode, delivering rows in bands of `options->band_rows` (default 16),
 * top to bottom, in `options->format` (RGBA8 if unset), so the whole image never exists in
 * memory. Pixels are identical to ::ic_png_decode's. Scratch: one band plus the decoder's rows.
 * Adam7 files need the whole image before any row is complete: IC_ERR_UNSUPPORTED (decode them
 * with ::ic_png_decode).
 * @param data     the PNG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  NULL = defaults; `format` and `band_rows` pick the bands' format and height.
 * @param fn       called once per band, top to bottom.
 * @param context  passed to `fn`.
 * @param result   optional; see ::ic_png_decode_result.
 * @return as ::ic_png_decode; IC_ERR_INVALID_ARGUMENT for a null `fn`; IC_ERR_UNSUPPORTED for an
 *         Adam7 file or another format; IC_ERR_CANCELLED when `fn` returned non-zero.
 */
IC_API ic_status ic_png_decode_stream(const uint8_t *data, size_t size, const ic_png_decode_options *options,
                               ic_png_band_fn fn, void *context, ic_png_decode_result *result);

/* ------------------------------------------------------------------------- */
/** @name Encode                                                                */
/* ------------------------------------------------------------------------- */

/** Row filters the encoder may choose from (PNG filter types as a bit set, libspng's values). */
typedef enum ic_png_filter {
    IC_PNG_FILTER_DEFAULT = 0,       /**< All five, chosen per row by libspng's heuristic (= ::IC_PNG_FILTER_ALL). */
    IC_PNG_FILTER_NONE = 8,
    IC_PNG_FILTER_SUB = 16,
    IC_PNG_FILTER_UP = 32,
    IC_PNG_FILTER_AVG = 64,
    IC_PNG_FILTER_PAETH = 128,
    IC_PNG_FILTER_ALL = 8 | 16 | 32 | 64 | 128
} ic_png_filter;

/** Encode options. A zeroed struct (or NULL) means zlib level 6, adaptive filters, no metadata. */
typedef struct ic_png_encode_options {
    int32_t compression_level;       /**< zlib level 1..9; 0 = 6 (zlib's default); -1 = 0 (stored, no compression). */
    uint32_t filters;                /**< ::ic_png_filter bits; 0 = all. */
    int32_t orientation;             /**< 1..8 writes an eXIf chunk with this orientation; 0 = none. With
                                          `exif` given, sets the orientation tag of the copy written. */
    const uint8_t *icc_profile;      /**< ICC profile to embed as iCCP (zlib-compressed, named "ICC profile");
                                          NULL = none. */
    size_t icc_size;                 /**< Bytes at `icc_profile`. */
    const uint8_t *exif;             /**< EXIF to embed as eXIf: a TIFF structure, with or without the
                                          "Exif\0\0" prefix (dropped); NULL = none (then `orientation` alone
                                          decides). With `orientation` 1..8 the copy written has IFD0's
                                          orientation tag set to it where the tag exists. */
    size_t exif_size;                /**< Bytes at `exif`. */
} ic_png_encode_options;

/**
 * Sets `options` to the defaults (all zero).
 * @param options  set to the defaults (all zero); NULL is ignored.
 */
IC_API void ic_png_encode_options_init(ic_png_encode_options *options);

/**
 * An upper bound on the encoded size of a `width` x `height` image of `format` with `options`:
 * zlib's compressBound of the filtered rows plus every chunk's framing. Encoding into a buffer
 * of this size never fails for lack of space.
 * @param format   GRAY8, RGB8 or RGBA8.
 * @param width    image width, >= 1.
 * @param height   image height, >= 1.
 * @param options  NULL = defaults (see ::ic_png_encode_options).
 * @param bound    receives the byte count.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null `bound`, bad options or a size < 1;
 *         IC_ERR_TOO_LARGE for a size > ::IC_MAX_DIMENSION; IC_ERR_UNSUPPORTED for another format.
 */
IC_API ic_status ic_png_encode_bound(ic_format format, int32_t width, int32_t height,
                              const ic_png_encode_options *options, size_t *bound);

/**
 * Encodes `src` (GRAY8, RGB8 or RGBA8 with straight alpha; any strides) as an 8-bit PNG of the
 * matching colour type (gray, RGB, RGBA; non-interlaced) into `dst[0..capacity)`, storing the
 * byte count in `*size`. Rows go to libspng one at a time from `src`; no image copy is made.
 * A premultiplied RGBA8 source is refused (PNG stores straight alpha); an opaque one is written
 * as RGBA.
 * @param src       a valid GRAY8, RGB8 or RGBA8 (straight or opaque) image.
 * @param options   NULL = defaults (see ::ic_png_encode_options).
 * @param dst       the output buffer.
 * @param capacity  its size (::ic_png_encode_bound is always enough).
 * @param size      receives the encoded byte count.
 * @return IC_ERR_BUFFER_TOO_SMALL when the output does not fit (nothing past `capacity` is
 *         written); IC_ERR_UNSUPPORTED for another format; IC_ERR_INVALID_ARGUMENT.
 */
IC_API ic_status ic_png_encode(const ic_image *src, const ic_png_encode_options *options, uint8_t *dst,
                        size_t capacity, size_t *size);

/** Receives encoded bytes in order; return IC_OK to continue, any other status stops the encode. */
typedef ic_status (*ic_png_write_fn)(void *context, const uint8_t *data, size_t size);

/**
 * Encodes like ::ic_png_encode, handing the bytes to `write` as libspng produces them (chunks of
 *  at most 8 KiB of image data). `*size` (optional) gets the total.
 * @param src      as for ::ic_png_encode.
 * @param options  NULL = defaults (see ::ic_png_encode_options).
 * @param write    receives the bytes in order.
 * @param context  passed to `write`.
 * @param size     optional; receives the total.
 * @return as ::ic_png_encode (never IC_ERR_BUFFER_TOO_SMALL); IC_ERR_INVALID_ARGUMENT for a null
 *         `write`; any other status `write` returns.
 */
IC_API ic_status ic_png_encode_to(const ic_image *src, const ic_png_encode_options *options,
                           ic_png_write_fn write, void *context, size_t *size);

/**
 * Encodes like ::ic_png_encode into a malloc'd buffer grown by doubling; on success the CALLER
 *  frees `*out` with ::ic_png_free (or free()). On failure `*out` is NULL.
 * @param src      as for ::ic_png_encode.
 * @param options  NULL = defaults (see ::ic_png_encode_options).
 * @param out      receives the malloc'ed bytes (NULL on failure).
 * @param size     receives their count.
 * @return as ::ic_png_encode (never IC_ERR_BUFFER_TOO_SMALL); IC_ERR_INVALID_ARGUMENT for a null
 *         `out` or `size`; IC_ERR_OUT_OF_MEMORY when the buffer cannot grow.
 */
IC_API ic_status ic_png_encode_alloc(const ic_image *src, const ic_png_encode_options *options,
                              uint8_t **out, size_t *size);

/**
 * Frees a buffer from ::ic_png_encode_alloc. NULL is ignored.
 * @param buffer  from ::ic_png_encode_alloc, or NULL.
 */
IC_API void ic_png_free(void *buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_PNG_H */
