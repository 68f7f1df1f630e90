/**
 * @file imagecore/detect.h
 * @brief Page detection: find the quadrilateral of a document page in a photo.
 *
 * Method (after the Dropbox scanner's: a learned edge map, lines, scored quads):
 * 1. **Working image**: an integer box reduction (k x k source pixels, k = long side /
 *    work_size rounded to the nearest integer, at least 1: the working image's long side is
 *    the nearest to work_size an integer box gives, under 1.5 x work_size) to Y, Cb, Cr;
 *    GRAY8 sources give neutral chroma, I420/NV12 their planes.
 * 2. **Boundary map**: a small convolutional network (85 794 weights, generated into
 *    detect_model.c by scripts/detector, trained on rendered document photos) gives, for each
 *    cell of half the working resolution, the probability that it lies on a page's boundary
 *    (not on text, ruled lines, pictures on the page or background texture).
 *    ::ic_detect_boundary_map returns it. A second output of the same network, the inside
 *    map, gives the probability that a cell lies inside a page (::ic_detect_maps).
 * 3. **Quad search**: Hough lines of the map plus the four frame edges; candidate quads of
 *    two pairs of roughly opposite lines, convex, inside the frame, at least `min_area`,
 *    scored by the map's mean probability along each side (mean and weakest side), near the
 *    corners, less what runs on past the corners. The best 8 are ranked by a learned ranker
 *    (boosted trees over 34 inputs each: that score, the inside map's mean inside the quad
 *    less its mean just outside the quad's sides — a page is inside; a text block, a tile or a
 *    contour of the scene is not one — the sides' terms, the shape, how busy the map is;
 *    trained on the training split's candidates, generated into detect_rank_model.c); its
 *    score orders them (::ic_detect_candidates returns them). A frame edge may be one side: a
 *    page cut by the photo's edge is found with that edge as its side (`cut_edges`).
 * 4. **Confidence**: the ranker's score of the best through a logistic calibration fitted on
 *    the validation split (training packages, images the network was not trained on): the
 *    estimated probability that every corner is within 1.5 % of the image diagonal. Below
 *    `min_confidence` (default ::ic_detect_default_min_confidence, chosen on the validation
 *    split) the result is "not found".
 * 5. **Refinement** in the source image, at k/4 source pixels (4 times the working
 *    resolution): each side's steepest luma step at 24 places across it, a robust line fit,
 *    intersections.
 * "Not found" is a result (`found == 0`), not an error. Figures on the held-out split are in
 * the README ("Page detection") and in detect_model.c's header.
 *
 * Memory: the C core does not allocate. The caller passes scratch memory of at least
 * ::ic_detect_scratch_size bytes (about 2.0 MB for 12 MP at the default working size of 288, 3.6 MB
 * with the second working size: the map, the working image, the network's byte activations and
 * the reduction's column sums, which the quad search's Hough accumulator, line profiles and
 * tables reuse; about 0.25 MB for the smallest images, mostly the search's tables). Detection
 * runs on the calling thread; the network runs in integers (exact sums) with AVX-512 VNNI or
 * AVX2 where the CPU has them (same results as the scalar path, bit for bit).
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

/** The default long side of the working image (::ic_detect_options.work_size 0): the size the
 * confidence was calibrated at. The network's last training stage saw working images of 192
 * and 288 px (README, "Page detection"). */
enum { IC_DETECT_DEFAULT_WORK_SIZE = 288 };

/** Options of ::ic_detect_page; zero fields take the defaults. */
typedef struct ic_detect_options {
    int32_t work_size; /**< Long side of the working image, 64..1024 (the integer box
                            reduction brings it nearest to this, under 1.5 x it); 0 =
                            ::IC_DETECT_DEFAULT_WORK_SIZE. */
    double min_area;   /**< Smallest page area as a fraction of the image, (0, 1); 0 = 0.005. */
    double min_confidence; /**< Smallest confidence reported as found, (0, 1]; 0 = the default,
                                ::ic_detect_default_min_confidence; negative: the best
                                candidate whatever its confidence. */
    int32_t second_work_size; /**< 0 (the default): one run. Otherwise 64..1024, a second
                                working size: when the first run's best candidate has a
                                confidence below ::IC_DETECT_SECOND_RUN_BELOW (a first run
                                without any candidate, or one whose box equals the second size's,
                                ends the detection), ::ic_detect_page and ::ic_detect_candidates
                                run the whole detection again at this size and answer from the run whose best
                                candidate scores higher (the two sizes see a page's sides at
                                different scales and often err on different photos;
                                ::IC_DETECT_SECOND_WORK_SIZE is the size measured). The first
                                run's pass over the image also reduces it to the second size's
                                working image (the image is read once); a second run costs about
                                1.5-2 x the first's network and quad search at 384 after 288.
                                The maps (::ic_detect_maps) stay those of `work_size`. */
} ic_detect_options;

/** The second working size measured with the default one (::ic_detect_options.second_work_size;
 * README, "Page detection", step 6). */
enum { IC_DETECT_SECOND_WORK_SIZE = 384 };

/** The first run's confidence below which a second working size runs (chosen on the design
 * splits with the calibration of the byte network: it keeps 3 279 of the 3 281 pages running it
 * always finds, 0.9 kept 3 271; page-less photos mostly run it). A first run without any
 * candidate runs no second (on the design splits the second found a page after 1 of 301 such
 * runs). */
#define IC_DETECT_SECOND_RUN_BELOW 0.97

/**
 * The default of `ic_detect_options.min_confidence`: chosen on the validation split when the
 * network and the ranker were trained (the lowest of 0.05, 0.10, ... 0.90 with at most 1 % false
 * pages on its plain and hard page-less photos at 1600 and 360 px, detected at two working sizes;
 * see detect_model.c's header).
 * @return the default threshold, in (0, 1).
 */
IC_API double ic_detect_default_min_confidence(void);

/** What ::ic_detect_page found. */
typedef struct ic_page_detection {
    int32_t found;      /**< 1 when a page was found, 0 otherwise ("not found"). */
    ic_quad quad;       /**< Corners in source pixel coordinates, clockwise from the top-left
                             (smallest x + y); valid when found. */
    double confidence;  /**< 0..1: the estimated probability that every corner is within
                             1.5 % of the image diagonal (calibrated on the validation split). */
    int32_t work_width; /**< The working image's size (for diagnostics). */
    int32_t work_height;
    int32_t cut_edges;  /**< Frame edges that are a side of the page (the page runs out of the
                             photo there): 1 top, 2 right, 4 bottom, 8 left; 0 when whole.
                             To rectify such a page to a paper size, ask for
                             ::IC_SIZE_PAPER_FIT rather than ::IC_SIZE_PAPER (geometry.h),
                             which would stretch the visible part to the whole sheet. */
    double score;       /**< The best candidate's raw score (set also when not found; 0 when
                             there was no candidate), for calibration and diagnostics. */
} ic_page_detection;

/**
 * Bytes of scratch memory ::ic_detect_page needs for a `width` x `height` image (with a
 * ::ic_detect_options.second_work_size, the larger of the two runs' needs — the runs take
 * turns — plus the second size's working image, which the first run writes).
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
 * Size of the boundary map ::ic_detect_boundary_map writes for a `width` x `height` image:
 * ceil(w / 2) x ceil(h / 2) for the w x h working image. Cell (i, j) is centred on source
 * point ((2i + 0.5) k, (2j + 0.5) k), k the working image's box size.
 * @param width       image width, >= 1.
 * @param height      image height, >= 1.
 * @param options     NULL = defaults (the working size matters).
 * @param map_width   receives the map's width in cells.
 * @param map_height  receives the map's height in cells.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for sizes < 1, bad options or null outputs;
 *         IC_ERR_TOO_LARGE above ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_detect_map_size(int32_t width, int32_t height, const ic_detect_options *options,
                             int32_t *map_width, int32_t *map_height);

/**
 * The learned boundary map of `image` (formats as ::ic_detect_page): per cell, the
 * probability that it lies on a page boundary, into `map` (::ic_detect_map_size cells, rows
 * `map_stride` floats apart). `scratch` as for ::ic_detect_page.
 * @param image         a valid GRAY8, RGB8, RGBA8, I420 or NV12 image.
 * @param options       NULL = defaults.
 * @param scratch       at least ::ic_detect_scratch_size bytes (any alignment).
 * @param scratch_size  its size.
 * @param map           receives the probabilities, ::ic_detect_map_size cells.
 * @param map_stride    floats between the starts of two map rows (>= the map width).
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for bad descriptors, options, pointers or a
 *         `map_stride` below the map width; IC_ERR_UNSUPPORTED for other formats;
 *         IC_ERR_BUFFER_TOO_SMALL when `scratch_size` is too small.
 */
IC_API ic_status ic_detect_boundary_map(const ic_image *image, const ic_detect_options *options, void *scratch,
                                 size_t scratch_size, float *map, size_t map_stride);

/**
 * Both outputs of the detection network for `image` (formats as ::ic_detect_page), each
 * ::ic_detect_map_size cells with rows `map_stride` floats apart: the boundary map (as
 * ::ic_detect_boundary_map) and the inside map (per cell, the probability that it lies inside
 * a page). One run of the network gives both. An image narrower or shorter than one working
 * pixel (k source pixels, k = long side / work_size rounded) gives maps of zeros.
 * @param image         a valid GRAY8, RGB8, RGBA8, I420 or NV12 image.
 * @param options       NULL = defaults.
 * @param scratch       at least ::ic_detect_scratch_size bytes (any alignment).
 * @param scratch_size  its size.
 * @param boundary      receives the boundary probabilities; NULL = not wanted.
 * @param inside        receives the inside probabilities; NULL = not wanted.
 * @param map_stride    floats between the starts of two rows of each (>= the map width).
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for bad descriptors, options, pointers (both outputs
 *         NULL) or a `map_stride` below the map width; IC_ERR_UNSUPPORTED for other formats;
 *         IC_ERR_BUFFER_TOO_SMALL when `scratch_size` is too small.
 */
IC_API ic_status ic_detect_maps(const ic_image *image, const ic_detect_options *options, void *scratch,
                                size_t scratch_size, float *boundary, float *inside, size_t map_stride);

/**
 * Finds the page in `image` (GRAY8, RGB8, RGBA8, I420 or NV12). `options` may be NULL.
 * `scratch` must hold ::ic_detect_scratch_size bytes (any alignment).
 * @param image         a valid GRAY8, RGB8, RGBA8, I420 or NV12 image.
 * @param options       NULL = defaults.
 * @param scratch       at least ::ic_detect_scratch_size bytes (any alignment).
 * @param scratch_size  its size.
 * @param out           receives the detection.
 * @return IC_OK with `out->found` 0 or 1 (images whose working image is under 16 pixels on
 *         a side are "not found"); IC_ERR_INVALID_ARGUMENT for bad descriptors, options or
 *         pointers; IC_ERR_UNSUPPORTED for other formats; IC_ERR_BUFFER_TOO_SMALL when
 *         `scratch_size` is too small.
 */
IC_API ic_status ic_detect_page(const ic_image *image, const ic_detect_options *options, void *scratch,
                         size_t scratch_size, ic_page_detection *out);

/** Candidates ::ic_detect_candidates reports, at most. */
#define IC_DETECT_MAX_CANDIDATES 8
/** Inputs of the candidates' learned ranking (::ic_detect_candidate::features). */
#define IC_DETECT_FEATURES 34

/** One of the best candidate pages (::ic_detect_candidates). */
typedef struct ic_detect_candidate {
    ic_quad quad;       /**< Corners in source pixel coordinates, clockwise from the top-left
                             (smallest x + y), refined as ::ic_detect_page refines its page. */
    double score;       /**< The ranker's score (log-odds that every corner is within 1.5 % of
                             the diagonal, before calibration); the first candidate's is
                             ::ic_page_detection::score. */
    double confidence;  /**< The calibrated confidence of `score`, as ::ic_page_detection's. */
    int32_t cut_edges;  /**< As ::ic_page_detection::cut_edges. */
    double features[IC_DETECT_FEATURES]; /**< The ranker's inputs (what they are:
                             detect_quad.c, candidate_features; they may change between
                             versions), for training the ranker (scripts/detector/ranker.py). */
} ic_detect_candidate;

/**
 * The best candidate pages in `image`, best first, with no confidence threshold: the
 * alternatives a user interface can offer when ::ic_detect_page's page is wrong, and the
 * ranker's training data. The first is the page ::ic_detect_page reports when its confidence
 * reaches the threshold. Arguments as ::ic_detect_page's.
 * @param image         a valid GRAY8, RGB8, RGBA8, I420 or NV12 image.
 * @param options       NULL = defaults (min_confidence is not applied).
 * @param scratch       at least ::ic_detect_scratch_size bytes (any alignment).
 * @param scratch_size  its size.
 * @param out           receives up to `capacity` candidates; may be NULL when `capacity` is 0.
 * @param capacity      room in `out`, >= 0 (::IC_DETECT_MAX_CANDIDATES is the most there are).
 * @param count         receives the number written (0: no candidate).
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for bad descriptors, options, pointers or a negative
 *         `capacity`; IC_ERR_UNSUPPORTED for other formats; IC_ERR_BUFFER_TOO_SMALL when
 *         `scratch_size` is too small.
 */
IC_API ic_status ic_detect_candidates(const ic_image *image, const ic_detect_options *options, void *scratch,
                                      size_t scratch_size, ic_detect_candidate *out, int32_t capacity,
                                      int32_t *count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_DETECT_H */
