/* The inside map's say on a candidate quad: the quad search (detect_quad.c) scores its best
 * few candidates again with it. A page's interior is "inside" and the scene just beyond its
 * sides is not; a text block or a picture on the page has page just beyond its sides, a tile,
 * a window or the outline of an object has no page on either side. Its largest regions are
 * also candidates of their own (ic__dq_inside_regions). */
#include "detect_quad_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { IC_DR_GRID = 8 };             /* samples per direction inside, per side outside */
static const double IC_DR_OUT = 2.0; /* the outside band's distance from a side (cells) */
static const float IC_DR_INSIDE_P = 0.5f; /* a region's cells are inside a page with at least this probability */

double ic__dq_inside_contrast(const ic_dq_map *m, const ic_point c[4], int32_t frame_sides, double *in_mean,
                              double *out_mean) {
    /* interior: a G x G grid of the bilinear patch over the corners */
    double in = 0;
    for (int j = 0; j < IC_DR_GRID; j++)
        for (int i = 0; i < IC_DR_GRID; i++) {
            const double u = (i + 0.5) / IC_DR_GRID, v = (j + 0.5) / IC_DR_GRID;
            const double w0 = (1 - u) * (1 - v), w1 = u * (1 - v), w2 = u * v, w3 = (1 - u) * v;
            in += ic__dq_sample(m, m->inside, w0 * c[0].x + w1 * c[1].x + w2 * c[2].x + w3 * c[3].x,
                                w0 * c[0].y + w1 * c[1].y + w2 * c[2].y + w3 * c[3].y);
        }
    in /= IC_DR_GRID * IC_DR_GRID;
    /* outside: G points along each side that is not a frame edge, IC_DR_OUT cells out,
     * those within the frame */
    const double gx = (c[0].x + c[1].x + c[2].x + c[3].x) / 4, gy = (c[0].y + c[1].y + c[2].y + c[3].y) / 4;
    double out = 0;
    int32_t n = 0;
    for (int s = 0; s < 4; s++) {
        if (frame_sides & (1 << s)) continue;
        const ic_point a = c[(s + 3) & 3], b = c[s]; /* side s ends at corner s */
        const double dx = b.x - a.x, dy = b.y - a.y, len = sqrt(dx * dx + dy * dy);
        if (!(len > 0)) continue;
        double nx = dy / len, ny = -dx / len;
        if (nx * ((a.x + b.x) / 2 - gx) + ny * ((a.y + b.y) / 2 - gy) < 0) { nx = -nx; ny = -ny; }
        for (int i = 0; i < IC_DR_GRID; i++) {
            const double t = (i + 0.5) / IC_DR_GRID;
            const double x = a.x + t * dx + IC_DR_OUT * nx, y = a.y + t * dy + IC_DR_OUT * ny;
            if (x < m->fx0 || x > m->fx1 || y < m->fy0 || y > m->fy1) continue;
            out += ic__dq_sample(m, m->inside, x, y);
            n++;
        }
    }
    if (in_mean) *in_mean = in;
    if (out_mean) *out_mean = n ? out / n : 0;
    return n ? in - out / n : in;
}

/* ---- pages as regions of the inside map ------------------------------------------------------ */

size_t ic__dq_region_scratch(int32_t mw, int32_t mh) {
    const size_t cells = (size_t)mw * (size_t)mh;
    /* visited flags, the fill's stack, each row's extent, the outline's points (4 a row) and
     * the hull's (at most one more), the stack and the points 8-byte aligned */
    return cells + 8 + cells * sizeof(int32_t) + 2 * (size_t)mh * sizeof(int32_t) + 8 +
           (2 * 4 * (size_t)mh + 1) * sizeof(ic_point);
}

static double cross3(ic_point o, ic_point a, ic_point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

/* Convex hull of pts[0 ..< n] (sorted by u, then v, in place) into hull (room for n + 1), its
 * vertices in order around it (Andrew's monotone chain); its vertex count. */
static int32_t hull_of(ic_point *pts, int32_t n, ic_point *hull) {
    /* insertion sort, O(n^2) over the whole outline: at most 4 points a map row (432 at 12 MP) */
    for (int32_t a = 1; a < n; a++) {
        ic_point p = pts[a];
        int32_t b = a;
        for (; b > 0 && (pts[b - 1].x > p.x || (pts[b - 1].x == p.x && pts[b - 1].y > p.y)); b--) pts[b] = pts[b - 1];
        pts[b] = p;
    }
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        while (k >= 2 && cross3(hull[k - 2], hull[k - 1], pts[i]) <= 0) k--;
        hull[k++] = pts[i];
    }
    for (int32_t i = n - 2, lo = k + 1; i >= 0; i--) {
        while (k >= lo && cross3(hull[k - 2], hull[k - 1], pts[i]) <= 0) k--;
        hull[k++] = pts[i];
    }
    return k > 1 ? k - 1 : k;
}

static double tri(ic_point a, ic_point b, ic_point c) { return fabs(cross3(a, b, c)) / 2; }

/* The largest quadrilateral with its corners among the vertices of the convex polygon h[0 ..< n]
 * (for each diagonal i, k the farthest vertex on each side of it; the farthest moves forward
 * with k, so O(n^2)); its area, 0 when n < 4. */
static double largest_quad(const ic_point *h, int32_t n, ic_point q[4]) {
    double best = 0;
    if (n < 4) return 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t j = (i + 1) % n, l = (i + 3) % n;
        for (int32_t dk = 2; dk <= n - 2; dk++) {
            const int32_t k = (i + dk) % n;
            while ((j + 1) % n != k && tri(h[i], h[(j + 1) % n], h[k]) >= tri(h[i], h[j], h[k])) j = (j + 1) % n;
            if ((l - k + n) % n < 1) l = (k + 1) % n;
            while ((l + 1) % n != i && tri(h[k], h[(l + 1) % n], h[i]) >= tri(h[k], h[l], h[i])) l = (l + 1) % n;
            const double a = tri(h[i], h[j], h[k]) + tri(h[k], h[l], h[i]);
            if (a > best) {
                best = a;
                q[0] = h[i]; q[1] = h[j]; q[2] = h[k]; q[3] = h[l];
            }
        }
    }
    return best;
}

int32_t ic__dq_inside_regions(const ic_dq_map *m, uint8_t *scratch, double min_cells, ic_point quads[][4],
                              int32_t max) {
    const int32_t w = m->w, h = m->h;
    const size_t cells = (size_t)w * (size_t)h;
    if (max > IC_DR_MAX_REGIONS) max = IC_DR_MAX_REGIONS;
    uint8_t *seen = scratch;
    int32_t *stack = (int32_t *)(void *)(((uintptr_t)(scratch + cells) + 7) & ~(uintptr_t)7);
    int32_t *lo = stack + cells, *hi = lo + h;
    ic_point *pts = (ic_point *)(void *)(((uintptr_t)(hi + h) + 7) & ~(uintptr_t)7);
    ic_point *hull = pts + 4 * (size_t)h; /* room for 4 h + 1 */
    memset(seen, 0, cells);
    for (int32_t j = 0; j < h; j++) { lo[j] = w; hi[j] = -1; }
    struct region { double cells; ic_point q[4]; } best[IC_DR_MAX_REGIONS];
    int32_t n = 0;
    for (int32_t j0 = 0; j0 < h; j0++) {
        for (int32_t i0 = 0; i0 < w; i0++) {
            const size_t at0 = (size_t)j0 * w + i0;
            if (seen[at0] || !(m->inside[(size_t)j0 * m->stride + i0] >= IC_DR_INSIDE_P)) continue;
            /* one 4-connected region of cells at or above IC_DR_INSIDE_P, its rows' extents */
            int32_t top = 0, jlo = j0, jhi = j0;
            size_t count = 0;
            stack[top++] = (int32_t)at0;
            seen[at0] = 1;
            while (top > 0) {
                const int32_t c = stack[--top], i = c % w, j = c / w;
                count++;
                if (i < lo[j]) lo[j] = i;
                if (i > hi[j]) hi[j] = i;
                if (j > jhi) jhi = j; /* (the scan reaches no region above its first row) */
                const int32_t nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
                for (int e = 0; e < 4; e++) {
                    const int32_t x = nb[e][0], y = nb[e][1];
                    if (x < 0 || y < 0 || x >= w || y >= h) continue;
                    const size_t a = (size_t)y * w + x;
                    if (seen[a] || !(m->inside[(size_t)y * m->stride + x] >= IC_DR_INSIDE_P)) continue;
                    seen[a] = 1;
                    stack[top++] = (int32_t)a;
                }
            }
            /* its outline: the outer corners of each row's first and last cells */
            int32_t np = 0;
            for (int32_t j = jlo; j <= jhi; j++) {
                pts[np++] = (ic_point){lo[j], j};
                pts[np++] = (ic_point){lo[j], j + 1};
                pts[np++] = (ic_point){hi[j] + 1, j};
                pts[np++] = (ic_point){hi[j] + 1, j + 1};
                lo[j] = w; /* ready for the next region */
                hi[j] = -1;
            }
            if ((double)count < min_cells) continue;
            const int32_t nh = hull_of(pts, np, hull);
            ic_point q[4];
            const double qa = largest_quad(hull, nh, q);
            if (!(qa > 0) || qa < min_cells) continue;
            /* keep the `max` largest regions, by cell count */
            const int32_t at = ic__dq_sorted_slot(best, sizeof *best, offsetof(struct region, cells), &n, max, (double)count);
            if (at < 0) continue;
            best[at].cells = (double)count;
            memcpy(best[at].q, q, sizeof q);
        }
    }
    for (int32_t i = 0; i < n; i++) memcpy(quads[i], best[i].q, sizeof best[i].q);
    return n;
}
