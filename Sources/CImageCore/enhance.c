/* Page enhancement in place (see imagecore/enhance.h for the method).
 *
 * Passes: (1) per cell row, in parallel, each cell's 2nd and 90th luminance percentiles
 * (sampled every 2nd pixel and row); (2) on the small cell grid, the background (3 x 3 max,
 * 3 x 3 binomial blur), its inverse, and the black and white points; (3) per cell row, in
 * parallel, the mapped values written in place (for black and white also each cell's mean
 * of the mapped luminance); (4) black and white only, per cell row, the threshold. Row
 * kernels work on chunks of at most IC_ENH_CHUNK pixels with the inverse background of the
 * chunk interpolated into a stack array, so no scratch grows with the image width. */
#include "enhance_internal.h"
#include "planar.h"
#include "row.h"
#include "imagecore/enhance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { IC_ENH_CHUNK = 256, IC_ENH_MAX_GRID = 512, IC_ENH_DEFAULT_OFFSET = 24, IC_ENH_SURE_BLACK = 96,
       IC_ENH_SURE_WHITE = 224 };

typedef struct enh {
    ic_image im;
    int32_t W, H, cell, gw, gh;
    float *p90, *p2, *bg, *tmp, *inv, *mean;
    float b, scale; /* out = clamp((f - b) * scale) */
    ic_enhance_mode mode;
    int32_t offset, neutral;
    void (*gray_row)(const uint8_t *, uint8_t *, const float *, int32_t, float, float);
    void (*rgba_row)(uint8_t *, const float *, int32_t, float, float);
} enh;

/* ---- helpers --------------------------------------------------------------------------- */

/* Luminance of pixel (x, y). */
static inline int32_t lum_at(const enh *e, int32_t x, int32_t y) {
    const uint8_t *row = e->im.planes[0].data + (size_t)y * e->im.planes[0].stride;
    if (e->im.format != IC_FORMAT_RGBA8) return row[x];
    const uint8_t *p = row + 4 * (size_t)x;
    return ic__luma(p[0], p[1], p[2]);
}

/* Grid coordinate of pixel centre p along an axis of `n` cells: the two cells and weight. */
static inline void grid_pos(double p, int32_t cell, int32_t n, int32_t *i0, int32_t *i1, float *f) {
    double c = (p + 0.5) / cell - 0.5;
    if (c <= 0) { *i0 = *i1 = 0; *f = 0; return; }
    int32_t i = (int32_t)c;
    if (i >= n - 1) { *i0 = *i1 = n - 1; *f = 0; return; }
    *i0 = i;
    *i1 = i + 1;
    *f = (float)(c - i);
}

/* The grid value of `g` at row y interpolated vertically into `row` (gw entries). */
static void grid_row(const enh *e, const float *g, int32_t y, float *row) {
    int32_t j0, j1;
    float fy;
    grid_pos(y, e->cell, e->gh, &j0, &j1, &fy);
    const float *a = g + (size_t)j0 * e->gw, *b = g + (size_t)j1 * e->gw;
    for (int32_t i = 0; i < e->gw; i++) row[i] = a[i] + (b[i] - a[i]) * fy;
}

/* Pixels x0 .. x0 + n - 1 of a grid row interpolated horizontally: piecewise linear
 * between cell centres, stepped per pixel within each piece (grid_pos once per piece). */
static void chunk(const enh *e, const float *row, int32_t x0, int32_t n, float *out) {
    const int32_t c = e->cell, half = c / 2; /* c is even: centres at i * c + c / 2 */
    int32_t k = 0;
    while (k < n) {
        int32_t x = x0 + k, i0, i1;
        float fx;
        grid_pos(x, c, e->gw, &i0, &i1, &fx);
        /* the piece ends at the next cell centre (or the chunk's end) */
        int32_t end;
        if (x < half) end = half;
        else if (i0 == i1) end = x0 + n;
        else end = i1 * c + half;
        if (end > x0 + n) end = x0 + n;
        float a = row[i0], d = (row[i1] - row[i0]) / c;
        float v = a + (row[i1] - row[i0]) * fx;
        for (; x < end; x++, k++, v += d) out[k] = i0 == i1 ? a : v;
    }
}

/* ---- pass 1: cell percentiles ---------------------------------------------------------- */

static void cell_stats(void *ctx, int64_t begin, int64_t end) {
    enh *e = (enh *)ctx;
    for (int64_t j = begin; j < end; j++) {
        int32_t y0 = (int32_t)j * e->cell, y1 = y0 + e->cell < e->H ? y0 + e->cell : e->H;
        for (int32_t i = 0; i < e->gw; i++) {
            int32_t x0 = i * e->cell, x1 = x0 + e->cell < e->W ? x0 + e->cell : e->W;
            uint32_t hist[256];
            memset(hist, 0, sizeof hist);
            uint32_t n = 0;
            for (int32_t y = y0; y < y1; y += 2)
                for (int32_t x = x0; x < x1; x += 2) { hist[lum_at(e, x, y)]++; n++; }
            uint32_t lo = (n * 2 + 99) / 100, hi = (n * 90 + 99) / 100, acc = 0;
            int32_t v2 = -1, v90 = 255;
            for (int32_t v = 0; v < 256; v++) {
                acc += hist[v];
                if (v2 < 0 && acc >= lo) v2 = v;
                if (acc >= hi) { v90 = v; break; }
            }
            e->p2[j * e->gw + i] = (float)(v2 < 0 ? 0 : v2);
            e->p90[j * e->gw + i] = (float)v90;
        }
    }
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* ---- pass 2: the grid ------------------------------------------------------------------ */

static void background(enh *e) {
    const int32_t gw = e->gw, gh = e->gh;
    for (int32_t j = 0; j < gh; j++)
        for (int32_t i = 0; i < gw; i++) { /* 3 x 3 maximum */
            float m = 0;
            for (int32_t dj = -1; dj <= 1; dj++)
                for (int32_t di = -1; di <= 1; di++) {
                    int32_t jj = j + dj < 0 ? 0 : j + dj >= gh ? gh - 1 : j + dj;
                    int32_t ii = i + di < 0 ? 0 : i + di >= gw ? gw - 1 : i + di;
                    float v = e->p90[jj * gw + ii];
                    if (v > m) m = v;
                }
            e->tmp[j * gw + i] = m;
        }
    static const float k[3] = {0.25f, 0.5f, 0.25f};
    for (int32_t j = 0; j < gh; j++)
        for (int32_t i = 0; i < gw; i++) { /* 3 x 3 binomial blur */
            float s = 0;
            for (int32_t dj = -1; dj <= 1; dj++)
                for (int32_t di = -1; di <= 1; di++) {
                    int32_t jj = j + dj < 0 ? 0 : j + dj >= gh ? gh - 1 : j + dj;
                    int32_t ii = i + di < 0 ? 0 : i + di >= gw ? gw - 1 : i + di;
                    s += k[dj + 1] * k[di + 1] * e->tmp[jj * gw + ii];
                }
            e->bg[j * gw + i] = s < 1 ? 1 : s;
            e->inv[j * gw + i] = 1.0f / e->bg[j * gw + i];
        }
    /* White point: 0.98 x the median paper ratio; black point: the 10th percentile of the
     * cells' dark ratios, at most 0.5, and at least 0.2 below white. */
    const int32_t n = gw * gh;
    for (int32_t i = 0; i < n; i++) e->tmp[i] = e->p90[i] * e->inv[i];
    qsort(e->tmp, (size_t)n, sizeof *e->tmp, cmp_float);
    float w = 0.98f * e->tmp[n / 2];
    for (int32_t i = 0; i < n; i++) e->tmp[i] = e->p2[i] * e->inv[i];
    qsort(e->tmp, (size_t)n, sizeof *e->tmp, cmp_float);
    float b = e->tmp[n / 10];
    if (b > 0.5f) b = 0.5f;
    if (w > 1.2f) w = 1.2f;
    if (w - b < 0.2f) b = w - 0.2f;
    if (b < 0) b = 0;
    /* A page with no light at all (w near 0) would leave no span and an infinite scale
     * (issue #12: NaN converted to uint8_t for an all-zero page): keep white >= black + 0.2. */
    if (w - b < 0.2f) w = b + 0.2f;
    e->b = b;
    e->scale = 255.0f / (w - b);
}

/* ---- pass 3: write ---------------------------------------------------------------------- */

static void map_luma_row(const enh *e, uint8_t *row, int32_t y, const float *grow, double *sums) {
    float inv[IC_ENH_CHUNK];
    for (int32_t x0 = 0; x0 < e->W; x0 += IC_ENH_CHUNK) {
        int32_t n = e->W - x0 < IC_ENH_CHUNK ? e->W - x0 : IC_ENH_CHUNK;
        chunk(e, grow, x0, n, inv);
        e->gray_row(row + x0, row + x0, inv, n, e->b, e->scale);
    }
    if (sums) /* per cell, no division per pixel */
        for (int32_t i = 0, x = 0; x < e->W; i++) {
            int32_t end = x + e->cell < e->W ? x + e->cell : e->W;
            uint32_t s = 0;
            for (; x < end; x++) s += row[x];
            sums[i] += s;
        }
    (void)y;
}

static void write_band(void *ctx, int64_t begin, int64_t end) {
    enh *e = (enh *)ctx;
    const ic_format f = e->im.format;
    float grow[IC_ENH_MAX_GRID];
    double sums[IC_ENH_MAX_GRID];
    const int luminance = e->mode != IC_ENHANCE_COLOR;
    for (int64_t j = begin; j < end; j++) {
        int32_t y0 = (int32_t)j * e->cell, y1 = y0 + e->cell < e->H ? y0 + e->cell : e->H;
        memset(sums, 0, sizeof(double) * (size_t)e->gw);
        double *acc = e->mode == IC_ENHANCE_BW ? sums : NULL;
        if (f == IC_FORMAT_RGBA8) {
            float inv[IC_ENH_CHUNK];
            for (int32_t y = y0; y < y1; y++) {
                uint8_t *row = e->im.planes[0].data + (size_t)y * e->im.planes[0].stride;
                grid_row(e, e->inv, y, grow);
                for (int32_t x0 = 0; x0 < e->W; x0 += IC_ENH_CHUNK) {
                    int32_t n = e->W - x0 < IC_ENH_CHUNK ? e->W - x0 : IC_ENH_CHUNK;
                    chunk(e, grow, x0, n, inv);
                    if (luminance) ic_enhance_rgba_row_c(row + 4 * (size_t)x0, inv, n, e->b, e->scale, 1);
                    else e->rgba_row(row + 4 * (size_t)x0, inv, n, e->b, e->scale);
                }
                if (acc)
                    for (int32_t i = 0, x = 0; x < e->W; i++) {
                        int32_t end = x + e->cell < e->W ? x + e->cell : e->W;
                        uint32_t sum = 0;
                        for (; x < end; x++) sum += row[4 * (size_t)x];
                        acc[i] += sum;
                    }
            }
        } else if ((f == IC_FORMAT_NV12 || f == IC_FORMAT_I420) && !luminance) {
            /* Chroma first (it needs the original Y of its 2 x 2 block), then Y. The cell is
             * even, so a band holds whole chroma rows. */
            float inv0[IC_ENH_CHUNK], inv1[IC_ENH_CHUNK], grow1[IC_ENH_MAX_GRID];
            for (int32_t y = y0; y < y1; y += 2) {
                uint8_t *r0 = e->im.planes[0].data + (size_t)y * e->im.planes[0].stride;
                uint8_t *r1 = y + 1 < e->H ? r0 + e->im.planes[0].stride : r0;
                int32_t cy = y / 2;
                grid_row(e, e->inv, y, grow);
                grid_row(e, e->inv, y + 1 < e->H ? y + 1 : y, grow1);
                uint8_t m0[IC_ENH_CHUNK], m1[IC_ENH_CHUNK];
                for (int32_t x0 = 0; x0 < e->W; x0 += IC_ENH_CHUNK) {
                    int32_t n = e->W - x0 < IC_ENH_CHUNK ? e->W - x0 : IC_ENH_CHUNK;
                    chunk(e, grow, x0, n, inv0);
                    chunk(e, grow1, x0, n, inv1);
                    /* mapped luma of both rows first; chroma from original against mapped */
                    e->gray_row(r0 + x0, m0, inv0, n, e->b, e->scale);
                    e->gray_row(r1 + x0, m1, inv1, n, e->b, e->scale);
                    for (int32_t k = 0; k < n; k += 2) { /* x0 is even: chunks hold whole pairs */
                        int32_t x = x0 + k, cx = x / 2, two = x + 1 < e->W;
                        float o = (float)r0[x] + r1[x], m = (float)m0[k] + m1[k];
                        if (two) {
                            o += (float)r0[x + 1] + r1[x + 1];
                            m += (float)m0[k + 1] + m1[k + 1];
                        }
                        float g = (m + 2) / (o + 2);
                        uint8_t *u, *v;
                        if (f == IC_FORMAT_NV12) {
                            u = e->im.planes[1].data + (size_t)cy * e->im.planes[1].stride + 2 * (size_t)cx;
                            v = u + 1;
                        } else {
                            u = e->im.planes[1].data + (size_t)cy * e->im.planes[1].stride + cx;
                            v = e->im.planes[2].data + (size_t)cy * e->im.planes[2].stride + cx;
                        }
                        float uu = 128 + (*u - 128) * g + 0.5f, vv = 128 + (*v - 128) * g + 0.5f;
                        *u = uu <= 0 ? 0 : uu >= 255 ? 255 : (uint8_t)uu;
                        *v = vv <= 0 ? 0 : vv >= 255 ? 255 : (uint8_t)vv;
                    }
                    memcpy(r0 + x0, m0, (size_t)n);
                    if (y + 1 < e->H) memcpy(r1 + x0, m1, (size_t)n);
                }
            }
        } else { /* GRAY8, and Y of the luminance modes */
            for (int32_t y = y0; y < y1; y++) {
                grid_row(e, e->inv, y, grow);
                map_luma_row(e, e->im.planes[0].data + (size_t)y * e->im.planes[0].stride, y, grow, acc);
            }
        }
        if (acc)
            for (int32_t i = 0; i < e->gw; i++) {
                int32_t x0 = i * e->cell, x1 = x0 + e->cell < e->W ? x0 + e->cell : e->W;
                e->mean[j * e->gw + i] = (float)(acc[i] / ((double)(x1 - x0) * (y1 - y0)));
            }
    }
}

/* ---- pass 4: black and white -------------------------------------------------------------- */

static void threshold_band(void *ctx, int64_t begin, int64_t end) {
    enh *e = (enh *)ctx;
    float grow[IC_ENH_MAX_GRID], t[IC_ENH_CHUNK];
    const int rgba = e->im.format == IC_FORMAT_RGBA8;
    for (int64_t j = begin; j < end; j++) {
        int32_t y0 = (int32_t)j * e->cell, y1 = y0 + e->cell < e->H ? y0 + e->cell : e->H;
        for (int32_t y = y0; y < y1; y++) {
            uint8_t *row = e->im.planes[0].data + (size_t)y * e->im.planes[0].stride;
            grid_row(e, e->mean, y, grow);
            for (int32_t x0 = 0; x0 < e->W; x0 += IC_ENH_CHUNK) {
                int32_t n = e->W - x0 < IC_ENH_CHUNK ? e->W - x0 : IC_ENH_CHUNK;
                chunk(e, grow, x0, n, t);
                /* The image is flattened and stretched by now, so absolute guards are safe:
                 * an ink region larger than a cell has a dark mean of its own. Branch-free
                 * so the compiler vectorises the gray loop. */
                const float off = (float)e->offset;
                if (rgba) {
                    for (int32_t k = 0; k < n; k++) {
                        uint8_t *p = row + 4 * (size_t)(x0 + k);
                        int black = (p[0] <= IC_ENH_SURE_BLACK) | ((p[0] < IC_ENH_SURE_WHITE) & ((float)p[0] < t[k] - off));
                        p[0] = p[1] = p[2] = (uint8_t)(black - 1);
                    }
                } else {
                    uint8_t *p = row + x0;
                    for (int32_t k = 0; k < n; k++) {
                        int black = (p[k] <= IC_ENH_SURE_BLACK) | ((p[k] < IC_ENH_SURE_WHITE) & ((float)p[k] < t[k] - off));
                        p[k] = (uint8_t)(black - 1);
                    }
                }
            }
        }
    }
}

/* ---- driver --------------------------------------------------------------------------------- */

static ic_status plan(int32_t W, int32_t H, const ic_enhance_options *o, int32_t *cell, int32_t *gw,
                      int32_t *gh) {
    if (W < 1 || H < 1) return IC_ERR_INVALID_ARGUMENT;
    if (W > IC_MAX_DIMENSION || H > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    int32_t longest = W > H ? W : H;
    int32_t c = longest / 64;
    if (o && o->cell) {
        if (o->cell < 8 || o->cell > 512) return IC_ERR_INVALID_ARGUMENT;
        c = o->cell;
    }
    if (o && (o->mode < IC_ENHANCE_COLOR || o->mode > IC_ENHANCE_BW)) return IC_ERR_INVALID_ARGUMENT;
    if (o && (o->bw_offset < 0 || o->bw_offset > 255)) return IC_ERR_INVALID_ARGUMENT;
    /* at least 8, at most IC_ENH_MAX_GRID cells a side, even (whole chroma rows per band) */
    int32_t least = (longest + IC_ENH_MAX_GRID - 1) / IC_ENH_MAX_GRID;
    if (c < least) c = least;
    if (c < 8) c = 8;
    c += c & 1;
    *cell = c;
    *gw = (W + c - 1) / c;
    *gh = (H + c - 1) / c;
    return IC_OK;
}

ic_status ic_enhance_scratch_size(int32_t width, int32_t height, const ic_enhance_options *options,
                                  size_t *bytes) {
    if (!bytes) return IC_ERR_INVALID_ARGUMENT;
    int32_t c, gw, gh;
    ic_status st = plan(width, height, options, &c, &gw, &gh);
    if (st != IC_OK) return st;
    *bytes = 6 * (size_t)gw * (size_t)gh * sizeof(float) + 16;
    return IC_OK;
}

ic_status ic_enhance_page(ic_image *image, const ic_enhance_options *options, void *scratch,
                          size_t scratch_size) {
    if (!image || !scratch) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    const ic_format f = image->format;
    if (f == IC_FORMAT_RGB8) return IC_ERR_UNSUPPORTED;
    if (f != IC_FORMAT_GRAY8 && f != IC_FORMAT_RGBA8 && f != IC_FORMAT_NV12 && f != IC_FORMAT_I420)
        return IC_ERR_INVALID_ARGUMENT;
    enh e;
    memset(&e, 0, sizeof e);
    if ((st = plan(image->width, image->height, options, &e.cell, &e.gw, &e.gh)) != IC_OK) return st;
    size_t need = 0;
    if ((st = ic_enhance_scratch_size(image->width, image->height, options, &need)) != IC_OK) return st;
    if (scratch_size < need) return IC_ERR_BUFFER_TOO_SMALL;
    float *base = (float *)(((uintptr_t)scratch + 15) & ~(uintptr_t)15);
    const size_t n = (size_t)e.gw * e.gh;
    e.p90 = base; e.p2 = base + n; e.bg = base + 2 * n; e.tmp = base + 3 * n; e.inv = base + 4 * n; e.mean = base + 5 * n;
    e.im = *image;
    e.W = image->width;
    e.H = image->height;
    e.mode = options ? options->mode : IC_ENHANCE_COLOR;
    e.offset = options && options->bw_offset ? options->bw_offset : IC_ENH_DEFAULT_OFFSET;
    e.neutral = options ? options->neutral_chroma != 0 : 0;
    e.gray_row = ic_enhance_gray_row_c;
    e.rgba_row = ic_enhance_rgba_color_row_c;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, 2 * ic__image_bytes(image));
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) {
        e.gray_row = ic_enhance_gray_row_avx2;
        e.rgba_row = ic_enhance_rgba_color_row_avx2;
    }
#endif

    if ((st = ic__parallel_for(&set, e.gh, 1, cell_stats, &e)) != IC_OK) return st;
    background(&e);
    if ((st = ic__parallel_for(&set, e.gh, 1, write_band, &e)) != IC_OK) return st;
    if (e.mode == IC_ENHANCE_BW && (st = ic__parallel_for(&set, e.gh, 1, threshold_band, &e)) != IC_OK) return st;
    if (e.mode != IC_ENHANCE_COLOR && e.neutral && (f == IC_FORMAT_NV12 || f == IC_FORMAT_I420)) {
        const uint8_t gray[4] = {128, 128, 128, 128};
        for (int32_t p = 1; p < ic_format_plane_count(f); p++) {
            st = ic__plane_fill(&set, image->planes[p].data, image->planes[p].stride, ic__row_bytes(f, e.W, p),
                                ic__plane_rows(f, e.H, p), gray, f == IC_FORMAT_NV12 ? 2 : 1);
            if (st != IC_OK) return st;
        }
    }
    return IC_OK;
}
