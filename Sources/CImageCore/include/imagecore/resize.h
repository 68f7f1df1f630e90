/**
 * @file imagecore/resize.h
 * @brief Separable, antialiased image resize in fixed point, for GRAY8, RGB8, RGBA8 and the
 *        YUV 4:2:0 layouts directly, with a reusable plan.
 *
 * Included by imagecore.h; may also be included on its own.
 *
 * Geometry. Pixel centres sit at +0.5: output pixel i of a dimension resized from `in` to
 * `out` samples the source at  c = (i + 0.5) * in / out  (source coordinates, pixel k
 * covering [k, k + 1)). The filter kernel f with support radius R (box 0.5, triangle 1,
 * Catmull-Rom 2, Mitchell 2, Lanczos-3 3) is stretched by s = max(in / out, 1), so a
 * downscale is antialiased (support R * s) and an upscale interpolates (support R). Taps are
 * the source pixels k with |k + 0.5 - c| < R * s, weighted f((k + 0.5 - c) / s).
 *
 * Borders: clamp (replicate). A tap outside [0, in) reads the nearest edge pixel, i.e. its
 * weight is added to the edge pixel's; then the weights of each output pixel are renormalised
 * to sum to exactly 1 (in fixed point: exactly 1 << 14). A constant image therefore stays
 * exactly constant, for every filter, format and size (straight RGBA: for alpha >= 6; a
 * nearly transparent straight colour carries more precision than the premultiplied value's
 * 7 fractional bits keep, so for alpha 1...5 it may move by a few LSB while
 * colour * alpha / 255 stays within 0.5 LSB).
 *
 * Fixed point. Coefficients are 14-bit (each output pixel's weights sum to 16384 exactly,
 * rounding residues distributed to the largest-remainder taps). The horizontal pass runs
 * first, on the source rows each output band needs, into int16 rows with 6 fractional bits
 * (rounded); the vertical pass sums those with 14-bit weights in 32-bit integers and rounds
 * once to 8 bits, clamping to 0...255. Every intermediate is exact integer arithmetic, so the
 * scalar and the SIMD paths give identical bytes, for any thread count. The result is within
 * 1 LSB of a float64 evaluation of the same separable filter (tests check this on random
 * images of sizes 1...67 and large odd sizes).
 *
 * Alpha (RGBA8). IC_ALPHA_STRAIGHT images are filtered premultiplied: each source pixel's
 * colour is multiplied by alpha / 255 (kept with 7 fractional bits, not rounded to 8 bits),
 * filtered with the alpha channel, and un-premultiplied on output as
 *   alpha = round(A') clamped to 0...255,
 *   colour = min(255, round(255 * min(max(C', 0), A') / A'))   (0 where alpha rounds to 0),
 * where C' and A' are the filtered premultiplied values held with 8 fractional bits (not
 * clamped: ringing may push A' past 255 or C' past A'); the ratio is taken in IEEE single
 * precision (multiply, divide, add 0.5, truncate), the same in scalar and SIMD code. The
 * straight colour of a nearly transparent pixel is ill-conditioned (C'/A' with A' small):
 * colour is within 1 LSB of the float64 reference where the output alpha is >= 32; below
 * that the premultiplied value colour * alpha / 255 is within 1.5 LSB.
 * IC_ALPHA_PREMULTIPLIED images are filtered as they are, and each output colour channel is
 * clamped to the output alpha so the result stays a valid premultiplied image.
 * IC_ALPHA_OPAQUE images are filtered as four independent channels (no clamp).
 * The output has the source's alpha mode.
 *
 * YUV. I420 and NV12 are resized plane by plane without conversion: the Y plane from
 * w x h to W x H, the chroma planes (NV12: interleaved UV pairs, filtered as two channels)
 * from ceil(w/2) x ceil(h/2) to ceil(W/2) x ceil(H/2), each plane with its own geometry as
 * defined above (chroma samples are taken as centred on their 2x2 luma blocks, as JPEG does).
 *
 * Box pre-reduction. For a large downscale the source is first averaged over k x k' integer
 * blocks (k = floor(in_w / out_w / 2), k' likewise for heights, when >= 2: the factor left
 * for the filter is then in [2, 4), Pillow's "reducing_gap" of 2), then filtered from that
 * reduced image. A partial block at the right or bottom edge averages only the pixels it
 * covers. The averages are kept with 7 fractional bits, and the filter then maps the reduced
 * image with source extent in/k (not ceil(in/k)), so the geometry is unchanged. The float64
 * reference this mode is tested against is exactly that: exact block means of the (for
 * straight alpha: premultiplied) source, then the float filter of the same geometry.
 * (Vertically the means are made row by row; horizontally, for k <= 16 the box is folded into
 * the filter weights, above that the means are made first, because 14-bit weights spread
 * over very long windows would add rounding noise.)
 * Pass IC_RESIZE_NO_PREREDUCE to filter the full-resolution source directly; the windows then
 * grow with the factor, and past factors of about 100 the 1-LSB bound is no longer assured
 * for noisy images (measured: 0.75 LSB at windows of ~1700 taps).
 *
 * Linear light (IC_RESIZE_LINEAR_LIGHT). The samples are taken as sRGB-encoded (IEC
 * 61966-2-1: v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055)^2.4) and filtered as light
 * intensities, then encoded back — the gamma-correct downscale: a fine black-and-white
 * pattern averages to sRGB 188, not 128. Decoding is a 256-entry table of linear values with
 * 8 fractional bits in u8 units (round(L * 65280), 16 bits); the filter reads them as P7
 * (7 fractional bits, as the premultiplied path does: round(L * 32640), or for straight
 * alpha round(L * alpha * 128)), pre-reduces and filters them exactly as above, and the
 * vertical pass rounds to 8 fractional bits (0 ... 65280, clamped) and encodes through a
 * table of 65281 bytes holding the correctly rounded sRGB value of every step. Alpha is not
 * gamma-encoded: it is filtered as it is (straight alpha premultiplies the linear colour;
 * un-premultiplying gives L = C' / A' in single precision, as above). Every intermediate is
 * an integer, so scalar and AVX2 paths give the same bytes. Accuracy: within 1 LSB of the
 * float64 reference (decode, premultiply, block means, filter, un-premultiply, encode) for
 * gray, RGB and opaque RGBA (largest error seen 0.69), and for straight-alpha colour where
 * the output alpha is >= 96 (0.82; more transparent colour is looser: the dark end of the
 * sRGB curve multiplies a linear error by up to 12.92, and un-premultiplying by 255 / alpha:
 * 1.41 seen at alpha 32...63). The tables live in the plan (65 KiB more).
 *
 * Streaming. ::ic_resize_stream_init and ::ic_resize_stream_push resize a source that arrives
 * row by row (GRAY8, RGB8, RGBA8), with the same numbers, into the caller's destination.
 *
 * Memory. Nothing is allocated per call except by the one-shot ::ic_resize, which makes and
 * frees a temporary plan. The plan holds the coefficient tables and, per worker thread, a
 * ring of intermediate rows (as many as the vertical filter has taps, each the output width
 * in int16 samples) and one source-width row of int16 (plus one of uint32 when
 * pre-reducing); ::ic_resize_plan_size reports the exact byte count.
 */
#ifndef IMAGECORE_RESIZE_H
#define IMAGECORE_RESIZE_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Resampling filters. */
typedef enum ic_resize_filter {
    IC_RESIZE_BOX = 0,          /**< Box (area average on downscale; nearest on upscale). Support 0.5. */
    IC_RESIZE_TRIANGLE = 1,     /**< Triangle / bilinear. Support 1. */
    IC_RESIZE_CATMULL_ROM = 2,  /**< Cubic, B = 0, C = 1/2. Support 2. */
    IC_RESIZE_MITCHELL = 3,     /**< Cubic, B = C = 1/3 (Mitchell-Netravali). Support 2. */
    IC_RESIZE_LANCZOS3 = 4      /**< sinc(x) sinc(x/3), |x| < 3. Support 3. */
} ic_resize_filter;

/** Options of ::ic_resize_params::flags. */
typedef enum ic_resize_flags {
    IC_RESIZE_DEFAULT = 0,
    /** Never pre-reduce with integer box averaging; filter the source directly. */
    IC_RESIZE_NO_PREREDUCE = 1 << 0,
    /** Filter in linear light (see "Linear light" above): GRAY8, RGB8 and RGBA8 with
     *  straight or opaque alpha; premultiplied RGBA8, I420 and NV12 are IC_ERR_UNSUPPORTED. */
    IC_RESIZE_LINEAR_LIGHT = 1 << 1
} ic_resize_flags;

/** What a plan resizes: one format, alpha mode and pair of sizes. */
typedef struct ic_resize_params {
    ic_format format;      /**< GRAY8, RGB8, RGBA8, I420 or NV12. */
    ic_alpha alpha;        /**< For RGBA8: how alpha is read (ignored otherwise). */
    int32_t src_width;     /**< 1 ... IC_MAX_DIMENSION. */
    int32_t src_height;
    int32_t dst_width;
    int32_t dst_height;
    ic_resize_filter filter;
    uint32_t flags;        /**< ::ic_resize_flags. */
    /** Worker threads the plan holds scratch for (1 ... 256); 0 = ::ic_get_num_threads()
     *  when the plan is made. A run uses at most this many threads. */
    int32_t max_threads;
} ic_resize_params;

/** A resize plan: coefficient tables computed once, plus per-thread scratch. Opaque. */
typedef struct ic_resize_plan ic_resize_plan;

/**
 * The size in bytes of the plan for `params`, for caller-provided memory (::ic_resize_plan_init).
 * @param params  format, sizes, filter, flags and threads (see ::ic_resize_params).
 * @param size    receives the byte count.
 * @return IC_ERR_INVALID_ARGUMENT for bad parameters, IC_ERR_UNSUPPORTED for an unknown
 *         format, IC_ERR_TOO_LARGE for sizes above ::IC_MAX_DIMENSION or a plan above 1 GiB.
 */
IC_API ic_status ic_resize_plan_size(const ic_resize_params *params, size_t *size);

/**
 * Builds a plan in caller-provided memory: `memory` must be 64-byte aligned and hold
 * `size` >= ::ic_resize_plan_size bytes; it must stay valid, and unmoved, while the plan is
 * used. No destroy call is needed; the caller frees the memory.
 * @param memory  64-byte aligned, at least ::ic_resize_plan_size bytes.
 * @param size    bytes at `memory`.
 * @param params  format, sizes, filter, flags and threads (see ::ic_resize_params).
 * @param plan    receives the plan (inside `memory`).
 * @return IC_OK; as ::ic_resize_plan_size; IC_ERR_INVALID_ARGUMENT for NULL or misaligned
 *         memory or a null `plan`; IC_ERR_BUFFER_TOO_SMALL for `size` below the requirement.
 */
IC_API ic_status ic_resize_plan_init(void *memory, size_t size, const ic_resize_params *params,
                              ic_resize_plan **plan);

/**
 * Allocates (the one allocation of this API) and builds a plan; free it with
 *  ::ic_resize_plan_destroy.
 * @param params  format, sizes, filter, flags and threads (see ::ic_resize_params).
 * @param plan    receives the plan.
 * @return IC_OK; as ::ic_resize_plan_size; IC_ERR_INVALID_ARGUMENT for a null `plan`;
 *         IC_ERR_OUT_OF_MEMORY when the allocation fails.
 */
IC_API ic_status ic_resize_plan_create(const ic_resize_params *params, ic_resize_plan **plan);

/**
 * Frees a plan made by ::ic_resize_plan_create. NULL is ignored. Do not call it on a plan
 *  built with ::ic_resize_plan_init.
 * @param plan  from ::ic_resize_plan_create, or NULL.
 */
IC_API void ic_resize_plan_destroy(ic_resize_plan *plan);

/**
 * The parameters a plan was made with (with max_threads resolved).
 * @param plan    a plan.
 * @param params  receives its parameters.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null argument.
 */
IC_API ic_status ic_resize_plan_params(const ic_resize_plan *plan, ic_resize_params *params);

/**
 * Resizes `src` into `dst` with a plan. Both must match the plan's format and sizes, and
 * `src` its alpha mode; the planes of `src` and `dst` must not overlap. A plan serves one
 * call at a time: a call made while another is running on the same plan fails with
 * IC_ERR_INVALID_ARGUMENT and touches nothing. Only the pixels of `dst` are written.
 * @param plan  a plan.
 * @param src   a valid image of the plan's format, source size and (RGBA8) alpha mode.
 * @param dst   a valid image of the plan's format and destination size, sharing no byte with `src`.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null plan, an invalid descriptor, another format,
 *         size or alpha mode, overlapping images, or a plan already running;
 *         IC_ERR_OUT_OF_MEMORY, IC_ERR_INTERNAL as ::ic_parallel_for reports them (not expected).
 */
IC_API ic_status ic_resize_plan_execute(ic_resize_plan *plan, const ic_image *src, ic_image *dst);

/**
 * One-shot resize of `src` into `dst` (same format; any sizes), default flags: makes a
 * temporary plan for the current thread count, runs it and frees it.
 * @param src     a valid image.
 * @param dst     a valid image of the same format, any size, sharing no byte with `src`.
 * @param filter  a ::ic_resize_filter.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, another format, overlapping
 *         images or a bad filter; IC_ERR_UNSUPPORTED for an unknown format; IC_ERR_TOO_LARGE for a
 *         plan above 1 GiB; IC_ERR_OUT_OF_MEMORY when the temporary plan cannot be allocated.
 */
IC_API ic_status ic_resize(const ic_image *src, ic_image *dst, ic_resize_filter filter);

/* ---- streaming: push source rows, get output rows ------------------------------ */

/**
 * A row-push resize, for sources that arrive as a stream of rows (a scanline decode): the
 * caller pushes the source rows top to bottom, and each output row is written into the
 * caller's destination as soon as the last source row it needs has arrived. Opaque; lives in
 * caller memory (::ic_resize_stream_size, ::ic_resize_stream_init), allocates nothing.
 *
 * Numbers: exactly those of ::ic_resize_plan_execute for the same ::ic_resize_params (same
 * coefficient tables, row kernels, alpha handling and box pre-reduction; AVX2 where the CPU
 * has it), so the destination receives the same bytes as a one-shot ::ic_resize of the
 * whole image. Every row step runs on the calling thread (`params->max_threads` is ignored).
 *
 * Memory: the coefficient tables, a ring of intermediate rows (as many as the vertical
 * filter has taps, each `dst_width * channels` int16) and, when the source is premultiplied
 * or pre-reduced, one source-width int16 row (plus one uint32 row while averaging blocks of
 * rows). The source is never held: each pushed row is read during the push only.
 *
 * Lifecycle: rows 0 ... src_height - 1 are pushed in order; once the last is pushed every
 * output row has been written and the stream is complete. ::ic_resize_stream_reset starts
 * it over for the next image of the same geometry (the tables are kept).
 */
typedef struct ic_resize_stream ic_resize_stream;

/**
 * The size in bytes of a stream for `params`.
 * @param params format GRAY8, RGB8 or RGBA8 (any alpha mode; the planar YUV formats are not
 *        streamed: IC_ERR_UNSUPPORTED); sizes, filter and flags as for ::ic_resize_plan_size.
 * @param size  receives the byte count.
 * @return IC_ERR_INVALID_ARGUMENT for bad parameters or a NULL pointer, IC_ERR_UNSUPPORTED
 *         for I420 / NV12 or an unknown format, IC_ERR_TOO_LARGE for sizes above
 *         ::IC_MAX_DIMENSION or a stream above 1 GiB.
 */
IC_API ic_status ic_resize_stream_size(const ic_resize_params *params, size_t *size);

/**
 * Builds a stream in caller memory: `memory` 64-byte aligned, `size` >= ::ic_resize_stream_size
 * bytes, valid and unmoved while the stream is used; no destroy call (the caller frees the
 * memory). The stream starts with no row pushed.
 * @param memory  64-byte aligned, at least ::ic_resize_stream_size bytes.
 * @param size    bytes at `memory`.
 * @param params  format, sizes, filter, flags and threads (see ::ic_resize_params).
 * @param stream  receives the stream (inside `memory`).
 * @return as ::ic_resize_stream_size; IC_ERR_INVALID_ARGUMENT for NULL or misaligned memory,
 *         IC_ERR_BUFFER_TOO_SMALL for `size` below the requirement.
 */
IC_API ic_status ic_resize_stream_init(void *memory, size_t size, const ic_resize_params *params,
                                ic_resize_stream **stream);

/**
 * Pushes the next source row and writes every output row it completes into `dst`.
 * @param row    `width` pixels of the stream's format (and, for RGBA8, its alpha mode).
 * @param width  the row's width in pixels: must equal `src_width`.
 * @param dst    the destination: the stream's format, `dst_width` x `dst_height`, any valid
 *               stride. Pass the same image to every push of one stream: each push writes
 *               only the rows it completes. Rows not yet completed are not touched.
 * @param rows_written  if not NULL, receives the number of output rows complete so far (all
 *               of rows 0 ... n - 1 have been written).
 * @param stream  the stream.
 * @return IC_ERR_INVALID_ARGUMENT, with nothing read, written or consumed, for: a NULL
 *         stream or row, `width` != `src_width`, a destination of another format or size or
 *         an invalid descriptor, a row overlapping the destination, or a push when all
 *         `src_height` rows have been pushed already (the stream is complete).
 */
IC_API ic_status ic_resize_stream_push(ic_resize_stream *stream, const void *row, int32_t width,
                                ic_image *dst, int32_t *rows_written);

/**
 * Pushes `count` (>= 1) consecutive source rows, `stride` bytes apart (a decoder's band), as
 * `count` calls of ::ic_resize_stream_push would, but validated once (and the next row is
 * prefetched while one is filtered).
 * @param stream        the stream.
 * @param rows          the first row.
 * @param stride        bytes between rows (>= the row's bytes when count > 1).
 * @param count         rows to push, >= 1.
 * @param width         the row width: must equal `src_width`.
 * @param dst           as for ::ic_resize_stream_push.
 * @param rows_written  as for ::ic_resize_stream_push.
 * @return as ::ic_resize_stream_push; IC_ERR_INVALID_ARGUMENT too for `count` < 1, a stride
 *         below the row's bytes, or more rows than remain to be pushed (nothing is consumed).
 */
IC_API ic_status ic_resize_stream_push_rows(ic_resize_stream *stream, const void *rows, size_t stride,
                                     int32_t count, int32_t width, ic_image *dst,
                                     int32_t *rows_written);

/**
 * Source rows pushed so far and output rows written so far (either pointer may be NULL).
 *  The stream is complete when `rows_pushed` equals `src_height` (then `rows_written`
 *  equals `dst_height`).
 * @param stream        the stream.
 * @param rows_pushed   receives the source rows pushed (may be NULL).
 * @param rows_written  receives the output rows written (may be NULL).
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null `stream`.
 */
IC_API ic_status ic_resize_stream_progress(const ic_resize_stream *stream, int32_t *rows_pushed,
                                    int32_t *rows_written);

/**
 * Starts the stream over (no row pushed), keeping its tables: for the next image of the
 *  same geometry, or to abandon an image half way.
 * @param stream  the stream.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null `stream` or one a push is running on.
 */
IC_API ic_status ic_resize_stream_reset(ic_resize_stream *stream);

/**
 * The number of intermediate rows in the stream's ring (the largest vertical window, in
 *  rows of the pre-reduced source); each holds `dst_width * channels` int16 values.
 * @param stream  the stream.
 * @param rows    receives the ring's row count.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null argument.
 */
IC_API ic_status ic_resize_stream_ring_rows(const ic_resize_stream *stream, int32_t *rows);

/**
 * The parameters a stream was made with (max_threads as given).
 * @param stream  the stream.
 * @param params  receives its parameters.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null argument.
 */
IC_API ic_status ic_resize_stream_params(const ic_resize_stream *stream, ic_resize_params *params);

/**
 * The support radius of a filter at scale 1 (0.5, 1, 2, 2 or 3); 0 for an unknown filter.
 * @param filter  any value.
 * @return the radius; 0 for an unknown filter.
 */
IC_API double ic_resize_filter_support(ic_resize_filter filter);

/**
 * The filter's kernel at x (at scale 1): the function the coefficient tables sample.
 * @param filter  a ::ic_resize_filter.
 * @param x       the position, in source pixels at scale 1.
 * @return the kernel's value (0 outside its support and for an unknown filter).
 */
IC_API double ic_resize_filter_eval(ic_resize_filter filter, double x);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_RESIZE_H */
