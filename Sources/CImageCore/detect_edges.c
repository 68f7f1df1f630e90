/* Page detection, step 2: edge pixels ("Canny-lite"). A 5 x 5 binomial blur (1 4 6 4 1,
 * replicated borders), Sobel gradients with the L1 magnitude |gx| + |gy|, a threshold at
 * the 65th percentile of the magnitudes (at least 12, so flat noise is not an edge), and
 * non-maximum suppression across the edge (gradient direction in four sectors). Survivors
 * keep their gradient direction in degrees; no hysteresis: the Hough stage and the side
 * scores look at whole lines, which tolerate gaps. */
#include "detect_internal.h"

#include <math.h>
#include <stddef.h>
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
        /* clamped near the ends, plain (and vectorisable) in between */
        for (int32_t x = 0; x < w; x++) {
            if (x == 2 && w > 4) x = w - 2 > 2 ? w - 2 : 2;
            int32_t a = x - 2 < 0 ? 0 : x - 2, b = x - 1 < 0 ? 0 : x - 1;
            int32_t c = x + 1 > w - 1 ? w - 1 : x + 1, d = x + 2 > w - 1 ? w - 1 : x + 2;
            o[x] = (uint16_t)(r[a] + 4 * r[b] + 6 * r[x] + 4 * r[c] + r[d]);
        }
        for (int32_t x = 2; x < w - 2; x++)
            o[x] = (uint16_t)(r[x - 2] + 4 * r[x - 1] + 6 * r[x] + 4 * r[x + 1] + r[x + 2]);
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


void ic__det_edges(ic_det_work *wk) {
    const int32_t w = wk->w, h = wk->h;
    blur(wk);
    /* Gradients and magnitudes (0 on the 1-pixel border) and the magnitudes' histogram. */
    static const int32_t bins = IC_DET_MAG_MAX + 1;
    uint32_t hist[IC_DET_MAG_MAX + 1];
    memset(hist, 0, sizeof hist);
    memset(wk->mag, 0, (size_t)w * h * sizeof *wk->mag);
    memset(wk->gx, 0, (size_t)w * h * sizeof *wk->gx);
    memset(wk->gy, 0, (size_t)w * h * sizeof *wk->gy);
    for (int32_t y = 1; y < h - 1; y++) {
        const uint8_t *u = wk->blur + (size_t)(y - 1) * w, *m = u + w, *d = m + w;
        int16_t *ox = wk->gx + (size_t)y * w, *oy = wk->gy + (size_t)y * w;
        uint16_t *om = wk->mag + (size_t)y * w;
        for (int32_t x = 1; x < w - 1; x++) {
            int32_t gx = (u[x + 1] + 2 * m[x + 1] + d[x + 1]) - (u[x - 1] + 2 * m[x - 1] + d[x - 1]);
            int32_t gy = (d[x - 1] + 2 * d[x] + d[x + 1]) - (u[x - 1] + 2 * u[x] + u[x + 1]);
            ox[x] = (int16_t)gx;
            oy[x] = (int16_t)gy;
            om[x] = (uint16_t)((gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy));
        }
        for (int32_t x = 1; x < w - 1; x++) hist[om[x]]++;
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
        const int16_t *gxr = wk->gx + (size_t)y * w, *gyr = wk->gy + (size_t)y * w;
        for (int32_t x = 1; x < w - 1; x++) {
            int32_t m = mr[x];
            if (m <= t) continue;
            int32_t gx = gxr[x], gy = gyr[x];
            int32_t ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;
            int32_t a, b; /* neighbours across the edge */
            if (ay * 1000 <= ax * 414) { a = mr[x - 1]; b = mr[x + 1]; }                  /* ~horizontal gradient */
            else if (ax * 1000 <= ay * 414) { a = mr[x - w]; b = mr[x + w]; }             /* ~vertical */
            else if ((gx > 0) == (gy > 0)) { a = mr[x - w - 1]; b = mr[x + w + 1]; }      /* down-right diagonal */
            else { a = mr[x - w + 1]; b = mr[x + w - 1]; }
            if (m < a || m <= b) continue; /* ties go to one side only */
            /* The direction from the gradient summed over 3 x 3 (the border's gradients are
             * 0): single-pixel Sobel directions scatter by several degrees along a noisy
             * straight edge, the sum much less. */
            int32_t sx = 0, sy = 0;
            for (int32_t dy = -1; dy <= 1; dy++) {
                const int16_t *rx = gxr + (ptrdiff_t)dy * w, *ry = gyr + (ptrdiff_t)dy * w;
                sx += rx[x - 1] + rx[x] + rx[x + 1];
                sy += ry[x - 1] + ry[x] + ry[x + 1];
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
