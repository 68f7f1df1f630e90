/* Perspective warp and rectification: the driver (the scalar reference row kernels are in
 * warp_rows.c, the AVX2 ones in warp_avx2.c).
 *
 * Schedule (apart from the arithmetic, which lives in the row kernels): the destination is
 * cut into tiles of IC_WARP_TILE_W x IC_WARP_TILE_H pixels; a parallel band is one row of
 * tiles. Inside a tile each row segment is one "span": its first pixel's homogeneous source
 * coordinates are computed afresh in double from the matrix (re-anchoring, so no error
 * accumulates along a row), then the kernel steps them incrementally. Tiles keep the source
 * footprint small when the mapping rotates the image (e.g. an orientation of 90 degrees
 * turns destination rows into source columns). */
#include "warp_internal.h"
#include "planar.h"

#include <string.h>

enum { IC_WARP_TILE_W = 512, IC_WARP_TILE_H = 64 };

/* ---- driver ------------------------------------------------------------------------ */

typedef struct warp_job {
    ic_warp_plane plane;
    ic_warp_row_fn row;
    int32_t tiles_x;
    int32_t self_prefetch; /* the kernel prefetches with ic_warp_span.ahead */
} warp_job;

/* Software prefetch for spans that run mostly along source rows: the source lines of the
 * span IC_WARP_AHEAD rows further down the tile (its two tap rows). A slanted span keeps
 * entering source rows that no hardware prefetcher predicts (measured here: about 15 %
 * faster on an A4 rectification). Spans that run down source columns (orientations 5-8)
 * reuse their lines across rows and are left alone. Nothing is dereferenced, and points
 * outside the source are skipped.
 * Kernels that prefetch in their own loop get instead span_ahead: one constant byte
 * offset per span, added to each group's tap address (2 prefetches per 8 pixels instead
 * of a separate walk along the span, which cost about 10 % of the RGBA warp). */
enum { IC_WARP_AHEAD = 3 };

/* The byte offset from the source point of destination (xm, y) to that of (xm, y +
 * IC_WARP_AHEAD), xm the span's middle, or 0 when the map is not well behaved there or
 * the offset is large (then the points are far apart anyway and the hint is useless).
 * Across a span the true offset drifts by a fraction of a pixel on a rectification. */
static ptrdiff_t span_ahead(const ic_warp_plane *p, int32_t x0, int32_t n, int32_t y) {
    const double *m = p->m;
    double xm = x0 + 0.5 * n, ya = y + 0.5, yb = ya + IC_WARP_AHEAD;
    double wa = m[6] * xm + m[7] * ya + m[8], wb = m[6] * xm + m[7] * yb + m[8];
    if (!(wa > 0) || !(wb > 0)) return 0;
    double dx = (m[0] * xm + m[1] * yb + m[2]) / wb - (m[0] * xm + m[1] * ya + m[2]) / wa;
    double dy = (m[3] * xm + m[4] * yb + m[5]) / wb - (m[3] * xm + m[4] * ya + m[5]) / wa;
    if (!(fabs(dx) < 64) || !(fabs(dy) < 64)) return 0;
    return (ptrdiff_t)floor(dy + 0.5) * (ptrdiff_t)p->src_stride +
           (ptrdiff_t)floor(dx + 0.5) * (ptrdiff_t)p->channels;
}

static void prefetch_span(const ic_warp_plane *p, int32_t x0, int32_t n, int32_t y) {
#if defined(__GNUC__) || defined(__clang__)
    const double *m = p->m;
    double ya = y + 0.5, xa = x0 + 0.5, xb = x0 + n - 0.5;
    double wa = m[6] * xa + m[7] * ya + m[8], wb = m[6] * xb + m[7] * ya + m[8];
    if (!(wa > 0) || !(wb > 0)) return;
    double sxa = (m[0] * xa + m[1] * ya + m[2]) / wa, sya = (m[3] * xa + m[4] * ya + m[5]) / wa;
    double sxb = (m[0] * xb + m[1] * ya + m[2]) / wb, syb = (m[3] * xb + m[4] * ya + m[5]) / wb;
    if (!isfinite(sxa) || !isfinite(sya) || !isfinite(sxb) || !isfinite(syb)) return;
    if (fabs(syb - sya) > 0.25 * fabs(sxb - sxa)) return; /* not along rows */
    const double line = 64.0 / p->channels; /* pixels per cache line */
    const double lines = fabs(sxb - sxa) / line;
    const int32_t steps = lines < n ? (int32_t)lines + 1 : n; /* no out-of-range conversion */
    for (int32_t i = 0; i <= steps; i++) {
        double t = (double)i / steps;
        double sx = sxa + t * (sxb - sxa) - 0.5, sy = sya + t * (syb - sya) - 0.5;
        if (!(sx >= 0 && sx < p->sw && sy >= 0 && sy < p->sh - 1)) continue;
        const uint8_t *a = p->src + (size_t)sy * p->src_stride + (size_t)sx * (size_t)p->channels;
        __builtin_prefetch(a);
        __builtin_prefetch(a + p->src_stride);
    }
#else
    (void)p; (void)x0; (void)n; (void)y;
#endif
}

static void warp_bands(void *ctx, int64_t begin, int64_t end) {
    const warp_job *j = (const warp_job *)ctx;
    const ic_warp_plane *p = &j->plane;
    const double *m = p->m;
    const size_t px = (size_t)p->channels;
    for (int64_t band = begin; band < end; band++) {
        int32_t y0 = (int32_t)band * IC_WARP_TILE_H;
        int32_t y1 = y0 + IC_WARP_TILE_H < p->dh ? y0 + IC_WARP_TILE_H : p->dh;
        for (int32_t tx = 0; tx < j->tiles_x; tx++) {
            int32_t x0 = tx * IC_WARP_TILE_W;
            int32_t n = p->dw - x0 < IC_WARP_TILE_W ? p->dw - x0 : IC_WARP_TILE_W;
            double cx = x0 + 0.5;
            for (int32_t y = y0; y < y1; y++) {
                double cy = y + 0.5;
                ic_warp_span s = {m[0] * cx + m[1] * cy + m[2], m[3] * cx + m[4] * cy + m[5],
                                  m[6] * cx + m[7] * cy + m[8], m[0], m[3], m[6], 0};
                if (y + IC_WARP_AHEAD < y1) {
                    if (j->self_prefetch) s.ahead = span_ahead(p, x0, n, y);
                    else prefetch_span(p, x0, n, y + IC_WARP_AHEAD);
                }
                j->row(p, &s, p->dst + (size_t)y * p->dst_stride + (size_t)x0 * px, n);
            }
        }
    }
}

static int avx2_ok(const ic_warp_plane *p) {
    uint64_t extent = (uint64_t)p->src_stride * (uint64_t)(p->sh - 1) +
                      (uint64_t)p->sw * (uint64_t)p->channels;
    return p->sw >= 4 && p->sh >= 4 && extent < ((uint64_t)1 << 31) - 64;
}

static ic_warp_row_fn pick_row(const ic_warp_plane *p, uint32_t features, int32_t *self_prefetch) {
    *self_prefetch = 0;
#if IC_X86
    if ((features & IC_CPU_AVX2) && avx2_ok(p) && p->channels >= 1 && p->channels <= 4 &&
        p->channels != 3) {
        /* The bilinear AVX2 kernels prefetch with the span's `ahead` hint. */
        *self_prefetch = !p->bicubic;
        switch (p->channels) {
        case 1: return p->bicubic ? ic_warp_bicubic_gray_row_avx2 : ic_warp_bilinear_gray_row_avx2;
        case 2: return p->bicubic ? ic_warp_bicubic_uv_row_avx2 : ic_warp_bilinear_uv_row_avx2;
        default: return p->bicubic ? ic_warp_bicubic_rgba_row_avx2 : ic_warp_bilinear_rgba_row_avx2;
        }
    }
#else
    (void)features;
#endif
    return p->bicubic ? ic_warp_bicubic_row_c : ic_warp_bilinear_row_c;
}

static ic_status warp_plane(ic_warp_plane *p, const ic__settings *set) {
    warp_job j;
    j.plane = *p;
    j.row = pick_row(p, set->cpu, &j.self_prefetch);
    j.tiles_x = (p->dw + IC_WARP_TILE_W - 1) / IC_WARP_TILE_W;
    int64_t bands = ((int64_t)p->dh + IC_WARP_TILE_H - 1) / IC_WARP_TILE_H;
    return ic__parallel_for(set, bands, 1, warp_bands, &j);
}

ic_warp_options ic_warp_options_default(ic_format format) {
    ic_warp_options o;
    memset(&o, 0, sizeof o);
    o.interpolation = IC_INTERPOLATION_BILINEAR;
    if (format == IC_FORMAT_RGBA8) o.fill[3] = 255;
    if (format == IC_FORMAT_I420 || format == IC_FORMAT_NV12) o.fill[1] = o.fill[2] = 128;
    return o;
}

static int finite_matrix(const double m[9]) {
    for (int i = 0; i < 9; i++)
        if (!isfinite(m[i])) return 0;
    return 1;
}

ic_status ic_warp_perspective(const ic_image *src, ic_image *dst, const ic_homography *h,
                              const ic_warp_options *options) {
    if (!src || !dst || !h) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    const ic_format f = src->format;
    if (dst->format != f) return IC_ERR_UNSUPPORTED;
    if (f != IC_FORMAT_GRAY8 && f != IC_FORMAT_RGBA8 && f != IC_FORMAT_I420 && f != IC_FORMAT_NV12)
        return IC_ERR_UNSUPPORTED;
    ic_warp_options opt = options ? *options : ic_warp_options_default(f);
    if (opt.interpolation != IC_INTERPOLATION_BILINEAR && opt.interpolation != IC_INTERPOLATION_BICUBIC)
        return IC_ERR_INVALID_ARGUMENT;
    if (!finite_matrix(h->m)) return IC_ERR_INVALID_ARGUMENT;
    const int32_t planes = ic_format_plane_count(f);
    if (ic__images_overlap(src, dst)) return IC_ERR_INVALID_ARGUMENT;

    double m[9];
    memcpy(m, h->m, sizeof m);
    /* The warp only evaluates the map forwards, so any finite matrix is usable (a singular
     * one gives a degenerate but well-defined picture); only the zero matrix is refused.
     * Extreme entries (issue #12: 1e300 overflowed a position's conversion to int) are
     * handled here, once: H is scaled by a power of two (exact, and a homography is defined
     * up to scale) so that its largest entry lies in [0.5, 1). Then u, v and w of every
     * destination pixel (|coordinates| < 2^17) stay finite, and the kernels' range checks
     * send positions beyond the source, however large, to the fill value. */
    {
        double big = 0;
        for (int i = 0; i < 9; i++) big = fabs(m[i]) > big ? fabs(m[i]) : big;
        if (big == 0) return IC_ERR_INVALID_ARGUMENT;
        int e;
        (void)frexp(big, &e);
        for (int i = 0; i < 9; i++) m[i] = ldexp(m[i], -e);
    }
    /* Sign: w > 0 at the destination's centre (else at the first corner where w != 0). */
    {
        const double pts[5][2] = {{dst->width / 2.0, dst->height / 2.0}, {0, 0}, {dst->width, 0},
                                  {0, dst->height}, {dst->width, dst->height}};
        for (int i = 0; i < 5; i++) {
            double w = m[6] * pts[i][0] + m[7] * pts[i][1] + m[8];
            if (w != 0) {
                if (w < 0)
                    for (int k = 0; k < 9; k++) m[k] = -m[k];
                break;
            }
        }
    }
    ic__settings set = ic__settings_read();
    /* The destination's pixels, each reading a 2x2 or 4x4 window: about 4 bytes each. */
    ic__settings_limit_work(&set, 4 * ic__image_bytes(dst));
    for (int32_t pl = 0; pl < planes; pl++) {
        ic_warp_plane p;
        memset(&p, 0, sizeof p);
        p.src = src->planes[pl].data;
        p.src_stride = src->planes[pl].stride;
        p.dst = dst->planes[pl].data;
        p.dst_stride = dst->planes[pl].stride;
        p.bicubic = opt.interpolation == IC_INTERPOLATION_BICUBIC;
        memcpy(p.m, m, sizeof m);
        if (pl == 0) {
            p.sw = src->width; p.sh = src->height; p.dw = dst->width; p.dh = dst->height;
            p.channels = f == IC_FORMAT_RGBA8 ? 4 : 1;
            memcpy(p.fill, opt.fill, 4);
        } else {
            p.sw = (src->width + 1) / 2; p.sh = (src->height + 1) / 2;
            p.dw = (dst->width + 1) / 2; p.dh = (dst->height + 1) / 2;
            p.channels = f == IC_FORMAT_NV12 ? 2 : 1;
            if (f == IC_FORMAT_NV12) { p.fill[0] = opt.fill[1]; p.fill[1] = opt.fill[2]; }
            else p.fill[0] = opt.fill[pl];
            /* Chroma coordinate c is luma coordinate 2c: M_c = S M S^-1, S = diag(1/2, 1/2, 1):
             * the top two rows' translation halves, the bottom row's linear part doubles. */
            p.m[2] *= 0.5; p.m[5] *= 0.5;
            p.m[6] *= 2.0; p.m[7] *= 2.0;
        }
        st = warp_plane(&p, &set);
        if (st != IC_OK) return st;
    }
    return IC_OK;
}

ic_status ic_rectify_homography(const ic_quad *quad, int32_t width, int32_t height,
                                int32_t orientation, ic_homography *out) {
    if (!quad || !out || width < 1 || height < 1 || orientation < 1 || orientation > 8)
        return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_quad_validate(quad, 0, 0, NULL);
    if (st != IC_OK) return st;
    const ic_point rect[4] = {{0, 0}, {width, 0}, {width, height}, {0, height}};
    ic_homography page, orient;
    if ((st = ic_homography_from_points(rect, quad->corners, &page)) != IC_OK) return st;
    if ((st = ic_orientation_homography(orientation, width, height, &orient)) != IC_OK) return st;
    return ic_homography_multiply(&page, &orient, out);
}

ic_status ic_rectify(const ic_image *src, const ic_quad *quad, int32_t orientation, ic_image *dst,
                     const ic_warp_options *options) {
    if (!src || !quad || !dst) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    if (orientation < 1 || orientation > 8) return IC_ERR_INVALID_ARGUMENT;
    if ((st = ic_quad_validate(quad, src->width, src->height, NULL)) != IC_OK) return st;
    int32_t w = orientation >= 5 ? dst->height : dst->width;
    int32_t h = orientation >= 5 ? dst->width : dst->height;
    ic_homography m;
    if ((st = ic_rectify_homography(quad, w, h, orientation, &m)) != IC_OK) return st;
    return ic_warp_perspective(src, dst, &m, options);
}
