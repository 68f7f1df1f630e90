/* AVX2 row kernels of the boundary map (scalar reference: detect_map_rows.c).
 *
 * Convolution: a lane is a pixel, its word four input channels' bytes. 8 or 16 output
 * columns of 4 output channels at a time; each input vector is loaded once, split into its
 * even and odd bytes (16-bit lanes), and multiplied into the 4 channels' accumulators with
 * broadcast pairs of 16-bit weights (vpmaddwd: exact 32-bit sums, as the reference's, so any
 * order gives its bits; 8-bit weights are the same pairs). The epilogue is the reference's
 * fmaf, clamp and rounding conversion. Stride-2 layers load 16 columns and keep the even
 * ones. Loads reach at most one column past the last one used, inside the planes' border. A
 * row's last columns are the 8 that end at its end (overlapping the block before); rows
 * narrower than 8 are the reference's. */
#include "detect_map_internal.h"

#if IC_X86
#include <immintrin.h>
#include <math.h>

/* A loop unrolled n times (GCC's pragma, which clang reads too). */
#define IC_PRAGMA(x) _Pragma(#x)
#define IC_UNROLL(n) IC_PRAGMA(GCC unroll n)

/* Columns x .. x+7 of the row at `p` with stride s (1 or 2). */
IC_TARGET_AVX2
static inline __m256i load8(const uint32_t *p, int32_t s) {
    if (s == 1) return _mm256_loadu_si256((const __m256i *)p);
    const __m256 a = _mm256_loadu_ps((const float *)p), b = _mm256_loadu_ps((const float *)(p + 8));
    const __m256 t = _mm256_shuffle_ps(a, b, 0x88); /* a0 a2 b0 b2 | a4 a6 b4 b6 */
    return _mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
}

/* fmaf((float)acc, m, c) */
IC_TARGET_AVX2
static inline __m256 finish(__m256i acc, float m, float c) {
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), _mm256_set1_ps(m), _mm256_set1_ps(c));
}

/* clamped to 0 .. 255 and converted, ties to even */
IC_TARGET_AVX2
static inline __m256i byte_of(__m256 r) {
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(r, _mm256_setzero_ps()), _mm256_set1_ps(255.0f)));
}

/* Columns x .. x + 8 * NV - 1 (NV 1 or 2) of output channels co .. co + C - 1 (C 4, or 2 and
 * 1 for floats) of row y. C, NV, S (stride) and K (kernel size) are constants at every call
 * where the caller specialises them, so the accumulators live in registers and the tap loop
 * unrolls. */
IC_TARGET_AVX2
static inline __attribute__((always_inline)) void block(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                        const ic_dm_bytes *out, const ic_dm_floats *fout,
                                                        int32_t co, int32_t x, int32_t y, const int C, const int NV,
                                                        const int32_t S, const int32_t K) {
    const int32_t d = L->dil, half = K / 2, groups = L->cin / 4;
    const size_t wn = (size_t)groups * K * K * 2; /* words between output channels' weights */
    const uint32_t *w = L->wp + (size_t)co * wn;
    const ptrdiff_t row_step = (ptrdiff_t)d * in->stride;
    const __m256i lowbytes = _mm256_set1_epi32(0x00FF00FF);
    __m256i acc[4][2];
    /* the small loops unrolled, the pointers stepped rather than recomputed (GCC at -O2 left
     * the loops rolled, the accumulators on the stack, and recomputed every address) */
    IC_UNROLL(4) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm256_setzero_si256();
    const uint32_t *plane = in->data + (ptrdiff_t)(y * S - half * d) * in->stride + x * S - half * d;
    for (int32_t g = 0; g < groups; g++, plane += in->plane) {
        const uint32_t *p = plane;
        for (int32_t ky = 0; ky < K; ky++, p += row_step) {
            IC_UNROLL(3) for (int32_t kx = 0; kx < K; kx++, w += 2) {
                __m256i e[2], o[2];
                IC_UNROLL(2) for (int v = 0; v < NV; v++) {
                    const __m256i u = load8(p + kx * d + 8 * v * S, S);
                    e[v] = _mm256_and_si256(u, lowbytes);                        /* bytes 0, 2 */
                    o[v] = _mm256_and_si256(_mm256_srli_epi32(u, 8), lowbytes); /* bytes 1, 3 */
                }
                IC_UNROLL(4) for (int j = 0; j < C; j++) {
                    const __m256i be = _mm256_set1_epi32((int32_t)w[j * wn]);
                    const __m256i bo = _mm256_set1_epi32((int32_t)w[j * wn + 1]);
                    IC_UNROLL(2) for (int v = 0; v < NV; v++)
                        acc[j][v] = _mm256_add_epi32(acc[j][v], _mm256_add_epi32(_mm256_madd_epi16(e[v], be),
                                                                                   _mm256_madd_epi16(o[v], bo)));
                }
            }
        }
    }
    if (C == 4 && out) { /* bytes (always 4 channels): packed into words */
        uint32_t *o = out->data + (co / 4) * out->plane + (ptrdiff_t)y * out->stride + x;
        IC_UNROLL(2) for (int v = 0; v < NV; v++) {
            __m256i word = byte_of(finish(acc[0][v], L->m[co], L->c[co]));
            IC_UNROLL(3) for (int j = 1; j < 4; j++)
                word = _mm256_or_si256(word, _mm256_slli_epi32(byte_of(finish(acc[j][v], L->m[co + j], L->c[co + j])), 8 * j));
            _mm256_storeu_si256((__m256i *)(o + 8 * v), word);
        }
        return;
    }
    float *o = fout->data + co * fout->plane + (ptrdiff_t)y * fout->stride + x;
    IC_UNROLL(4) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++)
            _mm256_storeu_ps(o + j * fout->plane + 8 * v, finish(acc[j][v], L->m[co + j], L->c[co + j]));
}

/* Output channels co .. co + C - 1 of row y (at least 8 columns): 16 columns at a time, then
 * 8 at a time, the last 8 ending at the row's end (recomputing some: every element is the
 * same exact sum whichever block computes it). */
IC_TARGET_AVX2
static inline __attribute__((always_inline)) void row(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                      const ic_dm_bytes *out, const ic_dm_floats *fout, int32_t co,
                                                      int32_t y, const int C, const int32_t S, const int32_t K) {
    const int32_t W = out ? out->w : fout->w;
    int32_t x = 0;
    for (; x + 16 <= W; x += 16) block(L, in, out, fout, co, x, y, C, 2, S, K);
    for (; x < W; x += 8) {
        if (x + 8 > W) x = W - 8;
        block(L, in, out, fout, co, x, y, C, 1, S, K);
    }
}

IC_TARGET_AVX2
static inline __attribute__((always_inline)) void channels(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                           const ic_dm_bytes *out, const ic_dm_floats *fout,
                                                           int32_t y, const int32_t S, const int32_t K) {
    int32_t co = 0;
    for (; co + 4 <= L->cout; co += 4) row(L, in, out, fout, co, y, 4, S, K);
    for (; co + 2 <= L->cout; co += 2) row(L, in, out, fout, co, y, 2, S, K); /* floats only */
    if (co < L->cout) row(L, in, out, fout, co, y, 1, S, K);
}

IC_TARGET_AVX2
void ic__dm_conv_row_avx2(const ic_dm_conv *L, const ic_dm_bytes *in, const ic_dm_bytes *out,
                          const ic_dm_floats *fout, int32_t y) {
    const int32_t k = L->k, s = L->stride;
    if ((out ? out->w : fout->w) < 8) { /* rows narrower than a vector */
        ic__dm_conv_row_c(L, in, out, fout, y);
        return;
    }
    /* the network's three shapes specialised */
    if (s == 1 && k == 3) channels(L, in, out, fout, y, 1, 3);
    else if (s == 1 && k == 1) channels(L, in, out, fout, y, 1, 1);
    else if (s == 2 && k == 3) channels(L, in, out, fout, y, 2, 3);
    else channels(L, in, out, fout, y, s, k);
}

/* The 16-bit sums of 64 columns (a cache line of each row) down `rows` rows at `r`, in four
 * accumulators (s[q]: columns 16 q .. 16 q + 15), prefetching `ahead` bytes on. */
IC_TARGET_AVX2
static inline void sum64(const uint8_t *r, size_t stride, int32_t rows, size_t ahead, __m256i s[4]) {
    s[0] = s[1] = s[2] = s[3] = _mm256_setzero_si256();
    for (int32_t y = 0; y < rows; y++, r += stride) {
        _mm_prefetch((const char *)(r + ahead), _MM_HINT_T0);
        const __m256i a = _mm256_loadu_si256((const __m256i *)r), b = _mm256_loadu_si256((const __m256i *)(r + 32));
        s[0] = _mm256_add_epi16(s[0], _mm256_cvtepu8_epi16(_mm256_castsi256_si128(a)));
        s[1] = _mm256_add_epi16(s[1], _mm256_cvtepu8_epi16(_mm256_extracti128_si256(a, 1)));
        s[2] = _mm256_add_epi16(s[2], _mm256_cvtepu8_epi16(_mm256_castsi256_si128(b)));
        s[3] = _mm256_add_epi16(s[3], _mm256_cvtepu8_epi16(_mm256_extracti128_si256(b, 1)));
    }
}

IC_TARGET_AVX2
void ic__dm_column_sums_avx2(const uint8_t *src, size_t stride, int32_t rows, uint16_t *sums, size_t n) {
    size_t i = 0;
    /* the same line of the next box's row, 4 lines on: the next box arrives while this one and
     * its working row are computed (a 12 MP reduction 0.4-0.7 ms faster on average, README);
     * a prefetch past the image is a hint, never a fault */
    const size_t ahead = (size_t)rows * stride + 256;
    /* 64 columns (a cache line of each row) in four accumulators, down all rows */
    for (; i + 64 <= n; i += 64) {
        __m256i s[4];
        sum64(src + i, stride, rows, ahead, s);
        for (int q = 0; q < 4; q++) _mm256_storeu_si256((__m256i *)(sums + i + 16 * q), s[q]);
    }
    for (; i + 16 <= n; i += 16) {
        __m256i s0 = _mm256_setzero_si256();
        const uint8_t *r = src + i;
        for (int32_t y = 0; y < rows; y++, r += stride)
            s0 = _mm256_add_epi16(s0, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)r)));
        _mm256_storeu_si256((__m256i *)(sums + i), s0);
    }
    if (i < n) ic__dm_column_sums_c(src + i, stride, rows, sums + i, n - i);
}

/* Two pixels (8 lanes of 16 bits) widened to 32 bits a step, four steps in flight; the two
 * halves (even and odd pixels) and the four accumulators folded at the end. */
/* 16 sums into out + i: stored, or added to what is there */
IC_TARGET_AVX2
static inline void put16(uint16_t *p, __m256i v, int add) {
    if (add) v = _mm256_add_epi16(v, _mm256_loadu_si256((const __m256i *)p));
    _mm256_storeu_si256((__m256i *)p, v);
}

IC_TARGET_AVX2
void ic__dm_column_sums2_avx2(const uint8_t *src, size_t stride, int32_t rows, uint16_t *const out[2], const int add[2],
                              const size_t n[2]) {
    const size_t hi = n[0] > n[1] ? n[0] : n[1];
    size_t i = 0;
    const size_t ahead = (size_t)rows * stride + 256; /* as ic__dm_column_sums_avx2 */
    /* 64 columns in four accumulators down all rows, then into both outputs (while both use
     * them) or the one that reaches that far */
    for (; i + 64 <= hi; i += 64) {
        __m256i s[4];
        sum64(src + i, stride, rows, ahead, s);
        for (int o = 0; o < 2; o++) {
            if (i + 64 <= n[o]) {
                for (int q = 0; q < 4; q++) put16(out[o] + i + 16 * q, s[q], add[o]);
            } else if (i < n[o]) { /* the output's last columns, fewer than 64 */
                uint16_t t[64];
                for (int q = 0; q < 4; q++) _mm256_storeu_si256((__m256i *)(t + 16 * q), s[q]);
                for (size_t x = i; x < n[o]; x++) out[o][x] = add[o] ? (uint16_t)(out[o][x] + t[x - i]) : t[x - i];
            }
        }
    }
    if (i < hi) { /* the last columns, fewer than 64: the reference */
        uint16_t *const rest[2] = {out[0] + i, out[1] + i};
        const size_t m[2] = {n[0] > i ? n[0] - i : 0, n[1] > i ? n[1] - i : 0};
        ic__dm_column_sums2_c(src + i, stride, rows, rest, add, m);
    }
}

IC_TARGET_AVX2
void ic__dm_box_sums4_avx2(const uint16_t *sums, int32_t k, int32_t w, uint32_t *out) {
    for (int32_t i = 0; i < w; i++) {
        const uint16_t *p = sums + (size_t)4 * i * k;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
        int32_t x = 0;
        for (; x + 8 <= k; x += 8, p += 32) {
            a0 = _mm256_add_epi32(a0, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
            a1 = _mm256_add_epi32(a1, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 8))));
            a2 = _mm256_add_epi32(a2, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 16))));
            a3 = _mm256_add_epi32(a3, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 24))));
        }
        for (; x + 2 <= k; x += 2, p += 8)
            a0 = _mm256_add_epi32(a0, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
        a0 = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
        __m128i r = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
        if (x < k) r = _mm_add_epi32(r, _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p))); /* the odd pixel */
        _mm_storeu_si128((__m128i *)(out + 4 * (size_t)i), r);
    }
}
/* Eight outputs a step: four coarse values, each doubled (a lane permute), added, and the
 * maximum with 0 (what the scalar `v > 0 ? v : 0` gives, -0 and NaN included: 0); the scalar
 * reference's branch on the sign mispredicted on half the values (perf: a tenth of a run). */
IC_TARGET_AVX2
void ic__dm_add_row_avx2(const float *low, ptrdiff_t plane, const float *a, uint32_t *o, int32_t w) {
    const __m256i dup = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i mask = _mm256_set1_epi32(0xFF);
    int32_t x = 0;
    for (; x + 8 <= w; x += 8) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(o + x));
        __m256i word = _mm256_setzero_si256();
        IC_UNROLL(4) for (int j = 0; j < 4; j++) {
            const __m256 l = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(low + j * plane + x / 2)), dup);
            const __m256 b = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(v, 8 * j), mask));
            const __m256 r = _mm256_fmadd_ps(b, _mm256_set1_ps(a[j]), l);
            word = _mm256_or_si256(word, _mm256_slli_epi32(byte_of(r), 8 * j));
        }
        _mm256_storeu_si256((__m256i *)(o + x), word);
    }
    ic__dm_add_row_c(low + x / 2, plane, a, o + x, w - x); /* x is even: the same pairs */
}
#endif
