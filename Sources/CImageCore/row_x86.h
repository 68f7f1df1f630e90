/* Inline x86 helpers the row layer's AVX2 kernels share with the families' (row_avx2.c,
 * channels_avx2.c). Not installed. */
#ifndef IMAGECORE_ROW_X86_H
#define IMAGECORE_ROW_X86_H

#include "internal.h"

#if IC_X86
#include <immintrin.h>

/* Four RGB pixels (bytes 0..11 of v) as RGBx with x = 0. */
static inline IC_TARGET_AVX2 __m128i ic__rgb_to_rgbx(__m128i v) {
    return _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
}

/* Sixteen RGB pixels at s (48 bytes, nothing more is read) as four RGBx vectors. */
static inline IC_TARGET_AVX2 void ic__load_rgb16(const uint8_t *s, __m128i out[4]) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    out[0] = ic__rgb_to_rgbx(a);
    out[1] = ic__rgb_to_rgbx(_mm_alignr_epi8(b, a, 12));
    out[2] = ic__rgb_to_rgbx(_mm_alignr_epi8(c, b, 8));
    out[3] = ic__rgb_to_rgbx(_mm_srli_si128(c, 4));
}
#endif

#endif
