/* AVX2 horizontal resize kernels and int16-path row producers (scalar reference:
 * resize_h.c). Same integer arithmetic, so the same bits.
 *
 * RGBA (Pillow-SIMD's idea, laid out for two outputs per register): one 256-bit register
 * holds two output pixels, one per 128-bit lane, each lane reading its own window. Four
 * source pixels of a lane are shuffled into (c_t, c_t+1) int16 pairs per channel and
 * pmaddwd'ed with the plan's pre-replicated (w_t, w_t+1) pairs (ic_rs_geom.h4), which gives
 * the four channel sums with no horizontal reduction at the end.
 *
 * One channel: four outputs at a time, each 16 (then 8) taps per pmaddwd straight from the
 * row, reduced with two rounds of phaddd.
 *
 * Every window holds exactly h.n samples inside the row (the plan shifts windows left at
 * the right edge; h.fits), n is a multiple of 4 (RGBA) or 8 (one channel), so the loads
 * never leave the row. Outputs that do not fill a vector step go through the scalar code. */
#include "resize_internal.h"

#if IC_X86
#include <immintrin.h>

int ic_resize_h_avx2_supports(const ic_rs_geom *g) {
    if (!g->h.fits) return 0;
    if (g->ch == 4) return g->h.n % 4 == 0 && g->h4 != NULL;
    if (g->ch == 1) return g->h.n % 8 == 0;
    return 0;
}

/* ---- RGBA ----------------------------------------------------------------- */

/* Sums of four outputs over their windows: (x, x+1) in `a`, (x+2, x+3) in `b`, one output
 * per 128-bit lane. One loop for both pairs so the two dependency chains interleave. The
 * plan's h4 table holds, per output pair and tap pair, 32 bytes of replicated weights; pair
 * q's blocks start at cw + q * n / 2. u8 source: 4 pixels per 128-bit load. */
IC_TARGET_AVX2
static inline void rgba_u8_quad(const uint8_t *s0, const uint8_t *s1, const uint8_t *s2,
                                const uint8_t *s3, const __m256i *ca, const __m256i *cb,
                                int32_t n, __m256i *a, __m256i *b) {
    const __m256i lo = _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                                        0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const __m256i hi = _mm256_setr_epi8(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1,
                                        8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    __m256i b0 = _mm256_setzero_si256(), b1 = _mm256_setzero_si256();
    for (int32_t t = 0; t < n; t += 4, ca += 2, cb += 2) {
        __m256i pa = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s0 + 4 * t))),
            _mm_loadu_si128((const __m128i *)(s1 + 4 * t)), 1);
        __m256i pb = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s2 + 4 * t))),
            _mm_loadu_si128((const __m128i *)(s3 + 4 * t)), 1);
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, lo), _mm256_load_si256(ca)));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, hi), _mm256_load_si256(ca + 1)));
        b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, lo), _mm256_load_si256(cb)));
        b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, hi), _mm256_load_si256(cb + 1)));
    }
    *a = _mm256_add_epi32(a0, a1);
    *b = _mm256_add_epi32(b0, b1);
}

/* Same with a P7 (int16) source: two pixels per 128-bit load. */
IC_TARGET_AVX2
static inline void rgba_s16_quad(const int16_t *s0, const int16_t *s1, const int16_t *s2,
                                 const int16_t *s3, const __m256i *ca, const __m256i *cb,
                                 int32_t n, __m256i *a, __m256i *b) {
    const __m256i pairs = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                           0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    __m256i b0 = _mm256_setzero_si256(), b1 = _mm256_setzero_si256();
#define LOAD2(P, Q, OFF)                                                                      \
    _mm256_shuffle_epi8(_mm256_inserti128_si256(                                              \
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)((P) + 4 * t + (OFF)))),     \
        _mm_loadu_si128((const __m128i *)((Q) + 4 * t + (OFF))), 1), pairs)
    for (int32_t t = 0; t < n; t += 4, ca += 2, cb += 2) {
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(LOAD2(s0, s1, 0), _mm256_load_si256(ca)));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(LOAD2(s0, s1, 8), _mm256_load_si256(ca + 1)));
        b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(LOAD2(s2, s3, 0), _mm256_load_si256(cb)));
        b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(LOAD2(s2, s3, 8), _mm256_load_si256(cb + 1)));
    }
#undef LOAD2
    *a = _mm256_add_epi32(a0, a1);
    *b = _mm256_add_epi32(b0, b1);
}

#define RGBA_ROW(NAME, SRC_T, QUAD, SHIFT, SCALAR)                                            \
    IC_TARGET_AVX2                                                                            \
    static void NAME(const SRC_T *src, const ic_rs_geom *g, int16_t *dst) {                   \
        const ic_rs_axis *h = &g->h;                                                          \
        const int32_t n = h->n, out = g->out_w;                                               \
        const int32_t *st = h->start;                                                         \
        const __m256i round = _mm256_set1_epi32(1 << ((SHIFT) - 1));                        \
        const __m256i *cw = (const __m256i *)(const void *)g->h4;                             \
        const size_t pair_stride = (size_t)n / 2; /* 32-byte blocks per output pair */        \
        int32_t x = 0;                                                                        \
        for (; x + 4 <= out; x += 4) {                                                        \
            const __m256i *c = cw + (size_t)(x / 2) * pair_stride;                            \
            __m256i a, b;                                                                     \
            QUAD(src + (size_t)st[x] * 4, src + (size_t)st[x + 1] * 4,                        \
                 src + (size_t)st[x + 2] * 4, src + (size_t)st[x + 3] * 4,                    \
                 c, c + pair_stride, n, &a, &b);                                              \
            a = _mm256_srai_epi32(_mm256_add_epi32(a, round), SHIFT);                        \
            b = _mm256_srai_epi32(_mm256_add_epi32(b, round), SHIFT);                        \
            /* lanes (x, x+1), (x+2, x+3) -> packs -> (x, x+2 | x+1, x+3) -> reorder */      \
            __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);             \
            _mm256_storeu_si256((__m256i *)(dst + 4 * x), p);                                 \
        }                                                                                     \
        if (x < out) SCALAR(src, 4, h, x, out, dst);                                          \
    }

RGBA_ROW(rgba_u8_row, uint8_t, rgba_u8_quad, IC_RS_SHIFT_U8, ic_resize_h_u8_row_c)
RGBA_ROW(rgba_s16_row, int16_t, rgba_s16_quad, IC_RS_SHIFT_P7, ic_resize_h_s16_row_c)

/* ---- one channel ------------------------------------------------------------ */

IC_TARGET_AVX2
static inline __m256i gray_u8_one(const uint8_t *s, const int16_t *w, int32_t n) {
    __m256i acc = _mm256_setzero_si256();
    int32_t t = 0;
    for (; t + 16 <= n; t += 16)
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(
            _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s + t))),
            _mm256_loadu_si256((const __m256i *)(w + t))));
    if (t < n) { /* 8 more */
        __m128i v = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(s + t)));
        __m128i m = _mm_madd_epi16(v, _mm_loadu_si128((const __m128i *)(w + t)));
        acc = _mm256_add_epi32(acc, _mm256_zextsi128_si256(m));
    }
    return acc;
}

IC_TARGET_AVX2
static inline __m256i gray_s16_one(const int16_t *s, const int16_t *w, int32_t n) {
    __m256i acc = _mm256_setzero_si256();
    int32_t t = 0;
    for (; t + 16 <= n; t += 16)
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(
            _mm256_loadu_si256((const __m256i *)(s + t)),
            _mm256_loadu_si256((const __m256i *)(w + t))));
    if (t < n) {
        __m128i m = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(s + t)),
                                   _mm_loadu_si128((const __m128i *)(w + t)));
        acc = _mm256_add_epi32(acc, _mm256_zextsi128_si256(m));
    }
    return acc;
}

/* Four 8-lane sums -> one vector of the four totals. */
IC_TARGET_AVX2
static inline __m128i reduce4(__m256i a, __m256i b, __m256i c, __m256i d) {
    __m128i a4 = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    __m128i b4 = _mm_add_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
    __m128i c4 = _mm_add_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
    __m128i d4 = _mm_add_epi32(_mm256_castsi256_si128(d), _mm256_extracti128_si256(d, 1));
    return _mm_hadd_epi32(_mm_hadd_epi32(a4, b4), _mm_hadd_epi32(c4, d4));
}

#define GRAY_ROW(NAME, SRC_T, ONE, SHIFT, SCALAR)                                             \
    IC_TARGET_AVX2                                                                            \
    static void NAME(const SRC_T *src, const ic_rs_geom *g, int16_t *dst) {                   \
        const ic_rs_axis *h = &g->h;                                                          \
        const int32_t n = h->n, out = g->out_w;                                               \
        const __m128i round = _mm_set1_epi32(1 << ((SHIFT) - 1));                            \
        int32_t x = 0;                                                                        \
        for (; x + 4 <= out; x += 4) {                                                        \
            const int16_t *w = h->w + (size_t)x * (size_t)n;                                  \
            __m128i s = reduce4(ONE(src + h->start[x], w, n),                                 \
                                ONE(src + h->start[x + 1], w + n, n),                         \
                                ONE(src + h->start[x + 2], w + 2 * n, n),                     \
                                ONE(src + h->start[x + 3], w + 3 * n, n));                    \
            s = _mm_srai_epi32(_mm_add_epi32(s, round), SHIFT);                               \
            _mm_storel_epi64((__m128i *)(dst + x), _mm_packs_epi32(s, s));                    \
        }                                                                                     \
        if (x < out) SCALAR(src, 1, h, x, out, dst);                                          \
    }

GRAY_ROW(gray_u8_row, uint8_t, gray_u8_one, IC_RS_SHIFT_U8, ic_resize_h_u8_row_c)
GRAY_ROW(gray_s16_row, int16_t, gray_s16_one, IC_RS_SHIFT_P7, ic_resize_h_s16_row_c)

void ic_resize_h_u8_row_avx2(const uint8_t *src, const ic_rs_geom *g, int16_t *dst) {
    if (g->ch == 4) rgba_u8_row(src, g, dst);
    else if (g->ch == 1) gray_u8_row(src, g, dst);
    else ic_resize_h_u8_row_c(src, g->ch, &g->h, 0, g->out_w, dst);
}

void ic_resize_h_s16_row_avx2(const int16_t *src, const ic_rs_geom *g, int16_t *dst) {
    if (g->ch == 4) rgba_s16_row(src, g, dst);
    else if (g->ch == 1) gray_s16_row(src, g, dst);
    else ic_resize_h_s16_row_c(src, g->ch, &g->h, 0, g->out_w, dst);
}

/* ---- int16-path producers ---------------------------------------------------- */

/* Four RGBA pixels (16 int16) -> P7 (see ic_resize_premul_row_c for the formula). */
IC_TARGET_AVX2
static inline __m256i premul4(__m128i px) {
    __m256i v = _mm256_cvtepu8_epi16(px);
    __m256i a = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(v, 0xFF), 0xFF);
    __m256i t = _mm256_mullo_epi16(v, a); /* c * a <= 65025: exact as u16 */
    const __m256i k = _mm256_set1_epi32(32896), half = _mm256_set1_epi32(32768);
    __m256i y0 = _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(t)), k);
    __m256i y1 = _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(t, 1)), k);
    y0 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(y0, _mm256_srli_epi32(y0, 16)), half), 16);
    y1 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(y1, _mm256_srli_epi32(y1, 16)), half), 16);
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(y0, y1), 0xD8);
    /* alpha channel: a << 7 */
    return _mm256_blend_epi16(p, _mm256_slli_epi16(v, 7), 0x88);
}

IC_TARGET_AVX2
void ic_resize_premul_row_avx2(const uint8_t *rgba, int32_t pixels, int16_t *dst) {
    int32_t i = 0;
    for (; i + 4 <= pixels; i += 4)
        _mm256_storeu_si256((__m256i *)(dst + 4 * i), premul4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i))));
    if (i < pixels) ic_resize_premul_row_c(rgba + 4 * i, pixels - i, dst + 4 * i);
}

IC_TARGET_AVX2
void ic_resize_box_add_u8_avx2(const uint8_t *src, int32_t n, int32_t first, uint32_t *acc) {
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i));
        __m256i lo = _mm256_cvtepu8_epi32(b), hi = _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8));
        if (!first) {
            lo = _mm256_add_epi32(lo, _mm256_loadu_si256((const __m256i *)(acc + i)));
            hi = _mm256_add_epi32(hi, _mm256_loadu_si256((const __m256i *)(acc + i + 8)));
        }
        _mm256_storeu_si256((__m256i *)(acc + i), lo);
        _mm256_storeu_si256((__m256i *)(acc + i + 8), hi);
    }
    if (i < n) ic_resize_box_add_u8_c(src + i, n - i, first, acc + i);
}

IC_TARGET_AVX2
void ic_resize_box_add_s16_avx2(const int16_t *src, int32_t n, int32_t first, uint32_t *acc) {
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));
        if (!first) v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(acc + i)));
        _mm256_storeu_si256((__m256i *)(acc + i), v);
    }
    if (i < n) ic_resize_box_add_s16_c(src + i, n - i, first, acc + i);
}

IC_TARGET_AVX2
void ic_resize_box_finish_avx2(const uint32_t *acc, int32_t n, uint32_t mult, int32_t shift,
                               int16_t *dst) {
    const __m256i m = _mm256_set1_epi64x((int64_t)mult);
    const __m256i round = _mm256_set1_epi64x((int64_t)1 << (shift - 1));
    const __m128i count = _mm_cvtsi32_si128(shift);
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r[2];
        for (int k = 0; k < 2; k++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(acc + i + 8 * k));
            __m256i even = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(v, m), round), count);
            __m256i odd = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(v, 32), m), round), count);
            r[k] = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
        }
        __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(dst + i), p);
    }
    if (i < n) ic_resize_box_finish_c(acc + i, n - i, mult, shift, dst + i);
}

#endif
