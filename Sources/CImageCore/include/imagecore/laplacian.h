/**
 * @file imagecore/laplacian.h
 * @brief 3x3 Laplacian of a gray or luma plane: the response image (int16, or clipped to
 *        0...255 with an optional display gamma) and a fused sharpness score (mean,
 *        variance, population standard deviation) computed exactly with integer sums.
 *
 * Included by imagecore.h; may also be included on its own.
 *
 * Kernel (the seed's "variance of Laplacian" sharpness measure):
 *
 *     -1 -1 -1
 *     -1  8 -1        r(x, y) = 9 * p(x, y) - (sum of the 3x3 neighbourhood)
 *     -1 -1 -1
 *
 * so r lies in [-2040, 2040] and a constant image gives 0 everywhere.
 *
 * Source: a GRAY8 image, or the Y plane (plane 0) of an I420 or NV12 image.
 *
 * Borders are reflect-101 (OpenCV's BORDER_DEFAULT): the neighbour of column -1 is column 1
 * and of column w is column w - 2, likewise for rows. For a width (or height) of 1 there is no
 * column 1: reflect-101 of a single pixel is the pixel itself (OpenCV's borderInterpolate
 * gives index 0 too), so a 1-pixel-wide image sees its own column on both sides.
 *
 * Region of interest: every entry point takes an optional ::ic_rect (NULL = the whole image).
 * The response is computed only for pixels inside the rectangle, but its 3x3 neighbourhoods
 * read the real image pixels around the rectangle wherever they exist; reflect-101 applies
 * only at the true image edges. So the response inside a ROI equals the same pixels of the
 * whole-image response. Pixels outside the ROI are never written (they may be read as
 * neighbours, one pixel deep). The rectangle must lie inside the image and be non-empty.
 *
 * All results are exact integers and identical whatever the thread count or SIMD path.
 * No entry point allocates memory.
 */
#ifndef IMAGECORE_LAPLACIAN_H
#define IMAGECORE_LAPLACIAN_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A caller-owned plane of int16 values (e.g. a Laplacian response).
 * `stride` is in bytes between rows: even, and at least 2 * width. `data` must be 2-byte
 * aligned. Bytes between 2 * width and the stride are never touched.
 */
typedef struct ic_plane_s16 {
    int16_t *data;
    size_t stride;
    int32_t width;
    int32_t height;
} ic_plane_s16;

/** How ::ic_laplacian_u8 maps the signed response to a displayable byte. */
typedef enum ic_laplacian_display {
    /** out = clamp(r, 0, 255): the seed's clip of the *signed* response (negative
     *  responses, the dark side of an edge, become 0; it is not the absolute value). */
    IC_LAPLACIAN_CLAMP = 0,
    /** The clamp, then the seed's display curve out = round(255 * (v / 255)^(1/2.2))
     *  through a 256-entry table (vImagePiecewiseGamma with gamma 1/2.2). */
    IC_LAPLACIAN_CLAMP_GAMMA = 1
} ic_laplacian_display;

/**
 * Statistics of the response over a region: exact integer sums and the moments derived from
 * them. `sum_squares` fits in 64 bits for every legal image (2040^2 * 65535^2 < 2^64).
 */
typedef struct ic_laplacian_stats {
    int64_t count;          /**< Pixels summed (the ROI's width * height). */
    int64_t sum;            /**< Sum of r. */
    uint64_t sum_squares;   /**< Sum of r * r. */
    double mean;            /**< sum / count. */
    double variance;        /**< Population variance: (count*sum_squares - sum^2) / count^2. */
    double std_dev;         /**< sqrt(variance): the sharpness score. */
} ic_laplacian_stats;

/**
 * Fills `mean`, `variance` and `std_dev` of `stats` from its `count`, `sum` and
 * `sum_squares` (so partial sums of several regions may be added, then finished). The
 * variance numerator count*sum_squares - sum^2 is computed exactly in 128-bit integer
 * arithmetic, then converted to double and divided once by count^2; the result is a pure
 * function of the three integers. count < 1 gives IC_ERR_INVALID_ARGUMENT.
 * @param stats  count, sum and sum_squares set; mean, variance and std_dev are written.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null `stats`, count < 1, or sums no real
 *         response could give (a negative variance numerator).
 */
IC_API ic_status ic_laplacian_stats_finish(ic_laplacian_stats *stats);

/**
 * The fused sharpness score: count, sum and sum of squares of the response over `roi`
 * (NULL = whole image), then ::ic_laplacian_stats_finish. One pass over the pixels; the
 * response is never written anywhere. Bands of rows run in parallel; their integer partial
 * sums are added in a fixed order, so the result is bit-identical for any thread count and
 * with or without SIMD.
 * @param src  a valid GRAY8, I420 or NV12 image (the Y plane is scored).
 * @param roi  the pixels scored, inside the image; NULL = the whole image.
 * @param out  receives the sums and moments.
 * @return IC_ERR_INVALID_ARGUMENT for a bad descriptor, a ROI outside the image or empty,
 *         or a null `out`; IC_ERR_UNSUPPORTED for a format other than GRAY8, I420, NV12.
 */
IC_API ic_status ic_laplacian_score(const ic_image *src, const ic_rect *roi, ic_laplacian_stats *out);

/**
 * Writes the int16 response of `roi` (NULL = whole image) into `dst`, whose width and
 * height must equal the ROI's. Response pixel (x, y) of the ROI goes to dst row y, column x.
 * @param src  a valid GRAY8, I420 or NV12 image.
 * @param roi  the pixels computed; NULL = the whole image.
 * @param dst  an int16 plane of the ROI's size: even stride >= 2 * width, 2-byte aligned, sharing no byte with the source's Y plane.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, a ROI outside the image or
 *         empty, a null, misaligned, wrongly sized or overlapping `dst`; IC_ERR_TOO_LARGE for a
 *         `dst` extent beyond the address space; IC_ERR_UNSUPPORTED for another source format.
 */
IC_API ic_status ic_laplacian_s16(const ic_image *src, const ic_rect *roi, const ic_plane_s16 *dst);

/**
 * Writes the response of `roi` (NULL = whole image) clipped to 0...255 (see
 * ::ic_laplacian_display) into `dst`, a GRAY8 image of the ROI's size.
 * @param src      a valid GRAY8, I420 or NV12 image.
 * @param roi      the pixels computed; NULL = the whole image.
 * @param dst      a valid GRAY8 image of the ROI's size, sharing no byte with the source's Y plane.
 * @param display  ::IC_LAPLACIAN_CLAMP or ::IC_LAPLACIAN_CLAMP_GAMMA.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, a ROI outside the image or
 *         empty, a `dst` of another format or size or overlapping the source, a bad `display`;
 *         IC_ERR_UNSUPPORTED for another source format.
 */
IC_API ic_status ic_laplacian_u8(const ic_image *src, const ic_rect *roi, ic_image *dst,
                          ic_laplacian_display display);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_LAPLACIAN_H */
