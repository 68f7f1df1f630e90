/* Page detection, step 1: the working image. An area-average (box) reduction of the luma
 * to at most `work` pixels on the long side, with fractional pixel weights at the box
 * edges, so no input pixel is skipped and no aliasing pattern is invented. Fixed point:
 * horizontal averages in Q8, accumulated over rows with Q8 row weights in 32 bits
 * (<= 65280 * 256 * (scale + 1), below 2^32 for scales up to 128 = 65535 / 512). */
#include "detect_internal.h"
#include "row.h"

#include <math.h>
#include <string.h>

void ic__det_work_size(int32_t width, int32_t height, int32_t work, int32_t *w, int32_t *h) {
    int32_t longest = width > height ? width : height;
    if (longest <= work) {
        *w = width;
        *h = height;
        return;
    }
    double s = (double)longest / work;
    int32_t ww = (int32_t)floor(width / s + 0.5), hh = (int32_t)floor(height / s + 0.5);
    *w = ww < 1 ? 1 : ww;
    *h = hh < 1 ? 1 : hh;
}

/* The luma of source row y (GRAY8 / Y plane directly; RGB(A) through the row layer's luma
 * into a buffer). */
static const uint8_t *luma_row(const ic_image *src, ic_det_work *wk, ic_row_luma_fn luma, int32_t y) {
    const uint8_t *row = src->planes[0].data + (size_t)y * src->planes[0].stride;
    int32_t ch = src->format == IC_FORMAT_RGBA8 ? 4 : src->format == IC_FORMAT_RGB8 ? 3 : 1;
    if (ch == 1) return row;
    luma(row, ch, wk->luma_row, (size_t)src->width);
    return wk->luma_row;
}

/* The pixels [first, last] overlapping box i of width s, and the Q8 weights of the two
 * end pixels (the ones in between weigh 256). */
static void box(int32_t i, double s, int32_t n, int32_t *first, int32_t *last, int32_t *wf,
                int32_t *wl) {
    double b0 = i * s, b1 = (i + 1) * s;
    int32_t f = (int32_t)floor(b0), l = (int32_t)ceil(b1) - 1;
    if (l > n - 1) l = n - 1;
    if (f > l) f = l;
    *first = f;
    *last = l;
    if (f == l) {
        *wf = (int32_t)floor((b1 - b0) * 256 + 0.5);
        *wl = 0;
    } else {
        *wf = (int32_t)floor((f + 1 - b0) * 256 + 0.5);
        *wl = (int32_t)floor((b1 - l) * 256 + 0.5);
    }
}

void ic__det_reduce(const ic_image *src, ic_det_work *wk) {
    const int32_t W = src->width, H = src->height, w = wk->w, h = wk->h;
    const ic_row_luma_fn luma = ic__row_pick_luma(ic_cpu_features());
    if (w == W && h == H) {
        for (int32_t y = 0; y < H; y++) memcpy(wk->gray + (size_t)y * w, luma_row(src, wk, luma, y), (size_t)w);
        return;
    }
    const double sx = (double)W / w, sy = (double)H / h;
    int32_t *cols = wk->cols;
    for (int32_t i = 0; i < w; i++) box(i, sx, W, &cols[4 * i], &cols[4 * i + 1], &cols[4 * i + 2], &cols[4 * i + 3]);
    /* One output row at a time: its input rows (the end rows weighted), each reduced
     * horizontally to Q8 averages and accumulated; `mag` serves as the accumulator row. */
    uint32_t *acc = (uint32_t *)(void *)wk->mag; /* w * h * 2 bytes >= w * 4 bytes when h >= 2 */
    const double inv_sx = 1.0 / sx;
    for (int32_t j = 0; j < h; j++) {
        int32_t rf, rl, wf, wl;
        box(j, sy, H, &rf, &rl, &wf, &wl);
        memset(acc, 0, (size_t)w * sizeof *acc);
        for (int32_t y = rf; y <= rl; y++) {
            uint32_t wy = y == rf ? (uint32_t)wf : y == rl ? (uint32_t)wl : 256u;
            if (wy == 0) continue;
            const uint8_t *row = luma_row(src, wk, luma, y);
            for (int32_t i = 0; i < w; i++) {
                int32_t f = cols[4 * i], l = cols[4 * i + 1];
                uint32_t s = (uint32_t)cols[4 * i + 2] * row[f];
                if (l > f) {
                    uint32_t mid = 0;
                    for (int32_t x = f + 1; x < l; x++) mid += row[x];
                    s += 256u * mid + (uint32_t)cols[4 * i + 3] * row[l];
                }
                uint32_t avg = (uint32_t)(s * inv_sx + 0.5); /* Q8 average, <= 65280 */
                acc[i] += wy * avg;
            }
        }
        const double norm = 1.0 / (sy * 65536.0);
        uint8_t *out = wk->gray + (size_t)j * w;
        for (int32_t i = 0; i < w; i++) {
            double v = acc[i] * norm + 0.5;
            out[i] = (uint8_t)(v >= 255 ? 255 : v);
        }
    }
}
