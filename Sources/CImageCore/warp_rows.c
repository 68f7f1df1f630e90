/* Scalar reference row kernels of the perspective warp (warp_internal.h): each output
 * pixel's source point in double, then bilinear or Catmull-Rom taps with clamped edges. */
#include "warp_internal.h"

#include <math.h>
#include <string.h>

static inline uint8_t round_u8(double v) {
    if (!(v > 0)) return 0;
    if (v >= 255) return 255;
    return (uint8_t)(v + 0.5);
}

/* Pixel k of a span: its source point minus the half-pixel centre, as the integer tap
 * (x0, y0) at or left of / above it and the fractions (fx, fy); or, when the point is
 * outside the source, the fill written to dst and 0. */
static inline int span_tap(const ic_warp_plane *p, const ic_warp_span *s, int32_t k, uint8_t *dst,
                           int32_t *x0, int32_t *y0, double *fx, double *fy) {
    double w = s->w + k * s->dw;
    double x = w > 0 ? (s->u + k * s->du) / w : -1, y = w > 0 ? (s->v + k * s->dv) / w : -1;
    if (!(w > 0 && x >= 0 && x <= p->sw && y >= 0 && y <= p->sh)) {
        memcpy(dst, p->fill, (size_t)p->channels);
        return 0;
    }
    const double X = x - 0.5, Y = y - 0.5, fx0 = floor(X), fy0 = floor(Y);
    *x0 = (int32_t)fx0;
    *y0 = (int32_t)fy0;
    *fx = X - fx0;
    *fy = Y - fy0;
    return 1;
}

void ic_warp_bilinear_row_c(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                            int32_t n) {
    const int32_t ch = p->channels;
    for (int32_t k = 0; k < n; k++, dst += ch) {
        int32_t x0, y0;
        double fx, fy;
        if (!span_tap(p, s, k, dst, &x0, &y0, &fx, &fy)) continue;
        int32_t xa = ic__warp_clamp(x0, 0, p->sw - 1), xb = ic__warp_clamp(x0 + 1, 0, p->sw - 1);
        int32_t ya = ic__warp_clamp(y0, 0, p->sh - 1), yb = ic__warp_clamp(y0 + 1, 0, p->sh - 1);
        const uint8_t *ra = p->src + (size_t)ya * p->src_stride;
        const uint8_t *rb = p->src + (size_t)yb * p->src_stride;
        for (int32_t c = 0; c < ch; c++) {
            double t = ra[xa * ch + c] + fx * (ra[xb * ch + c] - ra[xa * ch + c]);
            double b = rb[xa * ch + c] + fx * (rb[xb * ch + c] - rb[xa * ch + c]);
            dst[c] = round_u8(t + fy * (b - t));
        }
    }
}

void ic_warp_bicubic_row_c(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                           int32_t n) {
    const int32_t ch = p->channels;
    for (int32_t k = 0; k < n; k++, dst += ch) {
        int32_t x0, y0;
        double fx, fy, wx[4], wy[4];
        if (!span_tap(p, s, k, dst, &x0, &y0, &fx, &fy)) continue;
        ic__catmull_rom(fx, wx);
        ic__catmull_rom(fy, wy);
        int32_t xs[4];
        const uint8_t *rows[4];
        for (int i = 0; i < 4; i++) {
            xs[i] = ic__warp_clamp(x0 - 1 + i, 0, p->sw - 1) * ch;
            rows[i] = p->src + (size_t)ic__warp_clamp(y0 - 1 + i, 0, p->sh - 1) * p->src_stride;
        }
        for (int32_t c = 0; c < ch; c++) {
            double acc = 0;
            for (int j = 0; j < 4; j++) {
                const uint8_t *r = rows[j] + c;
                acc += wy[j] * (wx[0] * r[xs[0]] + wx[1] * r[xs[1]] + wx[2] * r[xs[2]] +
                                wx[3] * r[xs[3]]);
            }
            dst[c] = round_u8(acc);
        }
    }
}

