/**
 * @file imagecore/pipeline.h
 * @brief The systems, for C and C++ hosts: a JPEG thumbnail and a document scan, each as a
 *        plan (what to decode, at which DCT scale and crop) and one call that runs it into
 *        caller memory. The Swift `Thumbnailer` and `Scanner` are these calls.
 *
 * Both follow the library's rule: no pixel memory is allocated. A plan says how many bytes
 * of scratch its run needs (`scratch_size`, 64-byte aligned); the output image is the
 * caller's. libjpeg's own per-decompressor state (and its decode band) comes from libjpeg's
 * pool as in every decode.
 *
 * Included by imagecore.h; may also be included on its own.
 */
#ifndef IMAGECORE_PIPELINE_H
#define IMAGECORE_PIPELINE_H

#include "../imagecore.h"
#include "enhance.h"
#include "geometry.h"
#include "jpeg.h"
#include "png.h"
#include "warp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** @name Thumbnail                                                            */
/* ------------------------------------------------------------------------- */

/** Where a thumbnail's pixels come from: the path the plan chose. Later sources (the
 *  embedded EXIF thumbnail, a progressive file's low-frequency scans) get values of their
 *  own, so a host can see which was used. */
typedef enum ic_thumbnail_source {
    /** The image data decoded at DCT scale `scale_num`/8 in bands, each band pushed through
     *  a streaming Lanczos-3 resize (::ic_resize_stream_push_rows) as it arrives, then the
     *  EXIF orientation applied to the small result. The decoded image never exists whole. */
    IC_THUMBNAIL_SOURCE_SCALED_DECODE = 0,
    /** The file's EXIF thumbnail (::ic_jpeg_find_exif_thumbnail) instead of the image data: it
     *  is a smaller copy of the main image and its picture (letterbox bars left out) covers the
     *  target at 1x or more. Decoded the same way (::IC_JPEG_EXIF_THUMBNAIL, at its smallest
     *  M/8 that covers the target, cropped to the picture), with the main image's orientation.
     *  A few kilobytes instead of the whole file: the small tier of a camera photo. */
    IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL = 1,
    /** A PNG (::ic_thumbnail_plan_png): PNG has no reduced-scale decode, so full-width rows go
     *  into the resize (its box pre-reduction does the large factors). A non-interlaced file
     *  is streamed in bands (::ic_png_decode_stream): the decoded image never exists whole. An
     *  Adam7 file has no final row before its last pass: it is decoded whole into the scratch
     *  (::ic_thumbnail_plan::whole_bytes), then pushed. The eXIf orientation is applied. */
    IC_THUMBNAIL_SOURCE_PNG = 2
} ic_thumbnail_source;

/** What thumbnail to make. max_width and max_height must be set; the other zero fields take
 *  the defaults. */
typedef struct ic_thumbnail_options {
    int32_t max_width;    /**< The thumbnail fits in max_width x max_height as displayed (after
                               the EXIF orientation), aspect kept, never upscaled; >= 1. */
    int32_t max_height;
    ic_format format;     /**< RGBA8 (alpha 255; IC_FORMAT_INVALID = RGBA8), RGB8 or GRAY8. */
    double min_residual;  /**< The decode scale covers the target times this (see
                               ::ic_jpeg_pick_scale); below 1 (or NaN) = 1. */
    int32_t band_rows;    /**< Rows per decoded band; 0 = 16. */
    ic_jpeg_decode_options decode; /**< The decoder's limits and flags (max_pixels, max_scans,
                               max_memory, min_valid_permille, flags; zero = defaults); its
                               format, scale, crop and band_rows are the plan's. */
    int32_t no_exif_thumbnail; /**< Non-zero: never ::IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL, every
                               thumbnail from the main image's pixels (pixel-exact users). */
    int32_t linear_light; /**< Non-zero: resize in linear light (::IC_RESIZE_LINEAR_LIGHT). */
} ic_thumbnail_options;

/** A thumbnail plan: the path chosen and every size along it. */
typedef struct ic_thumbnail_plan {
    ic_thumbnail_source source; /**< The path chosen. */
    ic_format format;           /**< The output format. */
    int32_t source_width;       /**< The JPEG's size (stored orientation). */
    int32_t source_height;
    int32_t orientation;        /**< The EXIF orientation (1..8), applied to the output. */
    int32_t scale_num;          /**< DCT scale M/8 of the decode. */
    int32_t decoded_width;      /**< The decoded size at that scale (stored orientation). */
    int32_t decoded_height;
    int32_t resized_width;      /**< The resize's output (stored orientation). */
    int32_t resized_height;
    int32_t width;              /**< The thumbnail as displayed: the output image's size. */
    int32_t height;
    ic_jpeg_decode_options decode; /**< The decode the run makes (scale, format, bands, limits). */
    size_t resize_bytes;        /**< Scratch of the streaming resize (tables and ring). */
    size_t turn_bytes;          /**< Scratch of the stored-orientation thumbnail for the
                                     orientations 5..8 that swap width and height (else 0). */
    size_t scratch_size;        /**< resize_bytes + turn_bytes: what ::ic_thumbnail_jpeg needs. */
    ic_jpeg_exif_thumbnail exif; /**< With ::IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL: the thumbnail used
                                     (its place, size and picture); else zero. scale_num and the
                                     decoded size are then the thumbnail's (its picture's crop). */
    int32_t linear_light;       /**< The resize filters in linear light. */
    size_t whole_bytes;         /**< ::IC_THUMBNAIL_SOURCE_PNG, Adam7 file: the whole decoded image,
                                     in the scratch after the resize's and the turn's bytes (else 0);
                                     counted in scratch_size. */
    int32_t straight_alpha;     /**< ::IC_THUMBNAIL_SOURCE_PNG: a file with alpha (or tRNS) made into
                                     RGBA8: the resize filters straight alpha (premultiplied inside)
                                     and the output keeps it; 0 = opaque (every JPEG). */
} ic_thumbnail_plan;

/**
 * Plans a thumbnail of a JPEG: reads its header (no pixels), fits the target in stored
 * orientation, picks the smallest DCT scale that covers it (times `min_residual`) and sizes
 * the scratch. When the file has an EXIF thumbnail that ::ic_jpeg_find_exif_thumbnail accepts
 * (which decodes those few kilobytes once) and whose picture covers the target at 1x or more,
 * the plan uses it instead (::IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL), unless
 * `options->no_exif_thumbnail` is set. Progressive files at 1/8 and 1/4 are decoded from the
 * scans those scales read (see ::ic_jpeg_decode; the run's result says which decoder ran).
 * @param data     the JPEG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  the target; see ::ic_thumbnail_options.
 * @param plan     receives the plan.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null `options` or `plan`, a target < 1, a bad
 *         format or band height;
 *         IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED, IC_ERR_TOO_LARGE as ::ic_jpeg_decode_size
 *         reports them for the file at the chosen scale.
 */
IC_API ic_status ic_thumbnail_plan_jpeg(const uint8_t *data, size_t size, const ic_thumbnail_options *options,
                                        ic_thumbnail_plan *plan);

/**
 * Makes the planned thumbnail into `dst`: the streamed decode and resize, then the EXIF
 * orientation (in place for 2..4; for 5..8 from the stored-orientation thumbnail in the
 * scratch into `dst`). The bytes equal a one-shot decode at the plan's scale resized with
 * Lanczos-3 (RGBA as opaque; in linear light when planned so) and oriented with
 * ::ic_image_orient.
 * @param data          the same bytes the plan was made from. With a reader in the options'
 *                      `decode` (::ic_jpeg_decode_options::read), only the file's headers:
 *                      the main image's data is then streamed through the reader.
 * @param size          their count.
 * @param plan          from ::ic_thumbnail_plan_jpeg.
 * @param scratch       64-byte aligned, at least `plan->scratch_size` bytes; its contents
 *                      are not kept.
 * @param scratch_size  bytes at `scratch`.
 * @param dst           a valid image of the plan's format and `width` x `height` (its alpha
 *                      mode is not changed).
 * @param result        optional; the decode's orientation, warnings and message.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null or invalid argument, a `dst` of another format
 *         or size, misaligned scratch, a file that is not the one planned;
 *         IC_ERR_BUFFER_TOO_SMALL for too little scratch;
 *         IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED, IC_ERR_TOO_LARGE from the decoder (also
 *         IC_ERR_CORRUPT_DATA when it delivers fewer rows than planned).
 */
IC_API ic_status ic_thumbnail_jpeg(const uint8_t *data, size_t size, const ic_thumbnail_plan *plan, void *scratch,
                                   size_t scratch_size, ic_image *dst, ic_jpeg_decode_result *result);

/**
 * Plans a thumbnail of a PNG, as ::ic_thumbnail_plan_jpeg does a JPEG's: reads the header (no
 * pixels), fits the target in the stored orientation (the eXIf one), sizes the scratch
 * (::IC_THUMBNAIL_SOURCE_PNG; `scale_num` 8, the decoded size the file's). The limits come from
 * `options->decode` as the JPEG's do: `max_pixels` (0 = ::IC_PNG_DEFAULT_MAX_PIXELS, checked
 * here, before any allocation), ::IC_JPEG_STRICT (becomes ::IC_PNG_STRICT) and
 * `min_valid_permille`; `options->band_rows` the stream's bands; `no_exif_thumbnail` and
 * `min_residual` do not apply. RGBA8 of a file with alpha keeps it, straight.
 * @param data     the PNG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  the target; see ::ic_thumbnail_options.
 * @param plan     receives the plan.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null `options` or `plan`, a target < 1, a bad format or
 *         band height;
 *         IC_ERR_CORRUPT_DATA (not a PNG, a bad header) from ::ic_png_probe;
 *         IC_ERR_TOO_LARGE above `max_pixels` or the probe's limits.
 */
IC_API ic_status ic_thumbnail_plan_png(const uint8_t *data, size_t size, const ic_thumbnail_options *options,
                                       ic_thumbnail_plan *plan);

/**
 * Makes the planned PNG thumbnail into `dst`: rows streamed (or, for Adam7, decoded whole into
 * the scratch) into the streaming Lanczos-3 resize (linear light when planned), then the eXIf
 * orientation, as ::ic_thumbnail_jpeg. The bytes equal Swift's `Thumbnailer.thumbnail(png:)`
 * with the same target, format and bands.
 * @param data          the same bytes the plan was made from.
 * @param size          their count.
 * @param plan          from ::ic_thumbnail_plan_png.
 * @param scratch       64-byte aligned, at least `plan->scratch_size` bytes; not kept.
 * @param scratch_size  bytes at `scratch`.
 * @param dst           a valid image of the plan's format and `width` x `height` (its alpha
 *                      mode is not changed).
 * @param result        optional; the decode's orientation, warnings (truncated data after
 *                      enough rows: the missing rows are 0, see ::ic_png_decode) and message.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null or invalid argument, a `dst` of another format or
 *         size, misaligned scratch, a plan not from ::ic_thumbnail_plan_png, a file that is not
 *         the one planned;
 *         IC_ERR_BUFFER_TOO_SMALL for too little scratch;
 *         IC_ERR_CORRUPT_DATA, IC_ERR_TOO_LARGE from the decoder (also IC_ERR_CORRUPT_DATA when
 *         it delivers fewer rows than planned).
 */
IC_API ic_status ic_thumbnail_png(const uint8_t *data, size_t size, const ic_thumbnail_plan *plan, void *scratch,
                                  size_t scratch_size, ic_image *dst, ic_png_decode_result *result);

/* ------------------------------------------------------------------------- */
/** @name Document scan                                                        */
/* ------------------------------------------------------------------------- */

/** What page to scan and how. The corners are given (find them with ::ic_detect_page, e.g.
 *  on a 1/8 GRAY8 decode, scaled back to full size). Zero fields but the corners and the
 *  size take the defaults. */
typedef struct ic_scan_options {
    ic_quad corners;               /**< The page in stored (file) pixels of the full-size image. */
    ic_size_request size;          /**< The output size in the page's frame (before the turn). */
    ic_enhance_mode mode;          /**< COLOR (NV12 output) or GRAY / BW (GRAY8 output). */
    int32_t no_enhance;            /**< Non-zero: a plain rectified page. */
    ic_interpolation interpolation; /**< Of the rectification. */
    int32_t quality;               /**< JPEG quality of the encoded page, 1..100; 0 = 85. */
    ic_jpeg_decode_options decode; /**< The decoder's limits and flags (zero = defaults); its
                                        format, scale, crop and band_rows are the plan's. */
    ic_jpeg_decode_result *result; /**< Optional: receives the crop decode's result from
                                        ::ic_scan_jpeg (its warnings about recovered corruption,
                                        message and valid rows; on a failed decode, why), so a
                                        host can report a damaged file. NULL = not wanted. */
} ic_scan_options;

/** A scan plan: where and how much to decode for one page. */
typedef struct ic_scan_plan {
    ic_scan_options options;  /**< The request, defaults filled in. */
    int32_t source_width;     /**< The JPEG's size (stored orientation). */
    int32_t source_height;
    int32_t orientation;      /**< The EXIF orientation, composed into the rectification. */
    int32_t scale_num;        /**< DCT scale M/8: the smallest at which the page's shorter
                                   opposite sides still cover the output size. */
    ic_rect crop;             /**< The crop of the scaled image decoded: the page plus 2 px,
                                   origin even (4:2:0). */
    ic_quad quad_in_crop;     /**< The corners inside the crop. */
    int32_t page_width;       /**< The output size in the page's frame. */
    int32_t page_height;
    int32_t width;            /**< The output as displayed: the destination's size. */
    int32_t height;
    ic_format format;         /**< NV12 (colour) or GRAY8; RGBA8 for a colour page of a CMYK,
                                   YCCK or RGB JPEG or one of an unusual sampling
                                   (::ic_scan_plan_jpeg), which give no NV12. */
    size_t crop_bytes;        /**< Scratch of the decoded crop (64-byte aligned planes). */
    size_t enhance_bytes;     /**< Scratch of the enhancement (reuses the crop's bytes). */
    size_t scratch_size;      /**< max(crop_bytes, enhance_bytes): what ::ic_scan_jpeg needs. */
} ic_scan_plan;

/**
 * Plans a scan of an image whose header is known: checks the corners, sizes the output,
 * picks the DCT scale and the crop that holds the page, and sizes the scratch.
 * @param width        the JPEG's width (stored orientation), >= 1.
 * @param height       its height, >= 1.
 * @param orientation  its EXIF orientation 1..8 (0 = 1).
 * @param options      the page and the output; see ::ic_scan_options.
 * @param plan         receives the plan.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null argument, a size < 1, a bad orientation,
 *         corners that ::ic_quad_validate refuses against the image, a bad size request,
 *         mode, interpolation or quality;
 *         IC_ERR_TOO_LARGE for a size or an output side above ::IC_MAX_DIMENSION or a
 *         source above `options->decode.max_pixels`.
 */
IC_API ic_status ic_scan_plan_size(int32_t width, int32_t height, int32_t orientation, const ic_scan_options *options,
                                   ic_scan_plan *plan);

/**
 * ::ic_scan_plan_size for a JPEG file, its size and orientation read from the header
 * (::ic_jpeg_probe; no pixels). In colour, a file the decoder cannot give as NV12 (CMYK,
 * YCCK or RGB data, or a sampling other than 4:4:4, 4:2:2, 4:2:0, 4:4:0 and 4:1:1) is planned
 * as RGBA8 (4 bytes a pixel of crop and page instead of 1.5).
 * @param data     the JPEG file's bytes (NULL only with size 0).
 * @param size     their count.
 * @param options  the page and the output; see ::ic_scan_options.
 * @param plan     receives the plan.
 * @return as ::ic_scan_plan_size; IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED as ::ic_jpeg_probe.
 */
IC_API ic_status ic_scan_plan_jpeg(const uint8_t *data, size_t size, const ic_scan_options *options,
                                   ic_scan_plan *plan);

/**
 * Runs a scan plan: decodes only the crop at the plan's scale into the scratch, rectifies
 * the page into `dst` with the EXIF orientation composed into the mapping, enhances it in
 * place (the enhancement's scratch reuses the crop's bytes), and, when `write` is given,
 * encodes `dst` (the plan's quality, EXIF orientation 1) through it.
 * @param data          the same bytes the plan was made from.
 * @param size          their count.
 * @param plan          from ::ic_scan_plan_jpeg (or ::ic_scan_plan_size for this file, which
 *                      plans NV12 in colour: a file with no NV12 decode then fails
 *                      IC_ERR_UNSUPPORTED).
 * @param scratch       64-byte aligned, at least `plan->scratch_size` bytes.
 * @param scratch_size  bytes at `scratch`.
 * @param dst           a valid image of the plan's format and `width` x `height`.
 * @param write         optional: receives the encoded page (see ::ic_jpeg_encode_to).
 * @param context       passed to `write`.
 * @param encoded_size  optional: receives the encoded byte count (0 without `write`).
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null or invalid argument, a `dst` of another format
 *         or size, misaligned scratch, a crop outside the file (not the file planned);
 *         IC_ERR_BUFFER_TOO_SMALL for too little scratch;
 *         IC_ERR_CORRUPT_DATA, IC_ERR_UNSUPPORTED, IC_ERR_TOO_LARGE from the decoder;
 *         any status `write` returns.
 */
IC_API ic_status ic_scan_jpeg(const uint8_t *data, size_t size, const ic_scan_plan *plan, void *scratch,
                              size_t scratch_size, ic_image *dst, ic_jpeg_write_fn write, void *context,
                              size_t *encoded_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_PIPELINE_H */
