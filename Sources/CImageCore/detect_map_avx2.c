/* AVX2 row kernels of the boundary map (scalar reference: detect_map_rows.c).
 *
 * Convolution: 8 or 16 output columns of 4 output channels at a time; each input vector is
 * loaded once and multiplied into the 4 channels' accumulators with broadcast weights.
 * Every lane runs the scalar reference's sequence (bias, then one fused multiply-add per
 * input channel, kernel row and kernel column, in that order), so the results are the same
 * bits. Stride-2 layers load 16 columns and keep the even ones. Loads reach at most one
 * column past the last one used, inside the planes' zero border. A row's last columns are
 * the 8 that end at its end (overlapping the block before), so only rows narrower than 8
 * take the element-by-element path. */
#include "detect_map_internal.h"

#if IC_X86
#include <immintrin.h>
#include <math.h>

/* A loop unrolled n times (GCC's pragma, which clang reads too). */
#define IC_PRAGMA(x) _Pragma(#x)
#define IC_UNROLL(n) IC_PRAGMA(GCC unroll n)

/* Columns x .. x+7 of the row at `p` with stride s (1 or 2). */
IC_TARGET_AVX2
static inline __m256 load8(const float *p, int32_t s) {
    if (s == 1) return _mm256_loadu_ps(p);
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    __m256 t = _mm256_shuffle_ps(a, b, 0x88); /* a0 a2 b0 b2 | a4 a6 b4 b6 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
}

IC_TARGET_AVX2
static inline void store8(float *o, __m256 v, int relu) {
    if (relu) v = _mm256_max_ps(v, _mm256_setzero_ps()); /* acc > 0 ? acc : 0 */
    _mm256_storeu_ps(o, v);
}

/* One output element, in the reference order (for the columns after the last full vector). */
IC_TARGET_AVX2
static float one(const ic_dm_conv *L, const ic_dm_tensor *in, int32_t co, int32_t x, int32_t y) {
    const int32_t k = L->k, s = L->stride, d = L->dil, half = k / 2, taps = k * k;
    const float *wc = L->w + (size_t)co * L->cin * taps;
    float acc = L->b[co];
    for (int32_t ci = 0; ci < L->cin; ci++)
        for (int32_t ky = 0; ky < k; ky++) {
            const float *row = in->data + ci * in->plane + (ptrdiff_t)(y * s + (ky - half) * d) * in->stride;
            for (int32_t kx = 0; kx < k; kx++) acc = fmaf(wc[ci * taps + ky * k + kx], row[x * s + (kx - half) * d], acc);
        }
    return acc;
}

/* Columns x .. x + 8 * NV - 1 (NV 1 or 2) of output channels co .. co + 3 of row y. NV, S
 * (stride) and K (kernel size) are constants at every call where the caller specialises
 * them, so the accumulators live in registers and the tap loop unrolls (a 12 MP detection:
 * 14.1-14.8 -> 13.0-13.6 ms). 12 accumulators (NV 3) were tried: clang spills one, slower. */
IC_TARGET_AVX2
static inline __attribute__((always_inline)) void block4(const ic_dm_conv *L, const ic_dm_tensor *in,
                                                         const ic_dm_tensor *out, int32_t co, int32_t x,
                                                         int32_t y, int relu, const int NV, const int32_t S,
                                                         const int32_t K) {
    const int32_t d = L->dil, half = K / 2, cin = L->cin;
    const size_t wn = (size_t)cin * K * K; /* floats between output channels' weights */
    const float *w = L->w + (size_t)co * wn; /* the tap's weight of output channel co */
    const ptrdiff_t row_step = (ptrdiff_t)d * in->stride;
    __m256 acc[4][2];
    /* the small loops unrolled, the pointers stepped rather than recomputed (GCC at -O2 left
     * the loops rolled, the accumulators on the stack, and recomputed every address: 2.5
     * times the instructions of clang's code; clang does either way) */
    IC_UNROLL(4) for (int j = 0; j < 4; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm256_set1_ps(L->b[co + j]);
    const float *plane = in->data + (ptrdiff_t)(y * S - half * d) * in->stride + x * S - half * d;
    for (int32_t ci = 0; ci < cin; ci++, plane += in->plane) {
        const float *p = plane;
        for (int32_t ky = 0; ky < K; ky++, p += row_step) {
            IC_UNROLL(3) for (int32_t kx = 0; kx < K; kx++, w++) {
                __m256 u[2];
                IC_UNROLL(2) for (int v = 0; v < NV; v++) u[v] = load8(p + kx * d + 8 * v * S, S);
                IC_UNROLL(4) for (int j = 0; j < 4; j++) {
                    const __m256 b = _mm256_broadcast_ss(w + j * wn);
                    IC_UNROLL(2) for (int v = 0; v < NV; v++) acc[j][v] = _mm256_fmadd_ps(b, u[v], acc[j][v]);
                }
            }
        }
    }
    float *o = out->data + co * out->plane + (ptrdiff_t)y * out->stride + x;
    IC_UNROLL(4) for (int j = 0; j < 4; j++)
        IC_UNROLL(2) for (int v = 0; v < NV; v++) store8(o + j * out->plane + 8 * v, acc[j][v], relu);
}

/* Output channels co .. co + 3 of row y: 16 columns at a time, then 8 at a time, the last 8
 * ending at the row's end (recomputing some: every element is the same sequence whichever
 * block computes it). */
IC_TARGET_AVX2
static inline __attribute__((always_inline)) void row4(const ic_dm_conv *L, const ic_dm_tensor *in,
                                                       const ic_dm_tensor *out, int32_t co, int32_t y,
                                                       int relu, const int32_t S, const int32_t K) {
    const int32_t W = out->w;
    int32_t x = 0;
    for (; x + 16 <= W; x += 16) block4(L, in, out, co, x, y, relu, 2, S, K);
    for (; x < W; x += 8) {
        if (x + 8 > W) {
            if (W < 8) break;
            x = W - 8;
        }
        block4(L, in, out, co, x, y, relu, 1, S, K);
    }
    float *o0 = out->data + co * out->plane + (ptrdiff_t)y * out->stride;
    for (; x < W; x++) /* rows narrower than 8 */
        for (int32_t j = 0; j < 4; j++) {
            float v = one(L, in, co + j, x, y);
            o0[j * out->plane + x] = relu && !(v > 0.0f) ? 0.0f : v;
        }
}

IC_TARGET_AVX2
void ic__dm_conv_row_avx2(const ic_dm_conv *L, const ic_dm_tensor *in, const ic_dm_tensor *out, int32_t y,
                          int relu) {
    const int32_t k = L->k, s = L->stride, d = L->dil, half = k / 2, taps = k * k, cin = L->cin;
    const int32_t W = out->w;
    int32_t co = 0;
    for (; co + 4 <= L->cout; co += 4) { /* the network's three shapes specialised */
        if (s == 1 && k == 3) row4(L, in, out, co, y, relu, 1, 3);
        else if (s == 1 && k == 1) row4(L, in, out, co, y, relu, 1, 1);
        else if (s == 2 && k == 3) row4(L, in, out, co, y, relu, 2, 3);
        else row4(L, in, out, co, y, relu, s, k);
    }
    for (; co < L->cout; co++) { /* a layer whose channel count is not a multiple of 4 */
        const float *wc = L->w + (size_t)co * cin * taps;
        float *o = out->data + co * out->plane + (ptrdiff_t)y * out->stride;
        int32_t x = 0;
        for (; x < W; x += 8) { /* the last columns as the 8 ending at the row's end */
            if (x + 8 > W) {
                if (W < 8) break;
                x = W - 8;
            }
            __m256 a = _mm256_set1_ps(L->b[co]);
            for (int32_t ci = 0; ci < cin; ci++)
                for (int32_t ky = 0; ky < k; ky++) {
                    const float *row = in->data + ci * in->plane + (ptrdiff_t)(y * s + (ky - half) * d) * in->stride;
                    for (int32_t kx = 0; kx < k; kx++)
                        a = _mm256_fmadd_ps(_mm256_broadcast_ss(wc + ci * taps + ky * k + kx),
                                            load8(row + x * s + (kx - half) * d, s), a);
                }
            store8(o + x, a, relu);
        }
        for (; x < W; x++) {
            float v = one(L, in, co, x, y);
            o[x] = relu && !(v > 0.0f) ? 0.0f : v;
        }
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
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
        const uint8_t *r = src + i;
        for (int32_t y = 0; y < rows; y++, r += stride) {
            _mm_prefetch((const char *)(r + ahead), _MM_HINT_T0);
            const __m256i a = _mm256_loadu_si256((const __m256i *)r), b = _mm256_loadu_si256((const __m256i *)(r + 32));
            s0 = _mm256_add_epi16(s0, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(a)));
            s1 = _mm256_add_epi16(s1, _mm256_cvtepu8_epi16(_mm256_extracti128_si256(a, 1)));
            s2 = _mm256_add_epi16(s2, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(b)));
            s3 = _mm256_add_epi16(s3, _mm256_cvtepu8_epi16(_mm256_extracti128_si256(b, 1)));
        }
        _mm256_storeu_si256((__m256i *)(sums + i), s0);
        _mm256_storeu_si256((__m256i *)(sums + i + 16), s1);
        _mm256_storeu_si256((__m256i *)(sums + i + 32), s2);
        _mm256_storeu_si256((__m256i *)(sums + i + 48), s3);
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
void ic__dm_up_add_row_avx2(const float *low, float *o, int32_t w) {
    const __m256i dup = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256 zero = _mm256_setzero_ps();
    int32_t x = 0;
    for (; x + 8 <= w; x += 8) {
        const __m256 l = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(low + x / 2)), dup);
        _mm256_storeu_ps(o + x, _mm256_max_ps(_mm256_add_ps(l, _mm256_loadu_ps(o + x)), zero));
    }
    ic__dm_up_add_row_c(low + x / 2, o + x, w - x); /* x is even: the same pairs */
}
#endif
