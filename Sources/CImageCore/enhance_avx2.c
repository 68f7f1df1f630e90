/* AVX2 row kernels of page enhancement (enhance_internal.h); same bytes as the scalar ones. */
#include "enhance_internal.h"

#if IC_X86
#include <immintrin.h>
#include <string.h>

/* AVX2: 8 gray pixels or 2 RGBA pixels per step in single precision, the same operations
 * in the same order as map_value (multiply, subtract, multiply, add 0.5, clamp, truncate). */
IC_TARGET_AVX2 void ic_enhance_gray_row_avx2(const uint8_t *src, uint8_t *dst, const float *inv, int32_t n,
                                             float b, float scale) {
    const __m256 vb = _mm256_set1_ps(b), vs = _mm256_set1_ps(scale), half = _mm256_set1_ps(0.5f);
    const __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(255.0f);
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(src + i))));
        __m256 o = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(v, _mm256_loadu_ps(inv + i)), vb), vs), half);
        __m256i q = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(o, lo), hi));
        __m256i p16 = _mm256_packus_epi32(q, q);
        __m256i p8 = _mm256_packus_epi16(p16, p16);
        _mm_storel_epi64((__m128i *)(void *)(dst + i),
                         _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1)));
    }
    ic_enhance_gray_row_c(src + i, dst + i, inv + i, n - i, b, scale);
}

IC_TARGET_AVX2 void ic_enhance_rgba_color_row_avx2(uint8_t *px, const float *inv, int32_t n, float b, float scale) {
    const __m256 vb = _mm256_set1_ps(b), vs = _mm256_set1_ps(scale), half = _mm256_set1_ps(0.5f);
    const __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(255.0f);
    const __m256i alpha = _mm256_setr_epi32(0, 0, 0, -1, 0, 0, 0, -1);
    int32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        __m256i raw = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(px + 4 * (size_t)i)));
        __m256 f = _mm256_set_m128(_mm_set1_ps(inv[i + 1]), _mm_set1_ps(inv[i]));
        __m256 o = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(raw), f), vb), vs), half);
        __m256i q = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(o, lo), hi));
        q = _mm256_blendv_epi8(q, raw, alpha); /* alpha unchanged */
        __m256i p16 = _mm256_packus_epi32(q, q);
        __m256i p8 = _mm256_packus_epi16(p16, p16);
        uint32_t a = (uint32_t)_mm256_cvtsi256_si32(p8), c = (uint32_t)_mm256_extract_epi32(p8, 4);
        memcpy(px + 4 * (size_t)i, &a, 4);
        memcpy(px + 4 * (size_t)i + 4, &c, 4);
    }
    if (i < n) ic_enhance_rgba_color_row_c(px + 4 * (size_t)i, inv + i, n - i, b, scale);
}
#endif

