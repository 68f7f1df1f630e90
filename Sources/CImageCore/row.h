/* The private row layer: every row kernel that more than one family uses, declared once
 * (libyuv's row.h is the model). A row kernel reads and writes one row of n elements, with
 * no validation, no allocation and no threads; the plane helpers (planar.h) and the family
 * drivers walk rows and call them. Scalar references are `ic_row_*_c` (row_rows.c); vector
 * versions carry their instruction set's suffix (row_sse2.c, row_avx2.c) and give the same
 * bytes; `ic__row_pick_*` chooses one from a feature mask the driver read once (row.c). */
#ifndef IMAGECORE_ROW_H
#define IMAGECORE_ROW_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* ---- copy and fill ------------------------------------------------------------------ */

/* dst[0..n) = src[0..n); the regions do not overlap. */
IC_INTERNAL void ic_row_copy_c(const uint8_t *src, uint8_t *dst, size_t n);
/* Writes the 1..16-byte `pattern` repeatedly over n bytes (n a multiple of `size`). */
IC_INTERNAL void ic_row_fill_c(uint8_t *dst, size_t n, const uint8_t *pattern, size_t size);

/* ---- UV pairs (NV12 chroma) <-> separate U and V (I420 chroma) ------------------------ */

/* uv[2i] = u[i], uv[2i + 1] = v[i] for n pairs. */
typedef void (*ic_row_merge_uv_fn)(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n);
/* u[i] = uv[2i], v[i] = uv[2i + 1] for n pairs. */
typedef void (*ic_row_split_uv_fn)(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n);

IC_INTERNAL void ic_row_merge_uv_c(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n);
IC_INTERNAL void ic_row_split_uv_c(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n);
#if IC_X86
/* SSE2: 16 pairs a step (the AVX2 kernels' tail, and the path without AVX2). */
IC_INTERNAL void ic_row_merge_uv_sse2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n);
IC_INTERNAL void ic_row_split_uv_sse2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n);
/* AVX2: 32 pairs a step, then the SSE2 kernel. */
IC_INTERNAL void ic_row_merge_uv_avx2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n);
IC_INTERNAL void ic_row_split_uv_avx2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n);
#endif
IC_INTERNAL ic_row_merge_uv_fn ic__row_pick_merge_uv(uint32_t features);
IC_INTERNAL ic_row_split_uv_fn ic__row_pick_split_uv(uint32_t features);

/* ---- RGB -> luma ----------------------------------------------------------------------
 * The one luma of the library: BT.601 full range, Y = (9798 R + 19235 G + 3735 B + 2^14)
 * >> 15. The Q15 weights are those ic_rgb_to_yuv derives for BT.601 full range (0.299,
 * 0.587, 0.114 rounded so that they sum to 2^15: gray stays gray), so GRAY8 from
 * ic_convert_channels, the JPEG decoder's CMYK-to-gray, enhancement and the Y plane of
 * ic_rgb_to_yuv agree byte for byte (page detection's working image keeps the JPEG integer
 * weights its network was trained with: detect_map.c, workgeom.py). The YUV kernels evaluate the same
 * expression inside their fused two-row pass (yuv_internal.h), with the matrix's
 * coefficients, rather than calling this row: a second pass over the source would cost a
 * read of every RGB byte. Before its rounding the value is within 0.01 of the float64
 * luma, so the output is within 1 LSB of it. */
enum { IC_LUMA_R = 9798, IC_LUMA_G = 19235, IC_LUMA_B = 3735, IC_LUMA_SHIFT = 15 };

static inline uint8_t ic__luma(uint32_t r, uint32_t g, uint32_t b) {
    return (uint8_t)((IC_LUMA_R * r + IC_LUMA_G * g + IC_LUMA_B * b + (1u << (IC_LUMA_SHIFT - 1))) >>
                     IC_LUMA_SHIFT);
}

/* dst[i] = luma of pixel i of an RGB8 (channels 3) or RGBA8 (4, alpha ignored) row. */
typedef void (*ic_row_luma_fn)(const uint8_t *src, int channels, uint8_t *dst, size_t n);
IC_INTERNAL void ic_row_luma_c(const uint8_t *src, int channels, uint8_t *dst, size_t n);
#if IC_X86
IC_INTERNAL void ic_row_luma_avx2(const uint8_t *src, int channels, uint8_t *dst, size_t n);
#endif
IC_INTERNAL ic_row_luma_fn ic__row_pick_luma(uint32_t features);

/* ---- table lookup ------------------------------------------------------------------- */

/* dst[i] = lut[src[i]]. */
IC_INTERNAL void ic_row_lut_c(const uint8_t *src, uint8_t *dst, size_t n, const uint8_t lut[256]);

#endif
