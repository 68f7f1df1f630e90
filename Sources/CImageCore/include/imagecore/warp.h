/**
 * @file imagecore/warp.h
 * @brief Perspective warp and page rectification for GRAY8, RGBA8, I420 and NV12.
 *
 * Numeric contract (the same for every format, plane and code path):
 * - Output pixel (i, j) samples the source at H (i + 0.5, j + 0.5, 1): pixel centres at
 *   +0.5 in both images. H maps destination coordinates to source coordinates (the
 *   inverse mapping; ::ic_rectify builds it from a quad).
 * - The sign of H is normalised so that w > 0 at the destination's centre; destination
 *   points whose w is <= 0 (beyond the horizon line) are filled.
 * - A point is inside the source when 0 <= x <= width and 0 <= y <= height (the source's
 *   continuous extent); outside points get the fill value. Inside points interpolate with
 *   taps beyond the edge replaced by the nearest edge pixel (replicate). Because the
 *   vector paths compute the mapping in single precision, a point within about 1/1000 px
 *   of the extent's border may be classified either way.
 * - Bilinear, or bicubic with the Catmull-Rom kernel (Keys a = -0.5), results clamped to
 *   0..255 and rounded to nearest. Every code path is within 1 of the exact (float64)
 *   result rounded to nearest, away from the border band above.
 * - 4:2:0 chroma (I420, NV12) uses JPEG / MPEG-1 centred siting: chroma sample (i, j) sits
 *   at luma position (2i + 1, 2j + 1) in continuous coordinates, i.e. a chroma coordinate c
 *   is the luma coordinate 2c. Each chroma plane is warped with its own mapping
 *   S H S^-1, S = diag(1/2, 1/2, 1), and its own extent ceil(w/2) x ceil(h/2).
 * - Row bands of tiles run through ::ic_parallel_for. Each call reads the CPU features
 *   once; AVX2 paths need no compiler flags. Kernels read only the pixels of each row
 *   (never the padding) and write only the destination's pixels. No memory is allocated.
 *
 * Part of the ImageCore C API (included by imagecore.h).
 */
#ifndef IMAGECORE_WARP_H
#define IMAGECORE_WARP_H

#include "../imagecore.h"
#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Interpolation of the warp. */
typedef enum ic_interpolation {
    IC_INTERPOLATION_BILINEAR = 0, /**< 2 x 2 taps. */
    IC_INTERPOLATION_BICUBIC = 1   /**< 4 x 4 taps, Catmull-Rom (a = -0.5), clamped. */
} ic_interpolation;

/** Options of ::ic_warp_perspective and ::ic_rectify. */
typedef struct ic_warp_options {
    ic_interpolation interpolation;
    /** Value written outside the source, in the format's channel order: GRAY8 {g},
     *  RGBA8 {r, g, b, a}, I420 / NV12 {y, u, v} (one value per plane). */
    uint8_t fill[4];
} ic_warp_options;

/**
 * Default options for a format: bilinear, fill black (RGBA {0, 0, 0, 255}, gray 0,
 *  YUV {0, 128, 128}).
 * @param format  the format the options are for (sets the fill).
 * @return the defaults: bilinear, fill black (GRAY8 0, RGBA8 {0, 0, 0, 255}, YUV {0, 128, 128}).
 */
IC_API ic_warp_options ic_warp_options_default(ic_format format);

/**
 * Perspective warp: dst(i, j) = src(H (i + 0.5, j + 0.5)), see the contract above.
 * `src` and `dst` have the same format (GRAY8, RGBA8, I420 or NV12) and any sizes; they
 * must not overlap. `options` may be NULL for ::ic_warp_options_default. The alpha mode of
 * RGBA8 is not changed; straight alpha is interpolated like the colour channels (use
 * premultiplied input for exact edges of transparent regions).
 * Any finite, non-zero `H` is accepted (the map is only evaluated forwards; a singular one
 * gives a degenerate but well-defined picture). Extreme entries (1e300, 1e-300) are fine:
 * `H` is first scaled by a power of two so its largest entry is below 1 (an exact change),
 * and every position beyond the source, however far, gets the fill value.
 * @param src         a valid GRAY8, RGBA8, I420 or NV12 image.
 * @param dst         a valid image of the same format (any size), sharing no byte with `src`.
 * @param dst_to_src  H: destination pixel centres to source coordinates.
 * @param options     interpolation and fill; NULL = ::ic_warp_options_default.
 * @return IC_ERR_INVALID_ARGUMENT for bad descriptors, a zero or non-finite `H`, overlapping
 *         images or bad options; IC_ERR_UNSUPPORTED for RGB8 or mismatched formats.
 */
IC_API ic_status ic_warp_perspective(const ic_image *src, ic_image *dst, const ic_homography *dst_to_src,
                              const ic_warp_options *options);

/**
 * The destination-to-source homography of a rectification: the page `quad` (corners
 * top-left, top-right, bottom-right, bottom-left in source coordinates) onto a
 * `width` x `height` rectangle (the rectified page, before orientation), then the EXIF
 * `orientation` (1..8) applied on top, so the destination is the rectified page as a
 * viewer shows it under that orientation (`height` x `width` for 5..8).
 * @param quad         the page corners in the source image.
 * @param width        the rectified width, >= 1.
 * @param height       the rectified height, >= 1.
 * @param orientation  1..8: the EXIF orientation written into the output.
 * @param dst_to_src   receives the homography.
 * @return IC_ERR_INVALID_ARGUMENT for a quad that ::ic_quad_validate rejects (with
 *         bounds 0, 0), a bad orientation or sizes < 1.
 */
IC_API ic_status ic_rectify_homography(const ic_quad *quad, int32_t width, int32_t height,
                                int32_t orientation, ic_homography *dst_to_src);

/**
 * Rectifies the page `quad` of `src` into all of `dst`, written directly in EXIF
 * `orientation` (1 = as is; e.g. pass the source's own orientation tag to get an upright
 * page): the rectified page is `dst->width` x `dst->height` for orientations 1..4 and
 * `dst->height` x `dst->width` for 5..8. Same formats and contract as
 * ::ic_warp_perspective; the orientation costs nothing (it is part of the mapping).
 * @param src          a valid GRAY8, RGBA8, I420 or NV12 image.
 * @param quad         the page corners in `src`.
 * @param orientation  1..8, applied to the page as it is written.
 * @param dst          a valid image of the same format: the rectified page (any size).
 * @param options      as for ::ic_warp_perspective; NULL = defaults.
 * @return IC_ERR_INVALID_ARGUMENT also for a quad that ::ic_quad_validate rejects against
 *         the source's size (see ::ic_quad_validate for the reason).
 */
IC_API ic_status ic_rectify(const ic_image *src, const ic_quad *quad, int32_t orientation, ic_image *dst,
                     const ic_warp_options *options);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_WARP_H */
