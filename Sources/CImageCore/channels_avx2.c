/* AVX2 row kernels of the channel conversions (target attribute + run-time dispatch in
 * channels.c). 16 pixels per step, byte shuffles within 128-bit lanes (no lane crossing
 * but the final pack of the luma); the remaining pixels go to the scalar reference, so
 * results are identical to it bit for bit. Every step reads and writes exactly its own 16
 * pixels' bytes: nothing past the row. */
#include "internal.h"

#if IC_X86
#include <immintrin.h>

IC_INTERNAL void ic_channels_row_c(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n);

#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* Four RGB pixels (bytes 0..11 of v) to RGBx with x = 0 (shuffle zero). */
static inline IC_TARGET_AVX2 __m128i rgb_to_rgbx(__m128i v) {
    return _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
}

/* Sixteen RGB pixels at s as four RGBx vectors. */
static inline IC_TARGET_AVX2 void load_rgb16(const uint8_t *s, __m128i out[4]) {
    __m128i a = LD(s), b = LD(s + 16), c = LD(s + 32);
    out[0] = rgb_to_rgbx(a);
    out[1] = rgb_to_rgbx(_mm_alignr_epi8(b, a, 12));
    out[2] = rgb_to_rgbx(_mm_alignr_epi8(c, b, 8));
    out[3] = rgb_to_rgbx(_mm_srli_si128(c, 4));
}

/* Luma of eight RGBx pixels (x ignored): (19595 R + 38470 G + 7471 B + 32768) >> 16 in
 * 32-bit lanes, exactly the scalar formula. 38470 does not fit a signed 16-bit weight, so
 * G contributes G * (38470 - 65536) through the multiply-add and G << 16 on top. */
static inline IC_TARGET_AVX2 __m256i luma8(__m256i v) {
    const __m256i lo = _mm256_set1_epi32(0x00FF00FF);
    __m256i rb = _mm256_and_si256(v, lo);                        /* R, B as 16-bit pairs */
    __m256i gx = _mm256_and_si256(_mm256_srli_epi32(v, 8), lo);  /* G, x */
    __m256i y = _mm256_madd_epi16(rb, _mm256_set1_epi32(7471 << 16 | 19595));
    y = _mm256_add_epi32(y, _mm256_madd_epi16(gx, _mm256_set1_epi32((int32_t)(uint16_t)(int16_t)(38470 - 65536))));
    y = _mm256_add_epi32(y, _mm256_slli_epi32(_mm256_and_si256(gx, _mm256_set1_epi32(0xFF)), 16));
    return _mm256_srli_epi32(_mm256_add_epi32(y, _mm256_set1_epi32(32768)), 16);
}

/* Sixteen 32-bit lumas (two vectors of eight, in order) as sixteen bytes. */
static inline IC_TARGET_AVX2 __m128i pack16(__m256i y0, __m256i y1) {
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(y0, y1), 0xD8);
    p = _mm256_packus_epi16(p, p);
    return _mm_unpacklo_epi64(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
}

IC_INTERNAL IC_TARGET_AVX2 void ic_channels_row_avx2(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n) {
    int32_t x = 0;
    const __m128i alpha = _mm_set1_epi32((int32_t)0xFF000000u);
    if (sc == 1 && dc == 3) {
        const __m128i m0 = _mm_setr_epi8(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5);
        const __m128i m1 = _mm_setr_epi8(5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10);
        const __m128i m2 = _mm_setr_epi8(10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15);
        for (; x + 16 <= n; x += 16) {
            __m128i g = LD(s + x);
            uint8_t *o = d + 3 * (size_t)x;
            ST(o, _mm_shuffle_epi8(g, m0));
            ST(o + 16, _mm_shuffle_epi8(g, m1));
            ST(o + 32, _mm_shuffle_epi8(g, m2));
        }
    } else if (sc == 1 && dc == 4) {
        for (; x + 16 <= n; x += 16) {
            __m128i g = LD(s + x);
            uint8_t *o = d + 4 * (size_t)x;
            for (int k = 0; k < 4; k++) { /* pixels 4k..4k+3: the first mask + 4k on its index bytes */
                const __m128i m = _mm_add_epi8(_mm_setr_epi8(0, 0, 0, -1, 1, 1, 1, -1, 2, 2, 2, -1, 3, 3, 3, -1),
                                               _mm_set1_epi32(0x00040404 * k));
                ST(o + 16 * k, _mm_or_si128(_mm_shuffle_epi8(g, m), alpha));
            }
        }
    } else if (sc == 3 && dc == 4) {
        for (; x + 16 <= n; x += 16) {
            __m128i q[4];
            load_rgb16(s + 3 * (size_t)x, q);
            uint8_t *o = d + 4 * (size_t)x;
            for (int k = 0; k < 4; k++) ST(o + 16 * k, _mm_or_si128(q[k], alpha));
        }
    } else if (sc == 4 && dc == 3) {
        const __m128i m = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
        for (; x + 16 <= n; x += 16) {
            const uint8_t *i = s + 4 * (size_t)x;
            __m128i v0 = _mm_shuffle_epi8(LD(i), m), v1 = _mm_shuffle_epi8(LD(i + 16), m);
            __m128i v2 = _mm_shuffle_epi8(LD(i + 32), m), v3 = _mm_shuffle_epi8(LD(i + 48), m);
            uint8_t *o = d + 3 * (size_t)x;
            ST(o, _mm_or_si128(v0, _mm_slli_si128(v1, 12)));
            ST(o + 16, _mm_or_si128(_mm_srli_si128(v1, 4), _mm_slli_si128(v2, 8)));
            ST(o + 32, _mm_or_si128(_mm_srli_si128(v2, 8), _mm_slli_si128(v3, 4)));
        }
    } else if (sc == 4 && dc == 1) {
        for (; x + 16 <= n; x += 16) {
            const uint8_t *i = s + 4 * (size_t)x;
            __m256i y0 = luma8(_mm256_loadu_si256((const __m256i *)(const void *)i));
            __m256i y1 = luma8(_mm256_loadu_si256((const __m256i *)(const void *)(i + 32)));
            ST(d + x, pack16(y0, y1));
        }
    } else if (sc == 3 && dc == 1) {
        for (; x + 16 <= n; x += 16) {
            __m128i q[4];
            load_rgb16(s + 3 * (size_t)x, q);
            __m256i y0 = luma8(_mm256_set_m128i(q[1], q[0])), y1 = luma8(_mm256_set_m128i(q[3], q[2]));
            ST(d + x, pack16(y0, y1));
        }
    }
    if (x < n) ic_channels_row_c(s + (size_t)x * (size_t)sc, sc, d + (size_t)x * (size_t)dc, dc, n - x);
}

#endif
