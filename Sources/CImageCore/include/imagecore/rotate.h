/**
 * @file imagecore/rotate.h
 * @brief The 8 EXIF orientations: applying one to an image (rotate / flip / transpose),
 *        in place where the size allows, and their algebra.
 *
 * Included by imagecore.h; may also be included on its own.
 *
 * Applying orientation `o` to a stored W x H image produces the upright image, of size
 * ::ic_oriented_size. With x, y the output pixel and (sx, sy) the source pixel it copies:
 *
 * | o | name              | output  | source pixel (sx, sy)   |
 * |---|-------------------|---------|-------------------------|
 * | 1 | identity          | W x H   | (x, y)                  |
 * | 2 | mirror left-right | W x H   | (W-1-x, y)              |
 * | 3 | rotate 180        | W x H   | (W-1-x, H-1-y)          |
 * | 4 | mirror top-bottom | W x H   | (x, H-1-y)              |
 * | 5 | transpose         | H x W   | (y, x)                  |
 * | 6 | rotate 90 cw      | H x W   | (y, H-1-x)              |
 * | 7 | transverse        | H x W   | (W-1-y, H-1-x)          |
 * | 8 | rotate 90 ccw     | H x W   | (W-1-y, x)              |
 *
 * Pixels move whole: RGBA8 as 4-byte units, RGB8 as 3-byte units, NV12's chroma as
 * 2-byte UV pairs. Nothing is interpolated, so every operation is exact and the group
 * laws hold bit for bit (four 90-degree turns, or an orientation followed by its
 * inverse, give back the original image).
 *
 * 4:2:0 chroma (I420, NV12) follows plane by plane: each chroma plane, ceil(W/2) x
 * ceil(H/2) samples, gets the same transform as the luma, which gives exactly the
 * ceil(w/2) x ceil(h/2) chroma of the output size. When every source dimension that
 * the orientation reverses is even (always true for 1 and 5, and for every orientation
 * when W and H are even), the result equals what converting the transformed RGB would
 * give: each 2x2 block maps onto a 2x2 block. When a reversed dimension is odd (W for
 * 2, 3, 7, 8; H for 3, 4, 6, 7), the chroma sample that covered only the source's last
 * pixel column (or row) becomes the first along the reversed axis of the output, where
 * it covers two pixels: the chroma grid is offset by one luma pixel along that axis.
 * This keeps the transform lossless and invertible; re-deriving chroma for the new grid
 * would need the RGB pixels.
 *
 * Memory: no allocation; scratch is at most 4 KiB on the stack (in-place row swaps).
 * Work runs in parallel bands; transposes walk stripes of source rows in tiles (AVX2
 * tile transposes for 1-, 2- and 4-byte elements on x86; scalar for RGB8's 3 bytes and
 * elsewhere - no NEON path yet).
 */
#ifndef IMAGECORE_ROTATE_H
#define IMAGECORE_ROTATE_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** EXIF orientation values (the TIFF/EXIF `Orientation` tag), 1...8. */
typedef enum ic_orientation {
    IC_ORIENTATION_INVALID = 0,        /**< Not an orientation; returned for bad input. */
    IC_ORIENTATION_UP = 1,             /**< Identity. */
    IC_ORIENTATION_UP_MIRRORED = 2,    /**< Mirror left-right. */
    IC_ORIENTATION_DOWN = 3,           /**< Rotate 180 degrees. */
    IC_ORIENTATION_DOWN_MIRRORED = 4,  /**< Mirror top-bottom. */
    IC_ORIENTATION_LEFT_MIRRORED = 5,  /**< Transpose (mirror across the main diagonal). */
    IC_ORIENTATION_RIGHT = 6,          /**< Rotate 90 degrees clockwise. */
    IC_ORIENTATION_RIGHT_MIRRORED = 7, /**< Transverse (mirror across the anti-diagonal). */
    IC_ORIENTATION_LEFT = 8            /**< Rotate 90 degrees counter-clockwise. */
} ic_orientation;

/**
 * The orientation that applies `first` and then `second`: applying the result to an
 * image equals applying `first`, then applying `second` to that result.
 * @param first   applied first, 1...8.
 * @param second  applied second, 1...8.
 * @return IC_ORIENTATION_INVALID if either argument is not 1...8.
 */
IC_API ic_orientation ic_orientation_compose(ic_orientation first, ic_orientation second);

/**
 * The orientation that undoes `o`: compose(o, inverse(o)) == compose(inverse(o), o) == 1.
 * 6 and 8 are each other's inverse; every other orientation is its own.
 * @param o  1...8.
 * @return IC_ORIENTATION_INVALID if `o` is not 1...8.
 */
IC_API ic_orientation ic_orientation_inverse(ic_orientation o);

/**
 * The size of a `width` x `height` image after applying `o`: swapped for 5...8.
 * @param o           1...8.
 * @param width       source width, 1 to ::IC_MAX_DIMENSION.
 * @param height      source height, 1 to ::IC_MAX_DIMENSION.
 * @param out_width   receives the output width.
 * @param out_height  receives the output height.
 * @return IC_ERR_INVALID_ARGUMENT for a bad orientation, a size < 1 or null outputs;
 *         IC_ERR_TOO_LARGE for a size > ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_oriented_size(ic_orientation o, int32_t width, int32_t height, int32_t *out_width,
                           int32_t *out_height);

/**
 * Writes `src` with orientation `o` applied into `dst`, which must have the same format
 * and the size ::ic_oriented_size gives. Formats: GRAY8, RGB8, RGBA8 (any alpha mode;
 * alpha moves with its pixel), I420, NV12. The images must not overlap (use
 * ::ic_image_orient_in_place for that).
 * @param src  a valid image.
 * @param dst  a valid image of the same format and the oriented size.
 * @param o    1...8.
 * @return IC_ERR_INVALID_ARGUMENT for invalid descriptors, a format or size mismatch,
 *         overlapping planes or a bad orientation.
 */
IC_API ic_status ic_image_orient(const ic_image *src, ic_image *dst, ic_orientation o);

/**
 * Applies an orientation that keeps the size (1 = nothing, 2, 3, 4) in place, for every
 * format. Rows are swapped through a 4 KiB stack buffer; nothing else is needed.
 * @param image  a valid image, written in place.
 * @param o      1...4.
 * @return IC_ERR_UNSUPPORTED for 5...8 (the size changes); IC_ERR_INVALID_ARGUMENT for an
 *         invalid descriptor or orientation.
 */
IC_API ic_status ic_image_orient_in_place(ic_image *image, ic_orientation o);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_ROTATE_H */
