/* Page detection, step 2: edge pixels ("Canny-lite"). A 5 x 5 binomial blur (1 4 6 4 1,
 * replicated borders), Sobel gradients with the L1 magnitude |gx| + |gy|, a threshold at
 * the 65th percentile of the magnitudes (at least 12, so flat noise is not an edge), and
 * non-maximum suppression across the edge (gradient direction in four sectors). Survivors
 * keep their gradient direction in degrees; no hysteresis: the Hough stage and the side
 * scores look at whole lines, which tolerate gaps. */
#include "detect_internal.h"

#include <math.h>
#include <string.h>

enum { IC_DET_MIN_THRESHOLD = 12, IC_DET_MAG_MAX = 2040 };

/* atan2 in degrees, 0..359, within ~0.01 degree (a minimax polynomial on [0, 1]). */
static int16_t direction_deg(int32_t gx, int32_t gy) {
    double ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;
    double mx = ax > ay ? ax : ay, mn = ax > ay ? ay : ax;
    double a = mx > 0 ? mn / mx : 0, s = a * a;
    double r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a; /* radians */
    if (ay > ax) r = 1.5707963267948966 - r;
    if (gx < 0) r = 3.141592653589793 - r;
    if (gy < 0) r = 6.283185307179586 - r;
    int32_t d = (int32_t)floor(r * (180.0 / 3.141592653589793) + 0.5);
    if (d >= 360) d -= 360;
    return (int16_t)d;
}

static void blur(ic_det_work *wk) {
    const int32_t w = wk->w, h = wk->h;
    uint16_t *tmp = wk->mag; /* horizontal pass, x16 */
    for (int32_t y = 0; y < h; y++) {
        const uint8_t *r = wk->gray + (size_t)y * w;
        uint16_t *o = tmp + (size_t)y * w;
        for (int32_t x = 0; x < w; x++) {
            int32_t a = x - 2 < 0 ? 0 : x - 2, b = x - 1 < 0 ? 0 : x - 1;
            int32_t c = x + 1 > w - 1 ? w - 1 : x + 1, d = x + 2 > w - 1 ? w - 1 : x + 2;
            o[x] = (uint16_t)(r[a] + 4 * r[b] + 6 * r[x] + 4 * r[c] + r[d]);
        }
    }
    for (int32_t y = 0; y < h; y++) {
        int32_t a = y - 2 < 0 ? 0 : y - 2, b = y - 1 < 0 ? 0 : y - 1;
        int32_t c = y + 1 > h - 1 ? h - 1 : y + 1, d = y + 2 > h - 1 ? h - 1 : y + 2;
        const uint16_t *ra = tmp + (size_t)a * w, *rb = tmp + (size_t)b * w, *rx = tmp + (size_t)y * w;
        const uint16_t *rc = tmp + (size_t)c * w, *rd = tmp + (size_t)d * w;
        uint8_t *o = wk->blur + (size_t)y * w;
        for (int32_t x = 0; x < w; x++)
            o[x] = (uint8_t)((ra[x] + 4 * rb[x] + 6 * rx[x] + 4 * rc[x] + rd[x] + 128) >> 8);
    }
}

static inline void sobel(const uint8_t *b, int32_t w, int32_t x, int32_t y, int32_t *gx, int32_t *gy) {
    const uint8_t *u = b + (size_t)(y - 1) * w + x, *m = u + w, *d = m + w;
    *gx = (u[1] + 2 * m[1] + d[1]) - (u[-1] + 2 * m[-1] + d[-1]);
    *gy = (d[-1] + 2 * d[0] + d[1]) - (u[-1] + 2 * u[0] + u[1]);
}

void ic__det_edges(ic_det_work *wk) {
    const int32_t w = wk->w, h = wk->h;
    blur(wk);
    /* Magnitudes (0 on the 1-pixel border) and their histogram. */
    static const int32_t bins = IC_DET_MAG_MAX + 1;
    uint32_t hist[IC_DET_MAG_MAX + 1];
    memset(hist, 0, sizeof hist);
    memset(wk->mag, 0, (size_t)w * h * sizeof *wk->mag);
    for (int32_t y = 1; y < h - 1; y++) {
        for (int32_t x = 1; x < w - 1; x++) {
            int32_t gx, gy;
            sobel(wk->blur, w, x, y, &gx, &gy);
            int32_t m = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
            wk->mag[(size_t)y * w + x] = (uint16_t)m;
            hist[m]++;
        }
    }
    uint64_t total = (uint64_t)(w > 2 ? w - 2 : 0) * (uint64_t)(h > 2 ? h - 2 : 0);
    uint64_t want = total * 35 / 100, above = 0; /* the strongest 35 % */
    int32_t t = bins - 1;
    while (t > 0 && above + hist[t] <= want) above += hist[t--];
    if (t < IC_DET_MIN_THRESHOLD) t = IC_DET_MIN_THRESHOLD;

    for (size_t i = 0; i < (size_t)w * h; i++) wk->dir[i] = -1;
    wk->nedges = 0;
    for (int32_t y = 1; y < h - 1; y++) {
        const uint16_t *mr = wk->mag + (size_t)y * w;
        for (int32_t x = 1; x < w - 1; x++) {
            int32_t m = mr[x];
            if (m <= t) continue;
            int32_t gx, gy;
            sobel(wk->blur, w, x, y, &gx, &gy);
            int32_t ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;
            int32_t a, b; /* neighbours across the edge */
            if (ay * 1000 <= ax * 414) { a = mr[x - 1]; b = mr[x + 1]; }                  /* ~horizontal gradient */
            else if (ax * 1000 <= ay * 414) { a = mr[x - w]; b = mr[x + w]; }             /* ~vertical */
            else if ((gx > 0) == (gy > 0)) { a = mr[x - w - 1]; b = mr[x + w + 1]; }      /* down-right diagonal */
            else { a = mr[x - w + 1]; b = mr[x + w - 1]; }
            if (m < a || m <= b) continue; /* ties go to one side only */
            /* The direction from the gradient summed over 3 x 3 (1 px inside the border):
             * single-pixel Sobel directions scatter by several degrees along a noisy
             * straight edge, the sum much less. */
            int32_t sx = 0, sy = 0;
            for (int32_t yy = y - 1; yy <= y + 1; yy++)
                for (int32_t xx = x - 1; xx <= x + 1; xx++) {
                    if (xx < 1 || yy < 1 || xx > w - 2 || yy > h - 2) continue;
                    int32_t ux, uy;
                    sobel(wk->blur, w, xx, yy, &ux, &uy);
                    sx += ux;
                    sy += uy;
                }
            int16_t d = direction_deg(sx, sy);
            wk->dir[(size_t)y * w + x] = d;
            if (wk->nedges < wk->max_edges) {
                ic_det_edge e = {(int16_t)x, (int16_t)y, d, 0};
                wk->edges[wk->nedges++] = e;
            }
        }
    }
}
