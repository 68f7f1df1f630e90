/* AVX-512 row kernel of the boundary map's convolutions, with VNNI (scalar reference:
 * detect_map_rows.c; AVX2: detect_map_avx2.c, the same scheme at half the width without the
 * dot-product instructions).
 *
 * A lane is a pixel: its word holds four input channels' bytes. 16 or 32 output columns of 8
 * output channels at a time: 16 accumulators of the 32 registers, each input vector loaded
 * once and multiplied into the 8 channels' accumulators with broadcast weights — for 8-bit
 * weights one vpdpbusd (four bytes times four int8, summed into 32 bits) a channel, for
 * 16-bit ones two vpdpwssd on the even and the odd bytes. The sums are exact, so any order
 * gives the reference's bits; the epilogue is the reference's fmaf, clamp and rounding
 * conversion. Stride-2 layers load 32 columns and keep the even ones. A row's last columns
 * (fewer than 16) are one block under a lane mask: its loads read only the columns used, its
 * stores write only the row's columns. Full blocks' loads reach at most one column past the
 * last one used, inside the planes' border. Float outputs with fewer than 8 channels (the
 * logits: 2) go two, then one at a time. */
#include "detect_map_internal.h"

#if IC_X86
#include <immintrin.h>

#define IC_PRAGMA(x) _Pragma(#x)
#define IC_UNROLL(n) IC_PRAGMA(GCC unroll n)

/* Columns x .. x+15 of the row at `p` with stride s (1 or 2); only the columns of `m` are read
 * (the others are 0). */
IC_TARGET_AVX512VNNI
static inline __m512i load16(const uint32_t *p, int32_t s, __mmask16 m) {
    if (s == 1) return m == 0xFFFF ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(m, p);
    /* stride 2: column i is element 2 i of the 32 from p; the lanes of m need elements up to
     * 2 (last lane) of them */
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    __m512i a, b;
    if (m == 0xFFFF) {
        a = _mm512_loadu_si512(p);
        b = _mm512_loadu_si512(p + 16);
    } else {
        const uint32_t lanes = (uint32_t)(32 - __builtin_clz((uint32_t)m)); /* m is 2^lanes - 1 */
        const uint32_t need = 2 * lanes - 1; /* elements 0 .. 2 lanes - 2 */
        const uint32_t bits = need >= 32 ? 0xFFFFFFFFu : ((uint32_t)1 << need) - 1;
        a = _mm512_maskz_loadu_epi32((__mmask16)(bits & 0xFFFF), p);
        b = _mm512_maskz_loadu_epi32((__mmask16)(bits >> 16), p + 16);
    }
    return _mm512_permutex2var_epi32(a, even, b);
}

/* fmaf((float)acc, m, c), clamped to 0 .. 255 and converted (ties to even) for bytes */
IC_TARGET_AVX512VNNI
static inline __m512 finish(__m512i acc, float m, float c) {
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), _mm512_set1_ps(m), _mm512_set1_ps(c));
}

IC_TARGET_AVX512VNNI
static inline __m512i byte_of(__m512 r) {
    r = _mm512_min_ps(_mm512_max_ps(r, _mm512_setzero_ps()), _mm512_set1_ps(255.0f));
    return _mm512_cvtps_epi32(r);
}

/* Columns x .. x + 16 * NV - 1 (NV 1 or 2) of output channels co .. co + C - 1 (C 8, 4, 2 or
 * 1; bytes: 8 or 4) of row y; `tail` masks the last vector's lanes (0xFFFF: all). C, NV, S
 * (stride), K (kernel size) and B (weight bits) are constants where the caller specialises
 * them, so the accumulators stay in registers and the tap loop unrolls. */
IC_TARGET_AVX512VNNI
static inline __attribute__((always_inline)) void block(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                        const ic_dm_bytes *out, const ic_dm_floats *fout,
                                                        int32_t co, int32_t x, int32_t y, const int C, const int NV,
                                                        const int32_t S, const int32_t K, const int B,
                                                        __mmask16 tail) {
    const int32_t d = L->dil, half = K / 2, groups = L->cin / 4, taps = K * K;
    const int32_t words = B == 8 ? 1 : 2; /* weight words a tap */
    const size_t wn = (size_t)groups * taps * words; /* words between output channels' weights */
    const uint32_t *w = (B == 8 ? L->w8 : L->wp) + (size_t)co * wn;
    const ptrdiff_t row_step = (ptrdiff_t)d * in->stride;
    const __m512i lowbytes = _mm512_set1_epi32(0x00FF00FF);
    __m512i acc[8][2];
    IC_UNROLL(8) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm512_setzero_si512();
    const uint32_t *plane = in->data + (ptrdiff_t)(y * S - half * d) * in->stride + x * S - half * d;
    for (int32_t g = 0; g < groups; g++, plane += in->plane) {
        const uint32_t *p = plane;
        for (int32_t ky = 0; ky < K; ky++, p += row_step) {
            IC_UNROLL(3) for (int32_t kx = 0; kx < K; kx++, w += words) {
                __m512i u[2], e[2], o[2];
                IC_UNROLL(2) for (int v = 0; v < NV; v++) {
                    u[v] = load16(p + kx * d + 16 * v * S, S, v == NV - 1 ? tail : (__mmask16)0xFFFF);
                    if (B == 16) {
                        e[v] = _mm512_and_si512(u[v], lowbytes);                        /* bytes 0, 2 */
                        o[v] = _mm512_and_si512(_mm512_srli_epi32(u[v], 8), lowbytes); /* bytes 1, 3 */
                    }
                }
                IC_UNROLL(8) for (int j = 0; j < C; j++) {
                    if (B == 8) {
                        const __m512i b = _mm512_set1_epi32((int32_t)w[j * wn]);
                        IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm512_dpbusd_epi32(acc[j][v], u[v], b);
                    } else {
                        const __m512i be = _mm512_set1_epi32((int32_t)w[j * wn]);
                        const __m512i bo = _mm512_set1_epi32((int32_t)w[j * wn + 1]);
                        IC_UNROLL(2) for (int v = 0; v < NV; v++) {
                            acc[j][v] = _mm512_dpwssd_epi32(acc[j][v], e[v], be);
                            acc[j][v] = _mm512_dpwssd_epi32(acc[j][v], o[v], bo);
                        }
                    }
                }
            }
        }
    }
    if (out) { /* bytes: groups of four channels packed into words */
        uint32_t *o = out->data + (co / 4) * out->plane + (ptrdiff_t)y * out->stride + x;
        IC_UNROLL(2) for (int q = 0; q < C / 4; q++)
            IC_UNROLL(2) for (int v = 0; v < NV; v++) {
                __m512i word = byte_of(finish(acc[4 * q][v], L->m[co + 4 * q], L->c[co + 4 * q]));
                IC_UNROLL(3) for (int j = 1; j < 4; j++) {
                    const __m512i b = byte_of(finish(acc[4 * q + j][v], L->m[co + 4 * q + j], L->c[co + 4 * q + j]));
                    word = _mm512_or_si512(word, _mm512_slli_epi32(b, 8 * j));
                }
                _mm512_mask_storeu_epi32(o + q * out->plane + 16 * v, v == NV - 1 ? tail : (__mmask16)0xFFFF, word);
            }
        return;
    }
    float *o = fout->data + co * fout->plane + (ptrdiff_t)y * fout->stride + x;
    IC_UNROLL(8) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++)
            _mm512_mask_storeu_ps(o + j * fout->plane + 16 * v, v == NV - 1 ? tail : (__mmask16)0xFFFF,
                                  finish(acc[j][v], L->m[co + j], L->c[co + j]));
}

/* Output channels co .. co + C - 1 of row y: 32 columns at a time, then 16, then the rest
 * under a mask. */
IC_TARGET_AVX512VNNI
static inline __attribute__((always_inline)) void row(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                      const ic_dm_bytes *out, const ic_dm_floats *fout, int32_t co,
                                                      int32_t y, const int C, const int32_t S, const int32_t K,
                                                      const int B) {
    const int32_t W = out ? out->w : fout->w;
    int32_t x = 0;
    for (; x + 32 <= W; x += 32) block(L, in, out, fout, co, x, y, C, 2, S, K, B, 0xFFFF);
    if (x + 16 <= W) {
        block(L, in, out, fout, co, x, y, C, 1, S, K, B, 0xFFFF);
        x += 16;
    }
    if (x < W) block(L, in, out, fout, co, x, y, C, 1, S, K, B, (__mmask16)((1u << (W - x)) - 1));
}

/* All channels of row y in blocks of 8, then 4 (bytes) or 2 and 1 (floats). */
IC_TARGET_AVX512VNNI
static inline __attribute__((always_inline)) void channels(const ic_dm_conv *L, const ic_dm_bytes *in,
                                                           const ic_dm_bytes *out, const ic_dm_floats *fout,
                                                           int32_t y, const int32_t S, const int32_t K, const int B) {
    int32_t co = 0;
    for (; co + 8 <= L->cout; co += 8) row(L, in, out, fout, co, y, 8, S, K, B);
    if (out) {
        if (co < L->cout) row(L, in, out, fout, co, y, 4, S, K, B); /* cout is a multiple of 4 */
        return;
    }
    for (; co + 2 <= L->cout; co += 2) row(L, in, out, fout, co, y, 2, S, K, B);
    if (co < L->cout) row(L, in, out, fout, co, y, 1, S, K, B);
}

IC_TARGET_AVX512VNNI
void ic__dm_conv_row_avx512(const ic_dm_conv *L, const ic_dm_bytes *in, const ic_dm_bytes *out,
                            const ic_dm_floats *fout, int32_t y) {
    const int32_t k = L->k, s = L->stride;
    /* the network's shapes specialised: 3x3 stride 1 and 2, 1x1; 8- and 16-bit weights */
    if (L->bits == 8) {
        if (s == 1 && k == 3) channels(L, in, out, fout, y, 1, 3, 8);
        else if (s == 1 && k == 1) channels(L, in, out, fout, y, 1, 1, 8);
        else if (s == 2 && k == 3) channels(L, in, out, fout, y, 2, 3, 8);
        else channels(L, in, out, fout, y, s, k, 8);
    } else {
        if (s == 1 && k == 3) channels(L, in, out, fout, y, 1, 3, 16);
        else if (s == 2 && k == 3) channels(L, in, out, fout, y, 2, 3, 16);
        else channels(L, in, out, fout, y, s, k, 16);
    }
}
#endif
