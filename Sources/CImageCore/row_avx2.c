/* AVX2 kernels of the row layer (row.h). Each finishes its row with the SSE2 or scalar
 * kernel, so the bytes equal the scalar reference's. */
#include "row.h"
#include "row_x86.h"

#if IC_X86
#include <immintrin.h>

IC_TARGET_AVX2 void ic_row_merge_uv_avx2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(u + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(v + i));
        __m256i lo = _mm256_unpacklo_epi8(a, b); /* pairs 0-7 | 16-23 */
        __m256i hi = _mm256_unpackhi_epi8(a, b); /* pairs 8-15 | 24-31 */
        _mm256_storeu_si256((__m256i *)(void *)(uv + 2 * i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(uv + 2 * i + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    ic_row_merge_uv_sse2(u + i, v + i, uv + 2 * i, n - i);
}

IC_TARGET_AVX2 void ic_row_split_uv_avx2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    size_t i = 0;
    const __m256i low = _mm256_set1_epi16(0x00FF);
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(uv + 2 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(uv + 2 * i + 32));
        /* packus works per 128-bit lane: fix the order with a 64-bit permute. */
        __m256i pu = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
        __m256i pv = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
        _mm256_storeu_si256((__m256i *)(void *)(u + i), _mm256_permute4x64_epi64(pu, 0xD8));
        _mm256_storeu_si256((__m256i *)(void *)(v + i), _mm256_permute4x64_epi64(pv, 0xD8));
    }
    ic_row_split_uv_sse2(uv + 2 * i, u + i, v + i, n - i);
}

/* Luma of eight RGBx pixels (x ignored) in 32-bit lanes: R and B as one 16-bit pair and
 * G (with x) as another, two multiply-adds, the same integer sum as ic__luma. */
static inline IC_TARGET_AVX2 __m256i luma8(__m256i v) {
    const __m256i lo = _mm256_set1_epi32(0x00FF00FF);
    __m256i rb = _mm256_and_si256(v, lo);
    __m256i gx = _mm256_and_si256(_mm256_srli_epi32(v, 8), lo);
    __m256i y = _mm256_madd_epi16(rb, _mm256_set1_epi32(IC_LUMA_B << 16 | IC_LUMA_R));
    y = _mm256_add_epi32(y, _mm256_madd_epi16(gx, _mm256_set1_epi32(IC_LUMA_G)));
    return _mm256_srli_epi32(_mm256_add_epi32(y, _mm256_set1_epi32(1 << (IC_LUMA_SHIFT - 1))), IC_LUMA_SHIFT);
}

/* Sixteen 32-bit lumas (two vectors of eight, in order) as sixteen bytes. */
static inline IC_TARGET_AVX2 __m128i pack16(__m256i y0, __m256i y1) {
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(y0, y1), 0xD8);
    p = _mm256_packus_epi16(p, p);
    return _mm_unpacklo_epi64(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
}

/* Sixteen pixels a step; every step reads exactly its own pixels' bytes. */
IC_TARGET_AVX2 void ic_row_luma_avx2(const uint8_t *src, int channels, uint8_t *dst, size_t n) {
    size_t x = 0;
    if (channels == 4) {
        for (; x + 16 <= n; x += 16) {
            const uint8_t *s = src + 4 * x;
            __m256i y0 = luma8(_mm256_loadu_si256((const __m256i *)(const void *)s));
            __m256i y1 = luma8(_mm256_loadu_si256((const __m256i *)(const void *)(s + 32)));
            _mm_storeu_si128((__m128i *)(void *)(dst + x), pack16(y0, y1));
        }
    } else {
        for (; x + 16 <= n; x += 16) {
            __m128i q[4];
            ic__load_rgb16(src + 3 * x, q);
            __m256i y0 = luma8(_mm256_set_m128i(q[1], q[0])), y1 = luma8(_mm256_set_m128i(q[3], q[2]));
            _mm_storeu_si128((__m128i *)(void *)(dst + x), pack16(y0, y1));
        }
    }
    if (x < n) ic_row_luma_c(src + x * (size_t)channels, channels, dst + x, n - x);
}
#endif
