/* AVX2 row kernels of the perspective warp (the scalar references are in warp.c).
 *
 * Coordinates: 8 destination pixels per step, in single precision relative to the span's
 * double-precision anchor (ic__warp_local): w_k = 1 + k dw, one division, X_k = rx + k ax / w_k
 * (plus the integer ix). Lanes outside the source are clamped to valid addresses, so every
 * gather is in bounds, and get the fill value by a final blend.
 *
 * Bilinear: 2 x 2 taps fetched with gathers (RGBA: one 8-byte gather per tap pair; UV: one
 * 4-byte gather = both pixels; gray: a 4-byte window that starts inside the row, shifted per
 * lane), interpolated in 16-bit fixed point: values scaled by 128, weights in Q15 through
 * pmulhrsw (error well below 1/32 LSB against the exact weights).
 * Bicubic: gray by gathering each tap row's 4 bytes; RGBA and UV per pixel with 8-byte loads
 * and single-precision FMA. Taps are replicated at the edges, as in the reference. */
#include "warp_internal.h"

#if IC_X86
#include <immintrin.h>
#include <string.h>

typedef struct lanes {
    __m256 dw, ax, ay, rx, ry;
    __m256 in_x0, in_x1, in_y0, in_y1; /* inside: X in [-0.5, sw - 0.5], relative to ix */
    __m256i ix, iy;
} lanes;

IC_TARGET_AVX2 static inline void lanes_init(lanes *L, const ic_warp_local *l,
                                             const ic_warp_plane *p) {
    L->dw = _mm256_set1_ps(l->dw);
    L->ax = _mm256_set1_ps(l->ax);
    L->ay = _mm256_set1_ps(l->ay);
    L->rx = _mm256_set1_ps(l->rx);
    L->ry = _mm256_set1_ps(l->ry);
    L->in_x0 = _mm256_set1_ps(-0.5f - (float)l->ix);
    L->in_x1 = _mm256_set1_ps((float)p->sw - 0.5f - (float)l->ix);
    L->in_y0 = _mm256_set1_ps(-0.5f - (float)l->iy);
    L->in_y1 = _mm256_set1_ps((float)p->sh - 0.5f - (float)l->iy);
    L->ix = _mm256_set1_epi32(l->ix);
    L->iy = _mm256_set1_epi32(l->iy);
}

/* Sample positions (relative to ix, iy) of pixels k0 .. k0 + 7 and the inside mask. */
IC_TARGET_AVX2 static inline void map8(const lanes *L, int32_t k0, __m256 *X, __m256 *Y,
                                       __m256 *inside) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 kf = _mm256_add_ps(_mm256_set1_ps((float)k0),
                              _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 w = _mm256_fmadd_ps(kf, L->dw, one);
    __m256 r = _mm256_div_ps(one, w);
    __m256 x = _mm256_fmadd_ps(_mm256_mul_ps(kf, L->ax), r, L->rx);
    __m256 y = _mm256_fmadd_ps(_mm256_mul_ps(kf, L->ay), r, L->ry);
    __m256 m = _mm256_cmp_ps(w, _mm256_setzero_ps(), _CMP_GT_OQ);
    m = _mm256_and_ps(m, _mm256_cmp_ps(x, L->in_x0, _CMP_GE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(x, L->in_x1, _CMP_LE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(y, L->in_y0, _CMP_GE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(y, L->in_y1, _CMP_LE_OQ));
    *X = x;
    *Y = y;
    *inside = m;
}

/* Bilinear tap position: the position clamped to [0, size - 1] (replicating the edge is
 * the same as clamping the position for bilinear), integer tap i0 in [0, size - 2] and
 * the fraction in [0, 1] as Q15 (0..32767) in both 16-bit halves of each lane. NaN lanes
 * (outside anyway) clamp to 0: max_ps returns its second operand for NaN. */
IC_TARGET_AVX2 static inline void bilinear_tap(__m256 rel, int32_t base, int32_t size,
                                               __m256i *i0, __m256i *q15) {
    __m256 lo = _mm256_set1_ps(-(float)base);
    __m256 hi = _mm256_set1_ps((float)(size - 1 - base));
    __m256 c = _mm256_min_ps(_mm256_max_ps(rel, lo), hi);
    __m256 f = _mm256_floor_ps(c);
    f = _mm256_min_ps(f, _mm256_set1_ps((float)(size - 2 - base)));
    __m256 frac = _mm256_sub_ps(c, f);
    *i0 = _mm256_add_epi32(_mm256_cvtps_epi32(f), _mm256_set1_epi32(base));
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(frac, _mm256_set1_ps(32767.0f)));
    *q15 = _mm256_or_si256(q, _mm256_slli_epi32(q, 16));
}

/* a + (b - a) * f in 16-bit lanes, a and b scaled by 128 (<= 32640), f in Q15. */
IC_TARGET_AVX2 static inline __m256i lerp16(__m256i a, __m256i b, __m256i f) {
    return _mm256_add_epi16(a, _mm256_mulhrs_epi16(_mm256_sub_epi16(b, a), f));
}

/* ---- bilinear RGBA -------------------------------------------------------------------- */

IC_TARGET_AVX2 void ic_warp_bilinear_rgba_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                    int32_t n) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bilinear_row_c(p, s, dst, n); return; }
    lanes L;
    lanes_init(&L, &l, p);
    const long long *src = (const long long *)(const void *)p->src;
    const long long *src2 = (const long long *)(const void *)(p->src + p->src_stride);
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    const __m256i mask = _mm256_set1_epi32(0x7F807F80);
    const __m256i r64 = _mm256_set1_epi16(64);
    const __m256i lowbyte = _mm256_set1_epi32(0x00FF00FF);
    int32_t fill32;
    memcpy(&fill32, p->fill, 4);
    const __m256i fill = _mm256_set1_epi32(fill32);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in;
        map8(&L, k, &X, &Y, &in);
        __m256i x0, y0, fx, fy;
        bilinear_tap(X, l.ix, p->sw, &x0, &fx);
        bilinear_tap(Y, l.iy, p->sh, &y0, &fy);
        __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), _mm256_slli_epi32(x0, 2));
        off = _mm256_permutevar8x32_epi32(off, order);
        __m128i oa = _mm256_castsi256_si128(off), ob = _mm256_extracti128_si256(off, 1);
        __m256 ta = _mm256_castsi256_ps(_mm256_i32gather_epi64(src, oa, 1));
        __m256 tb = _mm256_castsi256_ps(_mm256_i32gather_epi64(src, ob, 1));
        __m256 ba = _mm256_castsi256_ps(_mm256_i32gather_epi64(src2, oa, 1));
        __m256 bb = _mm256_castsi256_ps(_mm256_i32gather_epi64(src2, ob, 1));
        __m256i tl = _mm256_castps_si256(_mm256_shuffle_ps(ta, tb, 0x88));
        __m256i tr = _mm256_castps_si256(_mm256_shuffle_ps(ta, tb, 0xDD));
        __m256i bl = _mm256_castps_si256(_mm256_shuffle_ps(ba, bb, 0x88));
        __m256i br = _mm256_castps_si256(_mm256_shuffle_ps(ba, bb, 0xDD));
        /* R and B (even bytes) and G and A (odd bytes) as 16-bit values times 128. */
        __m256i rb = lerp16(lerp16(_mm256_and_si256(_mm256_slli_epi32(tl, 7), mask),
                                   _mm256_and_si256(_mm256_slli_epi32(tr, 7), mask), fx),
                            lerp16(_mm256_and_si256(_mm256_slli_epi32(bl, 7), mask),
                                   _mm256_and_si256(_mm256_slli_epi32(br, 7), mask), fx),
                            fy);
        __m256i ga = lerp16(lerp16(_mm256_and_si256(_mm256_srli_epi32(tl, 1), mask),
                                   _mm256_and_si256(_mm256_srli_epi32(tr, 1), mask), fx),
                            lerp16(_mm256_and_si256(_mm256_srli_epi32(bl, 1), mask),
                                   _mm256_and_si256(_mm256_srli_epi32(br, 1), mask), fx),
                            fy);
        rb = _mm256_and_si256(_mm256_srli_epi16(_mm256_add_epi16(rb, r64), 7), lowbyte);
        ga = _mm256_and_si256(_mm256_srli_epi16(_mm256_add_epi16(ga, r64), 7), lowbyte);
        __m256i out = _mm256_or_si256(rb, _mm256_slli_epi32(ga, 8));
        out = _mm256_blendv_epi8(fill, out, _mm256_castps_si256(in));
        if (n - k >= 8) {
            _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * (size_t)k), out);
        } else {
            __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - k),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            _mm256_maskstore_epi32((int *)(void *)(dst + 4 * (size_t)k), keep, out);
        }
    }
}

/* ---- bilinear gray -------------------------------------------------------------------- */

IC_TARGET_AVX2 void ic_warp_bilinear_gray_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                    int32_t n) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bilinear_row_c(p, s, dst, n); return; }
    lanes L;
    lanes_init(&L, &l, p);
    const int *src = (const int *)(const void *)p->src;
    const int *src2 = (const int *)(const void *)(p->src + p->src_stride);
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    const __m256i mask = _mm256_set1_epi32(0x7F80);
    const __m256i r64 = _mm256_set1_epi32(64);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i last = _mm256_set1_epi32(p->sw - 4);
    const __m256i fill = _mm256_set1_epi32(p->fill[0]);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in;
        map8(&L, k, &X, &Y, &in);
        __m256i x0, y0, fx, fy;
        bilinear_tap(X, l.ix, p->sw, &x0, &fx);
        bilinear_tap(Y, l.iy, p->sh, &y0, &fy);
        /* A 4-byte window [xr, xr + 4) inside the row that holds x0 and x0 + 1. */
        __m256i xr = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(x0, _mm256_set1_epi32(1)), zero), last);
        __m256i shift = _mm256_slli_epi32(_mm256_sub_epi32(x0, xr), 3);
        __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), xr);
        __m256i t = _mm256_srlv_epi32(_mm256_i32gather_epi32(src, off, 1), shift);
        __m256i b = _mm256_srlv_epi32(_mm256_i32gather_epi32(src2, off, 1), shift);
        __m256i v = lerp16(lerp16(_mm256_and_si256(_mm256_slli_epi32(t, 7), mask),
                                  _mm256_and_si256(_mm256_srli_epi32(t, 1), mask), fx),
                           lerp16(_mm256_and_si256(_mm256_slli_epi32(b, 7), mask),
                                  _mm256_and_si256(_mm256_srli_epi32(b, 1), mask), fx),
                           fy);
        v = _mm256_srli_epi32(_mm256_add_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xFFFF)), r64), 7);
        v = _mm256_blendv_epi8(fill, v, _mm256_castps_si256(in));
        __m256i p16 = _mm256_packus_epi32(v, v);
        __m256i p8 = _mm256_packus_epi16(p16, p16);
        __m128i bytes = _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
        if (n - k >= 8) {
            _mm_storel_epi64((__m128i *)(void *)(dst + k), bytes);
        } else {
            uint8_t tmp[16];
            _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
            memcpy(dst + k, tmp, (size_t)(n - k));
        }
    }
}

/* ---- bilinear UV (NV12 chroma) ------------------------------------------------------- */

IC_TARGET_AVX2 void ic_warp_bilinear_uv_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                  int32_t n) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bilinear_row_c(p, s, dst, n); return; }
    lanes L;
    lanes_init(&L, &l, p);
    const int *src = (const int *)(const void *)p->src;
    const int *src2 = (const int *)(const void *)(p->src + p->src_stride);
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    const __m256i mask = _mm256_set1_epi32(0x7F807F80);
    const __m256i r64 = _mm256_set1_epi16(64);
    const __m256i lowbyte = _mm256_set1_epi32(0xFF);
    const __m256i fill = _mm256_set1_epi32(p->fill[0] | p->fill[1] << 8);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in;
        map8(&L, k, &X, &Y, &in);
        __m256i x0, y0, fx, fy;
        bilinear_tap(X, l.ix, p->sw, &x0, &fx);
        bilinear_tap(Y, l.iy, p->sh, &y0, &fy);
        __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), _mm256_slli_epi32(x0, 1));
        __m256i t = _mm256_i32gather_epi32(src, off, 1); /* U0 V0 U1 V1 */
        __m256i b = _mm256_i32gather_epi32(src2, off, 1);
        /* U: low half = left pixel, high half = right pixel (times 128); V likewise. */
        __m256i tu = _mm256_and_si256(_mm256_slli_epi32(t, 7), mask);
        __m256i tv = _mm256_and_si256(_mm256_srli_epi32(t, 1), mask);
        __m256i bu = _mm256_and_si256(_mm256_slli_epi32(b, 7), mask);
        __m256i bv = _mm256_and_si256(_mm256_srli_epi32(b, 1), mask);
        /* Horizontal: left + (right - left) * fx in the low halves. */
        tu = lerp16(tu, _mm256_srli_epi32(tu, 16), fx);
        tv = lerp16(tv, _mm256_srli_epi32(tv, 16), fx);
        bu = lerp16(bu, _mm256_srli_epi32(bu, 16), fx);
        bv = lerp16(bv, _mm256_srli_epi32(bv, 16), fx);
        __m256i u = lerp16(tu, bu, fy), v = lerp16(tv, bv, fy);
        u = _mm256_and_si256(_mm256_srli_epi16(_mm256_add_epi16(u, r64), 7), lowbyte);
        v = _mm256_and_si256(_mm256_srli_epi16(_mm256_add_epi16(v, r64), 7), lowbyte);
        __m256i out = _mm256_or_si256(u, _mm256_slli_epi32(v, 8));
        out = _mm256_blendv_epi8(fill, out, _mm256_castps_si256(in));
        __m256i p16 = _mm256_permute4x64_epi64(_mm256_packus_epi32(out, out), 0x08);
        __m128i bytes = _mm256_castsi256_si128(p16);
        if (n - k >= 8) {
            _mm_storeu_si128((__m128i *)(void *)(dst + 2 * (size_t)k), bytes);
        } else {
            uint8_t tmp[16];
            _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
            memcpy(dst + 2 * (size_t)k, tmp, 2 * (size_t)(n - k));
        }
    }
}

/* ---- bicubic ----------------------------------------------------------------------------- */

/* Catmull-Rom weights of 8 fractions. */
IC_TARGET_AVX2 static inline void cubic_weights(__m256 t, __m256 w[4]) {
    const __m256 h = _mm256_set1_ps(0.5f);
    __m256 t2 = _mm256_mul_ps(t, t), t3 = _mm256_mul_ps(t2, t);
    /* w0 = -0.5 t3 + t2 - 0.5 t ; w3 = 0.5 t3 - 0.5 t2 */
    w[0] = _mm256_sub_ps(t2, _mm256_mul_ps(h, _mm256_add_ps(t3, t)));
    w[3] = _mm256_mul_ps(h, _mm256_sub_ps(t3, t2));
    /* w1 = 1.5 t3 - 2.5 t2 + 1 ; w2 = -1.5 t3 + 2 t2 + 0.5 t */
    w[1] = _mm256_fmadd_ps(_mm256_set1_ps(1.5f), t3,
                           _mm256_fmadd_ps(_mm256_set1_ps(-2.5f), t2, _mm256_set1_ps(1.0f)));
    w[2] = _mm256_fmadd_ps(_mm256_set1_ps(-1.5f), t3,
                           _mm256_fmadd_ps(_mm256_set1_ps(2.0f), t2, _mm256_mul_ps(h, t)));
}

/* Bicubic tap position: the position clamped to the inside band [-0.5, size - 0.5] (only
 * outside or NaN lanes change), its floor i0 in [-1, size - 1] and the fraction. */
IC_TARGET_AVX2 static inline void bicubic_tap(__m256 rel, int32_t base, int32_t size,
                                              __m256i *i0, __m256 *frac) {
    __m256 lo = _mm256_set1_ps(-0.5f - (float)base);
    __m256 hi = _mm256_set1_ps((float)size - 0.5f - (float)base);
    __m256 c = _mm256_min_ps(_mm256_max_ps(rel, lo), hi);
    __m256 f = _mm256_floor_ps(c);
    *frac = _mm256_sub_ps(c, f);
    *i0 = _mm256_add_epi32(_mm256_cvtps_epi32(f), _mm256_set1_epi32(base));
}

IC_TARGET_AVX2 static inline __m256i clamp_epi32(__m256i v, int32_t lo, int32_t hi) {
    return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
}

IC_TARGET_AVX2 void ic_warp_bicubic_gray_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                   int32_t n) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bicubic_row_c(p, s, dst, n); return; }
    lanes L;
    lanes_init(&L, &l, p);
    const int *src = (const int *)(const void *)p->src;
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    const __m256i ff = _mm256_set1_epi32(0xFF);
    const __m256i fill = _mm256_set1_epi32(p->fill[0]);
    const __m256i lane_base = _mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0C0C0C0C,
                                                0, 0x04040404, 0x08080808, 0x0C0C0C0C);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in, tx, ty, wx[4], wy[4];
        map8(&L, k, &X, &Y, &in);
        __m256i x0, y0;
        bicubic_tap(X, l.ix, p->sw, &x0, &tx);
        bicubic_tap(Y, l.iy, p->sh, &y0, &ty);
        cubic_weights(tx, wx);
        cubic_weights(ty, wy);
        __m256i xm1 = _mm256_sub_epi32(x0, _mm256_set1_epi32(1));
        __m256i xr = clamp_epi32(xm1, 0, p->sw - 4);
        /* Lanes whose 4 taps are not xr .. xr + 3 (left or right edge) pick replicated
         * bytes with a per-lane shuffle. */
        int edge = _mm256_movemask_epi8(_mm256_cmpeq_epi32(xr, xm1)) != -1;
        __m256i ctrl = _mm256_setzero_si256();
        if (edge) {
            __m256i c = _mm256_setzero_si256();
            for (int i = 0; i < 4; i++) {
                __m256i ti = _mm256_sub_epi32(clamp_epi32(_mm256_add_epi32(xm1, _mm256_set1_epi32(i)), 0, p->sw - 1), xr);
                c = _mm256_or_si256(c, _mm256_slli_epi32(ti, 8 * i));
            }
            ctrl = _mm256_add_epi32(c, lane_base);
        }
        __m256 acc = _mm256_setzero_ps();
        for (int j = 0; j < 4; j++) {
            __m256i yr = clamp_epi32(_mm256_add_epi32(y0, _mm256_set1_epi32(j - 1)), 0, p->sh - 1);
            __m256i g = _mm256_i32gather_epi32(src, _mm256_add_epi32(_mm256_mullo_epi32(yr, stride), xr), 1);
            if (edge) g = _mm256_shuffle_epi8(g, ctrl);
            __m256 h = _mm256_mul_ps(wx[0], _mm256_cvtepi32_ps(_mm256_and_si256(g, ff)));
            h = _mm256_fmadd_ps(wx[1], _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g, 8), ff)), h);
            h = _mm256_fmadd_ps(wx[2], _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g, 16), ff)), h);
            h = _mm256_fmadd_ps(wx[3], _mm256_cvtepi32_ps(_mm256_srli_epi32(g, 24)), h);
            acc = _mm256_fmadd_ps(wy[j], h, acc);
        }
        acc = _mm256_min_ps(_mm256_max_ps(acc, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
        __m256i v = _mm256_cvtps_epi32(acc);
        v = _mm256_blendv_epi8(fill, v, _mm256_castps_si256(in));
        __m256i p16 = _mm256_packus_epi32(v, v);
        __m256i p8 = _mm256_packus_epi16(p16, p16);
        __m128i bytes = _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
        if (n - k >= 8) {
            _mm_storel_epi64((__m128i *)(void *)(dst + k), bytes);
        } else {
            uint8_t tmp[16];
            _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
            memcpy(dst + k, tmp, (size_t)(n - k));
        }
    }
}

/* Per-pixel bicubic for interleaved channels (ch = 2 or 4): coordinates and weights for 8
 * pixels in vectors, then each inside pixel whose 4 x 4 taps lie within the source reads its
 * 4 rows with 8-byte loads and accumulates in single precision. Pixels touching an edge use
 * the same weights with clamped taps in scalar code. */
IC_TARGET_AVX2 static inline void transpose_weights(const __m256 w[4], float out[8][4]) {
    __m256 t0 = _mm256_unpacklo_ps(w[0], w[1]), t1 = _mm256_unpacklo_ps(w[2], w[3]);
    __m256 t2 = _mm256_unpackhi_ps(w[0], w[1]), t3 = _mm256_unpackhi_ps(w[2], w[3]);
    __m256 a0 = _mm256_shuffle_ps(t0, t1, 0x44), a1 = _mm256_shuffle_ps(t0, t1, 0xEE);
    __m256 a2 = _mm256_shuffle_ps(t2, t3, 0x44), a3 = _mm256_shuffle_ps(t2, t3, 0xEE);
    _mm_storeu_ps(out[0], _mm256_castps256_ps128(a0));
    _mm_storeu_ps(out[1], _mm256_castps256_ps128(a1));
    _mm_storeu_ps(out[2], _mm256_castps256_ps128(a2));
    _mm_storeu_ps(out[3], _mm256_castps256_ps128(a3));
    _mm_storeu_ps(out[4], _mm256_extractf128_ps(a0, 1));
    _mm_storeu_ps(out[5], _mm256_extractf128_ps(a1, 1));
    _mm_storeu_ps(out[6], _mm256_extractf128_ps(a2, 1));
    _mm_storeu_ps(out[7], _mm256_extractf128_ps(a3, 1));
}

static inline int32_t clampi(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static inline uint8_t round_f(float v) {
    if (!(v > 0)) return 0;
    if (v >= 255) return 255;
    return (uint8_t)(v + 0.5f);
}

static void bicubic_edge_pixel(const ic_warp_plane *p, int32_t x0, int32_t y0, const float wx[4],
                               const float wy[4], uint8_t *out) {
    const int32_t ch = p->channels;
    for (int32_t c = 0; c < ch; c++) {
        float acc = 0;
        for (int j = 0; j < 4; j++) {
            const uint8_t *r = p->src + (size_t)clampi(y0 - 1 + j, 0, p->sh - 1) * p->src_stride + c;
            float h = 0;
            for (int i = 0; i < 4; i++) h += wx[i] * r[clampi(x0 - 1 + i, 0, p->sw - 1) * ch];
            acc += wy[j] * h;
        }
        out[c] = round_f(acc);
    }
}

IC_TARGET_AVX2 static inline void bicubic_interleaved(const ic_warp_plane *p, const ic_warp_span *s,
                                                      uint8_t *dst, int32_t n, const int ch) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bicubic_row_c(p, s, dst, n); return; }
    lanes L;
    lanes_init(&L, &l, p);
    /* Weight layouts: RGBA [w0 x4 | w1 x4], [w2 x4 | w3 x4]; UV [w0 w0 w1 w1 w2 w2 w3 w3]. */
    const __m256i sel01 = ch == 4 ? _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)
                                  : _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    const __m256i sel23 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in, tx, ty, w[4];
        map8(&L, k, &X, &Y, &in);
        __m256i x0v, y0v;
        bicubic_tap(X, l.ix, p->sw, &x0v, &tx);
        bicubic_tap(Y, l.iy, p->sh, &y0v, &ty);
        float wx[8][4], wy[8][4];
        int32_t xs[8], ys[8];
        cubic_weights(tx, w);
        transpose_weights(w, wx);
        cubic_weights(ty, w);
        transpose_weights(w, wy);
        _mm256_storeu_si256((__m256i *)(void *)xs, x0v);
        _mm256_storeu_si256((__m256i *)(void *)ys, y0v);
        int inside = _mm256_movemask_ps(in);
        int32_t m = n - k < 8 ? n - k : 8;
        for (int32_t i = 0; i < m; i++) {
            uint8_t *o = dst + (size_t)(k + i) * (size_t)ch;
            if (!(inside >> i & 1)) {
                memcpy(o, p->fill, (size_t)ch);
                continue;
            }
            int32_t x0 = xs[i], y0 = ys[i];
            if (x0 < 1 || x0 > p->sw - 3 || y0 < 1 || y0 > p->sh - 3) {
                bicubic_edge_pixel(p, x0, y0, wx[i], wy[i], o);
                continue;
            }
            __m256 w4 = _mm256_castps128_ps256(_mm_loadu_ps(wx[i]));
            __m256 wa = _mm256_permutevar8x32_ps(w4, sel01);
            __m256 wb = _mm256_permutevar8x32_ps(w4, sel23);
            const uint8_t *r = p->src + (size_t)(y0 - 1) * p->src_stride + (size_t)(x0 - 1) * (size_t)ch;
            __m256 acc = _mm256_setzero_ps();
            for (int j = 0; j < 4; j++, r += p->src_stride) {
                __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)r)));
                __m256 h = _mm256_mul_ps(a, wa);
                if (ch == 4) {
                    __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(r + 8))));
                    h = _mm256_fmadd_ps(b, wb, h);
                }
                acc = _mm256_fmadd_ps(h, _mm256_broadcast_ss(&wy[i][j]), acc);
            }
            __m128 q = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
            if (ch == 2) q = _mm_add_ps(q, _mm_movehl_ps(q, q)); /* U, V in lanes 0, 1 */
            q = _mm_min_ps(_mm_max_ps(q, _mm_setzero_ps()), _mm_set1_ps(255.0f));
            __m128i v = _mm_cvtps_epi32(q);
            v = _mm_packus_epi16(_mm_packus_epi32(v, v), v);
            if (ch == 4) {
                int32_t px = _mm_cvtsi128_si32(v);
                memcpy(o, &px, 4);
            } else {
                uint16_t px = (uint16_t)_mm_cvtsi128_si32(v);
                memcpy(o, &px, 2);
            }
        }
    }
}

IC_TARGET_AVX2 void ic_warp_bicubic_rgba_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                   int32_t n) {
    bicubic_interleaved(p, s, dst, n, 4);
}

IC_TARGET_AVX2 void ic_warp_bicubic_uv_row_avx2(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                 int32_t n) {
    bicubic_interleaved(p, s, dst, n, 2);
}

#endif
