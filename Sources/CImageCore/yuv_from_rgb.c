/* RGB8 / RGBA8 -> I420 / NV12: scalar row kernels (the reference) and the driver.
 *
 * The driver walks chroma rows: each call converts source rows 2j and 2j+1 into two Y
 * rows and one chroma row, so the 2x2 chroma sums need no scratch. Chroma rows are
 * independent, so bands of them run in parallel. */
#include "yuv_internal.h"

static inline uint8_t clamp255(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

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

/* ---- driver ----------------------------------------------------------------- */

typedef struct rgb2yuv_job {
    ic_image src, dst;
    ic_rgb2yuv_row2_fn fn;
    ic_rgb2yuv_coeffs c;
} rgb2yuv_job;

static void rgb2yuv_rows(void *ctx, int64_t begin, int64_t end) {
    const rgb2yuv_job *j = (const rgb2yuv_job *)ctx;
    const ic_image *s = &j->src, *d = &j->dst;
    const int nv12 = d->format == IC_FORMAT_NV12;
    for (int64_t cy = begin; cy < end; cy++) {
        const size_t r0 = (size_t)(2 * cy);
        const size_t r1 = r0 + 1 < (size_t)s->height ? r0 + 1 : r0; /* odd height: replicate */
        uint8_t *u = d->planes[1].data + (size_t)cy * d->planes[1].stride;
        uint8_t *v = nv12 ? u + 1 : d->planes[2].data + (size_t)cy * d->planes[2].stride;
        j->fn(s->planes[0].data + r0 * s->planes[0].stride,
              s->planes[0].data + r1 * s->planes[0].stride,
              d->planes[0].data + r0 * d->planes[0].stride,
              d->planes[0].data + r1 * d->planes[0].stride, u, v, s->width, &j->c);
    }
}

ic_status ic_rgb_to_yuv(const ic_image *src, ic_image *dst, ic_yuv_matrix matrix,
                        ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    rgb2yuv_job j;
    if (!ic__rgb2yuv_coeffs(matrix, range, &j.c)) return IC_ERR_INVALID_ARGUMENT;
    const int rgba = src->format == IC_FORMAT_RGBA8;
    if (!rgba && src->format != IC_FORMAT_RGB8) return IC_ERR_UNSUPPORTED;
    const int nv12 = dst->format == IC_FORMAT_NV12;
    if (!nv12 && dst->format != IC_FORMAT_I420) return IC_ERR_UNSUPPORTED;
    j.src = *src;
    j.dst = *dst;
    j.fn = rgba ? (nv12 ? ic_rgba_to_nv12_row2_c : ic_rgba_to_i420_row2_c)
                : (nv12 ? ic_rgb_to_nv12_row2_c : ic_rgb_to_i420_row2_c);
    const ic__settings set = ic__settings_read();
#if IC_X86
    if (set.cpu & IC_CPU_AVX2)
        j.fn = rgba ? (nv12 ? ic_rgba_to_nv12_row2_avx2 : ic_rgba_to_i420_row2_avx2)
                    : (nv12 ? ic_rgb_to_nv12_row2_avx2 : ic_rgb_to_i420_row2_avx2);
#endif
    const int64_t pairs = ((int64_t)src->height + 1) / 2;
    const size_t pair_bytes = 2 * ic__row_bytes(src->format, src->width, 0);
    return ic__parallel_for(&set, pairs, ic__band_rows(pair_bytes, 128 * 1024), rgb2yuv_rows, &j);
}
