/* Private interface between the warp driver (warp.c) and its row kernels (warp.c scalar,
 * warp_avx2.c vector). Not installed. */
#ifndef IMAGECORE_WARP_INTERNAL_H
#define IMAGECORE_WARP_INTERNAL_H

#include "internal.h"
#include "imagecore/warp.h"

#include <math.h>

/* One plane of a warp: 1, 2 (interleaved UV) or 4 (RGBA) channels. */
typedef struct ic_warp_plane {
    const uint8_t *src;
    size_t src_stride;
    int32_t sw, sh;
    uint8_t *dst;
    size_t dst_stride;
    int32_t dw, dh;
    int32_t channels;
    int32_t bicubic;
    double m[9]; /* dst continuous -> src continuous, w > 0 at the destination's centre */
    uint8_t fill[4];
} ic_warp_plane;

/* A run of n destination pixels of one row: homogeneous source coordinates of the first
 * pixel's centre, computed in double from the matrix (the re-anchor), and the per-pixel
 * step (the matrix's first column). Pixel k maps to (u + k du, v + k dv, w + k dw).
 * `ahead` is a prefetch hint for kernels that prefetch in their loop: the byte offset
 * from a source point of this span to the same destination column's point a few rows
 * further down (0: none). It is only ever added to addresses given to __builtin_prefetch,
 * never dereferenced, so it needs no bounds. */
typedef struct ic_warp_span {
    double u, v, w;
    double du, dv, dw;
    ptrdiff_t ahead;
} ic_warp_span;

typedef void (*ic_warp_row_fn)(const ic_warp_plane *p, const ic_warp_span *s, uint8_t *dst,
                               int32_t n);

/* Scalar references (any channel count, any size, any span): per pixel in double. */
IC_INTERNAL void ic_warp_bilinear_row_c(const ic_warp_plane *p, const ic_warp_span *s,
                                        uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bicubic_row_c(const ic_warp_plane *p, const ic_warp_span *s,
                                       uint8_t *dst, int32_t n);

#if IC_X86
/* AVX2 kernels. Preconditions checked by the driver (ic__warp_avx2_ok): source at least
 * 4 x 4 pixels, plane extent below 2^31 bytes. Spans whose anchor is unusable in single
 * precision are passed on to the scalar reference by the kernels themselves. */
IC_INTERNAL void ic_warp_bilinear_gray_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                                uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bilinear_uv_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                              uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bilinear_rgba_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                                uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bicubic_gray_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                               uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bicubic_uv_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                             uint8_t *dst, int32_t n);
IC_INTERNAL void ic_warp_bicubic_rgba_row_avx2(const ic_warp_plane *p, const ic_warp_span *s,
                                               uint8_t *dst, int32_t n);
#endif

/* The span's mapping relative to its anchor, for single-precision kernels. With the
 * anchor's sample position X0 = u/w - 0.5 split as ix + rx (ix integer, rx in [0, 1)):
 *   w_k = 1 + k dw',   X_k = ix + rx + k ax / w_k,   Y_k = iy + ry + k ay / w_k
 * where primes are divided by the anchor's w and ax = du' - (u/w) dw'. Only the small
 * offsets are single precision, so the error does not grow with the coordinates' size,
 * and re-anchoring every span keeps it from growing along a row.
 * Returns 0 when the anchor is behind the horizon, not finite or beyond +-2^22 px: the
 * caller then uses the double-precision scalar kernel for the span. */
typedef struct ic_warp_local {
    int32_t ix, iy;
    float rx, ry;
    float ax, ay;
    float dw;
} ic_warp_local;

static inline int ic__warp_local(const ic_warp_span *s, ic_warp_local *l) {
    if (!(s->w > 0) || !isfinite(s->w)) return 0;
    double iw = 1.0 / s->w;
    double sx = s->u * iw, sy = s->v * iw;
    double du = s->du * iw, dv = s->dv * iw, dw = s->dw * iw;
    if (!(fabs(sx) < 4194304.0) || !(fabs(sy) < 4194304.0)) return 0;
    if (!isfinite(du) || !isfinite(dv) || !isfinite(dw)) return 0;
    double X = sx - 0.5, Y = sy - 0.5;
    double fx = floor(X), fy = floor(Y);
    l->ix = (int32_t)fx;
    l->iy = (int32_t)fy;
    l->rx = (float)(X - fx);
    l->ry = (float)(Y - fy);
    l->ax = (float)(du - sx * dw);
    l->ay = (float)(dv - sy * dw);
    l->dw = (float)dw;
    return 1;
}

/* Whether every pixel of the span samples at X, Y in [lo, size - 1 - hi] of the source (X
 * = x - 0.5 in pixel-index units), tested at its two ends in double precision: along a
 * segment where w stays positive (w is linear, so positive at both ends suffices) a
 * projective map is monotonic in each coordinate, so the ends bound every pixel. Kernels
 * use it to skip inside tests, clamps and the fill blend for the (usual) interior spans;
 * the margins include 1/1000 px for the single-precision error of the pixels in between. */
static inline int ic__span_within(const ic_warp_plane *p, const ic_warp_span *s, int32_t n,
                                  double lo, double hi) {
    double k1 = n - 1;
    double w0 = s->w, w1 = s->w + k1 * s->dw;
    if (!(w0 > 0) || !(w1 > 0)) return 0;
    double x0 = s->u / w0 - 0.5, y0 = s->v / w0 - 0.5;
    double x1 = (s->u + k1 * s->du) / w1 - 0.5, y1 = (s->v + k1 * s->dv) / w1 - 0.5;
    double xmax = p->sw - 1 - hi, ymax = p->sh - 1 - hi;
    return x0 >= lo && x0 <= xmax && x1 >= lo && x1 <= xmax && y0 >= lo && y0 <= ymax &&
           y1 >= lo && y1 <= ymax;
}

/* Catmull-Rom weights (a = -0.5) for the taps at -1, 0, 1, 2 of a fraction t in [0, 1). */
static inline void ic__catmull_rom(double t, double w[4]) {
    double t2 = t * t, t3 = t2 * t;
    w[0] = -0.5 * t3 + t2 - 0.5 * t;
    w[1] = 1.5 * t3 - 2.5 * t2 + 1.0;
    w[2] = -1.5 * t3 + 2.0 * t2 + 0.5 * t;
    w[3] = 0.5 * t3 - 0.5 * t2;
}

/* v clamped to [lo, hi]: the edge taps of both kernels' sets. */
static inline int32_t ic__warp_clamp(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

#endif
