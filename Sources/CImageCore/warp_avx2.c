/* AVX2 row kernels of the perspective warp (the scalar references are in warp.c).
 *
 * Coordinates: 8 destination pixels per step, in single precision relative to the span's
 * double-precision anchor (ic__warp_local): w_k = 1 + k dw, one division, X_k = rx + k ax / w_k
 * (plus the integer ix), so the error neither grows with the coordinates nor along the row.
 *
 * Interior spans (both ends at least 1/1000 px inside the source, so every pixel is: see
 * ic__span_within) skip the inside test, the clamps and the fill blend, and fetch their taps
 * from row windows: when a group's taps lie in 8 RGBA pixels (32 bytes) or 16 bytes (gray,
 * UV) of two or three consecutive rows -- the usual case when rectifying at up to ~0.85
 * source pixels per destination pixel -- the rows are loaded once and each lane's taps are
 * picked with vpermd (RGBA) or pshufb (gray, UV); the window is verified per group. Other
 * groups use plain 8-byte loads per tap pair (RGBA) or gathers (gray, UV); on the AMD cores
 * measured here qword gathers were several times slower than the loads.
 * Edge spans clamp positions to valid addresses (so every load is in bounds and within its
 * row, never in the padding) and blend the fill value in.
 *
 * Bilinear arithmetic: 16-bit fixed point, values scaled by 128, weights in Q15 through
 * pmulhrsw (error well below 1/32 LSB against exact weights). Interior spans compute their
 * positions directly in 17.15 fixed point (one conversion gives tap and weight).
 * Bicubic: gray by gathering each tap row's 4 bytes (per-lane shuffles replicate edge taps);
 * RGBA and UV per pixel with 8-byte loads and single-precision FMA, edge pixels in scalar
 * code with the same weights. */
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

/* The 8-byte tap pairs of 8 pixels at base + off[i] and one row further down, with plain
 * loads: on the AMD cores measured here 16 scalar loads plus inserts are several times
 * faster than 4 qword gathers. ta holds pixels 0 1 | 4 5 and tb 2 3 | 6 7, the order the
 * shuffles in bilinear_rgba8 undo. */
IC_TARGET_AVX2 static inline void fetch_pairs(const uint8_t *base, size_t stride, __m256i off,
                                              __m256 *ta, __m256 *tb, __m256 *ba, __m256 *bb) {
    int32_t o[8];
    _mm256_storeu_si256((__m256i *)(void *)o, off);
    const uint8_t *b2 = base + stride;
#define IC_LD(b, i) _mm_loadl_epi64((const __m128i *)(const void *)((b) + o[i]))
#define IC_PAIR(b, i, j) _mm_unpacklo_epi64(IC_LD(b, i), IC_LD(b, j))
    *ta = _mm256_castsi256_ps(_mm256_set_m128i(IC_PAIR(base, 4, 5), IC_PAIR(base, 0, 1)));
    *tb = _mm256_castsi256_ps(_mm256_set_m128i(IC_PAIR(base, 6, 7), IC_PAIR(base, 2, 3)));
    *ba = _mm256_castsi256_ps(_mm256_set_m128i(IC_PAIR(b2, 4, 5), IC_PAIR(b2, 0, 1)));
    *bb = _mm256_castsi256_ps(_mm256_set_m128i(IC_PAIR(b2, 6, 7), IC_PAIR(b2, 2, 3)));
#undef IC_PAIR
#undef IC_LD
}

/* Bilinear RGBA of 8 pixels from their four taps (8 RGBA pixels each) and Q15 fractions in
 * both 16-bit halves of each lane. */
IC_TARGET_AVX2 static inline __m256i bilinear_rgba_math(__m256i tl, __m256i tr, __m256i bl, __m256i br,
                                                        __m256i fx, __m256i fy) {
    const __m256i mask = _mm256_set1_epi32(0x7F807F80);
    const __m256i r64 = _mm256_set1_epi16(64);
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
    rb = _mm256_srli_epi16(_mm256_add_epi16(rb, r64), 7);
    ga = _mm256_srli_epi16(_mm256_add_epi16(ga, r64), 7);
    return _mm256_or_si256(rb, _mm256_slli_epi16(ga, 8));
}

/* Bilinear RGBA of 8 pixels whose top-left taps are at base + off (byte offsets). */
IC_TARGET_AVX2 static inline __m256i bilinear_rgba8(const uint8_t *base, size_t stride, __m256i off,
                                                    __m256i fx, __m256i fy) {
    __m256 ta, tb, ba, bb;
    fetch_pairs(base, stride, off, &ta, &tb, &ba, &bb);
    return bilinear_rgba_math(_mm256_castps_si256(_mm256_shuffle_ps(ta, tb, 0x88)),
                              _mm256_castps_si256(_mm256_shuffle_ps(ta, tb, 0xDD)),
                              _mm256_castps_si256(_mm256_shuffle_ps(ba, bb, 0x88)),
                              _mm256_castps_si256(_mm256_shuffle_ps(ba, bb, 0xDD)), fx, fy);
}

/* Positions of an interior span in fixed point: x and y times 2^15 relative to the anchor
 * pixel (ix, iy), which is inside the source (so relative taps give byte offsets directly),
 * rounded to int32 by one conversion each. The integer tap is then an arithmetic shift and
 * the Q15 fraction a mask, instead of floor, subtract, scale and a second conversion. The
 * scale 2^15 is folded into the constants (exact: a power of two). A fraction that rounds up
 * to 1 carries into the integer part, which is the same point.
 * Needs |relative position| < 2^16: the callers of this path check sw, sh < 2^15. */
typedef struct fixed_lanes {
    __m256 dw, ax, ay, rx, ry;
} fixed_lanes;

IC_TARGET_AVX2 static inline void fixed_init(fixed_lanes *F, const ic_warp_local *l) {
    F->dw = _mm256_set1_ps(l->dw);
    F->ax = _mm256_set1_ps(l->ax * 32768.0f);
    F->ay = _mm256_set1_ps(l->ay * 32768.0f);
    F->rx = _mm256_set1_ps(l->rx * 32768.0f);
    F->ry = _mm256_set1_ps(l->ry * 32768.0f);
}

/* Integer taps (relative to the anchor) and Q15 fractions in both 16-bit halves of each
 * lane, for pixels kf (k0 .. k0 + 7, exact in float). */
IC_TARGET_AVX2 static inline void fixed_map8(const fixed_lanes *F, __m256 kf, __m256i *xi, __m256i *yi,
                                             __m256i *fx, __m256i *fy) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256i low15 = _mm256_set1_epi32(0x7FFF7FFF);
    const __m256i dup = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13,
                                         0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13);
    __m256 r = _mm256_div_ps(one, _mm256_fmadd_ps(kf, F->dw, one));
    __m256i qx = _mm256_cvtps_epi32(_mm256_fmadd_ps(_mm256_mul_ps(kf, F->ax), r, F->rx));
    __m256i qy = _mm256_cvtps_epi32(_mm256_fmadd_ps(_mm256_mul_ps(kf, F->ay), r, F->ry));
    *xi = _mm256_srai_epi32(qx, 15);
    *yi = _mm256_srai_epi32(qy, 15);
    *fx = _mm256_and_si256(_mm256_shuffle_epi8(qx, dup), low15);
    *fy = _mm256_and_si256(_mm256_shuffle_epi8(qy, dup), low15);
}

/* The window fast path: when the 8 pixels' taps lie in one 8-pixel (32-byte) window of two
 * or three consecutive rows -- the usual case when rectifying at up to ~0.85 source pixels
 * per destination pixel -- load the rows once and pick each tap with vpermd, instead of 16
 * separate loads. `xi`, `yi` are tap positions relative to `base`, `xw` and `yw` a guess of
 * the window's corner (from the group's first pixel and the span's direction); the guess is
 * verified and 0 is returned when it does not hold. */
IC_TARGET_AVX2 static inline int rgba_window_group(const uint8_t *base, size_t stride, ptrdiff_t ahead,
                                                   __m256i xi, __m256i yi, __m256i fx, __m256i fy,
                                                   int32_t xw, int32_t yw, __m256i *out) {
    __m256i il = _mm256_sub_epi32(xi, _mm256_set1_epi32(xw));
    __m256i ir = _mm256_add_epi32(il, _mm256_set1_epi32(1));
    __m256i dy = _mm256_sub_epi32(yi, _mm256_set1_epi32(yw));
    /* il in 0..6 (il and il + 1 both in 0..7) and dy in 0..1, in one test. */
    __m256i bad = _mm256_or_si256(_mm256_or_si256(il, ir), _mm256_slli_epi32(dy, 2));
    if (!_mm256_testz_si256(bad, _mm256_set1_epi32(~7))) return 0;
    const uint8_t *r0 = base + (ptrdiff_t)yw * (ptrdiff_t)stride + 4 * (ptrdiff_t)xw;
    if (ahead) { /* this window a few rows further down (see ic_warp_span) */
        __builtin_prefetch(r0 + ahead);
        __builtin_prefetch(r0 + ahead + stride);
    }
    __m256i row0 = _mm256_loadu_si256((const __m256i *)(const void *)r0);
    __m256i row1 = _mm256_loadu_si256((const __m256i *)(const void *)(r0 + stride));
    __m256i tl = _mm256_permutevar8x32_epi32(row0, il), tr = _mm256_permutevar8x32_epi32(row0, ir);
    __m256i bl = _mm256_permutevar8x32_epi32(row1, il), br = _mm256_permutevar8x32_epi32(row1, ir);
    /* A branch, not an unconditional third row: measured faster here even though a
     * slanted span enters a new row every few groups. */
    if (!_mm256_testz_si256(dy, dy)) {
        /* Two rows of taps: lanes with dy = 1 read rows 1 and 2. */
        __m256i row2 = _mm256_loadu_si256((const __m256i *)(const void *)(r0 + 2 * stride));
        __m256i second = _mm256_sub_epi32(_mm256_setzero_si256(), dy);
        tl = _mm256_blendv_epi8(tl, bl, second);
        tr = _mm256_blendv_epi8(tr, br, second);
        bl = _mm256_blendv_epi8(bl, _mm256_permutevar8x32_epi32(row2, il), second);
        br = _mm256_blendv_epi8(br, _mm256_permutevar8x32_epi32(row2, ir), second);
    }
    *out = bilinear_rgba_math(tl, tr, bl, br, fx, fy);
    return 1;
}

/* The interior loop. `deep` spans (positions at least 8 px inside every edge) skip the
 * window clamps: the window's corner xw >= x - 7 >= 0, its right end xw + 7 <= x + 7 <= sw - 2
 * and its third row yw + 2 <= y + 2 <= sh - 7. */
IC_TARGET_AVX2 static inline void bilinear_rgba_interior(const ic_warp_plane *p, const ic_warp_span *s,
                                                         const ic_warp_local *l, uint8_t *dst, int32_t n,
                                                         const int deep) {
    fixed_lanes F;
    fixed_init(&F, l);
    const size_t stride = p->src_stride;
    const __m256i vstride = _mm256_set1_epi32((int32_t)stride);
    const uint8_t *base = p->src + (size_t)l->iy * stride + 4 * (size_t)l->ix;
    /* Windows are 8 pixels wide; with their left edge at most sw - 8 (absolute) every
     * window row stays inside the row, and rows yw .. yw + 2 exist because the taps are
     * interior (y <= sh - 2) whenever dy = 1 occurs. */
    const int32_t xw_max = p->sw - 8 - l->ix;
    /* The window's corner from the group's first pixel and the span's direction. */
    const int32_t xback = s->du * s->w - s->u * s->dw < 0 ? 6 : 0;
    const int32_t yback = s->dv * s->w - s->v * s->dw < 0 ? 1 : 0;
    const ptrdiff_t ahead = s->ahead;
    int32_t k = 0;
    __m256 kf = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    for (; k + 8 <= n; k += 8, kf = _mm256_add_ps(kf, _mm256_set1_ps(8.0f))) {
        __m256i xi, yi, fx, fy, out;
        fixed_map8(&F, kf, &xi, &yi, &fx, &fy);
        int32_t xw = _mm256_cvtsi256_si32(xi) - xback, yw = _mm256_cvtsi256_si32(yi) - yback;
        if (!deep) {
            if (xw > xw_max) xw = xw_max;
            if (xw < -l->ix) xw = -l->ix; /* never left of the row or above the plane */
            if (yw < -l->iy) yw = -l->iy;
        }
        if (!rgba_window_group(base, stride, ahead, xi, yi, fx, fy, xw, yw, &out)) {
            __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(yi, vstride), _mm256_slli_epi32(xi, 2));
            out = bilinear_rgba8(base, stride, off, fx, fy);
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * (size_t)k), out);
    }
    if (k < n) {
        __m256i xi, yi, fx, fy;
        fixed_map8(&F, kf, &xi, &yi, &fx, &fy);
        /* Lanes beyond the span may lie outside the source: point them at the anchor. */
        __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(yi, vstride), _mm256_slli_epi32(xi, 2));
        off = _mm256_and_si256(off, keep);
        _mm256_maskstore_epi32((int *)(void *)(dst + 4 * (size_t)k), keep, bilinear_rgba8(base, stride, off, fx, fy));
    }
}

/* ---- bilinear RGBA -------------------------------------------------------------------- */

IC_TARGET_AVX2 void ic_warp_bilinear_rgba_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                                   uint8_t *dst, int32_t n) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bilinear_row_c(p, s, dst, n); return; }
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    /* Interior spans; fixed-point positions need sizes below 2^15, windows sw >= 8. */
    if (p->sw >= 8 && p->sw < 32768 && p->sh < 32768 && ic__span_within(p, s, n, 1e-3, 1e-3)) {
        if (ic__span_within(p, s, n, 8, 8)) bilinear_rgba_interior(p, s, &l, dst, n, 1);
        else bilinear_rgba_interior(p, s, &l, dst, n, 0);
        return;
    }
    lanes L;
    lanes_init(&L, &l, p);
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
        __m256i out = bilinear_rgba8(p->src, p->src_stride, off, fx, fy);
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

/* ---- bilinear gray and UV (1- and 2-byte pixels) -------------------------------------- */

/* The four taps of 8 gray pixels as [L, R] in the low 16 bits of each lane (top and bottom
 * row), or of 8 UV pixels as [U_L, V_L, U_R, V_R], are interpolated by the same code. */
IC_TARGET_AVX2 static inline __m256i bilinear_gray_math(__m256i t, __m256i b, __m256i fx, __m256i fy) {
    const __m256i mask = _mm256_set1_epi32(0x7F80);
    __m256i v = lerp16(lerp16(_mm256_and_si256(_mm256_slli_epi32(t, 7), mask),
                              _mm256_and_si256(_mm256_srli_epi32(t, 1), mask), fx),
                       lerp16(_mm256_and_si256(_mm256_slli_epi32(b, 7), mask),
                              _mm256_and_si256(_mm256_srli_epi32(b, 1), mask), fx),
                       fy);
    /* high halves hold garbage from the lerps on zeros: keep the low 16 bits */
    return _mm256_srli_epi32(_mm256_add_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xFFFF)),
                                              _mm256_set1_epi32(64)), 7);
}

IC_TARGET_AVX2 static inline __m256i bilinear_uv_math(__m256i t, __m256i b, __m256i fx, __m256i fy) {
    const __m256i mask = _mm256_set1_epi32(0x7F807F80);
    const __m256i r64 = _mm256_set1_epi16(64);
    const __m256i lowbyte = _mm256_set1_epi32(0xFF);
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
    return _mm256_or_si256(u, _mm256_slli_epi32(v, 8));
}

/* 8 values of 1 (gray) or 2 (UV) bytes from the low bytes of 32-bit lanes, stored. */
IC_TARGET_AVX2 static inline void store_small(uint8_t *dst, __m256i v, int32_t ch, int32_t count) {
    __m256i p16 = _mm256_packus_epi32(v, v); /* lane order 0-3 0-3 | 4-7 4-7 */
    __m128i bytes;
    if (ch == 1) {
        __m256i p8 = _mm256_packus_epi16(p16, p16);
        bytes = _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
    } else {
        bytes = _mm256_castsi256_si128(_mm256_permute4x64_epi64(p16, 0x08));
    }
    if (count == 8) {
        if (ch == 1) _mm_storel_epi64((__m128i *)(void *)dst, bytes);
        else _mm_storeu_si128((__m128i *)(void *)dst, bytes);
    } else {
        uint8_t tmp[16];
        _mm_storeu_si128((__m128i *)(void *)tmp, bytes);
        memcpy(dst, tmp, (size_t)(count * ch));
    }
}

/* Edge spans (and any group the window does not fit): positions clamped, taps fetched with
 * gathers (gray: a 4-byte window [xr, xr + 4) inside the row, shifted per lane; UV: the
 * 4 bytes of two pixels), fill blended in. */
IC_TARGET_AVX2 static inline void bilinear_small_general(const ic_warp_plane *p, const ic_warp_local *l,
                                                         const ic_warp_span *s, uint8_t *dst, int32_t n,
                                                         const int32_t ch) {
    (void)s;
    lanes L;
    lanes_init(&L, l, p);
    const int *src = (const int *)(const void *)p->src;
    const int *src2 = (const int *)(const void *)(p->src + p->src_stride);
    const __m256i stride = _mm256_set1_epi32((int32_t)p->src_stride);
    const __m256i fill = _mm256_set1_epi32(ch == 1 ? p->fill[0] : p->fill[0] | p->fill[1] << 8);
    for (int32_t k = 0; k < n; k += 8) {
        __m256 X, Y, in;
        map8(&L, k, &X, &Y, &in);
        __m256i x0, y0, fx, fy, t, b, v;
        bilinear_tap(X, l->ix, p->sw, &x0, &fx);
        bilinear_tap(Y, l->iy, p->sh, &y0, &fy);
        if (ch == 1) {
            __m256i xr = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(x0, _mm256_set1_epi32(1)),
                                                           _mm256_setzero_si256()),
                                          _mm256_set1_epi32(p->sw - 4));
            __m256i shift = _mm256_slli_epi32(_mm256_sub_epi32(x0, xr), 3);
            __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), xr);
            t = _mm256_srlv_epi32(_mm256_i32gather_epi32(src, off, 1), shift);
            b = _mm256_srlv_epi32(_mm256_i32gather_epi32(src2, off, 1), shift);
            v = bilinear_gray_math(t, b, fx, fy);
        } else {
            __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), _mm256_slli_epi32(x0, 1));
            t = _mm256_i32gather_epi32(src, off, 1);
            b = _mm256_i32gather_epi32(src2, off, 1);
            v = bilinear_uv_math(t, b, fx, fy);
        }
        v = _mm256_blendv_epi8(fill, v, _mm256_castps_si256(in));
        store_small(dst + (size_t)k * (size_t)ch, v, ch, n - k < 8 ? n - k : 8);
    }
}

/* Interior spans with 16-byte row windows: 16 gray or 8 UV pixels per window row, each
 * lane's taps picked with pshufb from the row broadcast to both 128-bit halves; groups
 * whose taps do not fit one window fall back to the gathers above. */
IC_TARGET_AVX2 static inline void bilinear_small_interior(const ic_warp_plane *p, const ic_warp_span *s,
                                                          const ic_warp_local *lp, uint8_t *dst, int32_t n,
                                                          const int32_t ch, const int deep) {
    const ic_warp_local l = *lp;
    const int32_t win = 16 / ch; /* pixels per window row */
    fixed_lanes F;
    fixed_init(&F, &l);
    const size_t stride = p->src_stride;
    const ptrdiff_t ahead = s->ahead;
    const uint8_t *base = p->src + (size_t)l.iy * stride + (size_t)l.ix * (size_t)ch;
    const int32_t xw_max = p->sw - win - l.ix;
    const int32_t xback = s->du * s->w - s->u * s->dw < 0 ? win - 2 : 0;
    const int32_t yback = s->dv * s->w - s->v * s->dw < 0 ? 1 : 0;
    /* il in 0..win - 2 (il and il + 1 both in 0..win - 1) and dy in 0..1, in one test. */
    const __m256i outside = _mm256_set1_epi32(~(win - 1));
    const int dy_shift = ch == 1 ? 3 : 2; /* dy = 1 -> win / 2, inside the mask */
    /* pshufb control per lane from the window index: gray [i, i + 1, -, -]; UV
     * [2i, 2i + 1, 2i + 2, 2i + 3]. */
    const __m256i cmul = _mm256_set1_epi32(ch == 1 ? 0x0101 : 0x02020202);
    const __m256i cadd = _mm256_set1_epi32(ch == 1 ? (int32_t)0x80800100 : 0x03020100);
    const __m256i vstride = _mm256_set1_epi32((int32_t)stride);
    int32_t k = 0;
    __m256 kf = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    for (; k + 8 <= n; k += 8, kf = _mm256_add_ps(kf, _mm256_set1_ps(8.0f))) {
        __m256i xi, yi, fx, fy, t, b;
        fixed_map8(&F, kf, &xi, &yi, &fx, &fy);
        int32_t xw = _mm256_cvtsi256_si32(xi) - xback, yw = _mm256_cvtsi256_si32(yi) - yback;
        if (!deep) {
            if (xw > xw_max) xw = xw_max;
            if (xw < -l.ix) xw = -l.ix;
            if (yw < -l.iy) yw = -l.iy;
        }
        __m256i il = _mm256_sub_epi32(xi, _mm256_set1_epi32(xw));
        __m256i dy = _mm256_sub_epi32(yi, _mm256_set1_epi32(yw));
        __m256i bad = _mm256_or_si256(_mm256_or_si256(il, _mm256_add_epi32(il, _mm256_set1_epi32(1))),
                                      _mm256_slli_epi32(dy, dy_shift));
        if (_mm256_testz_si256(bad, outside)) {
            __m256i ctrl = _mm256_add_epi32(_mm256_mullo_epi32(il, cmul), cadd);
            const uint8_t *r0 = base + (ptrdiff_t)yw * (ptrdiff_t)stride + (ptrdiff_t)xw * ch;
            if (ahead) { /* this window a few rows further down (see ic_warp_span) */
                __builtin_prefetch(r0 + ahead);
                __builtin_prefetch(r0 + ahead + stride);
            }
            __m256i row0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)r0));
            __m256i row1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(r0 + stride)));
            t = _mm256_shuffle_epi8(row0, ctrl);
            b = _mm256_shuffle_epi8(row1, ctrl);
            if (!_mm256_testz_si256(dy, dy)) { /* lanes with dy = 1 read rows 1 and 2 */
                __m256i row2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(r0 + 2 * stride)));
                __m256i second = _mm256_sub_epi32(_mm256_setzero_si256(), dy);
                t = _mm256_blendv_epi8(t, b, second);
                b = _mm256_blendv_epi8(b, _mm256_shuffle_epi8(row2, ctrl), second);
            }
        } else if (ch == 1) {
            /* 4-byte windows inside the row (relative to the anchor pixel), shifted per lane. */
            __m256i xr = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(xi, _mm256_set1_epi32(1)),
                                                           _mm256_set1_epi32(-l.ix)),
                                          _mm256_set1_epi32(p->sw - 4 - l.ix));
            __m256i shift = _mm256_slli_epi32(_mm256_sub_epi32(xi, xr), 3);
            __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(yi, vstride), xr);
            t = _mm256_srlv_epi32(_mm256_i32gather_epi32((const int *)(const void *)base, off, 1), shift);
            b = _mm256_srlv_epi32(_mm256_i32gather_epi32((const int *)(const void *)(base + stride), off, 1), shift);
        } else {
            __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(yi, vstride), _mm256_slli_epi32(xi, 1));
            t = _mm256_i32gather_epi32((const int *)(const void *)base, off, 1);
            b = _mm256_i32gather_epi32((const int *)(const void *)(base + stride), off, 1);
        }
        __m256i v = ch == 1 ? bilinear_gray_math(t, b, fx, fy) : bilinear_uv_math(t, b, fx, fy);
        store_small(dst + (size_t)k * (size_t)ch, v, ch, 8);
    }
    if (k < n) { /* the last few pixels: a span of their own */
        ic_warp_span t = *s;
        t.u += k * s->du;
        t.v += k * s->dv;
        t.w += k * s->dw;
        ic_warp_local lt;
        if (ic__warp_local(&t, &lt)) bilinear_small_general(p, &lt, &t, dst + (size_t)k * (size_t)ch, n - k, ch);
        else ic_warp_bilinear_row_c(p, &t, dst + (size_t)k * (size_t)ch, n - k);
    }
}

IC_TARGET_AVX2 static inline void bilinear_small(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                                                 int32_t n, const int32_t ch) {
    ic_warp_local l;
    if (!ic__warp_local(s, &l)) { ic_warp_bilinear_row_c(p, s, dst, n); return; }
    const int32_t win = 16 / ch; /* pixels per window row */
    /* Fixed-point positions need sizes below 2^15 (see fixed_lanes). */
    if (p->sw < win || p->sw >= 32768 || p->sh >= 32768 || n < 8 ||
        !ic__span_within(p, s, n, 1e-3, 1e-3)) {
        bilinear_small_general(p, &l, s, dst, n, ch);
        return;
    }
    /* Deep spans (positions at least win px inside every edge) need no window clamps: the
     * corner xw >= x - win + 1 >= 0, its right end xw + win - 1 <= x + win - 1 <= sw - 2,
     * the third row yw + 2 <= y + 2 <= sh - 1 - win + 2. */
    if (ic__span_within(p, s, n, win, win)) bilinear_small_interior(p, s, &l, dst, n, ch, 1);
    else bilinear_small_interior(p, s, &l, dst, n, ch, 0);
}

IC_TARGET_AVX2 void ic_warp_bilinear_gray_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                                   uint8_t *dst, int32_t n) {
    bilinear_small(p, s, dst, n, 1);
}

IC_TARGET_AVX2 void ic_warp_bilinear_uv_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                                 uint8_t *dst, int32_t n) {
    bilinear_small(p, s, dst, n, 2);
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
            const uint8_t *r = p->src + (size_t)ic__warp_clamp(y0 - 1 + j, 0, p->sh - 1) * p->src_stride + c;
            float h = 0;
            for (int i = 0; i < 4; i++) h += wx[i] * r[ic__warp_clamp(x0 - 1 + i, 0, p->sw - 1) * ch];
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
