/* RGB8 / RGBA8 -> I420 / NV12 with AVX2 (compiled per function with a target attribute,
 * chosen at run time by the driver in yuv_from_rgb.c).
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
