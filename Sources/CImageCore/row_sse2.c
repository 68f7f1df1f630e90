/* SSE2 kernels of the row layer (row.h): the UV pair shuffles, 16 pairs a step. SSE2 is
 * baseline on x86-64; the target attribute keeps 32-bit builds compiling without -msse2. */
#include "row.h"

#if IC_X86
#include <immintrin.h>

#define IC_TARGET_SSE2 __attribute__((target("sse2")))

IC_TARGET_SSE2 void ic_row_merge_uv_sse2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        _mm_storeu_si128((__m128i *)(void *)(uv + 2 * i), _mm_unpacklo_epi8(a, b));
        _mm_storeu_si128((__m128i *)(void *)(uv + 2 * i + 16), _mm_unpackhi_epi8(a, b));
    }
    ic_row_merge_uv_c(u + i, v + i, uv + 2 * i, n - i);
}

IC_TARGET_SSE2 void ic_row_split_uv_sse2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    size_t i = 0;
    const __m128i low = _mm_set1_epi16(0x00FF);
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(uv + 2 * i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(uv + 2 * i + 16));
        _mm_storeu_si128((__m128i *)(void *)(u + i), _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
        _mm_storeu_si128((__m128i *)(void *)(v + i), _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
    }
    ic_row_split_uv_c(uv + 2 * i, u + i, v + i, n - i);
}
#endif
