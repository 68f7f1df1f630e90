/* Scalar reference kernels of the YUV family (the arithmetic is in yuv_internal.h):
 * RGB8 / RGBA8 -> I420 / NV12 and back, two luma rows (one chroma row) per call, so the
 * 2x2 chroma sums need no scratch and every chroma sample is weighted once for four
 * pixels. */
#include "yuv_internal.h"

static inline uint8_t clamp255(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* ---- RGB -> YUV ----------------------------------------------------------------- */
static inline uint8_t luma(const uint8_t *p, const ic_rgb2yuv_coeffs *c) {
    return clamp255((c->yr * p[0] + c->yg * p[1] + c->yb * p[2] + c->y_bias) >> 15);
}

/* One template for the four scalar kernels: `bpp` 3 or 4, chroma `step` 1 or 2. The
 * compiler specialises each call below (constant arguments, always inlined). */
static inline __attribute__((always_inline)) void
rgb_to_yuv_row2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u,
                uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c, int bpp, int step) {
    for (int32_t x = 0; x < width; x += 2) {
        /* At an odd right edge the block's second column replicates the first. */
        const int32_t x1 = x + 1 < width ? x + 1 : x;
        const uint8_t *a = s0 + (size_t)x * (size_t)bpp, *b = s0 + (size_t)x1 * (size_t)bpp;
        const uint8_t *p = s1 + (size_t)x * (size_t)bpp, *q = s1 + (size_t)x1 * (size_t)bpp;
        y0[x] = luma(a, c);
        y1[x] = luma(p, c);
        if (x1 != x) {
            y0[x1] = luma(b, c);
            y1[x1] = luma(q, c);
        }
        const int32_t rs = a[0] + b[0] + p[0] + q[0];
        const int32_t gs = a[1] + b[1] + p[1] + q[1];
        const int32_t bs = a[2] + b[2] + p[2] + q[2];
        const size_t i = (size_t)(x >> 1) * (size_t)step;
        u[i] = clamp255((c->ur * rs + c->ug * gs + c->ub * bs + c->uv_bias) >> 17);
        v[i] = clamp255((c->vr * rs + c->vg * gs + c->vb * bs + c->uv_bias) >> 17);
    }
}

void ic_rgba_to_i420_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                            uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2(s0, s1, y0, y1, u, v, width, c, 4, 1);
}
void ic_rgba_to_nv12_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                            uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2(s0, s1, y0, y1, u, v, width, c, 4, 2);
}
void ic_rgb_to_i420_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                           uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2(s0, s1, y0, y1, u, v, width, c, 3, 1);
}
void ic_rgb_to_nv12_row2_c(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                           uint8_t *u, uint8_t *v, int32_t width, const ic_rgb2yuv_coeffs *c) {
    rgb_to_yuv_row2(s0, s1, y0, y1, u, v, width, c, 3, 2);
}

/* ---- YUV -> RGB ----------------------------------------------------------------- */

/* vpmulhrsw on one lane: (a * k + 2^14) >> 15, arithmetic shift. */
static inline int32_t mulhrs(int32_t a, int32_t k) { return (a * k + (1 << 14)) >> 15; }

static inline __attribute__((always_inline)) void
yuv_to_rgb_row2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v,
                uint8_t *d0, uint8_t *d1, int32_t width, const ic_yuv2rgb_coeffs *c, int bpp,
                int step) {
    for (int32_t x = 0; x < width; x += 2) {
        const size_t ci = (size_t)(x >> 1) * (size_t)step;
        const int32_t cu = (u[ci] - 128) * 256, cv = (v[ci] - 128) * 256;
        /* The +32 that rounds the final >> 6 rides with the chroma terms, as in AVX2. */
        const int32_t rc = mulhrs(cv, c->krv) + 32;
        const int32_t gc = mulhrs(cu, c->kgu) + mulhrs(cv, c->kgv) + 32;
        const int32_t bc = mulhrs(cu, c->kbu) + 32;
        const int32_t n = x + 1 < width ? 2 : 1;
        for (int r = 0; r < 2; r++) {
            const uint8_t *ys = r ? y1 : y0;
            uint8_t *d = r ? d1 : d0;
            if (!ys) break;
            for (int32_t i = 0; i < n; i++) {
                const int32_t ty = mulhrs((ys[x + i] - c->yoff) * 128, c->ky);
                uint8_t *p = d + (size_t)(x + i) * (size_t)bpp;
                p[0] = clamp255((ty + rc) >> 6);
                p[1] = clamp255((ty + gc) >> 6);
                p[2] = clamp255((ty + bc) >> 6);
                if (bpp == 4) p[3] = 255;
            }
        }
    }
}

void ic_i420_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 4, 1);
}
void ic_nv12_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 4, 2);
}
void ic_i420_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 3, 1);
}
void ic_nv12_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 3, 2);
}
