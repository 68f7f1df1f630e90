/**
 * @file imagecore/geometry.h
 * @brief Plane geometry for documents: homographies from four point pairs, quadrilateral
 *        validation, EXIF orientations as coordinate maps, and the size of a rectified page.
 *
 * Coordinates are continuous pixel coordinates: the image covers [0, width] x [0, height],
 * and the centre of pixel (i, j) is at (i + 0.5, j + 0.5). All arithmetic is in double
 * precision. Part of the ImageCore C API (included by imagecore.h).
 */
#ifndef IMAGECORE_GEOMETRY_H
#define IMAGECORE_GEOMETRY_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A point in continuous pixel coordinates (x to the right, y down). */
typedef struct ic_point {
    double x;
    double y;
} ic_point;

/**
 * A quadrilateral, e.g. a page in a photo. The corner order is the order in which the corners
 * become the corners of a rectified image: top-left, top-right, bottom-right, bottom-left
 * (clockwise on screen for an unmirrored page). Listing them counter-clockwise is legal and
 * gives a mirrored rectification.
 */
typedef struct ic_quad {
    ic_point corners[4];
} ic_quad;

/**
 * A plane projective transform: a 3x3 matrix in row-major order acting on homogeneous
 * column vectors, (x', y', w') = M (x, y, 1), mapped point (x'/w', y'/w').
 * Functions returning a homography scale it so that m[8] == 1 when |m[8]| is not tiny
 * against the matrix's norm, otherwise to unit Frobenius norm.
 */
typedef struct ic_homography {
    double m[9];
} ic_homography;

/**
 * The identity transform.
 * @return the identity matrix.
 */
IC_API ic_homography ic_homography_identity(void);

/**
 * The homography that maps `from[i]` onto `to[i]` for i = 0..3, solved in double precision
 * (Hartley normalisation of both point sets, then the 8x9 DLT system by Gaussian
 * elimination with full pivoting, plus one step of iterative refinement).
 * @param from  four source points.
 * @param to    the four points they map to.
 * @param out   receives the homography.
 * @return IC_ERR_INVALID_ARGUMENT for null pointers, non-finite coordinates, or point sets
 *         with no unique solution (coincident points, three collinear points in one set but
 *         not in the other, ...).
 */
IC_API ic_status ic_homography_from_points(const ic_point from[4], const ic_point to[4],
                                    ic_homography *out);

/**
 * `out` = the inverse transform of `h` (`out` may alias `h`).
 * @param h    the homography.
 * @param out  receives its inverse (may be `h`).
 *  @return IC_ERR_INVALID_ARGUMENT if `h` is not finite, singular, or so ill-conditioned
 *          (Frobenius condition number |H| |H^-1| >= 1e15) that the inverse would have no
 *          correct digits.
 */
IC_API ic_status ic_homography_invert(const ic_homography *h, ic_homography *out);

/**
 * `out` = `a` after `b`: the transform that applies `b` first, then `a` (the matrix
 *  product a * b, rescaled). `out` may alias either input.
 * @param a    applied second.
 * @param b    applied first.
 * @param out  receives a * b (may alias `a` or `b`).
 *  @return IC_ERR_INVALID_ARGUMENT for null pointers or non-finite results.
 */
IC_API ic_status ic_homography_multiply(const ic_homography *a, const ic_homography *b,
                                 ic_homography *out);

/**
 * Maps one point. @return IC_ERR_INVALID_ARGUMENT when the point maps to infinity
 *  (w' == 0) or the result is not finite; `*out` is then (NaN, NaN).
 * @param h    the homography.
 * @param p    the point.
 * @param out  receives H p.
 */
IC_API ic_status ic_homography_map(const ic_homography *h, ic_point p, ic_point *out);

/* ------------------------------------------------------------------------- */
/** @name Quadrilateral validation                                              */
/* ------------------------------------------------------------------------- */

/** Why a quadrilateral cannot be rectified. */
typedef enum ic_quad_problem {
    IC_QUAD_VALID = 0,             /**< Convex, finite, inside the bounds, not degenerate. */
    IC_QUAD_NOT_FINITE = 1,        /**< A coordinate is NaN or infinite. */
    IC_QUAD_OUT_OF_BOUNDS = 2,     /**< A corner lies too far outside the image (see below). */
    IC_QUAD_DEGENERATE = 3,        /**< Two corners coincide, three are (nearly) collinear,
                                        or the area is below one square pixel. */
    IC_QUAD_SELF_INTERSECTING = 4, /**< Two opposite sides cross (a "bow tie"). */
    IC_QUAD_NOT_CONVEX = 5         /**< A simple but concave quadrilateral. */
} ic_quad_problem;

/**
 * Checks that `quad` can be rectified. The checks run in the order of ::ic_quad_problem and
 * the first failure is reported:
 * - every coordinate finite;
 * - bounds: with `width`, `height` > 0 every corner within [-width, 2 width] x
 *   [-height, 2 height] (the image extended by its own size on each side: a page may
 *   reach out of the frame, but not arbitrarily far); always |coordinate| <= 2^24;
 * - not degenerate: at every corner |sin(angle)| >= 1e-3 between the two sides meeting
 *   there (no coincident corners, no three collinear), and area >= 1 px^2;
 * - simple (opposite sides do not cross) and convex. Both windings are accepted.
 * @param width, height the source image size, or 0, 0 for the absolute bound only.
 * @param problem receives the reason (IC_QUAD_VALID on success); may be NULL.
 * @param quad     the corners.
 * @param width    width of the image the quad is in, >= 1.
 * @param height   its height, >= 1.
 * @param problem  receives why the quad is refused (or ::IC_QUAD_VALID); may be NULL.
 * @return IC_OK for a valid quad, IC_ERR_INVALID_ARGUMENT otherwise (and for a null
 *         `quad` or negative sizes, with `*problem` = IC_QUAD_NOT_FINITE).
 */
IC_API ic_status ic_quad_validate(const ic_quad *quad, int32_t width, int32_t height,
                           ic_quad_problem *problem);

/**
 * A static English name for a problem ("not convex", ...); never NULL.
 * @param problem  any value.
 * @return a static English description, never NULL ("unknown quad problem" for other values).
 */
IC_API const char *ic_quad_problem_string(ic_quad_problem problem);

/**
 * Orders four points as a quad: clockwise on screen (y down), starting with the corner
 * nearest the top-left of their bounding box (smallest x + y). Useful for corners that come
 * in no particular order (user input). `out` may alias `points`.
 * @param points  four points in any order.
 * @param out     receives the ordered quad.
 * @return IC_ERR_INVALID_ARGUMENT for null pointers or non-finite coordinates.
 */
IC_API ic_status ic_quad_order(const ic_point points[4], ic_quad *out);

/* ------------------------------------------------------------------------- */
/** @name Orientation                                                          */
/* ------------------------------------------------------------------------- */

/**
 * The coordinate map of an EXIF orientation (1..8). For an image stored as
 * `width` x `height` whose EXIF orientation is `orientation`, `out` maps a point of the
 * displayed (upright) image to the point of the stored image it shows. The displayed image
 * is `width` x `height` for orientations 1-4 and `height` x `width` for 5-8. In continuous
 * coordinates, e.g. orientation 6 (display needs a 90-degree clockwise turn): displayed
 * (x, y) shows stored (y, height - x). Pixel centres map onto pixel centres exactly.
 * @param orientation  1..8.
 * @param width        stored width, >= 1.
 * @param height       stored height, >= 1.
 * @param out          receives the map from displayed to stored coordinates.
 * @return IC_ERR_INVALID_ARGUMENT for an orientation outside 1..8 or sizes < 1.
 */
IC_API ic_status ic_orientation_homography(int32_t orientation, int32_t width, int32_t height,
                                    ic_homography *out);

/* ------------------------------------------------------------------------- */
/** @name Rectified size                                                       */
/* ------------------------------------------------------------------------- */

/** Paper sizes (portrait width x height). */
typedef enum ic_paper {
    IC_PAPER_A4 = 0,     /**< 210 x 297 mm. */
    IC_PAPER_A5 = 1,     /**< 148 x 210 mm. */
    IC_PAPER_LETTER = 2, /**< 8.5 x 11 in. */
    IC_PAPER_LEGAL = 3   /**< 8.5 x 14 in. */
} ic_paper;

/** How ::ic_rectified_size chooses the size of a rectified page. */
typedef enum ic_size_kind {
    IC_SIZE_NATURAL = 0,   /**< The quad's own size: mean of opposite side lengths. */
    IC_SIZE_PIXELS = 1,    /**< Exactly `width` x `height`. */
    IC_SIZE_LONG_SIDE = 2, /**< The quad's aspect ratio with the longer side = `long_side`. */
    IC_SIZE_PAPER = 3,     /**< `paper` at `dpi`, portrait when the quad is taller than wide,
                                else landscape. */
    IC_SIZE_PAPER_FIT = 4  /**< The quad's own aspect (IC_SIZE_NATURAL), scaled to the largest
                                size that fits in IC_SIZE_PAPER's size: for a page cut by the
                                photo's edge (::ic_page_detection's `cut_edges`), whose visible
                                part is an unknown share of the sheet and would be stretched
                                to the whole of it. */
} ic_size_kind;

/** A size request for ::ic_rectified_size. Fields a kind does not use are ignored. */
typedef struct ic_size_request {
    ic_size_kind kind;
    int32_t width;     /**< IC_SIZE_PIXELS */
    int32_t height;    /**< IC_SIZE_PIXELS */
    int32_t long_side; /**< IC_SIZE_LONG_SIDE */
    ic_paper paper;    /**< IC_SIZE_PAPER, IC_SIZE_PAPER_FIT */
    double dpi;        /**< IC_SIZE_PAPER, IC_SIZE_PAPER_FIT; > 0 */
} ic_size_request;

/**
 * The size of the rectified page (in the quad's own frame, before any orientation): the
 * quad's aspect ratio is estimated as (mean length of sides 0-1 and 3-2) : (mean length of
 * sides 0-3 and 1-2), and the request turns it into pixels (each side rounded to nearest,
 * at least 1). Paper at a DPI: side = round(mm / 25.4 * dpi), e.g. A4 at 300 dpi is
 * 2480 x 3508. Paper fit: with the paper's rounded size P and the quad's rounded own size O,
 * s = min(Pw / Ow, Ph / Oh) and each side is min(P, round(O * s)), at least 1.
 * @param quad     the page corners.
 * @param request  how the size is chosen.
 * @param width    receives the width.
 * @param height   receives the height.
 * @return IC_ERR_INVALID_ARGUMENT for a null or non-finite quad, or a bad request;
 *         IC_ERR_TOO_LARGE when a side would exceed ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_rectified_size(const ic_quad *quad, const ic_size_request *request,
                            int32_t *width, int32_t *height);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_GEOMETRY_H */
