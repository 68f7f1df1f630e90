/* AVX2 row kernels of the channel conversions (target attribute + run-time dispatch in
 * channels.c; to GRAY8 the driver uses the row layer's luma). 16 pixels per step, byte
 * shuffles within 128-bit lanes; the remaining pixels go to the scalar reference, so
 * results are identical to it bit for bit. Every step reads and writes exactly its own 16
 * pixels' bytes: nothing past the row. */
#include "channels_internal.h"
#include "row_x86.h"

#if IC_X86
#include <immintrin.h>

#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

IC_TARGET_AVX2 void ic_channels_row_avx2(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n) {
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
            ic__load_rgb16(s + 3 * (size_t)x, q);
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
    }
    if (x < n) ic_channels_row_c(s + (size_t)x * (size_t)sc, sc, d + (size_t)x * (size_t)dc, dc, n - x);
}

#endif
