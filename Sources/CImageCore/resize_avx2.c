/* AVX2 horizontal resize kernels and int16-path row producers (scalar reference:
 * resize_rows.c). Same integer arithmetic, so the same bits.
 *
 * RGBA (Pillow-SIMD's idea, laid out for two outputs per register): one 256-bit register
 * holds two output pixels, one per 128-bit lane, each lane reading its own window. Four
 * source pixels of a lane are shuffled into (c_t, c_t+1) int16 pairs per channel and
 * pmaddwd'ed with the plan's pre-replicated (w_t, w_t+1) pairs (ic_rs_geom.h4), which gives
 * the four channel sums with no horizontal reduction at the end.
 *
 * RGB uses the same scheme with 3-byte pixels; NV12's UV pairs one output per lane with 8
 * taps per step (table h2). One channel: four outputs at a time, each 16 (then 8) taps per
 * pmaddwd straight from the row, reduced with two rounds of phaddd.
 *
 * Every window holds exactly h.n samples inside the row (the plan shifts windows left at
 * the right edge; h.fits), n is a multiple of 4 (RGBA) or 8 (one channel), so the loads
 * never leave the row. Outputs that do not fill a vector step go through the scalar code. */
#include "resize_internal.h"

#if IC_X86
#include <immintrin.h>

int ic_resize_h_avx2_supports(const ic_rs_geom *g) {
    if (!g->h.fits) return 0;
    switch (g->ch) {
    case 4:
    case 3: return g->h.n % 4 == 0 && g->h4 != NULL;
    case 2: return g->h.n % 8 == 0 && g->h2 != NULL;
    default: return g->h.n % 8 == 0;
    }
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

/* The next row's line at the position of the quad's last window (see ahead). */
#define PREFETCH_AHEAD(P)                                                                     \
    if (ahead) _mm_prefetch((const char *)(P) + ahead, _MM_HINT_T1)

#define RGBA_ROW(NAME, SRC_T, QUAD, SHIFT, SCALAR)                                            \
    IC_TARGET_AVX2                                                                            \
    static void NAME(const SRC_T *src, const ic_rs_geom *g, int16_t *dst, size_t ahead) {     \
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
            PREFETCH_AHEAD(src + (size_t)st[x + 3] * 4);                                      \
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

/* ---- RGB ------------------------------------------------------------------ */

/* As rgba_u8_quad with 3-byte pixels: a 128-bit load covers 4 pixels (12 bytes) and 4 bytes
 * more, which the shuffles ignore; the caller runs it only where those 4 bytes are still
 * inside the row. The weights are the RGBA table (pairs x 4); the 4th products are 0. */
IC_TARGET_AVX2
static inline void rgb_u8_quad(const uint8_t *s0, const uint8_t *s1, const uint8_t *s2,
                               const uint8_t *s3, const __m256i *ca, const __m256i *cb,
                               int32_t n, __m256i *a, __m256i *b) {
    const __m256i lo = _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
                                        0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m256i hi = _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1,
                                        6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, b0 = a0, b1 = a0;
    for (int32_t t = 0; t < n; t += 4, ca += 2, cb += 2) {
        __m256i pa = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s0 + 3 * t))),
            _mm_loadu_si128((const __m128i *)(s1 + 3 * t)), 1);
        __m256i pb = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s2 + 3 * t))),
            _mm_loadu_si128((const __m128i *)(s3 + 3 * t)), 1);
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, lo), _mm256_load_si256(ca)));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, hi), _mm256_load_si256(ca + 1)));
        b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, lo), _mm256_load_si256(cb)));
        b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, hi), _mm256_load_si256(cb + 1)));
    }
    *a = _mm256_add_epi32(a0, a1);
    *b = _mm256_add_epi32(b0, b1);
}

IC_TARGET_AVX2
static void rgb_u8_row(const uint8_t *src, const ic_rs_geom *g, int16_t *dst, size_t ahead) {
    const ic_rs_axis *h = &g->h;
    const int32_t n = h->n, out = g->out_w, in = g->in_w;
    const int32_t *st = h->start;
    const __m256i round = _mm256_set1_epi32(1 << (IC_RS_SHIFT_U8 - 1));
    const __m256i *cw = (const __m256i *)(const void *)g->h4;
    const size_t pair_stride = (size_t)n / 2;
    /* drop the 4th (zero) value of each output: RGB0 RGB0 -> RGBRGB per 128-bit lane */
    const __m128i pack = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
    int32_t x = 0;
    /* Starts grow with x: stop at the first quad whose last load would leave the row
     * (3 * (start + n) + 4 > 3 * in, i.e. start + n + 2 > in). */
    for (; x + 4 <= out && st[x + 3] + n + 2 <= in; x += 4) {
        const __m256i *c = cw + (size_t)(x / 2) * pair_stride;
        __m256i a, b;
        PREFETCH_AHEAD(src + (size_t)st[x + 3] * 3);
        rgb_u8_quad(src + (size_t)st[x] * 3, src + (size_t)st[x + 1] * 3, src + (size_t)st[x + 2] * 3,
                    src + (size_t)st[x + 3] * 3, c, c + pair_stride, n, &a, &b);
        a = _mm256_srai_epi32(_mm256_add_epi32(a, round), IC_RS_SHIFT_U8);
        b = _mm256_srai_epi32(_mm256_add_epi32(b, round), IC_RS_SHIFT_U8);
        __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8); /* x, x+1 | x+2, x+3 */
        __m128i l0 = _mm_shuffle_epi8(_mm256_castsi256_si128(p), pack);
        __m128i l1 = _mm_shuffle_epi8(_mm256_extracti128_si256(p, 1), pack);
        int16_t *d = dst + 3 * x;
        _mm_storel_epi64((__m128i *)d, l0);
        *(int32_t *)(void *)(d + 4) = _mm_extract_epi32(l0, 2);
        _mm_storel_epi64((__m128i *)(d + 6), l1);
        *(int32_t *)(void *)(d + 10) = _mm_extract_epi32(l1, 2);
    }
    if (x < out) ic_resize_h_u8_row_c(src, 3, &g->h, x, out, dst);
}

/* ---- two channels (NV12 UV) -------------------------------------------------- */

/* One output per 128-bit lane, 8 taps (16 bytes: u0 v0 u1 v1 ...) per step, shuffled to
 * (u0 u1 v0 v1 u2 u3 v2 v3) int16 and pmaddwd'ed with the plan's h2 table
 * (w0 w1 w0 w1 w2 w3 w2 w3 per 4 taps); the lane's (U, V, U, V) partial sums are folded at
 * the end. Windows hold exactly n samples (n % 8 == 0): no load leaves them. */
IC_TARGET_AVX2
static void uv_u8_row(const uint8_t *src, const ic_rs_geom *g, int16_t *dst, size_t ahead) {
    const ic_rs_axis *h = &g->h;
    const int32_t n = h->n, out = g->out_w;
    const int32_t *st = h->start;
    const __m256i lo = _mm256_setr_epi8(0, -1, 2, -1, 1, -1, 3, -1, 4, -1, 6, -1, 5, -1, 7, -1,
                                        0, -1, 2, -1, 1, -1, 3, -1, 4, -1, 6, -1, 5, -1, 7, -1);
    const __m256i hi = _mm256_setr_epi8(8, -1, 10, -1, 9, -1, 11, -1, 12, -1, 14, -1, 13, -1, 15, -1,
                                        8, -1, 10, -1, 9, -1, 11, -1, 12, -1, 14, -1, 13, -1, 15, -1);
    const __m256i round = _mm256_set1_epi32(1 << (IC_RS_SHIFT_U8 - 1));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i *cw = (const __m256i *)(const void *)g->h2;
    const size_t pair_stride = (size_t)n / 4; /* 32-byte blocks per output pair */
    int32_t x = 0;
    for (; x + 4 <= out; x += 4) {
        const uint8_t *s0 = src + (size_t)st[x] * 2, *s1 = src + (size_t)st[x + 1] * 2;
        const uint8_t *s2 = src + (size_t)st[x + 2] * 2, *s3 = src + (size_t)st[x + 3] * 2;
        const __m256i *ca = cw + (size_t)(x / 2) * pair_stride, *cb = ca + pair_stride;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, b0 = a0, b1 = a0;
        PREFETCH_AHEAD(s3);
        for (int32_t t = 0; t < n; t += 8, ca += 2, cb += 2) {
            __m256i pa = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s0 + 2 * t))),
                _mm_loadu_si128((const __m128i *)(s1 + 2 * t)), 1);
            __m256i pb = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s2 + 2 * t))),
                _mm_loadu_si128((const __m128i *)(s3 + 2 * t)), 1);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, lo), _mm256_load_si256(ca)));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_shuffle_epi8(pa, hi), _mm256_load_si256(ca + 1)));
            b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, lo), _mm256_load_si256(cb)));
            b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(_mm256_shuffle_epi8(pb, hi), _mm256_load_si256(cb + 1)));
        }
        __m256i a = _mm256_add_epi32(a0, a1), b = _mm256_add_epi32(b0, b1);
        a = _mm256_add_epi32(a, _mm256_shuffle_epi32(a, 0x4E)); /* (U V U V) per lane */
        b = _mm256_add_epi32(b, _mm256_shuffle_epi32(b, 0x4E));
        __m256i c = _mm256_unpacklo_epi64(a, b);                /* x, x+2 | x+1, x+3 */
        c = _mm256_srai_epi32(_mm256_add_epi32(c, round), IC_RS_SHIFT_U8);
        c = _mm256_permutevar8x32_epi32(_mm256_packs_epi32(c, c), order);
        _mm_storeu_si128((__m128i *)(dst + 2 * x), _mm256_castsi256_si128(c));
    }
    if (x < out) ic_resize_h_u8_row_c(src, 2, &g->h, x, out, dst);
}

/* ---- one channel ------------------------------------------------------------ */

/* One channel: four outputs (windows s0..s3, weights w, w + n, ...) in one loop, 16 taps per
 * pmaddwd, then 8 if n is not a multiple of 16. LOAD16 / LOAD8 turn 16 / 8 source samples
 * into int16 (zero-extending u8, or loading int16 as is). */
#define GRAY_QUAD(NAME, SRC_T, LOAD16, LOAD8)                                                 \
    IC_TARGET_AVX2                                                                            \
    static inline __m128i NAME(const SRC_T *s0, const SRC_T *s1, const SRC_T *s2,             \
                               const SRC_T *s3, const int16_t *w, int32_t n) {                \
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;                       \
        int32_t t = 0;                                                                        \
        for (; t + 16 <= n; t += 16) {                                                        \
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(LOAD16(s0 + t), _mm256_loadu_si256((const __m256i *)(w + t)))); \
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(LOAD16(s1 + t), _mm256_loadu_si256((const __m256i *)(w + n + t)))); \
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(LOAD16(s2 + t), _mm256_loadu_si256((const __m256i *)(w + 2 * n + t)))); \
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(LOAD16(s3 + t), _mm256_loadu_si256((const __m256i *)(w + 3 * n + t)))); \
        }                                                                                     \
        __m128i b0 = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1)); \
        __m128i b1 = _mm_add_epi32(_mm256_castsi256_si128(a1), _mm256_extracti128_si256(a1, 1)); \
        __m128i b2 = _mm_add_epi32(_mm256_castsi256_si128(a2), _mm256_extracti128_si256(a2, 1)); \
        __m128i b3 = _mm_add_epi32(_mm256_castsi256_si128(a3), _mm256_extracti128_si256(a3, 1)); \
        if (t < n) { /* 8 more */                                                             \
            b0 = _mm_add_epi32(b0, _mm_madd_epi16(LOAD8(s0 + t), _mm_loadu_si128((const __m128i *)(w + t)))); \
            b1 = _mm_add_epi32(b1, _mm_madd_epi16(LOAD8(s1 + t), _mm_loadu_si128((const __m128i *)(w + n + t)))); \
            b2 = _mm_add_epi32(b2, _mm_madd_epi16(LOAD8(s2 + t), _mm_loadu_si128((const __m128i *)(w + 2 * n + t)))); \
            b3 = _mm_add_epi32(b3, _mm_madd_epi16(LOAD8(s3 + t), _mm_loadu_si128((const __m128i *)(w + 3 * n + t)))); \
        }                                                                                     \
        return _mm_hadd_epi32(_mm_hadd_epi32(b0, b1), _mm_hadd_epi32(b2, b3));               \
    }

#define U8_16(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p)))
#define U8_8(p) _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(p)))
#define S16_16(p) _mm256_loadu_si256((const __m256i *)(p))
#define S16_8(p) _mm_loadu_si128((const __m128i *)(p))
GRAY_QUAD(gray_u8_quad, uint8_t, U8_16, U8_8)
GRAY_QUAD(gray_s16_quad, int16_t, S16_16, S16_8)

#define GRAY_ROW(NAME, SRC_T, QUAD, SHIFT, SCALAR)                                            \
    IC_TARGET_AVX2                                                                            \
    static void NAME(const SRC_T *src, const ic_rs_geom *g, int16_t *dst, size_t ahead) {     \
        const ic_rs_axis *h = &g->h;                                                          \
        const int32_t n = h->n, out = g->out_w;                                               \
        const int32_t *st = h->start;                                                         \
        const __m128i round = _mm_set1_epi32(1 << ((SHIFT) - 1));                            \
        int32_t x = 0;                                                                        \
        for (; x + 4 <= out; x += 4) {                                                        \
            if ((x & 15) == 0) PREFETCH_AHEAD(src + st[x + 3]); /* a line per 16 outputs */   \
            __m128i s = QUAD(src + st[x], src + st[x + 1], src + st[x + 2], src + st[x + 3],  \
                             h->w + (size_t)x * (size_t)n, n);                                \
            s = _mm_srai_epi32(_mm_add_epi32(s, round), SHIFT);                               \
            _mm_storel_epi64((__m128i *)(dst + x), _mm_packs_epi32(s, s));                    \
        }                                                                                     \
        if (x < out) SCALAR(src, 1, h, x, out, dst);                                          \
    }

GRAY_ROW(gray_u8_row, uint8_t, gray_u8_quad, IC_RS_SHIFT_U8, ic_resize_h_u8_row_c)
GRAY_ROW(gray_s16_row, int16_t, gray_s16_quad, IC_RS_SHIFT_P7, ic_resize_h_s16_row_c)

void ic_resize_h_u8_row_avx2(const uint8_t *src, const ic_rs_geom *g, int16_t *dst,
                             size_t ahead) {
    switch (g->ch) {
    case 4: rgba_u8_row(src, g, dst, ahead); break;
    case 3: rgb_u8_row(src, g, dst, ahead); break;
    case 2: uv_u8_row(src, g, dst, ahead); break;
    default: gray_u8_row(src, g, dst, ahead); break;
    }
}

/* P7 rows of two or three channels (pre-reduced NV12 chroma or RGB) take the scalar path. */
void ic_resize_h_s16_row_avx2(const int16_t *src, const ic_rs_geom *g, int16_t *dst) {
    if (g->ch == 4) rgba_s16_row(src, g, dst, 0);
    else if (g->ch == 1) gray_s16_row(src, g, dst, 0);
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

IC_TARGET_AVX2
void ic_resize_box_rows_u8_avx2(const uint8_t *src, size_t stride, int32_t rows, int32_t n,
                                uint32_t m, int16_t *dst) {
    const __m256i mv = _mm256_set1_epi32((int32_t)m), round = _mm256_set1_epi32(65536);
    int32_t i = 0;
    if (rows <= 128 && (rows & (rows - 1)) == 0) {
        /* rows = 2^j: m = 2^(24-j) and (sum * 2^(24-j) + 2^16) >> 17 == sum << (7-j) exactly
         * (the rounding term is below the 17-bit shift), with sum << (7-j) <= 32640. */
        int32_t j = 0;
        while ((1 << j) < rows) j++;
        const __m128i sh = _mm_cvtsi32_si128(7 - j);
        for (; i + 32 <= n; i += 32) {
            __m256i a = _mm256_setzero_si256(), b = a;
            const uint8_t *p = src + i;
            for (int32_t r = 0; r < rows; r++, p += stride) {
                a = _mm256_add_epi16(a, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p)));
                b = _mm256_add_epi16(b, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p + 16))));
            }
            _mm256_storeu_si256((__m256i *)(dst + i), _mm256_sll_epi16(a, sh));
            _mm256_storeu_si256((__m256i *)(dst + i + 16), _mm256_sll_epi16(b, sh));
        }
    }
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_setzero_si256(), b = a;
        const uint8_t *p = src + i;
        for (int32_t r = 0; r < rows; r++, p += stride) { /* u16 sums: rows <= 257 */
            a = _mm256_add_epi16(a, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p)));
            b = _mm256_add_epi16(b, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p + 16))));
        }
        __m256i s[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(s[k]));
            __m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(s[k], 1));
            lo = _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(lo, mv), round), 17);
            hi = _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hi, mv), round), 17);
            _mm256_storeu_si256((__m256i *)(dst + i + 16 * k),
                                _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8));
        }
    }
    if (i < n) ic_resize_box_rows_u8_c(src + i, stride, rows, n - i, m, dst + i);
}

#endif

/* ---- vertical ----------------------------------------------------------------------------
 *
 * The vertical pass does not care about channels: a row is out_w * ch int16 values. For a
 * block of 64 values (then 16) it keeps 8 (2) int32 accumulators in registers and adds all
 * the window's rows into them, two rows per pmaddwd: the two rows' values interleaved with
 * unpacklo/hi times the plan's precomputed weight pair (w[t], w[t+1]) broadcast; an odd last
 * row is paired with zeros. Each intermediate value is loaded once per output row and
 * nothing is written until the block is final. */

#if IC_X86
#include <immintrin.h>

/* acc[2b], acc[2b+1] += the rows' values [e + 16b, e + 16b + 16) times their weights, for
 * blocks b < BLOCKS. */
#define V_ACCUMULATE(BLOCKS)                                                                  \
    {                                                                                         \
        int32_t t = 0;                                                                        \
        for (; t + 2 <= count; t += 2) {                                                      \
            const __m256i wv = _mm256_set1_epi32(wp[t / 2]);                                  \
            const int16_t *r0 = rows[t] + e, *r1 = rows[t + 1] + e;                           \
            for (int32_t b = 0; b < (BLOCKS); b++) {                                          \
                __m256i a = _mm256_loadu_si256((const __m256i *)(r0 + 16 * b));               \
                __m256i c = _mm256_loadu_si256((const __m256i *)(r1 + 16 * b));               \
                acc[2 * b] = _mm256_add_epi32(acc[2 * b], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, c), wv)); \
                acc[2 * b + 1] = _mm256_add_epi32(acc[2 * b + 1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, c), wv)); \
            }                                                                                 \
        }                                                                                     \
        if (t < count) { /* odd last row: pair (w, 0) with zeros */                           \
            const __m256i wv = _mm256_set1_epi32(wp[t / 2]);                                  \
            const int16_t *r0 = rows[t] + e;                                                  \
            const __m256i z = _mm256_setzero_si256();                                         \
            for (int32_t b = 0; b < (BLOCKS); b++) {                                          \
                __m256i a = _mm256_loadu_si256((const __m256i *)(r0 + 16 * b));               \
                acc[2 * b] = _mm256_add_epi32(acc[2 * b], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, z), wv)); \
                acc[2 * b + 1] = _mm256_add_epi32(acc[2 * b + 1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, z), wv)); \
            }                                                                                 \
        }                                                                                     \
    }

/* 32 int32 accumulators (16 values, unpacklo/hi order) -> 16 saturated bytes in order. */
IC_TARGET_AVX2
static inline __m128i to_u8_16(__m256i lo, __m256i hi) {
    __m256i p = _mm256_packs_epi32(_mm256_srai_epi32(lo, IC_RS_SHIFT_V), _mm256_srai_epi32(hi, IC_RS_SHIFT_V));
    /* unpacklo/hi split a lane's values 0-3 / 4-7; packs puts them back in order */
    __m256i u = _mm256_permute4x64_epi64(_mm256_packus_epi16(p, p), 0xD8);
    return _mm256_castsi256_si128(u);
}

IC_TARGET_AVX2
void ic_resize_v_row_avx2(const int16_t *const *rows, const int16_t *w, const int32_t *wp,
                          int32_t count, int32_t elems, uint8_t *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (IC_RS_SHIFT_V - 1));
    int32_t e = 0;
    for (; e + 64 <= elems; e += 64) {
        __m256i acc[8] = {round, round, round, round, round, round, round, round};
        V_ACCUMULATE(4)
        for (int32_t b = 0; b < 4; b++)
            _mm_storeu_si128((__m128i *)(dst + e + 16 * b), to_u8_16(acc[2 * b], acc[2 * b + 1]));
    }
    for (; e + 16 <= elems; e += 16) {
        __m256i acc[2] = {round, round};
        V_ACCUMULATE(1)
        _mm_storeu_si128((__m128i *)(dst + e), to_u8_16(acc[0], acc[1]));
    }
    if (e < elems) ic_resize_v_row_c(rows, w, count, e, elems, dst);
}

/* Linear light: the same sums to L16, (sum + 2^11) >> 12 clamped to 0 ... 65280. */
IC_TARGET_AVX2
void ic_resize_v_u16_row_avx2(const int16_t *const *rows, const int16_t *w, const int32_t *wp,
                              int32_t count, int32_t elems, uint16_t *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (IC_RS_SHIFT_V8 - 1));
    const __m256i max = _mm256_set1_epi16((int16_t)IC_RS_LINEAR_MAX);
    int32_t e = 0;
    for (; e + 16 <= elems; e += 16) {
        __m256i acc[2] = {round, round};
        V_ACCUMULATE(1)
        /* unpacklo/hi hold a lane's values 0-3 / 4-7; packus puts them back in order and
         * saturates to 0 ... 65535 */
        __m256i u = _mm256_packus_epi32(_mm256_srai_epi32(acc[0], IC_RS_SHIFT_V8),
                                        _mm256_srai_epi32(acc[1], IC_RS_SHIFT_V8));
        _mm256_storeu_si256((__m256i *)(dst + e), _mm256_min_epu16(u, max));
    }
    if (e < elems) ic_resize_v_u16_row_c(rows, w, count, e, elems, dst);
}

/* Two RGBA pixels (one per lane) with 8 fractional bits -> un-premultiplied int32
 * [c, c, c, alpha] per lane, exactly as ic__rs_unpremul. */
IC_TARGET_AVX2
static inline __m256i unpremul2(__m256i v) {
    const __m256i a8 = _mm256_shuffle_epi32(v, 0xFF);
    __m256i alpha = _mm256_srai_epi32(_mm256_add_epi32(a8, _mm256_set1_epi32(128)), 8);
    alpha = _mm256_min_epi32(_mm256_max_epi32(alpha, _mm256_setzero_si256()), _mm256_set1_epi32(255));
    __m256i c8 = _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), a8);
    __m256 num = _mm256_mul_ps(_mm256_cvtepi32_ps(c8), _mm256_set1_ps(255.0f));
    __m256 q = _mm256_div_ps(num, _mm256_cvtepi32_ps(a8));
    q = _mm256_add_ps(q, _mm256_set1_ps(0.5f));
    __m256i c = _mm256_min_epi32(_mm256_cvttps_epi32(q), _mm256_set1_epi32(255));
    c = _mm256_and_si256(c, _mm256_cmpgt_epi32(alpha, _mm256_setzero_si256()));
    return _mm256_blend_epi32(c, alpha, 0x88);
}

IC_TARGET_AVX2
void ic_resize_v_unpremul_row_avx2(const int16_t *const *rows, const int16_t *w,
                                   const int32_t *wp, int32_t count, int32_t pixels,
                                   uint8_t *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (IC_RS_SHIFT_V8 - 1));
    const int32_t elems = pixels * 4;
    int32_t e = 0;
    for (; e + 16 <= elems; e += 16) { /* 4 pixels: acc[0] = pixels 0, 2; acc[1] = 1, 3 */
        __m256i acc[2] = {round, round};
        V_ACCUMULATE(1)
        __m256i a = unpremul2(_mm256_srai_epi32(acc[0], IC_RS_SHIFT_V8));
        __m256i b = unpremul2(_mm256_srai_epi32(acc[1], IC_RS_SHIFT_V8));
        __m256i p = _mm256_packs_epi32(a, b);             /* (0, 1 | 2, 3) */
        __m256i u = _mm256_permute4x64_epi64(_mm256_packus_epi16(p, p), 0xD8);
        _mm_storeu_si128((__m128i *)(dst + e), _mm256_castsi256_si128(u));
    }
    if (e < elems) ic_resize_v_unpremul_row_c(rows, w, count, e / 4, pixels, dst);
}

#endif
