/* Resize: the plan (coefficient tables + per-thread scratch in one block of memory) and the
 * driver.
 *
 * Schedule (Halide's split of algorithm and schedule: the arithmetic lives in the row
 * kernels, the order here). Per plane, the output rows are cut into bands; a team of
 * `lanes` (one per worker slot of the plan) pulls bands from an atomic counter. Each lane
 * owns a ring of R intermediate rows (R = the largest vertical window): for every output
 * row it makes the horizontal rows its window needs that are not in the ring yet (source row
 * -> [premultiply] -> [vertical box sum of ky rows] -> horizontal filter -> ring), then runs
 * the vertical filter over the window straight into the destination row. A lane that takes
 * the next band of the one it just finished keeps its ring; otherwise it refills R rows.
 * There is no full-size intermediate image, and no allocation during a run. */
#include "resize_internal.h"
#include "planar.h"

#include <stdlib.h>
#include <string.h>

enum { PLAN_ALIGN = 64 };
#define MAX_PLAN_BYTES ((uint64_t)1 << 30)

/* ---- layout -------------------------------------------------------------- */

/* A bump allocator over the plan memory; with base == NULL it only measures. */
typedef struct cursor {
    uint8_t *base;
    uint64_t off;
} cursor;

static void *take(cursor *c, uint64_t bytes) {
    c->off = (c->off + PLAN_ALIGN - 1) / PLAN_ALIGN * PLAN_ALIGN;
    void *p = c->base ? c->base + c->off : NULL;
    c->off += bytes;
    return p;
}

static uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }

static ic_status check_params(const ic_resize_params *p) {
    if (!p) return IC_ERR_INVALID_ARGUMENT;
    if (ic_format_plane_count(p->format) == 0) return IC_ERR_UNSUPPORTED;
    if (p->format == IC_FORMAT_RGBA8 && p->alpha != IC_ALPHA_STRAIGHT &&
        p->alpha != IC_ALPHA_PREMULTIPLIED && p->alpha != IC_ALPHA_OPAQUE)
        return IC_ERR_INVALID_ARGUMENT;
    if (p->src_width < 1 || p->src_height < 1 || p->dst_width < 1 || p->dst_height < 1)
        return IC_ERR_INVALID_ARGUMENT;
    if (p->src_width > IC_MAX_DIMENSION || p->src_height > IC_MAX_DIMENSION ||
        p->dst_width > IC_MAX_DIMENSION || p->dst_height > IC_MAX_DIMENSION)
        return IC_ERR_TOO_LARGE;
    if ((unsigned)p->filter > (unsigned)IC_RESIZE_LANCZOS3) return IC_ERR_INVALID_ARGUMENT;
    if (p->flags & ~(uint32_t)(IC_RESIZE_NO_PREREDUCE | IC_RESIZE_LINEAR_LIGHT)) return IC_ERR_INVALID_ARGUMENT;
    /* Linear light needs the sRGB samples themselves: not YUV, not premultiplied colour. */
    if ((p->flags & IC_RESIZE_LINEAR_LIGHT) &&
        (ic_format_plane_count(p->format) != 1 ||
         (p->format == IC_FORMAT_RGBA8 && p->alpha == IC_ALPHA_PREMULTIPLIED)))
        return IC_ERR_UNSUPPORTED;
    if (p->max_threads < 0 || p->max_threads > IC_RS_MAX_THREADS) return IC_ERR_INVALID_ARGUMENT;
    return IC_OK;
}

/* The geometry of plan geometry `gi` (0 = the image / luma, 1 = chroma) before tables. */
typedef struct geom_plan {
    ic_rs_geom g;
    ic_rs_axis_shape hs, vs;
    uint64_t ring_bytes, rows_bytes, s16_bytes, acc_bytes, lin_bytes;
} geom_plan;

static ic_status plan_geom(const ic_resize_params *p, int32_t gi, geom_plan *gp) {
    memset(gp, 0, sizeof *gp);
    ic_rs_geom *g = &gp->g;
    const int32_t sw = p->src_width, sh = p->src_height, dw = p->dst_width, dh = p->dst_height;
    g->mode = IC_RS_DIRECT;
    if (gi == 0) {
        g->in_w = sw; g->in_h = sh; g->out_w = dw; g->out_h = dh;
        switch (p->format) {
        case IC_FORMAT_RGB8: g->ch = 3; break;
        case IC_FORMAT_RGBA8:
            g->ch = 4;
            g->mode = p->alpha == IC_ALPHA_STRAIGHT ? IC_RS_STRAIGHT
                    : p->alpha == IC_ALPHA_PREMULTIPLIED ? IC_RS_PREMUL : IC_RS_DIRECT;
            break;
        default: g->ch = 1; break;
        }
    } else {
        g->in_w = (sw + 1) / 2; g->in_h = (sh + 1) / 2;
        g->out_w = (dw + 1) / 2; g->out_h = (dh + 1) / 2;
        g->ch = p->format == IC_FORMAT_NV12 ? 2 : 1;
    }
    const int reduce = !(p->flags & IC_RESIZE_NO_PREREDUCE);
    g->kx = reduce ? ic__rs_reduce_factor(g->in_w, g->out_w) : 1;
    g->ky = reduce ? ic__rs_reduce_factor(g->in_h, g->out_h) : 1;
    g->red_h = (int32_t)(((int64_t)g->in_h + g->ky - 1) / g->ky);
    g->hfold = g->kx <= IC_RS_FOLD_MAX_K;
    g->linear = (p->flags & IC_RESIZE_LINEAR_LIGHT) != 0;
    g->needs_s16 = g->mode == IC_RS_STRAIGHT || g->linear || g->ky > 1 || !g->hfold;
    /* Horizontal weights padded to the vector step: 8 taps (one channel, UV pairs), 4 (RGB(A)). */
    ic_status st = ic__rs_axis_shape(p->filter, g->in_w, g->out_w, g->kx, g->hfold,
                                     g->ch <= 2 ? 8 : 4, &gp->hs);
    if (st != IC_OK) return st;
    st = ic__rs_axis_shape(p->filter, g->in_h, g->out_h, g->ky, 0, 1, &gp->vs);
    if (st != IC_OK) return st;
    g->ring_stride = (size_t)align64((uint64_t)g->out_w * (uint64_t)g->ch * 2u);
    gp->ring_bytes = (uint64_t)gp->vs.max_count * g->ring_stride;
    gp->rows_bytes = (uint64_t)gp->vs.max_count * sizeof(const int16_t *);
    gp->s16_bytes = g->needs_s16 ? align64((uint64_t)g->in_w * (uint64_t)g->ch * 2u) : 0;
    gp->acc_bytes = g->ky > 1 ? align64((uint64_t)g->in_w * (uint64_t)g->ch * 4u) : 0;
    gp->lin_bytes = g->linear ? align64((uint64_t)g->out_w * (uint64_t)g->ch * 2u) : 0;
    return IC_OK;
}

static int32_t geom_count(ic_format f) {
    return f == IC_FORMAT_I420 || f == IC_FORMAT_NV12 ? 2 : 1;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Checks `params` and resolves max_threads 0 to the thread count `threads` (the caller's
 * one read of the setting: a size measured with one count and a layout written with another
 * overflowed the plan, issue #12). */
static ic_status resolve_params(const ic_resize_params *params, int32_t threads, ic_resize_params *p) {
    ic_status st = check_params(params);
    if (st != IC_OK) return st;
    *p = *params;
    if (p->max_threads == 0)
        p->max_threads = threads < 1 ? 1 : threads > IC_RS_MAX_THREADS ? IC_RS_MAX_THREADS : threads;
    if (p->format != IC_FORMAT_RGBA8) p->alpha = IC_ALPHA_STRAIGHT; /* ignored */
    return IC_OK;
}

/* Lays the plan for resolved parameters out over `c` (measuring when c->base is NULL) and,
 * with memory, builds it. */
static ic_status layout(const ic_resize_params *resolved, cursor *c, ic_resize_plan **out) {
    ic_status st;
    const ic_resize_params p = *resolved;
    const int32_t gc = geom_count(p.format);
    geom_plan gp[2];
    uint64_t ring = 0, rows = 0, s16 = 0, acc = 0, lin = 0, tmp = 0;
    for (int32_t i = 0; i < gc; i++) {
        if ((st = plan_geom(&p, i, &gp[i])) != IC_OK) return st;
        ring = max64(ring, gp[i].ring_bytes);
        rows = max64(rows, gp[i].rows_bytes);
        s16 = max64(s16, gp[i].s16_bytes);
        acc = max64(acc, gp[i].acc_bytes);
        lin = max64(lin, gp[i].lin_bytes);
        tmp = max64(tmp, (uint64_t)gp[i].hs.max_count + 1);
        tmp = max64(tmp, (uint64_t)gp[i].vs.max_count + 1);
    }

    ic_resize_plan *plan = (ic_resize_plan *)take(c, sizeof(ic_resize_plan));
    for (int32_t i = 0; i < gc; i++) {
        ic_rs_geom *g = &gp[i].g;
        const uint64_t ow = (uint64_t)g->out_w, oh = (uint64_t)g->out_h;
        g->h.start = (int32_t *)take(c, ow * 4);
        g->h.count = (int32_t *)take(c, ow * 4);
        g->h.w = (int16_t *)take(c, ow * (uint64_t)gp[i].hs.n * 2);
        g->h4 = g->ch >= 3 ? (int16_t *)take(c, (ow / 2) * (uint64_t)gp[i].hs.n * 16) : NULL;
        g->h2 = g->ch == 2 ? (int16_t *)take(c, (ow / 2) * (uint64_t)gp[i].hs.n * 8) : NULL;
        g->v.start = (int32_t *)take(c, oh * 4);
        g->v.count = (int32_t *)take(c, oh * 4);
        g->v.w = (int16_t *)take(c, oh * (uint64_t)gp[i].vs.n * 2);
        g->v.wp = (int32_t *)take(c, oh * (uint64_t)((gp[i].vs.n + 1) / 2) * 4);
    }
    double *tmpd = (double *)take(c, tmp * sizeof(double));
    const int linear = (p.flags & IC_RESIZE_LINEAR_LIGHT) != 0;
    uint16_t *lin_dec = linear ? (uint16_t *)take(c, 256 * sizeof(uint16_t)) : NULL;
    uint8_t *lin_enc = linear ? (uint8_t *)take(c, IC_RS_LINEAR_ENC) : NULL;
    const uint64_t slot_bytes = align64(sizeof(ic_rs_slot)) + align64(ring) + align64(rows) +
                                align64(s16) + align64(acc) + align64(lin);
    uint8_t *slots = (uint8_t *)take(c, slot_bytes * (uint64_t)p.max_threads);
    if (c->off > MAX_PLAN_BYTES) return IC_ERR_TOO_LARGE;
    if (!c->base) return IC_OK;

    /* Build. */
    memset(plan, 0, sizeof *plan);
    plan->params = p;
    plan->geom_count = gc;
    plan->slots = p.max_threads;
    plan->slot_base = slots;
    plan->slot_bytes = (size_t)slot_bytes;
    if (linear) ic__rs_linear_tables(lin_dec, lin_enc);
    for (int32_t i = 0; i < gc; i++) {
        ic_rs_geom *g = &gp[i].g;
        g->lin_dec = lin_dec;
        g->lin_enc = lin_enc;
        ic__rs_axis_build(p.filter, g->in_w, g->out_w, g->kx, g->hfold, 1, &gp[i].hs, &g->h, tmpd);
        ic__rs_axis_build(p.filter, g->in_h, g->out_h, g->ky, 0, 0, &gp[i].vs, &g->v, tmpd);
        {   /* weight pairs for the vertical pmaddwd (the padding weights are 0) */
            int32_t *wp = g->v.wp;
            const int32_t n = g->v.n, np = (n + 1) / 2;
            for (int32_t y = 0; y < g->out_h; y++)
                for (int32_t j = 0; j < np; j++) {
                    const int16_t *w = g->v.w + (size_t)y * (size_t)n;
                    uint32_t lo = (uint16_t)w[2 * j], hi = 2 * j + 1 < n ? (uint16_t)w[2 * j + 1] : 0;
                    wp[(size_t)y * (size_t)np + (size_t)j] = (int32_t)(lo | hi << 16);
                }
        }
        if (g->h4) {
            /* Outputs in pairs; per pair and tap pair 32 bytes: (w0, w1) x 4 for the even
             * output, then for the odd one: one load feeds pmaddwd for two outputs. */
            const int32_t n = g->h.n, tp = n / 2;
            for (int32_t pr = 0; pr < g->out_w / 2; pr++)
                for (int32_t j = 0; j < tp; j++)
                    for (int32_t lane = 0; lane < 2; lane++) {
                        const int16_t *w = g->h.w + (size_t)(2 * pr + lane) * (size_t)n + 2 * j;
                        int16_t *d = g->h4 + (((size_t)pr * (size_t)tp + (size_t)j) * 2 + (size_t)lane) * 8;
                        for (int32_t r = 0; r < 4; r++) { d[2 * r] = w[0]; d[2 * r + 1] = w[1]; }
                    }
        }
        if (g->h2) {
            /* Outputs in pairs; per pair and group of 4 taps 32 bytes: (w0 w1 w0 w1 w2 w3 w2 w3)
             * for the even output, then the odd one. */
            const int32_t n = g->h.n, groups = n / 4;
            for (int32_t pr = 0; pr < g->out_w / 2; pr++)
                for (int32_t j = 0; j < groups; j++)
                    for (int32_t lane = 0; lane < 2; lane++) {
                        const int16_t *w = g->h.w + (size_t)(2 * pr + lane) * (size_t)n + 4 * j;
                        int16_t *d = g->h2 + (((size_t)pr * (size_t)groups + (size_t)j) * 2 + (size_t)lane) * 8;
                        d[0] = w[0]; d[1] = w[1]; d[2] = w[0]; d[3] = w[1];
                        d[4] = w[2]; d[5] = w[3]; d[6] = w[2]; d[7] = w[3];
                    }
        }
        plan->geom[i] = *g;
    }
    for (int32_t s = 0; s < plan->slots; s++) {
        uint8_t *b = slots + (size_t)s * (size_t)slot_bytes;
        ic_rs_slot *slot = (ic_rs_slot *)(void *)b;
        b += align64(sizeof(ic_rs_slot));
        slot->plane = -1;
        slot->lo = slot->hi = 0;
        slot->ring = b; b += align64(ring);
        slot->rows = (const int16_t **)(void *)b; b += align64(rows);
        slot->s16 = (int16_t *)(void *)b; b += align64(s16);
        slot->acc = (uint32_t *)(void *)b; b += align64(acc);
        slot->lin = linear ? (uint16_t *)(void *)b : NULL;
    }
    *out = plan;
    return IC_OK;
}

/* The thread count for max_threads 0: the call's one read of the setting (none otherwise). */
static int32_t threads_for(const ic_resize_params *params) {
    return params && params->max_threads == 0 ? ic__settings_read().threads : 1;
}

static ic_status measure(const ic_resize_params *resolved, size_t *size) {
    cursor c = {NULL, 0};
    ic_status st = layout(resolved, &c, NULL);
    if (st == IC_OK) *size = (size_t)c.off;
    return st;
}

ic_status ic_resize_plan_size(const ic_resize_params *params, size_t *size) {
    if (!size) return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params p;
    ic_status st = resolve_params(params, threads_for(params), &p);
    return st != IC_OK ? st : measure(&p, size);
}

/* The plan in `memory` (at least `size` bytes), measured and laid out from one resolution of
 * the parameters. */
static ic_status plan_in(void *memory, size_t size, const ic_resize_params *resolved, ic_resize_plan **plan) {
    size_t need;
    ic_status st = measure(resolved, &need);
    if (st != IC_OK) return st;
    if (size < need) return IC_ERR_BUFFER_TOO_SMALL;
    cursor c = {(uint8_t *)memory, 0};
    return layout(resolved, &c, plan);
}

ic_status ic_resize_plan_init(void *memory, size_t size, const ic_resize_params *params,
                              ic_resize_plan **plan) {
    if (!memory || !plan || ((uintptr_t)memory & (PLAN_ALIGN - 1))) return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params p;
    ic_status st = resolve_params(params, threads_for(params), &p);
    return st != IC_OK ? st : plan_in(memory, size, &p, plan);
}

static ic_status plan_create(const ic_resize_params *params, int32_t threads, ic_resize_plan **plan) {
    if (!plan) return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params p;
    ic_status st = resolve_params(params, threads, &p);
    size_t need;
    if (st != IC_OK || (st = measure(&p, &need)) != IC_OK) return st;
    void *memory = NULL;
    if (posix_memalign(&memory, PLAN_ALIGN, need) != 0 || !memory) return IC_ERR_OUT_OF_MEMORY;
    if ((st = plan_in(memory, need, &p, plan)) != IC_OK) { free(memory); return st; }
    (*plan)->owned = 1;
    return IC_OK;
}

ic_status ic_resize_plan_create(const ic_resize_params *params, ic_resize_plan **plan) {
    return plan_create(params, threads_for(params), plan);
}

void ic_resize_plan_destroy(ic_resize_plan *plan) {
    if (plan && plan->owned) free(plan); /* the plan struct is the start of its block */
}

ic_status ic_resize_plan_params(const ic_resize_plan *plan, ic_resize_params *params) {
    if (!plan || !params) return IC_ERR_INVALID_ARGUMENT;
    *params = plan->params;
    return IC_OK;
}

/* ---- kernels chosen once per call ----------------------------------------- */

static void h_u8_c(const uint8_t *src, const ic_rs_geom *g, int16_t *dst, size_t ahead) {
    (void)ahead;
    ic_resize_h_u8_row_c(src, g->ch, &g->h, 0, g->out_w, dst);
}
static void h_s16_c(const int16_t *src, const ic_rs_geom *g, int16_t *dst) {
    ic_resize_h_s16_row_c(src, g->ch, &g->h, 0, g->out_w, dst);
}
static void v_c(const int16_t *const *rows, const int16_t *w, const int32_t *wp, int32_t count,
                int32_t elems, uint8_t *dst) {
    (void)wp;
    ic_resize_v_row_c(rows, w, count, 0, elems, dst);
}
static void v_unpremul_c(const int16_t *const *rows, const int16_t *w, const int32_t *wp,
                         int32_t count, int32_t pixels, uint8_t *dst) {
    (void)wp;
    ic_resize_v_unpremul_row_c(rows, w, count, 0, pixels, dst);
}
static void v_u16_c(const int16_t *const *rows, const int16_t *w, const int32_t *wp, int32_t count,
                    int32_t elems, uint16_t *dst) {
    (void)wp;
    ic_resize_v_u16_row_c(rows, w, count, 0, elems, dst);
}

ic_rs_kernels ic__rs_pick_kernels(const ic_rs_geom *g, uint32_t cpu) {
    ic_rs_kernels k = {h_u8_c, h_s16_c, v_c, v_unpremul_c, ic_resize_premul_row_c,
                       ic_resize_box_add_u8_c, ic_resize_box_add_s16_c, ic_resize_box_finish_c,
                       ic_resize_box_rows_u8_c, v_u16_c};
#if IC_X86
    if (cpu & IC_CPU_AVX2) {
        if (ic_resize_h_avx2_supports(g)) {
            k.h_u8 = ic_resize_h_u8_row_avx2;
            k.h_s16 = ic_resize_h_s16_row_avx2;
        }
        k.v = ic_resize_v_row_avx2;
        k.v_unpremul = ic_resize_v_unpremul_row_avx2;
        k.premul = ic_resize_premul_row_avx2;
        k.box_u8 = ic_resize_box_add_u8_avx2;
        k.box_s16 = ic_resize_box_add_s16_avx2;
        k.box_finish = ic_resize_box_finish_avx2;
        k.box_rows_u8 = ic_resize_box_rows_u8_avx2;
        k.v_u16 = ic_resize_v_u16_row_avx2;
    }
#else
    (void)g;
    (void)cpu;
#endif
    return k;
}

/* ---- the run --------------------------------------------------------------- */

enum { RS_MAX_BANDS = 1024, RS_BANDS_PER_LANE = 8 };

typedef struct run_ctx {
    ic_resize_plan *plan;
    const ic_rs_geom *g;
    int32_t plane;
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t dst_stride;
    int32_t band_rows, bands, lanes;
    ic_rs_kernels k;
    uint8_t claimed[RS_MAX_BANDS]; /* atomic flags: band taken */
} run_ctx;

/* Row r of the vertically pre-reduced image (ky rows; ky may be 1) as full-width P7 in
 * slot->s16: premultiplied for straight alpha, block means when ky > 1. */
static void vertical_p7(const run_ctx *x, ic_rs_slot *slot, int32_t r) {
    const ic_rs_geom *g = x->g;
    const int32_t y0 = r * g->ky;
    const int32_t y1 = y0 + g->ky < g->in_h ? y0 + g->ky : g->in_h;
    const int32_t elems = g->in_w * g->ch, rows = y1 - y0;
    const int p7 = ic__rs_p7_source(g);
    if (p7 && rows == 1) {
        ic__rs_to_p7(g, &x->k, x->src + (size_t)y0 * x->src_stride, slot->s16);
        return;
    }
    if (!p7 && rows <= IC_RS_BOX16_MAX_ROWS) {
        /* u8 source, few rows: sums fit 16 bits; one fused pass, mean = sum * 2^24/rows >> 17
         * (for one row: the value << 7) */
        const uint32_t m = (uint32_t)((((uint64_t)1 << 24) + (uint64_t)rows / 2) / (uint64_t)rows);
        x->k.box_rows_u8(x->src + (size_t)y0 * x->src_stride, x->src_stride, rows, elems, m, slot->s16);
        return;
    }
    for (int32_t y = y0; y < y1; y++) {
        const uint8_t *s = x->src + (size_t)y * x->src_stride;
        if (p7) {
            ic__rs_to_p7(g, &x->k, s, slot->s16);
            x->k.box_s16(slot->s16, elems, y == y0, slot->acc);
        } else {
            x->k.box_u8(s, elems, y == y0, slot->acc);
        }
    }
    /* General case (P7 sums, or more than 257 rows): 32-bit sums, then
     * mean = sum / rows via a 32-bit reciprocal (exact for rows == 1 with 2^32 - 1);
     * u8 sums gain 7 fractional bits (shift 25), P7 sums keep theirs (shift 32). */
    const uint32_t mult = rows == 1 ? 0xFFFFFFFFu
                                    : (uint32_t)((((uint64_t)1 << 32) + (uint64_t)rows / 2) / (uint64_t)rows);
    x->k.box_finish(slot->acc, elems, mult, p7 ? 32 : 25, slot->s16);
}

/* ---- row steps shared with the streaming driver (resize_stream.c) ---------------- */

void ic__rs_h_from_u8(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *row, size_t ahead,
                      int16_t *s16, int16_t *out) {
    if (!g->hfold) {
        /* Large horizontal factor: a P7 row of block means, then filter the reduced row. */
        ic_resize_hbox_u8_c(row, g->in_w, g->ch, g->kx, s16);
        k->h_s16(s16, g, out);
        return;
    }
    k->h_u8(row, g, out, ahead);
}

void ic__rs_to_p7(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *row, int16_t *s16) {
    if (g->linear)
        ic_resize_linear_row_c(row, g->in_w, g->ch, g->mode == IC_RS_STRAIGHT, g->lin_dec, s16);
    else
        k->premul(row, g->in_w, s16);
}

void ic__rs_h_from_p7(const ic_rs_geom *g, const ic_rs_kernels *k, int16_t *s16, int16_t *out) {
    if (!g->hfold) ic_resize_hbox_s16_c(s16, g->in_w, g->ch, g->kx, s16);
    k->h_s16(s16, g, out);
}

void ic__rs_v_out_row(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *ring,
                      const int16_t **rows, uint16_t *lin, int32_t y, uint8_t *d) {
    const int32_t R = g->v.max_count, s = g->v.start[y], count = g->v.count[y];
    for (int32_t t = 0; t < count; t++)
        rows[t] = (const int16_t *)(const void *)(ring + (size_t)((s + t) % R) * g->ring_stride);
    const int16_t *w = g->v.w + (size_t)y * (size_t)g->v.n;
    const int32_t *wp = g->v.wp + (size_t)y * (size_t)((g->v.n + 1) / 2);
    if (g->linear) {
        if (g->mode == IC_RS_STRAIGHT) {
            ic_resize_v_unpremul_linear_row_c(rows, w, count, 0, g->out_w, g->lin_enc, d);
        } else {
            k->v_u16(rows, w, wp, count, g->out_w * g->ch, lin);
            ic_resize_linear_encode_row_c(lin, g->out_w, g->ch, g->lin_enc, d);
        }
    } else if (g->mode == IC_RS_STRAIGHT) {
        k->v_unpremul(rows, w, wp, count, g->out_w, d);
    } else {
        k->v(rows, w, wp, count, g->out_w * g->ch, d);
        if (g->mode == IC_RS_PREMUL) ic_resize_clamp_alpha_row_c(d, 0, g->out_w);
    }
}

/* Intermediate (horizontally filtered) row r of the pre-reduced image into `out`. */
static void produce_row(const run_ctx *x, ic_rs_slot *slot, int32_t r, int16_t *out) {
    const ic_rs_geom *g = x->g;
    if (g->ky == 1 && !ic__rs_p7_source(g)) {
        /* Prefetch the next row while filtering this one: the band reads rows in order. */
        ic__rs_h_from_u8(g, &x->k, x->src + (size_t)r * x->src_stride,
                         r + 1 < g->in_h ? x->src_stride : 0, slot->s16, out);
        return;
    }
    vertical_p7(x, slot, r);
    ic__rs_h_from_p7(g, &x->k, slot->s16, out);
}

static void run_band(const run_ctx *x, ic_rs_slot *slot, int32_t band) {
    const ic_rs_geom *g = x->g;
    const int32_t R = g->v.max_count;
    const int32_t y0 = band * x->band_rows;
    const int32_t y1 = y0 + x->band_rows < g->out_h ? y0 + x->band_rows : g->out_h;
    for (int32_t y = y0; y < y1; y++) {
        const int32_t s = g->v.start[y], count = g->v.count[y], e = s + count;
        if (slot->plane != x->plane || s < slot->lo || s > slot->hi) {
            slot->plane = x->plane;
            slot->lo = slot->hi = s;
        }
        for (int32_t r = slot->hi; r < e; r++)
            produce_row(x, slot, r, (int16_t *)(void *)(slot->ring + (size_t)(r % R) * g->ring_stride));
        if (e > slot->hi) slot->hi = e;
        if (slot->lo < slot->hi - R) slot->lo = slot->hi - R;
        ic__rs_v_out_row(g, &x->k, slot->ring, slot->rows, slot->lin, y, x->dst + (size_t)y * x->dst_stride);
    }
}

static int claim(run_ctx *x, int32_t b) {
    return __atomic_exchange_n(&x->claimed[b], (uint8_t)1, __ATOMIC_RELAXED) == 0;
}

/* Lane L owns the bands [L*B/lanes, (L+1)*B/lanes) and runs them in order, so its ring
 * carries over from one band to the next; a lane done with its own region takes the other
 * regions' bands from their far end, one at a time (so a core that the shared machine slows
 * down is helped). Owner and thieves meet where the first already-claimed band is found.
 * The slot is the chunk's first index: chunks are disjoint and a chunk's indices run on one
 * thread, so the slot (and its ring) is this thread's alone. */
static void run_lane(void *ctx, int64_t begin, int64_t end) {
    run_ctx *x = (run_ctx *)ctx;
    ic_rs_slot *slot = (ic_rs_slot *)(void *)(x->plan->slot_base + (size_t)begin * x->plan->slot_bytes);
    const int32_t L = x->lanes, B = x->bands;
    for (int64_t lane = begin; lane < end; lane++) { /* > 1 lane per chunk only when serial */
        for (int32_t b = (int32_t)(lane * B / L); b < (int32_t)((lane + 1) * B / L); b++) {
            if (!claim(x, b)) break;
            run_band(x, slot, b);
        }
    }
    for (int32_t k = 1; k <= L; k++) {
        const int64_t other = (begin + k) % L;
        for (int32_t b = (int32_t)((other + 1) * B / L) - 1; b >= (int32_t)(other * B / L); b--) {
            if (!claim(x, b)) break;
            run_band(x, slot, b);
        }
    }
}

static ic_status execute(ic_resize_plan *plan, const ic_image *src, ic_image *dst, const ic__settings *set) {
    if (!plan) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    const ic_resize_params *p = &plan->params;
    if (src->format != p->format || dst->format != p->format || src->width != p->src_width ||
        src->height != p->src_height || dst->width != p->dst_width ||
        dst->height != p->dst_height)
        return IC_ERR_INVALID_ARGUMENT;
    if (p->format == IC_FORMAT_RGBA8 && src->alpha != p->alpha) return IC_ERR_INVALID_ARGUMENT;
    if (ic__images_overlap(src, dst)) return IC_ERR_INVALID_ARGUMENT;
    if (__atomic_exchange_n(&plan->busy, 1, __ATOMIC_ACQUIRE)) return IC_ERR_INVALID_ARGUMENT;

    const int32_t threads = set->threads;
    const int32_t lanes = threads < plan->slots ? (threads < 1 ? 1 : threads) : plan->slots;
    for (int32_t s = 0; s < plan->slots; s++)
        ((ic_rs_slot *)(void *)(plan->slot_base + (size_t)s * plan->slot_bytes))->plane = -1;

    for (int32_t plane = 0; plane < ic_format_plane_count(p->format) && st == IC_OK; plane++) {
        run_ctx x;
        memset(&x, 0, sizeof x);
        x.plan = plan;
        x.g = &plan->geom[plane == 0 ? 0 : 1];
        x.plane = plane;
        x.src = src->planes[plane].data;
        x.src_stride = src->planes[plane].stride;
        x.dst = dst->planes[plane].data;
        x.dst_stride = dst->planes[plane].stride;
        x.k = ic__rs_pick_kernels(x.g, set->cpu);
        /* One band for one lane; else RS_BANDS_PER_LANE per lane, so stealing can even out
         * the lanes (a ring refill happens only where a lane's walk is not contiguous). */
        const int32_t oh = x.g->out_h;
        int32_t bands = lanes == 1 ? 1 : lanes * RS_BANDS_PER_LANE;
        if (bands > RS_MAX_BANDS) bands = RS_MAX_BANDS;
        if (bands > oh) bands = oh;
        x.band_rows = (oh + bands - 1) / bands;
        x.bands = (oh + x.band_rows - 1) / x.band_rows;
        x.lanes = lanes < x.bands ? lanes : x.bands;
        memset(x.claimed, 0, sizeof x.claimed);
        st = ic__parallel_for(set, x.lanes, 1, run_lane, &x);
    }
    __atomic_store_n(&plan->busy, 0, __ATOMIC_RELEASE);
    return st;
}

ic_status ic_resize_plan_execute(ic_resize_plan *plan, const ic_image *src, ic_image *dst) {
    ic__settings set = ic__settings_read();
    if (src && dst && ic_image_validate(src) == IC_OK && ic_image_validate(dst) == IC_OK)
        ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    return execute(plan, src, dst, &set);
}

ic_status ic_resize(const ic_image *src, ic_image *dst, ic_resize_filter filter) {
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    if (src->format != dst->format) return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params p;
    memset(&p, 0, sizeof p);
    p.format = src->format;
    p.alpha = src->alpha;
    p.src_width = src->width;
    p.src_height = src->height;
    p.dst_width = dst->width;
    p.dst_height = dst->height;
    p.filter = filter;
    p.flags = IC_RESIZE_DEFAULT;
    p.max_threads = 0;
    ic__settings set = ic__settings_read(); /* one snapshot for the plan and the run */
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    ic_resize_plan *plan = NULL;
    if ((st = plan_create(&p, set.threads, &plan)) != IC_OK) return st;
    st = execute(plan, src, dst, &set);
    ic_resize_plan_destroy(plan);
    return st;
}
