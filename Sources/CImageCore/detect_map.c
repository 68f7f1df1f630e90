/* The learned boundary map: the working image (an integer box reduction to Y, Cb, Cr bytes)
 * and the network of scripts/detector/model.py over it in bytes (scripts/detector/quantize.py),
 * layer by layer and row by row, with the row kernels of detect_map_rows.c (scalar
 * reference), detect_map_avx2.c or detect_map_avx512.c (the convolutions). All memory
 * is the caller's scratch. The arithmetic of the reduction is that of
 * scripts/detector/workgeom.py, which made the training inputs: keep the two in step. */
#include "detect_map_internal.h"

#include <math.h>
#include <string.h>

void ic__dm_geometry(int32_t width, int32_t height, int32_t work, ic_dm_geometry *g) {
    int32_t longest = width > height ? width : height;
    /* the box that brings the long side nearest to `work` (rounded; below 1.5 x work, 1) */
    int32_t k = (int32_t)(((int64_t)2 * longest + work) / (2 * (int64_t)work));
    if (k < 1) k = 1;
    g->k = k;
    g->w = width / k > 0 ? width / k : 1;
    g->h = height / k > 0 ? height / k : 1;
    g->mw = (g->w + 1) / 2;
    g->mh = (g->h + 1) / 2;
}

/* ---- scratch layout ------------------------------------------------------------------------ */

typedef struct layout {
    uint32_t *sums;           /* 4 * src_width + 8 column sums */
    uint16_t *part;           /* as many 16-bit partial sums (at most 257 rows of bytes) */
    uint16_t *box[2];         /* as many: two working sizes' box column sums (reduce_two) */
    ic_dm_bytes in, a, s1, qa, qb, ea, eb;
    ic_dm_floats f7, f9, logits; /* L7's and L9's outputs before their additions, L11's */
    size_t bytes;
} layout;

static size_t take(uint8_t *base, size_t *off, size_t bytes, void **out) {
    size_t at = (*off + 63) & ~(size_t)63;
    *out = base ? base + at : NULL;
    *off = at + bytes;
    return at;
}

/* ch channels (a multiple of 4) of bytes inside a border */
static void tensor(uint8_t *base, size_t *off, int32_t w, int32_t h, int32_t ch, ic_dm_bytes *t) {
    const int32_t B = IC_DM_BORDER;
    t->w = w;
    t->h = h;
    t->groups = ch / 4;
    t->stride = w + 2 * B;
    t->plane = t->stride * (h + 2 * B);
    void *p;
    take(base, off, (size_t)t->plane * (size_t)t->groups * sizeof(uint32_t), &p);
    t->data = p ? (uint32_t *)p + B * t->stride + B : NULL;
}

static void floats(uint8_t *base, size_t *off, int32_t w, int32_t h, int32_t ch, ic_dm_floats *t) {
    t->w = w;
    t->h = h;
    t->ch = ch;
    t->stride = w;
    t->plane = (ptrdiff_t)w * h;
    void *p;
    take(base, off, (size_t)t->plane * (size_t)ch * sizeof(float), &p);
    t->data = p;
}

static void lay_out(const ic_dm_geometry *g, int32_t src_width, uint8_t *base, layout *L) {
    size_t off = 0;
    void *p;
    take(base, &off, (4 * (size_t)src_width + 8) * sizeof(uint32_t), &p);
    L->sums = p;
    take(base, &off, (4 * (size_t)src_width + 8) * sizeof(uint16_t), &p);
    L->part = p;
    for (int i = 0; i < 2; i++) {
        take(base, &off, (4 * (size_t)src_width + 8) * sizeof(uint16_t), &p);
        L->box[i] = p;
    }
    const int32_t qw = (g->mw + 1) / 2, qh = (g->mh + 1) / 2, ew = (qw + 1) / 2, eh = (qh + 1) / 2;
    tensor(base, &off, g->w, g->h, 4, &L->in);
    tensor(base, &off, g->mw, g->mh, IC_DM_C0, &L->a);
    tensor(base, &off, g->mw, g->mh, IC_DM_C0, &L->s1);
    tensor(base, &off, qw, qh, IC_DM_C1, &L->qa);
    tensor(base, &off, qw, qh, IC_DM_C1, &L->qb);
    tensor(base, &off, ew, eh, IC_DM_C2, &L->ea);
    tensor(base, &off, ew, eh, IC_DM_C2, &L->eb);
    floats(base, &off, ew, eh, IC_DM_C1, &L->f7);
    floats(base, &off, qw, qh, IC_DM_C0, &L->f9);
    floats(base, &off, g->mw, g->mh, IC_DM_OUT, &L->logits);
    L->bytes = off;
}

size_t ic__dm_scratch(const ic_dm_geometry *g, int32_t src_width) {
    layout L;
    lay_out(g, src_width, NULL, &L);
    return L.bytes;
}

/* ---- the working image --------------------------------------------------------------------- */

typedef void (*column_sums_fn)(const uint8_t *, size_t, int32_t, uint16_t *, size_t);
typedef void (*box_sums4_fn)(const uint16_t *, int32_t, int32_t, uint32_t *);
typedef void (*column_sums2_fn)(const uint8_t *, size_t, int32_t, uint16_t *const[2], const int[2], const size_t[2]);

/* Box sums of rows [r0, r1) of a plane, `n` bytes a row, as 16-bit sums of up to 257 rows
 * (257 * 255 < 2^16). A box of at most 257 rows (every box of the default working size:
 * k <= 228 for a side <= 65535) stays in `part`: returned, `sums` untouched. A taller one is
 * folded into `sums` (32 bits) and NULL returned. */
static const uint16_t *box_rows(const ic_plane *pl, int32_t r0, int32_t r1, size_t n, uint32_t *sums, uint16_t *part,
                                column_sums_fn cols) {
    if (r1 - r0 <= 257) {
        cols(pl->data + (size_t)r0 * pl->stride, pl->stride, r1 - r0, part, n);
        return part;
    }
    memset(sums, 0, n * sizeof *sums);
    for (int32_t y = r0; y < r1; y += 257) {
        cols(pl->data + (size_t)y * pl->stride, pl->stride, r1 - y > 257 ? 257 : r1 - y, part, n);
        for (size_t i = 0; i < n; i++) sums[i] += part[i];
    }
    return NULL;
}

/* Sums of `n` (1 to 3) interleaved channels of box_rows' sums over the elements [c, e), `step`
 * apart: the 16-bit sums if it returned them (p16), else the 32-bit ones (the test outside
 * the loops; n is a constant where it is inlined). */
static inline void box_sum(const uint16_t *p16, const uint32_t *p32, size_t c, size_t e, size_t step, int n,
                           uint32_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    if (p16)
        for (size_t x = c; x < e; x += step)
            for (int j = 0; j < n; j++) out[j] += p16[x + j];
    else
        for (size_t x = c; x < e; x += step)
            for (int j = 0; j < n; j++) out[j] += p32[x + j];
}

/* floor(x / n) by a multiply and a shift (three hardware divides per working pixel were an
 * eighth of the pass over the box sums, by perf samples): m = ceil(2^s / n) with s = 28 + ceil(log2 n). Exact
 * for x < 2^28 (Granlund and Montgomery: with e = m n - 2^s < n, x n < 2^s suffices), and
 * x n < 2^s because n <= 2^(s - 28); every box sum here is below 255 n + n < 2^28 since
 * n = k^2 <= 2^20 (k <= 65535 / 64). */
typedef struct divider {
    uint64_t m;
    uint32_t s;
} divider;

static divider divider_of(uint32_t n) {
    uint32_t l = 0;
    while (((uint64_t)1 << l) < n) l++;
    divider d = {((((uint64_t)1 << (28 + l)) + n - 1) / n), 28 + l};
    return d;
}

static inline int32_t divide(uint32_t x, divider d) { return (int32_t)(((uint64_t)x * d.m) >> d.s); }
_Static_assert(IC_MAX_DIMENSION <= 65535, "divide(): k <= 1024 needs sides <= 65535 at working size >= 64");

/* A working pixel's word: Y, Cb, Cr and 128 (the fourth channel, of weight 0) */
static uint32_t ycc(int32_t r, int32_t g, int32_t b) {
    int32_t y = (77 * r + 150 * g + 29 * b + 128) >> 8;
    int32_t cb = ((-43 * r - 85 * g + 128 * b + 128) >> 8) + 128;
    int32_t cr = ((128 * r - 107 * g - 21 * b + 128) >> 8) + 128;
    cb = cb < 0 ? 0 : cb > 255 ? 255 : cb;
    cr = cr < 0 ? 0 : cr > 255 ? 255 : cr;
    return (uint32_t)y | (uint32_t)cb << 8 | (uint32_t)cr << 16 | (uint32_t)128 << 24;
}

static inline int interleaved(const ic_image *src) {
    return src->format == IC_FORMAT_RGB8 || src->format == IC_FORMAT_RGBA8 || src->format == IC_FORMAT_GRAY8;
}

static inline int32_t channels_of(const ic_image *src) {
    return src->format == IC_FORMAT_RGBA8 ? 4 : src->format == IC_FORMAT_RGB8 ? 3 : 1;
}

/* A working row `o` (geometry g) of an interleaved source of ch channels from its box's column
 * sums: 16-bit ones in p16, or (p16 NULL) 32-bit ones in s; s is overwritten either way. */
static void convert_row(int32_t ch, const ic_dm_geometry *g, divider dn, uint32_t *o, const uint16_t *p16, uint32_t *s,
                        box_sums4_fn box4) {
    const int32_t k = g->k, w = g->w;
    const uint32_t half = (uint32_t)k * (uint32_t)k / 2;
    if (p16 && ch == 4) {
        /* RGBA (the decoders' usual output): the box sums by a row kernel, into the 32-bit
         * sums (unused when the 16-bit ones are given; room for w k ch) */
        box4(p16, k, w, s);
        for (int32_t i = 0; i < w; i++)
            o[i] = ycc(divide(s[4 * i] + half, dn), divide(s[4 * i + 1] + half, dn), divide(s[4 * i + 2] + half, dn));
        return;
    }
    for (int32_t i = 0; i < w; i++) {
        const size_t c = (size_t)i * k * ch, e = c + (size_t)k * ch;
        uint32_t sum[3];
        if (ch == 1) {
            box_sum(p16, s, c, e, 1, 1, sum);
            o[i] = (uint32_t)divide(sum[0] + half, dn) | (uint32_t)0x808080 << 8; /* neutral chroma */
            continue;
        }
        box_sum(p16, s, c, e, (size_t)ch, 3, sum);
        o[i] = ycc(divide(sum[0] + half, dn), divide(sum[1] + half, dn), divide(sum[2] + half, dn));
    }
}

/* Row j of the working image t (geometry g; dn divides by its box's k * k pixels) from the
 * source: the box sums of its k source rows (box_rows), then Y, Cb, Cr. */
static void reduce_row(const ic_image *src, const ic_dm_geometry *g, divider dn, const ic_dm_bytes *t, const layout *L,
                       int32_t j, column_sums_fn cols, box_sums4_fn box4) {
    const int32_t k = g->k, w = g->w;
    const uint32_t half = (uint32_t)k * (uint32_t)k / 2;
    uint32_t *s = L->sums;
    uint32_t *o = t->data + (ptrdiff_t)j * t->stride;
    if (interleaved(src)) {
        const int32_t ch = channels_of(src);
        convert_row(ch, g, dn, o, box_rows(&src->planes[0], j * k, j * k + k, (size_t)w * k * ch, s, L->part, cols), s,
                    box4);
        return;
    }
    /* I420 / NV12: Y over its k x k box; chroma over the chroma samples whose rows and
     * columns [floor(i k / 2), floor((i + 1) k / 2)) cover the box (at least one). */
    const int nv12 = src->format == IC_FORMAT_NV12;
    const int32_t cw = (src->width + 1) / 2, chh = (src->height + 1) / 2;
    uint32_t *cs = s + (size_t)w * k; /* chroma sums after the luma sums */
    const uint16_t *p16 = box_rows(&src->planes[0], j * k, j * k + k, (size_t)w * k, s, L->part, cols);
    int32_t c0 = j * k / 2, c1 = (j * k + k) / 2;
    if (c1 <= c0) c1 = c0 + 1;
    if (c1 > chh) c1 = chh;
    for (int32_t i = 0; i < w; i++) {
        uint32_t sum[3];
        box_sum(p16, s, (size_t)i * k, (size_t)i * k + k, 1, 1, sum);
        o[i] = (uint32_t)divide(sum[0] + half, dn) | (uint32_t)128 << 24; /* the chroma bytes below */
    }
    for (int32_t p = 0; p < (nv12 ? 1 : 2); p++) {
        const uint16_t *c16 = box_rows(&src->planes[1 + p], c0, c1, (size_t)cw * (nv12 ? 2 : 1), cs, L->part, cols);
        for (int32_t i = 0; i < w; i++) {
            int32_t x0 = i * k / 2, x1 = (i * k + k) / 2;
            if (x1 <= x0) x1 = x0 + 1;
            if (x1 > cw) x1 = cw;
            uint32_t cnt = (uint32_t)((x1 - x0) * (c1 - c0));
            uint32_t sum[3];
            if (nv12) box_sum(c16, cs, 2 * (size_t)x0, 2 * (size_t)x1, 2, 2, sum); /* Cb, Cr interleaved */
            else box_sum(c16, cs, (size_t)x0, (size_t)x1, 1, 1, sum);
            for (int32_t q = 0; q < (nv12 ? 2 : 1); q++)
                o[i] |= ((sum[q] + cnt / 2) / cnt) << (8 * (1 + p + q));
        }
    }
}

/* Both working images of an interleaved source whose boxes are at most 257 rows (16-bit
 * column sums), each source row read once: the rows cut into bands at both geometries' box
 * boundaries, each band's column sums computed once and written into (a box's first band) or
 * added to each geometry's box sums (L->box; exact in 16 bits for at most 257 rows of bytes),
 * a working row converted when its box is complete. The same sums as box_rows' per box, so
 * the same working images, bit for bit. */
static void reduce_two(const ic_image *src, const ic_dm_geometry *g, const ic_dm_bytes *t, const ic_dm_geometry *g2,
                       const ic_dm_bytes *t2, const layout *L, column_sums2_fn cols2, box_sums4_fn box4) {
    const int32_t ch = channels_of(src);
    const ic_dm_geometry *G[2] = {g, g2};
    const ic_dm_bytes *T[2] = {t, t2};
    uint16_t *const out[2] = {L->box[0], L->box[1]};
    divider dn[2];
    int32_t j[2] = {0, 0};
    for (int i = 0; i < 2; i++) dn[i] = divider_of((uint32_t)G[i]->k * (uint32_t)G[i]->k);
    const ic_plane *pl = &src->planes[0];
    for (int32_t r = 0;;) {
        int32_t b = INT32_MAX;
        int add[2];
        size_t n[2];
        for (int i = 0; i < 2; i++) {
            const int on = j[i] < G[i]->h;
            n[i] = on ? (size_t)G[i]->w * G[i]->k * ch : 0; /* the columns its boxes use */
            add[i] = on && r > j[i] * G[i]->k;
            if (on && (j[i] + 1) * G[i]->k < b) b = (j[i] + 1) * G[i]->k;
        }
        if (b == INT32_MAX) break;
        cols2(pl->data + (size_t)r * pl->stride, pl->stride, b - r, out, add, n);
        for (int i = 0; i < 2; i++)
            if (n[i] && b == (j[i] + 1) * G[i]->k) {
                convert_row(ch, G[i], dn[i], T[i]->data + (ptrdiff_t)j[i] * T[i]->stride, out[i], L->sums, box4);
                j[i]++;
            }
        r = b;
    }
}

/* The working image L->in, and with g2 the second working size's t2 too, in one pass down the
 * source: for an interleaved one with boxes of at most 257 rows, reduce_two (each row read
 * once); otherwise each of t2's rows right after the row of L->in whose source rows reach as
 * far, so its source rows are read again from the cache, not from memory (a 12 MP photo is
 * 48 MB of RGBA, and reading it is most of a reduction). */
static void reduce(const ic_image *src, const ic_dm_geometry *g, const layout *L, const ic_dm_geometry *g2,
                   const ic_dm_bytes *t2, column_sums_fn cols, column_sums2_fn cols2, box_sums4_fn box4) {
    if (g2 && interleaved(src) && g->k <= 257 && g2->k <= 257) {
        reduce_two(src, g, &L->in, g2, t2, L, cols2, box4);
        return;
    }
    const divider dn = divider_of((uint32_t)g->k * (uint32_t)g->k);
    const divider dn2 = g2 ? divider_of((uint32_t)g2->k * (uint32_t)g2->k) : dn;
    int32_t j2 = 0;
    for (int32_t j = 0; j < g->h; j++) {
        reduce_row(src, g, dn, &L->in, L, j, cols, box4);
        for (; g2 && j2 < g2->h && (int64_t)(j2 + 1) * g2->k <= (int64_t)(j + 1) * g->k; j2++)
            reduce_row(src, g2, dn2, t2, L, j2, cols, box4);
    }
    for (; g2 && j2 < g2->h; j2++) reduce_row(src, g2, dn2, t2, L, j2, cols, box4);
}

/* ---- the network ---------------------------------------------------------------------------- */

typedef void (*conv_fn)(const ic_dm_conv *, const ic_dm_bytes *, const ic_dm_bytes *, const ic_dm_floats *, int32_t);

/* Layer `layer` from `in` to bytes `out` or, out NULL, floats `fout`. */
static void conv(conv_fn fn, int32_t layer, const ic_dm_bytes *in, const ic_dm_bytes *out, const ic_dm_floats *fout) {
    const ic_dm_conv *L = &ic__dm_layers[layer];
    const int32_t h = out ? out->h : fout->h;
    for (int32_t y = 0; y < h; y++) fn(L, in, out, fout, y);
}

typedef void (*add_fn)(const float *, ptrdiff_t, const float *, uint32_t *, int32_t);

/* skip = the addition of the nearest-neighbour x2 of low to skip, group by group (model.up_to). */
static void add(add_fn fn, const ic_dm_floats *low, const float *a, const ic_dm_bytes *skip) {
    for (int32_t g = 0; g < skip->groups; g++)
        for (int32_t y = 0; y < skip->h; y++)
            fn(low->data + 4 * g * low->plane + (ptrdiff_t)(y / 2) * low->stride, low->plane, a + 4 * g,
               skip->data + g * skip->plane + (ptrdiff_t)y * skip->stride, skip->w);
}

/* Sets the IC_DM_BORDER rows and columns around each of t's planes to `fill`. */
static void fill_border(const ic_dm_bytes *t, uint32_t fill) {
    const int32_t B = IC_DM_BORDER;
    for (int32_t g = 0; g < t->groups; g++) {
        uint32_t *p = t->data + g * t->plane - B * t->stride - B; /* the plane's first word */
        for (ptrdiff_t i = 0; i < B * t->stride + B; i++) p[i] = fill; /* the rows above, row 0's left border */
        for (int32_t y = 0; y < t->h; y++) { /* row y's right border and row y + 1's left one */
            uint32_t *q = p + (size_t)(B + y) * t->stride + B + t->w;
            for (int32_t i = 0; i < 2 * B; i++) q[i] = fill;
        }
        uint32_t *q = p + (size_t)(B + t->h) * t->stride; /* the rows below */
        for (ptrdiff_t i = 0; i < B * t->stride; i++) q[i] = fill;
    }
}

/* The border of the working image: 128 in every byte, which the first layer's weights and
 * bias read as the float network's 0 (quantize.py). */
#define IC_DM_INPUT_BORDER 0x80808080u

/* The tensor of a working image of geometry g at `base` (standalone: ic__dm_input_bytes). */
static ic_dm_bytes input_at(const ic_dm_geometry *g, uint8_t *base) {
    size_t off = 0;
    ic_dm_bytes t;
    tensor(base, &off, g->w, g->h, 4, &t);
    return t;
}

size_t ic__dm_input_bytes(const ic_dm_geometry *g) {
    size_t off = 0;
    ic_dm_bytes t;
    tensor(NULL, &off, g->w, g->h, 4, &t);
    return off;
}

void ic__dm_run(const ic_image *image, const ic_dm_geometry *g, uint32_t cpu, uint8_t *scratch, float *map,
                float *inside, size_t map_stride, const ic_dm_geometry *g2, uint8_t *input2, int reduced) {
    layout L;
    lay_out(g, image->width, scratch, &L);
    if (reduced) L.in = input_at(g, input2); /* an earlier run's second working image */
    /* every tensor's border must read as 0 (the working image's as 128); the interiors are
     * overwritten before they are read (zeroing all of them, 4 MB at 12 MP in floats, was a
     * twentieth of the detection's instructions) */
    const ic_dm_bytes *ts[] = {&L.a, &L.s1, &L.qa, &L.qb, &L.ea, &L.eb};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) fill_border(ts[i], 0);
    fill_border(&L.in, IC_DM_INPUT_BORDER);
    conv_fn fn = ic__dm_conv_row_c;
    column_sums_fn cols = ic__dm_column_sums_c;
    column_sums2_fn cols2 = ic__dm_column_sums2_c;
    box_sums4_fn box4 = ic__dm_box_sums4_c;
    add_fn up = ic__dm_add_row_c;
#if IC_X86
    if (cpu & IC_CPU_AVX2) {
        /* AVX-512 for the convolutions alone: the reduction is bound by reading the image */
        const uint32_t vnni = IC_CPU_AVX512 | IC_CPU_AVX512VNNI;
        fn = (cpu & vnni) == vnni ? ic__dm_conv_row_avx512 : ic__dm_conv_row_avx2;
        cols = ic__dm_column_sums_avx2;
        cols2 = ic__dm_column_sums2_avx2;
        box4 = ic__dm_box_sums4_avx2;
        up = ic__dm_add_row_avx2;
    }
#endif
    if (!reduced) {
        ic_dm_bytes t2;
        if (g2) {
            t2 = input_at(g2, input2);
            fill_border(&t2, IC_DM_INPUT_BORDER);
        }
        reduce(image, g, &L, g2, g2 ? &t2 : NULL, cols, cols2, box4);
    }
    conv(fn, 0, &L.in, &L.a, NULL);
    conv(fn, 1, &L.a, &L.s1, NULL);
    conv(fn, 2, &L.s1, &L.qa, NULL);
    conv(fn, 3, &L.qa, &L.qb, NULL);
    conv(fn, 4, &L.qb, &L.ea, NULL);
    conv(fn, 5, &L.ea, &L.eb, NULL);
    conv(fn, 6, &L.eb, &L.ea, NULL);
    conv(fn, 7, &L.ea, NULL, &L.f7);
    add(up, &L.f7, ic__dm_add7, &L.qb);
    conv(fn, 8, &L.qb, &L.qa, NULL);
    conv(fn, 9, &L.qa, NULL, &L.f9);
    add(up, &L.f9, ic__dm_add9, &L.s1);
    conv(fn, 10, &L.s1, &L.a, NULL);
    conv(fn, 11, &L.a, NULL, &L.logits);
    float *outs[IC_DM_OUT] = {map, inside};
    for (int32_t c = 0; c < IC_DM_OUT; c++) {
        if (!outs[c]) continue;
        for (int32_t y = 0; y < g->mh; y++) {
            const float *z = L.logits.data + c * L.logits.plane + (ptrdiff_t)y * L.logits.stride;
            float *o = outs[c] + (size_t)y * map_stride;
            for (int32_t x = 0; x < g->mw; x++) o[x] = 1.0f / (1.0f + expf(-z[x]));
        }
    }
}
