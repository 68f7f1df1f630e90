/**
 * @file imagecore/enhance.h
 * @brief Page enhancement in place: illumination flattening, contrast stretch, and colour,
 *        grayscale or black-and-white output, for GRAY8, RGBA8, NV12 and I420.
 *
 * Method:
 * 1. Background (the paper under the light): the luminance (GRAY8; Y of NV12/I420; for
 *    RGBA8 (77 R + 150 G + 29 B + 128) >> 8) is cut into square cells of `cell` px; each
 *    cell's 90th percentile (sampled every 2nd pixel and row) is the paper there, as text
 *    and pictures are darker. Over the cell grid a 3 x 3 maximum (a closing, so cells full
 *    of ink or pictures take their neighbours' paper) and a 3 x 3 binomial blur follow.
 *    The background B at a pixel interpolates 1/B bilinearly between cell centres.
 * 2. Flattening and stretch: the ratio f = L / B is 1 on paper wherever the light falls.
 *    A black point b (the 10th percentile of the cells' 2nd-percentile ratios, at most 0.5)
 *    and a white point w (0.98 x the median of the cells' 90th-percentile ratios) give
 *    out = clamp(255 (f - b) / (w - b)).
 * 3. Modes:
 *    - colour: each of R, G, B (RGBA8) gets the same map with its own value in place of L,
 *      keeping hue; on NV12/I420 Y is mapped and chroma is scaled about 128 by the factor
 *      Y'/Y of its 2 x 2 luma block, so colours keep their saturation. Alpha is untouched.
 *    - gray: the mapped luminance; RGBA8 gets R = G = B = it. On NV12/I420 only the Y plane
 *      is written (luminance modes touch Y only) unless `neutral_chroma` asks for chroma
 *      128, which makes the picture gray when shown in colour.
 *    - black and white: mean-C adaptive threshold on the mapped luminance: black where it is
 *      more than `bw_offset` below the local mean (the mean of its cell, bilinear between
 *      cell centres), else white; since the image is flattened and stretched by then,
 *      values <= 96 are always black and >= 224 always white (an ink area larger than a
 *      cell has a dark mean of its own). Y only on YUV, as for gray.
 * Limitation: a picture or ink area larger than about two cells is taken for background
 * and lightened (the 3 x 3 closing bridges one cell).
 * Rows and cells are processed in parallel bands through ::ic_parallel_for. Scratch: the
 * cell grids, ::ic_enhance_scratch_size bytes (about 70 KB at the default cell size),
 * lent by the caller; no pixel memory is allocated.
 *
 * Part of the ImageCore C API (included by imagecore.h).
 */
#ifndef IMAGECORE_ENHANCE_H
#define IMAGECORE_ENHANCE_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output of ::ic_enhance_page. */
typedef enum ic_enhance_mode {
    IC_ENHANCE_COLOR = 0, /**< Flattened and stretched colour. */
    IC_ENHANCE_GRAY = 1,  /**< Flattened and stretched luminance. */
    IC_ENHANCE_BW = 2     /**< Black and white by an adaptive threshold. */
} ic_enhance_mode;

/** Options; zero fields take the defaults. */
typedef struct ic_enhance_options {
    ic_enhance_mode mode;
    int32_t cell;           /**< Background cell size in px, 8..512; 0 = max(8, long side / 64). */
    int32_t bw_offset;      /**< Black-and-white: how far below the local mean is black,
                                 1..255; 0 = 24. */
    int32_t neutral_chroma; /**< Gray and black-and-white on NV12/I420: also set chroma to 128. */
} ic_enhance_options;

/**
 * Bytes of scratch ::ic_enhance_page needs for a `width` x `height` image.
 * @param width    image width, >= 1.
 * @param height   image height, >= 1.
 * @param options  NULL = defaults.
 * @param bytes    receives the scratch size.
 * @return IC_ERR_INVALID_ARGUMENT for sizes < 1, bad options or a null `bytes`;
 *         IC_ERR_TOO_LARGE above ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_enhance_scratch_size(int32_t width, int32_t height, const ic_enhance_options *options,
                                  size_t *bytes);

/**
 * Enhances `image` (GRAY8, RGBA8, NV12 or I420) in place. `options` may be NULL (colour).
 * `scratch` must hold ::ic_enhance_scratch_size bytes (any alignment).
 * @param image         a valid GRAY8, RGBA8, NV12 or I420 image, enhanced in place.
 * @param options       NULL = colour with the defaults.
 * @param scratch       at least ::ic_enhance_scratch_size bytes.
 * @param scratch_size  its size.
 * @return IC_ERR_INVALID_ARGUMENT for bad descriptors, options or pointers;
 *         IC_ERR_UNSUPPORTED for RGB8; IC_ERR_BUFFER_TOO_SMALL for too little scratch.
 */
IC_API ic_status ic_enhance_page(ic_image *image, const ic_enhance_options *options, void *scratch,
                          size_t scratch_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_ENHANCE_H */
