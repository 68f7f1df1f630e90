/* Scalar reference row kernels of the perspective warp (warp_internal.h): each output
 * pixel's source point in double, then bilinear or Catmull-Rom taps with clamped edges. */
#include "warp_internal.h"

#include <math.h>
#include <string.h>

static inline int32_t clampi(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static inline uint8_t round_u8(double v) {
    if (!(v > 0)) return 0;
    if (v >= 255) return 255;
    return (uint8_t)(v + 0.5);
}

/* Source position of pixel k of a span, or 0 when it is outside (fill). */
static inline int span_point(const ic_warp_plane *p, const ic_warp_span *s, int32_t k,
                             double *sx, double *sy) {
    double w = s->w + k * s->dw;
    if (!(w > 0)) return 0;
    double x = (s->u + k * s->du) / w, y = (s->v + k * s->dv) / w;
    if (!(x >= 0 && x <= p->sw && y >= 0 && y <= p->sh)) return 0;
    *sx = x;
    *sy = y;
    return 1;
}

void ic_warp_bilinear_row_c(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                            int32_t n) {
    const int32_t ch = p->channels;
    for (int32_t k = 0; k < n; k++, dst += ch) {
        double sx, sy;
        if (!span_point(p, s, k, &sx, &sy)) {
            memcpy(dst, p->fill, (size_t)ch);
            continue;
        }
        double X = sx - 0.5, Y = sy - 0.5;
        double fx0 = floor(X), fy0 = floor(Y);
        double fx = X - fx0, fy = Y - fy0;
        int32_t x0 = (int32_t)fx0, y0 = (int32_t)fy0;
        int32_t xa = clampi(x0, 0, p->sw - 1), xb = clampi(x0 + 1, 0, p->sw - 1);
        int32_t ya = clampi(y0, 0, p->sh - 1), yb = clampi(y0 + 1, 0, p->sh - 1);
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
        double sx, sy;
        if (!span_point(p, s, k, &sx, &sy)) {
            memcpy(dst, p->fill, (size_t)ch);
            continue;
        }
        double X = sx - 0.5, Y = sy - 0.5;
        double fx0 = floor(X), fy0 = floor(Y);
        double wx[4], wy[4];
        ic__catmull_rom(X - fx0, wx);
        ic__catmull_rom(Y - fy0, wy);
        int32_t x0 = (int32_t)fx0, y0 = (int32_t)fy0;
        int32_t xs[4];
        const uint8_t *rows[4];
        for (int i = 0; i < 4; i++) {
            xs[i] = clampi(x0 - 1 + i, 0, p->sw - 1) * ch;
            rows[i] = p->src + (size_t)clampi(y0 - 1 + i, 0, p->sh - 1) * p->src_stride;
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

