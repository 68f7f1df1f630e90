/* Private to the enhancement family: its row kernels. Each maps values through the inverse
 * background `inv` (one float a pixel) and the black and white points:
 * out = clamp((v * inv - b) * scale + 0.5), in single precision, in that order. */
#ifndef IMAGECORE_ENHANCE_INTERNAL_H
#define IMAGECORE_ENHANCE_INTERNAL_H

#include "internal.h"

/* One byte per pixel (GRAY8, Y): dst[i] = map(src[i]). */
IC_INTERNAL void ic_enhance_gray_row_c(const uint8_t *src, uint8_t *dst, const float *inv, int32_t n,
                                       float b, float scale);
/* RGBA in place: colour maps R, G, B; gray writes the mapped luma (row.h) to all three. */
IC_INTERNAL void ic_enhance_rgba_row_c(uint8_t *px, const float *inv, int32_t n, float b, float scale,
                                       int gray);
/* RGBA colour in place: R, G, B each mapped, alpha kept. */
IC_INTERNAL void ic_enhance_rgba_color_row_c(uint8_t *px, const float *inv, int32_t n, float b, float scale);
#if IC_X86
/* 8 gray pixels or 2 RGBA pixels a step, the same operations in the same order. */
IC_INTERNAL void ic_enhance_gray_row_avx2(const uint8_t *src, uint8_t *dst, const float *inv, int32_t n,
                                          float b, float scale);
IC_INTERNAL void ic_enhance_rgba_color_row_avx2(uint8_t *px, const float *inv, int32_t n, float b,
                                                float scale);
#endif

#endif
