/**
 * @file imagecore/detect.h
 * @brief Page detection: find the quadrilateral of a document page in a photo.
 *
 * Method (all on a small luma image, by default 512 px on the long side):
 * 1. area-average reduction of the luma (RGBA/RGB are converted with 77 R + 150 G + 29 B;
 *    I420/NV12 use their Y plane) to the working size, never enlarged;
 * 2. a 5 x 5 binomial blur, Sobel gradients, non-maximum suppression along the gradient
 *    ("Canny-lite") with an adaptive threshold, giving edge pixels with their direction;
 * 3. a Hough transform in which every edge pixel votes only within 6 degrees of its own
 *    gradient direction (1 degree x 1 px bins, each vote spread over 3 offsets); of the
 *    1024 strongest local maxima, up to 320 separated peaks become lines (a low-contrast
 *    page side may collect only 20-40 votes among hundreds of texture lines), each refitted
 *    by least squares to the edge pixels near it and profiled: which pixels along it are
 *    supported by an edge whose gradient points along +n, along -n, or both;
 * 4. the 64 lines with the most support in long single-polarity runs (a page side is one
 *    long run, a text row breaks at every word) are paired into opposite sides (within 50
 *    degrees of parallel, apart by a tenth of the image); for each pair, the 12 lines with
 *    the best support between the pair (from all 320) are paired into candidate quads.
 *    A side is credited with its pixels supported by one polarity, or, when more, by
 *    exactly one of the two (a surface that alternates between darker and brighter than
 *    the paper flips the polarity along the side; a line drawn on the page has both at
 *    once and gets nothing); each side needs 30 % of its length. A quad scores its sides'
 *    supported length, less twice the support that runs on past its corners and twice
 *    the unsupported pixels at the ends of its sides (a page side ends at its corners); it
 *    must be convex, have interior angles of 45..135 degrees, opposite sides within a
 *    factor of 2.5 in length and no side under 15 % of the longest, lie within 3 % of the
 *    image and cover at least `min_area` of it. The best wins if its confidence is at
 *    least 0.5 (photos without a page score up to about 0.5, found pages mostly above 0.6);
 * 5. its sides are refitted to the edge pixels along their inner 84 % (least squares) and
 *    intersected; corners are scaled back to source coordinates.
 * "Not found" is a result (`found == 0`), not an error. Accuracy is that of the working
 * image (sub-pixel line fits there); no full-resolution refinement is done. Measured on
 * 240 generated document photos (the bench's `detect-eval`): 95.8 % with every corner within
 * 1.5 % of the diagonal (also 95.8 % on 240 composites of other seeds), 6.8 ms per
 * detection on one core; no false detection on 80 scenes of the same surfaces and light
 * without a page.
 *
 * Memory: the C core does not allocate. The caller passes scratch memory of at least
 * ::ic_detect_scratch_size bytes (about 3.7 MB for a 4:3 image at the default working size
 * of 512, at most 4.5 MB: the working image, its blur, gradient magnitude and direction,
 * the edge list, the Hough accumulator, the line profiles, and one area shared by the
 * gradients, the accumulator's maxima and the quad search's crossing table). Detection
 * runs on the calling thread.
 *
 * Part of the ImageCore C API (included by imagecore.h).
 */
#ifndef IMAGECORE_DETECT_H
#define IMAGECORE_DETECT_H

#include "../imagecore.h"
#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of ::ic_detect_page; zero fields take the defaults. */
typedef struct ic_detect_options {
    int32_t work_size; /**< Long side of the working image, 64..1024; 0 = 512. */
    double min_area;   /**< Smallest page area as a fraction of the image, (0, 1); 0 = 0.08. */
} ic_detect_options;

/** What ::ic_detect_page found. */
typedef struct ic_page_detection {
    int32_t found;      /**< 1 when a page was found, 0 otherwise ("not found"). */
    ic_quad quad;       /**< Corners in source pixel coordinates, clockwise from the top-left
                             (smallest x + y); valid when found. */
    double confidence;  /**< 0..1: the share of the sides' length supported by edges,
                             reduced for sides that run on past a corner. */
    int32_t work_width; /**< The working image's size (for diagnostics). */
    int32_t work_height;
} ic_page_detection;

/**
 * Bytes of scratch memory ::ic_detect_page needs for a `width` x `height` image.
 * @param width    image width, >= 1.
 * @param height   image height, >= 1.
 * @param options  NULL = defaults.
 * @param bytes    receives the scratch size.
 * @return IC_ERR_INVALID_ARGUMENT for sizes < 1, bad options or a null `bytes`;
 *         IC_ERR_TOO_LARGE above ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_detect_scratch_size(int32_t width, int32_t height, const ic_detect_options *options,
                                 size_t *bytes);

/**
 * Finds the page in `image` (GRAY8, RGB8, RGBA8, I420 or NV12). `options` may be NULL.
 * `scratch` must hold ::ic_detect_scratch_size bytes (any alignment).
 * @param image         a valid GRAY8, RGB8, RGBA8, I420 or NV12 image.
 * @param options       NULL = defaults.
 * @param scratch       at least ::ic_detect_scratch_size bytes (any alignment).
 * @param scratch_size  its size.
 * @param out           receives the detection.
 * @return IC_OK with `out->found` 0 or 1; IC_ERR_INVALID_ARGUMENT for bad descriptors,
 *         options or pointers; IC_ERR_BUFFER_TOO_SMALL when `scratch_size` is too small.
 */
IC_API ic_status ic_detect_page(const ic_image *image, const ic_detect_options *options, void *scratch,
                         size_t scratch_size, ic_page_detection *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_DETECT_H */
