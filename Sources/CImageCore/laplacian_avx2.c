/* AVX2 row kernels of the 3x3 Laplacian (scalar reference: laplacian.c).
 *
 * The response is 9 * centre - (3x3 box sum). The box sum is separable, so each chunk of a
 * row is done in two passes over a small stack buffer that stays in L1:
 *   1. v[c] = up[c] + mid[c] + down[c] for the chunk's columns and one either side
 *      (int16; the two edge columns reflect-101 in scalar code);
 *   2. r[x] = 9 * mid[x] - (v[x-1] + v[x] + v[x+1]), 16 columns per step.
 * That is 4 byte-to-word loads per 16 pixels instead of 9. Loads never go past column
 * width - 1 of any row: vector steps stop where fewer than 16 columns remain and the rest
 * is finished with the same arithmetic in scalar code.
 *
 * The score kernel squares and sums with pmaddwd: r*r <= 2040^2, so a pair sum is
 * <= 8.3e6 and an int32 lane takes a chunk of LAP_CHUNK / 16 = 64 steps (5.3e8) safely
 * before it is widened to 64 bits. */
#include "laplacian_internal.h"

#if IC_X86
#include <immintrin.h>

enum { LAP_CHUNK = 1024 };

/* Column sums for columns x0-1 ... x0+n (n + 2 values) into v; x0-1 and x0+n are
 * reflected when they fall outside [0, width). */
IC_TARGET_AVX2
static void column_sums(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                        int32_t width, int32_t x0, int32_t n, int16_t *v) {
    const int32_t base = x0 - 1, end = x0 + n + 1; /* column c goes to v[c - base] */
    int32_t c = base;
    if (c < 0) {
        int32_t rc = ic__reflect101(-1, width);
        v[0] = (int16_t)(up[rc] + mid[rc] + down[rc]);
        c = 0;
    }
    int32_t last = end > width ? width : end; /* columns [c, last) are real */
    for (; c + 16 <= last; c += 16) {
        __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(up + c)));
        __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(mid + c)));
        __m256i d = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(down + c)));
        _mm256_storeu_si256((__m256i *)(v + (c - base)), _mm256_add_epi16(_mm256_add_epi16(a, b), d));
    }
    for (; c < last; c++) v[c - base] = (int16_t)(up[c] + mid[c] + down[c]);
    if (end > width) {
        int32_t rc = ic__reflect101(width, width);
        v[width - base] = (int16_t)(up[rc] + mid[rc] + down[rc]);
    }
}

/* r for 16 columns starting at x (v points at column x - 1's sum). */
IC_TARGET_AVX2
static inline __m256i response16(const uint8_t *mid, const int16_t *v) {
    __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)mid));
    __m256i box = _mm256_add_epi16(
        _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)v),
                         _mm256_loadu_si256((const __m256i *)(v + 1))),
        _mm256_loadu_si256((const __m256i *)(v + 2)));
    __m256i m9 = _mm256_add_epi16(_mm256_slli_epi16(m, 3), m);
    return _mm256_sub_epi16(m9, box);
}

static inline int32_t response1(const uint8_t *mid, const int16_t *v) {
    return 9 * (int32_t)mid[0] - (v[0] + v[1] + v[2]);
}

IC_TARGET_AVX2
void ic_laplacian_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                           int32_t width, int32_t x0, int32_t n, int16_t *out) {
    int16_t v[LAP_CHUNK + 2];
    for (int32_t done = 0; done < n; done += LAP_CHUNK) {
        int32_t m = n - done < LAP_CHUNK ? n - done : LAP_CHUNK, xs = x0 + done, i = 0;
        column_sums(up, mid, down, width, xs, m, v);
        for (; i + 16 <= m; i += 16)
            _mm256_storeu_si256((__m256i *)(out + done + i), response16(mid + xs + i, v + i));
        for (; i < m; i++) out[done + i] = (int16_t)response1(mid + xs + i, v + i);
    }
}

IC_TARGET_AVX2
void ic_laplacian_u8_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                              int32_t width, int32_t x0, int32_t n, const uint8_t *lut,
                              uint8_t *out) {
    int16_t v[LAP_CHUNK + 2];
    for (int32_t done = 0; done < n; done += LAP_CHUNK) {
        int32_t m = n - done < LAP_CHUNK ? n - done : LAP_CHUNK, xs = x0 + done, i = 0;
        column_sums(up, mid, down, width, xs, m, v);
        for (; i + 16 <= m; i += 16) {
            __m256i r = response16(mid + xs + i, v + i);
            /* packus saturates int16 to 0...255: exactly the clamp. */
            __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
            _mm_storeu_si128((__m128i *)(out + done + i), b);
        }
        for (; i < m; i++) {
            int32_t r = response1(mid + xs + i, v + i);
            out[done + i] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        }
        /* A byte table has no cheap vector form; one lookup per display pixel. */
        if (lut)
            for (int32_t k = 0; k < m; k++) out[done + k] = lut[out[done + k]];
    }
}

IC_TARGET_AVX2
void ic_laplacian_score_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                 int32_t width, int32_t x0, int32_t n, int64_t *sum,
                                 uint64_t *sum_squares) {
    int16_t v[LAP_CHUNK + 2];
    const __m256i ones = _mm256_set1_epi16(1);
    int64_t s = 0;
    uint64_t q = 0;
    for (int32_t done = 0; done < n; done += LAP_CHUNK) {
        int32_t m = n - done < LAP_CHUNK ? n - done : LAP_CHUNK, xs = x0 + done, i = 0;
        column_sums(up, mid, down, width, xs, m, v);
        __m256i acc_s = _mm256_setzero_si256(), acc_q = _mm256_setzero_si256();
        for (; i + 16 <= m; i += 16) {
            __m256i r = response16(mid + xs + i, v + i);
            acc_s = _mm256_add_epi32(acc_s, _mm256_madd_epi16(r, ones));
            acc_q = _mm256_add_epi32(acc_q, _mm256_madd_epi16(r, r));
        }
        /* Widen the 8 lanes: sums are signed, squares non-negative (< 2^31). */
        __m256i s64 = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc_s)),
                                       _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc_s, 1)));
        __m256i q64 = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(acc_q)),
                                       _mm256_cvtepu32_epi64(_mm256_extracti128_si256(acc_q, 1)));
        int64_t ls[4], lq[4];
        _mm256_storeu_si256((__m256i *)ls, s64);
        _mm256_storeu_si256((__m256i *)lq, q64);
        s += ls[0] + ls[1] + ls[2] + ls[3];
        q += (uint64_t)lq[0] + (uint64_t)lq[1] + (uint64_t)lq[2] + (uint64_t)lq[3];
        for (; i < m; i++) {
            int32_t r = response1(mid + xs + i, v + i);
            s += r;
            q += (uint64_t)(r * r);
        }
    }
    *sum += s;
    *sum_squares += q;
}

#endif
