/* AVX2 vertical resize kernels (scalar reference: resize_v.c).
 *
 * The vertical pass does not care about channels: a row is out_w * ch int16 values. For a
 * block of 64 values (then 16) it keeps 8 (2) int32 accumulators in registers and adds all
 * the window's rows into them, two rows per pmaddwd: the two rows' values interleaved with
 * unpacklo/hi times the plan's precomputed weight pair (w[t], w[t+1]) broadcast; an odd last
 * row is paired with zeros. Each intermediate value is loaded once per output row and
 * nothing is written until the block is final. */
#include "resize_internal.h"

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
