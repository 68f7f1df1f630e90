/* Row kernels of the JPEG codec: U/V interleave (NV12 decode) and de-interleave (NV12
 * encode), and CMYK to RGB/RGBA/gray. Scalar references first; the interleave pair has
 * SSE2 and AVX2 versions chosen once per call from the call's settings snapshot. */
#include "jpeg_internal.h"

#if IC_X86
#include <immintrin.h>
/* SSE2 is baseline on x86-64; the attribute keeps 32-bit builds compiling without -msse2. */
#define JPEG_TARGET_SSE2 __attribute__((target("sse2")))
#endif

/* ---- U, V <-> UV ---------------------------------------------------------------- */

void ic_jpeg_interleave_uv_row_c(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uv[2 * i] = u[i];
        uv[2 * i + 1] = v[i];
    }
}

void ic_jpeg_deinterleave_uv_row_c(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        u[i] = uv[2 * i];
        v[i] = uv[2 * i + 1];
    }
}

#if IC_X86
JPEG_TARGET_SSE2 static void interleave_sse2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(u + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(v + i));
        _mm_storeu_si128((__m128i *)(uv + 2 * i), _mm_unpacklo_epi8(a, b));
        _mm_storeu_si128((__m128i *)(uv + 2 * i + 16), _mm_unpackhi_epi8(a, b));
    }
    ic_jpeg_interleave_uv_row_c(u + i, v + i, uv + 2 * i, n - i);
}

IC_TARGET_AVX2 static void interleave_avx2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(u + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(v + i));
        __m256i lo = _mm256_unpacklo_epi8(a, b); /* pairs 0-7 | 16-23 */
        __m256i hi = _mm256_unpackhi_epi8(a, b); /* pairs 8-15 | 24-31 */
        _mm256_storeu_si256((__m256i *)(uv + 2 * i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(uv + 2 * i + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    interleave_sse2(u + i, v + i, uv + 2 * i, n - i);
}

JPEG_TARGET_SSE2 static void deinterleave_sse2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    size_t i = 0;
    const __m128i low = _mm_set1_epi16(0x00FF);
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(uv + 2 * i));
        __m128i b = _mm_loadu_si128((const __m128i *)(uv + 2 * i + 16));
        _mm_storeu_si128((__m128i *)(u + i), _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
        _mm_storeu_si128((__m128i *)(v + i), _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
    }
    ic_jpeg_deinterleave_uv_row_c(uv + 2 * i, u + i, v + i, n - i);
}

IC_TARGET_AVX2 static void deinterleave_avx2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    size_t i = 0;
    const __m256i low = _mm256_set1_epi16(0x00FF);
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(uv + 2 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(uv + 2 * i + 32));
        /* packus works per 128-bit lane: fix the order with a 64-bit permute. */
        __m256i pu = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
        __m256i pv = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
        _mm256_storeu_si256((__m256i *)(u + i), _mm256_permute4x64_epi64(pu, 0xD8));
        _mm256_storeu_si256((__m256i *)(v + i), _mm256_permute4x64_epi64(pv, 0xD8));
    }
    deinterleave_sse2(uv + 2 * i, u + i, v + i, n - i);
}
#endif

ic_uv_row_fn ic__jpeg_pick_interleave(void) {
#if IC_X86
    const uint32_t f = ic__settings_read().cpu; /* the call's one read */
    if (f & IC_CPU_AVX2) return interleave_avx2;
    if (f & IC_CPU_SSE2) return interleave_sse2;
#endif
    return ic_jpeg_interleave_uv_row_c;
}

ic_uv_split_fn ic__jpeg_pick_deinterleave(void) {
#if IC_X86
    const uint32_t f = ic__settings_read().cpu; /* the call's one read */
    if (f & IC_CPU_AVX2) return deinterleave_avx2;
    if (f & IC_CPU_SSE2) return deinterleave_sse2;
#endif
    return ic_jpeg_deinterleave_uv_row_c;
}

/* ---- chroma to 4:2:0 -------------------------------------------------------------------- */

void ic_jpeg_chroma420_row_c(const uint8_t *a, const uint8_t *b, uint8_t *out, int32_t x0, int32_t n,
                             int rh, int32_t width) {
    if (rh == 2) { /* 4:2:2: the samples are already at 4:2:0 columns */
        for (int32_t i = 0; i < n; i++) out[i] = (uint8_t)((a[x0 + i] + b[x0 + i] + 1) >> 1);
    } else if (rh == 4) { /* 4:1:1: each sample covers two 4:2:0 columns */
        for (int32_t i = 0; i < n; i++) out[i] = (uint8_t)((a[(x0 + i) / 2] + b[(x0 + i) / 2] + 1) >> 1);
    } else { /* full-width chroma: 2x2 (4:4:4; for 4:4:0 a == b, the pair mean) */
        int32_t full = n;
        if (2 * (x0 + n - 1) + 1 >= width) full = n - 1; /* odd width: the last pair is one sample */
        for (int32_t i = 0; i < full; i++) {
            const int32_t x = 2 * (x0 + i);
            out[i] = (uint8_t)((a[x] + a[x + 1] + b[x] + b[x + 1] + 2) >> 2);
        }
        if (full < n) {
            const int32_t x = 2 * (x0 + full);
            out[full] = (uint8_t)((2 * a[x] + 2 * b[x] + 2) >> 2);
        }
    }
}

/* ---- CMYK ---------------------------------------------------------------------------- */

/* round(x / 255) for 0 <= x <= 255 * 255, exactly (no ties: 255 is odd). */
static inline uint32_t div255(uint32_t x) {
    x += 128;
    return (x + (x >> 8)) >> 8;
}

void ic_jpeg_cmyk_row_c(const uint8_t *cmyk, uint8_t *dst, size_t n, int channels, int inverted) {
    /* Adobe files store 255 - ink; others store ink. Either way "amount of light" is c' k'. */
    const uint32_t flip = inverted ? 0 : 255;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = cmyk + 4 * i;
        const uint32_t k = flip ^ s[3];
        const uint32_t r = div255((flip ^ s[0]) * k);
        const uint32_t g = div255((flip ^ s[1]) * k);
        const uint32_t b = div255((flip ^ s[2]) * k);
        if (channels == 1) {
            dst[i] = (uint8_t)((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
        } else {
            uint8_t *d = dst + (size_t)channels * i;
            d[0] = (uint8_t)r;
            d[1] = (uint8_t)g;
            d[2] = (uint8_t)b;
            if (channels == 4) d[3] = 255;
        }
    }
}
