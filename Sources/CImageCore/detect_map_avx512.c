/* AVX-512 row kernel of the boundary map's convolutions (scalar reference: detect_map_rows.c;
 * AVX2: detect_map_avx2.c, the same scheme at half the width).
 *
 * 16 or 32 output columns of 8 output channels at a time: 16 accumulators of the 32 registers,
 * each input vector loaded once and multiplied into the 8 channels' accumulators with
 * broadcast weights — 10 loads for 16 fused multiply-adds a tap, where the AVX2 kernel's 4
 * channels need 6 for 8. Every lane runs the scalar reference's sequence (bias, then one fused
 * multiply-add per input channel, kernel row and kernel column, in that order), so the results
 * are the same bits. Stride-2 layers load 32 columns and keep the even ones. A row's last
 * columns (fewer than 16) are one block under a lane mask: its loads read only the columns
 * used (masked loads do not touch the others), its stores write only the row's columns. Full
 * blocks' loads reach at most one column past the last one used, inside the planes' zero
 * border. Channels past the last multiple of 8 (the network's last layer has 2) go two, then
 * one at a time. */
#include "detect_map_internal.h"

#if IC_X86
#include <immintrin.h>

#define IC_PRAGMA(x) _Pragma(#x)
#define IC_UNROLL(n) IC_PRAGMA(GCC unroll n)

/* Columns x .. x+15 of the row at `p` with stride s (1 or 2); only the columns of `m` are read
 * (the others are 0). */
IC_TARGET_AVX512
static inline __m512 load16(const float *p, int32_t s, __mmask16 m) {
    if (s == 1) return m == 0xFFFF ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
    /* stride 2: column i is element 2 i of the 32 from p; the lanes of m need elements up to
     * 2 (last lane) of them */
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    __m512 a, b;
    if (m == 0xFFFF) {
        a = _mm512_loadu_ps(p);
        b = _mm512_loadu_ps(p + 16);
    } else {
        const uint32_t lanes = (uint32_t)(32 - __builtin_clz((uint32_t)m)); /* m is 2^lanes - 1 */
        const uint32_t need = 2 * lanes - 1; /* elements 0 .. 2 lanes - 2 */
        const uint32_t bits = need >= 32 ? 0xFFFFFFFFu : ((uint32_t)1 << need) - 1;
        a = _mm512_maskz_loadu_ps((__mmask16)(bits & 0xFFFF), p);
        b = _mm512_maskz_loadu_ps((__mmask16)(bits >> 16), p + 16);
    }
    return _mm512_permutex2var_ps(a, even, b);
}

/* Columns x .. x + 16 * NV - 1 (NV 1 or 2) of output channels co .. co + C - 1 (C 8, 2 or 1)
 * of row y; `tail` masks the last vector's lanes (0xFFFF: all). C, NV, S (stride) and K
 * (kernel size) are constants where the caller specialises them, so the accumulators stay in
 * registers and the tap loop unrolls. */
IC_TARGET_AVX512
static inline __attribute__((always_inline)) void block(const ic_dm_conv *L, const ic_dm_tensor *in,
                                                        const ic_dm_tensor *out, int32_t co, int32_t x, int32_t y,
                                                        int relu, const int C, const int NV, const int32_t S,
                                                        const int32_t K, __mmask16 tail) {
    const int32_t d = L->dil, half = K / 2, cin = L->cin;
    const size_t wn = (size_t)cin * K * K; /* floats between output channels' weights */
    const float *w = L->w + (size_t)co * wn; /* the tap's weight of output channel co */
    const ptrdiff_t row_step = (ptrdiff_t)d * in->stride;
    __m512 acc[8][2];
    IC_UNROLL(8) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm512_set1_ps(L->b[co + j]);
    const float *plane = in->data + (ptrdiff_t)(y * S - half * d) * in->stride + x * S - half * d;
    for (int32_t ci = 0; ci < cin; ci++, plane += in->plane) {
        const float *p = plane;
        for (int32_t ky = 0; ky < K; ky++, p += row_step) {
            IC_UNROLL(3) for (int32_t kx = 0; kx < K; kx++, w++) {
                __m512 u[2];
                IC_UNROLL(2) for (int v = 0; v < NV; v++)
                    u[v] = load16(p + kx * d + 16 * v * S, S, v == NV - 1 ? tail : (__mmask16)0xFFFF);
                IC_UNROLL(8) for (int j = 0; j < C; j++) {
                    const __m512 b = _mm512_set1_ps(w[j * wn]);
                    IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm512_fmadd_ps(b, u[v], acc[j][v]);
                }
            }
        }
    }
    float *o = out->data + co * out->plane + (ptrdiff_t)y * out->stride + x;
    IC_UNROLL(8) for (int j = 0; j < C; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) {
            __m512 r = acc[j][v];
            if (relu) r = _mm512_max_ps(r, _mm512_setzero_ps()); /* acc > 0 ? acc : 0 */
            _mm512_mask_storeu_ps(o + j * out->plane + 16 * v, v == NV - 1 ? tail : (__mmask16)0xFFFF, r);
        }
}

/* Output channels co .. co + C - 1 of row y: 32 columns at a time, then 16, then the rest
 * under a mask. */
IC_TARGET_AVX512
static inline __attribute__((always_inline)) void row(const ic_dm_conv *L, const ic_dm_tensor *in,
                                                      const ic_dm_tensor *out, int32_t co, int32_t y, int relu,
                                                      const int C, const int32_t S, const int32_t K) {
    const int32_t W = out->w;
    int32_t x = 0;
    for (; x + 32 <= W; x += 32) block(L, in, out, co, x, y, relu, C, 2, S, K, 0xFFFF);
    if (x + 16 <= W) {
        block(L, in, out, co, x, y, relu, C, 1, S, K, 0xFFFF);
        x += 16;
    }
    if (x < W) block(L, in, out, co, x, y, relu, C, 1, S, K, (__mmask16)((1u << (W - x)) - 1));
}

/* All channels of row y in blocks of C (8, then 2, then 1). */
IC_TARGET_AVX512
static inline __attribute__((always_inline)) void channels(const ic_dm_conv *L, const ic_dm_tensor *in,
                                                           const ic_dm_tensor *out, int32_t y, int relu,
                                                           const int32_t S, const int32_t K) {
    int32_t co = 0;
    for (; co + 8 <= L->cout; co += 8) row(L, in, out, co, y, relu, 8, S, K);
    for (; co + 2 <= L->cout; co += 2) row(L, in, out, co, y, relu, 2, S, K);
    if (co < L->cout) row(L, in, out, co, y, relu, 1, S, K);
}

IC_TARGET_AVX512
void ic__dm_conv_row_avx512(const ic_dm_conv *L, const ic_dm_tensor *in, const ic_dm_tensor *out, int32_t y,
                            int relu) {
    const int32_t k = L->k, s = L->stride;
    /* the network's three shapes specialised */
    if (s == 1 && k == 3) channels(L, in, out, y, relu, 1, 3);
    else if (s == 1 && k == 1) channels(L, in, out, y, relu, 1, 1);
    else if (s == 2 && k == 3) channels(L, in, out, y, relu, 2, 3);
    else channels(L, in, out, y, relu, s, k);
}
#endif
