/**
 * @file imagecore/yuv.h
 * @brief RGB <-> YUV 4:2:0 conversions (I420, NV12), NV12 <-> I420, luma <-> gray.
 *
 * Included by imagecore.h; may also be included on its own.
 *
 * Numeric contract (verified by the tests against a float64 reference)
 * - Matrices BT.601 (Kr = 0.299, Kb = 0.114) and BT.709 (Kr = 0.2126, Kb = 0.0722);
 *   Kg = 1 - Kr - Kb. Full range: Y in 0..255, chroma 128 +- 127.5. Video (limited)
 *   range: Y = 16 + 219/255 * Y', chroma = 128 + 224/255 * C'. The default, value 0 of
 *   both enums, is full-range BT.601: what JPEG (JFIF) uses.
 * - Every output sample is within 1 LSB of the float64 reference, clamped to 0..255 and
 *   rounded to nearest. In practice it equals the reference except next to a .5 tie: the
 *   fixed-point error before the final rounding is below 0.05 LSB (RGB -> YUV: Q15
 *   coefficients, 32-bit sums; YUV -> RGB: Q13/Q14 coefficients, 6 fraction bits).
 * - RGB -> YUV 4:2:0 chroma is computed from the exact integer sum of the 2x2 block's
 *   R, G and B (equivalently: the average of the four pixels' unrounded chroma), rounded
 *   once. At an odd right or bottom edge the block is completed by replicating the last
 *   column / row, which is the same as averaging only the pixels that exist.
 * - YUV -> RGB upsamples chroma by replication: every pixel of a 2x2 block uses the
 *   block's chroma sample (no interpolation).
 * - Alpha: RGB -> YUV ignores the alpha byte. Premultiplied RGBA is converted as stored,
 *   which is the image composited over black. YUV -> RGBA writes alpha 255.
 * - Scalar and vector (AVX2 on x86; no NEON path yet) paths give bit-identical results.
 *
 * Memory: no allocation at all; destinations are written in place, padding bytes
 * beyond each row's pixels are neither read nor written. Source and destination must
 * not share any byte (IC_ERR_INVALID_ARGUMENT otherwise).
 */
#ifndef IMAGECORE_YUV_H
#define IMAGECORE_YUV_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The YCbCr matrix (luma weights). */
typedef enum ic_yuv_matrix {
    IC_YUV_BT601 = 0, /**< Kr 0.299, Kb 0.114 (JPEG, SD video). The default. */
    IC_YUV_BT709 = 1  /**< Kr 0.2126, Kb 0.0722 (HD video). */
} ic_yuv_matrix;

/** The quantisation range of Y and chroma. */
typedef enum ic_yuv_range {
    IC_YUV_RANGE_FULL = 0, /**< Y 0..255, chroma 0..255 around 128 (JPEG). The default. */
    IC_YUV_RANGE_VIDEO = 1 /**< Y 16..235, chroma 16..240 (limited / "TV" range). */
} ic_yuv_range;

/**
 * Converts an RGB8 or RGBA8 image to I420 or NV12 of the same size.
 *
 * Y from each pixel; each chroma sample from the 2x2 block it covers (see the file
 * comment for odd sizes). The alpha byte of RGBA8 is ignored whatever `src->alpha` says.
 * Runs in parallel bands of row pairs; AVX2 on x86 when available.
 *
 * @param src     a valid RGB8 or RGBA8 image.
 * @param dst     a valid I420 or NV12 image of the same size, sharing no byte with `src`.
 * @param matrix  ::IC_YUV_BT601 or ::IC_YUV_BT709.
 * @param range   ::IC_YUV_RANGE_FULL or ::IC_YUV_RANGE_VIDEO.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, a size mismatch,
 *         overlapping images, a bad matrix or range; IC_ERR_UNSUPPORTED for another
 *         format pair.
 */
IC_API ic_status ic_rgb_to_yuv(const ic_image *src, ic_image *dst, ic_yuv_matrix matrix,
                        ic_yuv_range range);

/**
 * Converts an I420 or NV12 image to RGB8 or RGBA8 of the same size (alpha 255; the
 * destination's alpha mode is not changed). Chroma is replicated over its 2x2 block.
 *
 * @param src     a valid I420 or NV12 image.
 * @param dst     a valid RGB8 or RGBA8 image of the same size, sharing no byte with `src`.
 * @param matrix  ::IC_YUV_BT601 or ::IC_YUV_BT709.
 * @param range   ::IC_YUV_RANGE_FULL or ::IC_YUV_RANGE_VIDEO.
 * @return as ::ic_rgb_to_yuv.
 */
IC_API ic_status ic_yuv_to_rgb(const ic_image *src, ic_image *dst, ic_yuv_matrix matrix,
                        ic_yuv_range range);

/**
 * Converts between the 4:2:0 layouts: NV12 -> I420 (splits the UV pairs) or I420 ->
 * NV12 (interleaves them); Y is copied. Same-layout pairs are a plain copy. Lossless.
 *
 * @param src  a valid I420 or NV12 image.
 * @param dst  a valid I420 or NV12 image of the same size, sharing no byte with `src`.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, a size mismatch or
 *         overlapping images; IC_ERR_UNSUPPORTED if either image is not I420 or NV12.
 */
IC_API ic_status ic_yuv_convert_layout(const ic_image *src, ic_image *dst);

/**
 * The luma of an I420 or NV12 image as GRAY8. Full range: a copy of the Y plane. Video
 * range: expanded to full range, round((Y - 16) * 255 / 219) clamped to 0..255, which is
 * exactly the R = G = B that ::ic_yuv_to_rgb gives for neutral chroma (U = V = 128).
 *
 * @param src    a valid I420 or NV12 image.
 * @param dst    a valid GRAY8 image of the same size, sharing no byte with `src`.
 * @param range  the range of `src`.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for an invalid descriptor, a size mismatch,
 *         overlapping images or a bad range; IC_ERR_UNSUPPORTED for another format pair.
 */
IC_API ic_status ic_yuv_to_gray(const ic_image *src, ic_image *dst, ic_yuv_range range);

/**
 * A GRAY8 image as I420 or NV12: chroma 128, Y as ::ic_rgb_to_yuv computes it for
 * R = G = B = gray (full range: Y = gray; video range: 16 + gray * 219 / 255, rounded),
 * so the result equals converting the gray image as RGB. The matrix does not matter for
 * gray input.
 *
 * @param src    a valid GRAY8 image.
 * @param dst    a valid I420 or NV12 image of the same size, sharing no byte with `src`.
 * @param range  the range to write.
 * @return as ::ic_yuv_to_gray.
 */
IC_API ic_status ic_gray_to_yuv(const ic_image *src, ic_image *dst, ic_yuv_range range);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_YUV_H */
