/* AVX2 kernels of the YUV family, both directions. */

/* RGB8 / RGBA8 -> I420 / NV12 with AVX2 (compiled per function with a target attribute,
 * chosen at run time by the driver in yuv.c).
 *
 * 32 pixels of two rows per step. Why this shape:
 * - Pixels are split into 16-bit lanes without shuffles: E = px & 0x00ff00ff holds [R, B]
 *   per pixel, O = px >> 8 (per 16 bits) holds [G, A]. vpmaddwd then gives the exact
 *   32-bit sums yr*R + yb*B and yg*G (A weighted 0), so Y uses full Q15 coefficients
 *   at the price of two multiplies per 8 pixels and no rounding until the end.
 * - Chroma: E and O of the two rows are added (16-bit), then each pixel pair is added by
 *   swapping the dwords of every qword (vpshufd), so both dwords hold the 2x2 sums. One
 *   vpmaddwd with [ur ub | vr vb] weights then yields U in even and V in odd dwords:
 *   already NV12's interleaved order.
 * - Results are narrowed with saturating packs (the clamp to 0..255) and one vpermd.
 * The integer expressions are exactly those of the scalar kernels (yuv_internal.h). */
#include "yuv_internal.h"

#if IC_X86
#include <immintrin.h>

enum { IC_PREFETCH_AHEAD = 2048 };

typedef struct fwd_consts {
    __m256i mask_lo, y_rb, y_g, y_bias, uv_rb, uv_g, uv_bias, pack_perm;
} fwd_consts;

static inline IC_TARGET_AVX2 fwd_consts fwd_setup(const ic_rgb2yuv_coeffs *c) {
    fwd_consts k;
    k.mask_lo = _mm256_set1_epi32(0x00ff00ff);
    k.y_rb = _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)c->yb << 16) | (uint16_t)c->yr));
    k.y_g = _mm256_set1_epi32((int32_t)(uint16_t)c->yg);
    k.y_bias = _mm256_set1_epi32(c->y_bias);
    k.uv_rb = _mm256_set_epi16(c->vb, c->vr, c->ub, c->ur, c->vb, c->vr, c->ub, c->ur,
                               c->vb, c->vr, c->ub, c->ur, c->vb, c->vr, c->ub, c->ur);
    k.uv_g = _mm256_set_epi16(0, c->vg, 0, c->ug, 0, c->vg, 0, c->ug,
                              0, c->vg, 0, c->ug, 0, c->vg, 0, c->ug);
    k.uv_bias = _mm256_set1_epi32(c->uv_bias);
    k.pack_perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    return k;
}

/* 8 RGB8 pixels (24 bytes; reads 28) as 8 dwords [R G B 0]. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) __m256i load8_rgb(const uint8_t *p) {
    const __m256i expand = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                            0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                        _mm_loadu_si128((const __m128i *)(p + 12)), 1);
    return _mm256_shuffle_epi8(v, expand);
}

static inline IC_TARGET_AVX2 __attribute__((always_inline)) __m256i load8(const uint8_t *p, int bpp) {
    return bpp == 4 ? _mm256_loadu_si256((const __m256i *)p) : load8_rgb(p);
}

/* Four vectors of 8 dwords (each 0..255 after the clamp of the packs) -> 32 bytes in order. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) __m256i pack32(__m256i a, __m256i b, __m256i c, __m256i d,
                                            __m256i perm) {
    __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
    return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), perm);
}

static inline IC_TARGET_AVX2 __attribute__((always_inline)) __m256i luma8(__m256i e, __m256i o, const fwd_consts *k) {
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(e, k->y_rb), _mm256_madd_epi16(o, k->y_g));
    return _mm256_srai_epi32(_mm256_add_epi32(s, k->y_bias), 15);
}

/* 8 pixels of two rows -> 4 interleaved chroma samples [U V U V | U V U V] as dwords. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) __m256i chroma8(__m256i e0, __m256i o0, __m256i e1, __m256i o1,
                                             const fwd_consts *k) {
    __m256i es = _mm256_add_epi16(e0, e1), os = _mm256_add_epi16(o0, o1);
    es = _mm256_add_epi16(es, _mm256_shuffle_epi32(es, 0xb1));
    os = _mm256_add_epi16(os, _mm256_shuffle_epi32(os, 0xb1));
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(es, k->uv_rb), _mm256_madd_epi16(os, k->uv_g));
    return _mm256_srai_epi32(_mm256_add_epi32(s, k->uv_bias), 17);
}

/* 8 pixels of rows 0 and 1: their Y (dwords) and 4 interleaved chroma samples. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
group8(const uint8_t *p0, const uint8_t *p1, int bpp, const fwd_consts *k, __m256i *ya,
       __m256i *yb, __m256i *uv) {
    const __m256i a = load8(p0, bpp), b = load8(p1, bpp);
    const __m256i e0 = _mm256_and_si256(a, k->mask_lo), o0 = _mm256_srli_epi16(a, 8);
    const __m256i e1 = _mm256_and_si256(b, k->mask_lo), o1 = _mm256_srli_epi16(b, 8);
    *ya = luma8(e0, o0, k);
    *yb = luma8(e1, o1, k);
    *uv = chroma8(e0, o0, e1, o1, k);
}

static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
rgb_to_yuv_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                     uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c, int bpp,
                     int nv12) {
    const fwd_consts k = fwd_setup(c);
    /* RGB8 loads read 4 bytes past the 32 pixels: keep 2 pixels of slack in the row. */
    const int32_t slack = bpp == 3 ? 2 : 0;
    int32_t x = 0;
    for (; x + 32 + slack <= width; x += 32) {
        /* Four explicit calls (not a loop over arrays): gcc -O2 would keep such a loop and
         * spill its 12 vectors to the stack on every step. */
        __m256i ya0, ya1, ya2, ya3, yb0, yb1, yb2, yb3, uv0, uv1, uv2, uv3;
        const size_t off = (size_t)x * (size_t)bpp, g = 8 * (size_t)bpp;
        /* Prefetch both source rows 2 KiB ahead. The hardware prefetchers alone left this
         * loop waiting on memory: one thread, 12 MP RGBA -> NV12 took 3.6-3.8 ms with and
         * 2.2-2.4 ms without the stalls (0.5...4 KiB tried; 2-3 KiB best). A prefetch
         * cannot fault, so running past the row's end is harmless. */
        _mm_prefetch((const char *)(s0 + off + IC_PREFETCH_AHEAD), _MM_HINT_T0);
        _mm_prefetch((const char *)(s0 + off + IC_PREFETCH_AHEAD + 64), _MM_HINT_T0);
        _mm_prefetch((const char *)(s1 + off + IC_PREFETCH_AHEAD), _MM_HINT_T0);
        _mm_prefetch((const char *)(s1 + off + IC_PREFETCH_AHEAD + 64), _MM_HINT_T0);
        group8(s0 + off, s1 + off, bpp, &k, &ya0, &yb0, &uv0);
        group8(s0 + off + g, s1 + off + g, bpp, &k, &ya1, &yb1, &uv1);
        group8(s0 + off + 2 * g, s1 + off + 2 * g, bpp, &k, &ya2, &yb2, &uv2);
        group8(s0 + off + 3 * g, s1 + off + 3 * g, bpp, &k, &ya3, &yb3, &uv3);
        _mm256_storeu_si256((__m256i *)(y0 + x), pack32(ya0, ya1, ya2, ya3, k.pack_perm));
        _mm256_storeu_si256((__m256i *)(y1 + x), pack32(yb0, yb1, yb2, yb3, k.pack_perm));
        __m256i c32 = pack32(uv0, uv1, uv2, uv3, k.pack_perm); /* U0 V0 U1 V1 ... */
        if (nv12) {
            _mm256_storeu_si256((__m256i *)(u + x), c32);
        } else {
            const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                                   0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
            __m256i t = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(c32, split), 0xd8);
            _mm_storeu_si128((__m128i *)(u + x / 2), _mm256_castsi256_si128(t));
            _mm_storeu_si128((__m128i *)(v + x / 2), _mm256_extracti128_si256(t, 1));
        }
    }
    if (x < width) { /* the rest of the row, including an odd last column */
        const size_t off = (size_t)x * (size_t)bpp, ci = (size_t)(x / 2) * (nv12 ? 2u : 1u);
        if (bpp == 4 && nv12) ic_rgba_to_nv12_row2_c(s0 + off, s1 + off, y0 + x, y1 + x, u + ci, v + ci, width - x, c);
        if (bpp == 4 && !nv12) ic_rgba_to_i420_row2_c(s0 + off, s1 + off, y0 + x, y1 + x, u + ci, v + ci, width - x, c);
        if (bpp == 3 && nv12) ic_rgb_to_nv12_row2_c(s0 + off, s1 + off, y0 + x, y1 + x, u + ci, v + ci, width - x, c);
        if (bpp == 3 && !nv12) ic_rgb_to_i420_row2_c(s0 + off, s1 + off, y0 + x, y1 + x, u + ci, v + ci, width - x, c);
    }
}

IC_TARGET_AVX2 void ic_rgba_to_i420_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0,
                                              uint8_t *y1, uint8_t *u, uint8_t *v, int32_t width,
                                              const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2_avx2(s0, s1, y0, y1, u, v, width, c, 4, 0);
}
IC_TARGET_AVX2 void ic_rgba_to_nv12_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0,
                                              uint8_t *y1, uint8_t *u, uint8_t *v, int32_t width,
                                              const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2_avx2(s0, s1, y0, y1, u, v, width, c, 4, 1);
}
IC_TARGET_AVX2 void ic_rgb_to_i420_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0,
                                             uint8_t *y1, uint8_t *u, uint8_t *v, int32_t width,
                                             const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2_avx2(s0, s1, y0, y1, u, v, width, c, 3, 0);
}
IC_TARGET_AVX2 void ic_rgb_to_nv12_row2_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0,
                                             uint8_t *y1, uint8_t *u, uint8_t *v, int32_t width,
                                             const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2_avx2(s0, s1, y0, y1, u, v, width, c, 3, 1);
}

#endif /* IC_X86 */

/* ---- YUV -> RGB ----------------------------------------------------------------- */

/* I420 / NV12 -> RGB8 / RGBA8 with AVX2 (target attribute + run-time dispatch from
 * yuv.c).
 *
 * 32 pixels of two rows per step, sharing 16 chroma samples:
 * - chroma bytes become (C - 128) << 8 in 16-bit lanes: an xor with 0x80 makes each byte
 *   C - 128, then a shift / mask (NV12: U is the low, V the high byte of each word) or an
 *   unpack with zero (I420) puts it in the high byte;
 * - vpmulhrsw applies the weights; the three chroma terms (+32 for the final rounding)
 *   are computed once per sample and duplicated to the pixel pair with unpacks;
 * - per row: Y << 6 (full range: exact, as mulhrs(Y << 7, 16384) is) or
 *   mulhrs((Y - yoff) << 7, ky), saturating adds, >> 6, and saturating packs give R, G, B
 *   bytes, interleaved with A = 255.
 * Pixel order: luma and chroma are loaded with one dword permute each (groups of 4 pixels
 * -> lane g & 1, slot g >> 1), so the in-lane unpacks that interleave R, G, B, A end with
 * pixels 0-7, 8-15, 16-23, 24-31 in whole registers: no cross-lane shuffle before the stores.
 * Large RGBA destinations are written with non-temporal stores (see yuv.c).
 * Same integer expressions as the scalar kernels (yuv_internal.h). */
#if IC_X86
#include <immintrin.h>

typedef struct inv_consts {
    __m256i krv, kgu, kgv, kbu, ky, yoff7, round, bias80, hi8, alpha, perm;
} inv_consts;

static inline IC_TARGET_AVX2 inv_consts inv_setup(const ic_yuv2rgb_coeffs *c) {
    inv_consts k;
    k.krv = _mm256_set1_epi16(c->krv);
    k.kgu = _mm256_set1_epi16(c->kgu);
    k.kgv = _mm256_set1_epi16(c->kgv);
    k.kbu = _mm256_set1_epi16(c->kbu);
    k.ky = _mm256_set1_epi16(c->ky);
    k.yoff7 = _mm256_set1_epi16((int16_t)(c->yoff * 128));
    k.round = _mm256_set1_epi16(32);
    k.bias80 = _mm256_set1_epi8((char)0x80);
    k.hi8 = _mm256_set1_epi16((int16_t)0xff00);
    k.alpha = _mm256_set1_epi8((char)0xff);
    /* 4-pixel group g (dword g) -> lane g & 1, position g >> 1. */
    k.perm = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    /* Opaque to the optimiser, so the permutes stay one vpermd each (clang would split a
     * constant index into vpshufd + vpermq). */
    __asm__("" : "+x"(k.perm));
    return k;
}

/* One luma row of 32 pixels with its duplicated chroma terms -> R, G, B as 32 bytes each,
 * in the permuted order (lane 0: pixels 0-3, 8-11, 16-19, 24-27; lane 1: the others).
 * t[0] holds pixels 0-3, 8-11 | 4-7, 12-15 and t[1] 16-19, 24-27 | 20-23, 28-31, which
 * is where chroma's unpacklo / unpackhi put their samples. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
luma_row(const uint8_t *ys, const __m256i rc[2], const __m256i gc[2], const __m256i bc[2],
         const inv_consts *k, int full, __m256i *r, __m256i *g, __m256i *b) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i y = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)ys), k->perm);
    __m256i t[2];
    /* Y << 8 from the unpack, then logical >> 2 (Y << 6) or >> 1 (Y << 7). */
    t[0] = _mm256_unpacklo_epi8(zero, y);
    t[1] = _mm256_unpackhi_epi8(zero, y);
    if (full) { /* yoff 0, ky 16384: mulhrs(Y << 7, 16384) == Y << 6 exactly */
        t[0] = _mm256_srli_epi16(t[0], 2);
        t[1] = _mm256_srli_epi16(t[1], 2);
    } else {
        t[0] = _mm256_mulhrs_epi16(_mm256_sub_epi16(_mm256_srli_epi16(t[0], 1), k->yoff7), k->ky);
        t[1] = _mm256_mulhrs_epi16(_mm256_sub_epi16(_mm256_srli_epi16(t[1], 1), k->yoff7), k->ky);
    }
    *r = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_adds_epi16(t[0], rc[0]), 6),
                             _mm256_srai_epi16(_mm256_adds_epi16(t[1], rc[1]), 6));
    *g = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_adds_epi16(t[0], gc[0]), 6),
                             _mm256_srai_epi16(_mm256_adds_epi16(t[1], gc[1]), 6));
    *b = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_adds_epi16(t[0], bc[0]), 6),
                             _mm256_srai_epi16(_mm256_adds_epi16(t[1], bc[1]), 6));
}

/* R, G, B, A bytes (permuted order) -> 32 RGBA pixels, as four 32-byte stores (streamed
 * when `nt`: d is then 32-byte aligned); or 32 RGB pixels, as eight overlapping 16-byte
 * stores in address order (the last writes 4 bytes past the 96). */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
store_px(uint8_t *d, __m256i r, __m256i g, __m256i b, __m256i a, int bpp, int nt) {
    __m256i rg0 = _mm256_unpacklo_epi8(r, g), rg1 = _mm256_unpackhi_epi8(r, g);
    __m256i ba0 = _mm256_unpacklo_epi8(b, a), ba1 = _mm256_unpackhi_epi8(b, a);
    __m256i p0 = _mm256_unpacklo_epi16(rg0, ba0); /* pixels 0-3   | 4-7   */
    __m256i p1 = _mm256_unpackhi_epi16(rg0, ba0); /* pixels 8-11  | 12-15 */
    __m256i p2 = _mm256_unpacklo_epi16(rg1, ba1); /* pixels 16-19 | 20-23 */
    __m256i p3 = _mm256_unpackhi_epi16(rg1, ba1); /* pixels 24-27 | 28-31 */
    if (bpp == 4 && nt) {
        _mm256_stream_si256((__m256i *)d, p0);
        _mm256_stream_si256((__m256i *)(d + 32), p1);
        _mm256_stream_si256((__m256i *)(d + 64), p2);
        _mm256_stream_si256((__m256i *)(d + 96), p3);
    } else if (bpp == 4) {
        _mm256_storeu_si256((__m256i *)d, p0);
        _mm256_storeu_si256((__m256i *)(d + 32), p1);
        _mm256_storeu_si256((__m256i *)(d + 64), p2);
        _mm256_storeu_si256((__m256i *)(d + 96), p3);
    } else {
        const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                              0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
        p0 = _mm256_shuffle_epi8(p0, pack);
        p1 = _mm256_shuffle_epi8(p1, pack);
        p2 = _mm256_shuffle_epi8(p2, pack);
        p3 = _mm256_shuffle_epi8(p3, pack);
        _mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(p0));
        _mm_storeu_si128((__m128i *)(d + 12), _mm256_extracti128_si256(p0, 1));
        _mm_storeu_si128((__m128i *)(d + 24), _mm256_castsi256_si128(p1));
        _mm_storeu_si128((__m128i *)(d + 36), _mm256_extracti128_si256(p1, 1));
        _mm_storeu_si128((__m128i *)(d + 48), _mm256_castsi256_si128(p2));
        _mm_storeu_si128((__m128i *)(d + 60), _mm256_extracti128_si256(p2, 1));
        _mm_storeu_si128((__m128i *)(d + 72), _mm256_castsi256_si128(p3));
        _mm_storeu_si128((__m128i *)(d + 84), _mm256_extracti128_si256(p3, 1));
    }
}

/* The vector steps over [0, x_end) of one or two rows (y1 == NULL: one); streamed rows
 * (nt0 / nt1) must be 32-byte aligned. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
rows_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, uint8_t *d0,
          uint8_t *d1, int32_t x_end, const ic_yuv2rgb_coeffs *c, int bpp, int nv12, int full,
          int nt0, int nt1) {
    const inv_consts k = inv_setup(c);
    const __m256i zero = _mm256_setzero_si256();
    for (int32_t x = 0; x < x_end; x += 32) {
        __m256i cu, cv;
        if (nv12) { /* 16 UV words, permuted as the luma groups */
            __m256i uv = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(u + x)), k.perm);
            uv = _mm256_xor_si256(uv, k.bias80);
            cu = _mm256_slli_epi16(uv, 8);
            cv = _mm256_and_si256(uv, k.hi8);
        } else { /* [U | V]; even sample pairs to the low, odd to the high qword of each half */
            const __m128i su = _mm_loadu_si128((const __m128i *)(u + x / 2));
            const __m128i sv = _mm_loadu_si128((const __m128i *)(v + x / 2));
            const __m256i pairs = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                                   0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
            __m256i t = _mm256_inserti128_si256(_mm256_castsi128_si256(su), sv, 1);
            t = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(t, pairs), 0xd8);
            t = _mm256_xor_si256(t, k.bias80);
            cu = _mm256_unpacklo_epi8(zero, t);
            cv = _mm256_unpackhi_epi8(zero, t);
        }
        /* cu, cv: samples 0,1,4,5,8,9,12,13 | 2,3,6,7,10,11,14,15; unpacking with itself
         * duplicates each to its pixel pair in the order that luma_row's unpacks produce. */
        const __m256i rc = _mm256_add_epi16(_mm256_mulhrs_epi16(cv, k.krv), k.round);
        const __m256i gc = _mm256_add_epi16(_mm256_add_epi16(_mm256_mulhrs_epi16(cu, k.kgu),
                                                             _mm256_mulhrs_epi16(cv, k.kgv)), k.round);
        const __m256i bc = _mm256_add_epi16(_mm256_mulhrs_epi16(cu, k.kbu), k.round);
        const __m256i rd[2] = {_mm256_unpacklo_epi16(rc, rc), _mm256_unpackhi_epi16(rc, rc)};
        const __m256i gd[2] = {_mm256_unpacklo_epi16(gc, gc), _mm256_unpackhi_epi16(gc, gc)};
        const __m256i bd[2] = {_mm256_unpacklo_epi16(bc, bc), _mm256_unpackhi_epi16(bc, bc)};
        __m256i r, g, b;
        luma_row(y0 + x, rd, gd, bd, &k, full, &r, &g, &b);
        uint8_t *o0 = d0 + (size_t)x * (size_t)bpp;
        if (nt0) store_px(o0, r, g, b, k.alpha, bpp, 1);
        else store_px(o0, r, g, b, k.alpha, bpp, 0);
        if (y1) {
            luma_row(y1 + x, rd, gd, bd, &k, full, &r, &g, &b);
            uint8_t *o1 = d1 + (size_t)x * (size_t)bpp;
            if (nt1) store_px(o1, r, g, b, k.alpha, bpp, 1);
            else store_px(o1, r, g, b, k.alpha, bpp, 0);
        }
    }
}

/* One row through one out-of-line copy of the loop: row by row, two inlined copies (one
 * per row) ran at 2.9 ms for 4032 x 3024 where one shared copy runs at 2.0 ms, for the
 * same instructions (callgrind) -- a front-end or prefetch effect we did not pin down. */
static IC_TARGET_AVX2 __attribute__((noinline)) void
row_avx2(const uint8_t *ys, const uint8_t *u, const uint8_t *v, uint8_t *d, int32_t x_end,
         const ic_yuv2rgb_coeffs *c, int nv12, int full, int nt) {
    /* RGBA only: the only format with streamed instances. */
    if (nv12 && full) rows_avx2(ys, NULL, u, v, d, NULL, x_end, c, 4, 1, 1, nt, 0);
    else if (nv12) rows_avx2(ys, NULL, u, v, d, NULL, x_end, c, 4, 1, 0, nt, 0);
    else if (full) rows_avx2(ys, NULL, u, v, d, NULL, x_end, c, 4, 0, 1, nt, 0);
    else rows_avx2(ys, NULL, u, v, d, NULL, x_end, c, 4, 0, 0, nt, 0);
}

static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
yuv_to_rgb_row2_avx2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v,
                     uint8_t *d0, uint8_t *d1, int32_t width, const ic_yuv2rgb_coeffs *c, int bpp,
                     int nv12, int full, int nt) {
    /* RGB8 stores run 4 bytes past the 32 pixels: keep 2 pixels of slack in the row. */
    const int32_t slack = bpp == 3 ? 2 : 0;
    const int32_t x = width >= 32 + slack ? (width - slack) / 32 * 32 : 0;
    /* Streaming needs 32-byte aligned rows; a row that is not takes ordinary stores. */
    const int nt0 = nt && ((uintptr_t)d0 & 31) == 0, nt1 = nt && d1 && ((uintptr_t)d1 & 31) == 0;
    if (!nt || (nt0 && (nt1 || !y1))) {
        /* In cache, or both rows streamed: the chroma terms serve both rows. */
        rows_avx2(y0, y1, u, v, d0, d1, x, c, bpp, nv12, full, nt0, nt1);
    } else {
        /* A large destination with a row that cannot stream: one row at a time. Ordinary
         * stores to two rows in turn ran slower here (4032 x 3024, 16-byte aligned rows:
         * 2.6 ms against 2.0 ms row by row, libyuv's 2.0 ms), though the chroma is then
         * computed twice. */
        row_avx2(y0, u, v, d0, x, c, nv12, full, nt0);
        if (y1) row_avx2(y1, u, v, d1, x, c, nv12, full, nt1);
    }
    /* Streamed lines are weakly ordered: fence them before the rows are handed back. */
    if (nt0 || nt1) _mm_sfence();
    if (x < width) {
        const size_t ci = (size_t)(x / 2) * (nv12 ? 2u : 1u), off = (size_t)x * (size_t)bpp;
        const uint8_t *t1 = y1 ? y1 + x : NULL;
        uint8_t *e1 = d1 ? d1 + off : NULL;
        if (bpp == 4 && nv12) ic_nv12_to_rgba_row2_c(y0 + x, t1, u + ci, v + ci, d0 + off, e1, width - x, c);
        if (bpp == 4 && !nv12) ic_i420_to_rgba_row2_c(y0 + x, t1, u + ci, v + ci, d0 + off, e1, width - x, c);
        if (bpp == 3 && nv12) ic_nv12_to_rgb_row2_c(y0 + x, t1, u + ci, v + ci, d0 + off, e1, width - x, c);
        if (bpp == 3 && !nv12) ic_i420_to_rgb_row2_c(y0 + x, t1, u + ci, v + ci, d0 + off, e1, width - x, c);
    }
}

/* Full range (JPEG's, the default) has its own instance: no Y offset or scale. */
#define IC_YUV2RGB_AVX2(name, bpp, nv12, nt)                                                       \
    IC_TARGET_AVX2 void name(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,               \
                             const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,            \
                             const ic_yuv2rgb_coeffs *c) {                                         \
        if (c->yoff == 0 && c->ky == 16384)                                                        \
            yuv_to_rgb_row2_avx2(y0, y1, u, v, d0, d1, width, c, bpp, nv12, 1, nt);                \
        else                                                                                       \
            yuv_to_rgb_row2_avx2(y0, y1, u, v, d0, d1, width, c, bpp, nv12, 0, nt);                \
    }

IC_YUV2RGB_AVX2(ic_i420_to_rgba_row2_avx2, 4, 0, 0)
IC_YUV2RGB_AVX2(ic_nv12_to_rgba_row2_avx2, 4, 1, 0)
IC_YUV2RGB_AVX2(ic_i420_to_rgb_row2_avx2, 3, 0, 0)
IC_YUV2RGB_AVX2(ic_nv12_to_rgb_row2_avx2, 3, 1, 0)
IC_YUV2RGB_AVX2(ic_i420_to_rgba_row2_avx2_nt, 4, 0, 1)
IC_YUV2RGB_AVX2(ic_nv12_to_rgba_row2_avx2_nt, 4, 1, 1)

#endif /* IC_X86 */
