/* Private to the YUV family: fixed-point coefficients and row kernels.
 *
 * The arithmetic lives here once, as the formulas below; the scalar row kernels
 * (*_row*_c) evaluate them directly and the vector kernels evaluate exactly the same
 * integer expressions, so both paths are bit-identical (the tests check it).
 *
 * RGB -> YUV (Q15 coefficients; sums in 32 bits, no intermediate rounding):
 *   Y = (yr*R + yg*G + yb*B + y_bias) >> 15          y_bias  = (yoff << 15) + (1 << 14)
 *   U = (ur*Rs + ug*Gs + ub*Bs + uv_bias) >> 17      uv_bias = (128 << 17) + (1 << 16)
 *   (Rs, Gs, Bs = sums over the 2x2 block, so the block average costs no extra rounding)
 *   then clamped to 0..255.
 *
 * YUV -> RGB (16-bit lanes, as AVX2's vpmulhrsw computes them; 6 fraction bits):
 *   mulhrs(a, k) = (a*k + (1 << 14)) >> 15
 *   ty = mulhrs((Y - yoff) << 7, ky)                  = (Y - yoff) * ys * 64, rounded
 *   cu = (U - 128) << 8, cv = (V - 128) << 8          (fit int16 exactly)
 *   R = clamp((ty + mulhrs(cv, krv) + 32) >> 6)
 *   G = clamp((ty + mulhrs(cu, kgu) + mulhrs(cv, kgv) + 32) >> 6)
 *   B = clamp((ty + mulhrs(cu, kbu) + 32) >> 6)
 *   The vector path adds with signed saturation; a sum can only saturate above 32767,
 *   where the clamp gives 255 either way, so the scalar path's plain int32 sum agrees.
 */
#ifndef IMAGECORE_YUV_INTERNAL_H
#define IMAGECORE_YUV_INTERNAL_H

#include "internal.h"

#include <stddef.h>

typedef struct ic_rgb2yuv_coeffs {
    int16_t yr, yg, yb;     /* Q15 luma weights (x 219/255 in video range) */
    int16_t ur, ug, ub;     /* Q15 Cb weights on 2x2 sums (x 224/255 in video range) */
    int16_t vr, vg, vb;     /* Q15 Cr weights */
    int32_t y_bias, uv_bias;
} ic_rgb2yuv_coeffs;

typedef struct ic_yuv2rgb_coeffs {
    int16_t yoff;           /* 0 or 16 */
    int16_t ky;             /* Y scale, Q14 of the 6-fraction-bit result */
    int16_t krv, kgu, kgv, kbu; /* chroma weights, Q13 of the 6-fraction-bit result */
} ic_yuv2rgb_coeffs;

/* Fills the coefficients; returns 0 for a bad matrix or range. */
IC_INTERNAL int ic__rgb2yuv_coeffs(ic_yuv_matrix m, ic_yuv_range r, ic_rgb2yuv_coeffs *c);
IC_INTERNAL int ic__yuv2rgb_coeffs(ic_yuv_matrix m, ic_yuv_range r, ic_yuv2rgb_coeffs *c);

/* ---- RGB -> YUV 4:2:0, two source rows per call --------------------------------
 * s0, s1: RGB(A) rows 2j and 2j+1 (s1 == s0 for the last row of an odd height, which
 * replicates it; then y1 == y0 too and the same values are written twice).
 * u, v: chroma row j; consecutive chroma samples are `uv_step` bytes apart (1 for I420,
 * 2 for NV12 with v = u + 1). `width` pixels; chroma ceil(width/2) samples. */
typedef void (*ic_rgb2yuv_row2_fn)(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                                   uint8_t *u, uint8_t *v, int32_t width,
                                   const ic_rgb2yuv_coeffs *c);

IC_INTERNAL void ic_rgba_to_i420_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                            uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgba_to_nv12_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                            uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgb_to_i420_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                           uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgb_to_nv12_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                           uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);

/* ---- YUV 4:2:0 -> RGB, two output rows per call --------------------------------
 * y0, y1: luma rows 2j and 2j+1; d0, d1 the matching output rows. y1/d1 are NULL when
 * row 2j is the last row (odd height). u, v as above. */
typedef void (*ic_yuv2rgb_row2_fn)(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                                   const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                                   const ic_yuv2rgb_coeffs *c);

IC_INTERNAL void ic_i420_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_nv12_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_i420_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_nv12_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c);

#if IC_X86
/* AVX2 versions: same signatures and results; they run 32 pixels at a time and finish
 * each row with the scalar kernel. */
IC_INTERNAL void ic_rgba_to_i420_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                               uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgba_to_nv12_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                               uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgb_to_i420_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                              uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_rgb_to_nv12_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                              uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c);
IC_INTERNAL void ic_i420_to_rgba_row2_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                               const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                               const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_nv12_to_rgba_row2_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                               const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                               const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_i420_to_rgb_row2_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                              const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                              const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_nv12_to_rgb_row2_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                              const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                              const ic_yuv2rgb_coeffs *c);
/* The same with non-temporal stores for the rows that are 32-byte aligned (fenced before
 * returning): for destinations too large to stay in cache, where they save the read of
 * every output line that ordinary stores cost. */
IC_INTERNAL void ic_i420_to_rgba_row2_avx2_nt(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                                  const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                                  const ic_yuv2rgb_coeffs *c);
IC_INTERNAL void ic_nv12_to_rgba_row2_avx2_nt(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                                  const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                                  const ic_yuv2rgb_coeffs *c);
#endif

#endif
