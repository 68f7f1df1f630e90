/* Private declarations shared by the resize files. Not installed.
 *
 *   resize_coeffs.c   filters, coefficient tables (14-bit, cumulative rounding)
 *   resize.c          plan layout and the driver (bands, rings of intermediate rows)
 *   resize_rows.c     row kernels, scalar reference: horizontal (+ row producers), vertical
 *   resize_avx2.c     AVX2 kernels: horizontal (RGBA, RGB, UV, one channel), vertical
 *   resize_stream.c   the row-push driver (ic_resize_stream_*): same tables, kernels, ring
 *
 * Number formats on the way through (all integers, so every path gives the same bits):
 *   source     u8, or "P7": int16 with 7 fractional bits (premultiplied colour, box means,
 *              linear light)
 *   weights    int16 with 14 fractional bits; each output's weights sum to exactly 16384
 *   H output   int16 with 6 fractional bits ("I6"), rounded, saturated (never reached for
 *              these filters: the largest positive weight sum is < 1.3, so |I6| < 21300)
 *   V output   u8: (sum + 2^19) >> 20, clamped; or for straight alpha C', A' with 8
 *              fractional bits, then un-premultiplied; or for linear light u16 with 8
 *              fractional bits (0 ... 65280, clamped), then encoded by table
 *   linear     "L16": linear light in u8 units with 8 fractional bits, round(L * 65280) */
#ifndef IMAGECORE_RESIZE_INTERNAL_H
#define IMAGECORE_RESIZE_INTERNAL_H

#include "internal.h"
#include "imagecore/resize.h"

enum {
    IC_RS_BITS = 14,            /* coefficient precision */
    IC_RS_ONE = 1 << IC_RS_BITS,
    IC_RS_SHIFT_U8 = 8,         /* u8 source:  14 -> 6 fractional bits */
    IC_RS_SHIFT_P7 = 15,        /* P7 source: 21 -> 6 fractional bits */
    IC_RS_SHIFT_V = 20,         /* I6 x 14-bit weights: 20 fractional bits -> u8 */
    IC_RS_SHIFT_V8 = 12,        /* ... -> 8 fractional bits (straight-alpha path) */
    IC_RS_MAX_THREADS = 256,
    /* Largest horizontal pre-reduction folded into the weights. A folded window has
     * kx * (reduced taps) samples, and 14-bit weights over that many samples add rounding
     * noise that grows with sqrt(window) (measured on random rows: 0.56 LSB total error at
     * kx = 16, 0.75 at 128, 1.48 at 4681); above this the producer averages for real. */
    IC_RS_FOLD_MAX_K = 16,
    IC_RS_LINEAR_MAX = 65280,   /* L16 of linear 1.0: 255 << 8 */
    IC_RS_LINEAR_ENC = IC_RS_LINEAR_MAX + 1 /* entries of the encoding table */
};

/* One axis of one plane: for each output sample, a window of source samples and weights. */
typedef struct ic_rs_axis {
    int32_t in;        /* samples the windows index (full resolution for H, reduced for V) */
    int32_t out;       /* output samples */
    int32_t n;         /* weights stored per output (padded; >= every count) */
    int32_t max_count; /* largest count */
    int32_t *start;    /* [out] first source sample of the window */
    int32_t *count;    /* [out] samples in the window (n for every output when `fits`) */
    int16_t *w;        /* [out * n] weights, zero-padded */
    int32_t *wp;       /* vertical axis: [out * (n + 1) / 2] weight pairs (w[2i] | w[2i+1] << 16)
                        * for pmaddwd, the odd last one paired with 0; NULL for horizontal */
    int32_t fits;      /* every window holds exactly n samples inside [0, in): vector H OK */
} ic_rs_axis;

/* How the channels of a plane are filtered. */
typedef enum ic_rs_mode {
    IC_RS_DIRECT = 0,    /* independent channels (gray, RGB, YUV, opaque RGBA) */
    IC_RS_STRAIGHT = 1,  /* RGBA straight alpha: premultiply, filter, un-premultiply */
    IC_RS_PREMUL = 2     /* RGBA premultiplied: filter, clamp colour to alpha */
} ic_rs_mode;

/* Everything needed to resize one plane geometry (luma, or chroma shared by U and V). */
typedef struct ic_rs_geom {
    int32_t ch;                 /* interleaved channels: 1 (gray, Y, U, V), 2 (NV12 UV), 3, 4 */
    int32_t in_w, in_h, out_w, out_h;
    int32_t ky;                 /* vertical box pre-reduction (1 = none) */
    int32_t kx;                 /* horizontal pre-reduction (1 = none) */
    int32_t hfold;              /* kx folded into the H weights (kx <= IC_RS_FOLD_MAX_K); else
                                 * the producer averages blocks of kx pixels into s16 */
    int32_t red_h;              /* rows of the pre-reduced image: ceil(in_h / ky) */
    ic_rs_mode mode;
    ic_rs_axis h, v;
    int16_t *h4;                /* RGB(A) AVX2 layout of h.w (pairs of outputs), or NULL */
    int16_t *h2;                /* NV12 UV AVX2 layout of h.w (pairs of outputs), or NULL */
    size_t ring_stride;         /* bytes of one intermediate row (out_w * ch int16, rounded) */
    int32_t needs_s16;          /* the source goes through an int16 "P7" row first */
    int32_t linear;             /* linear light: sRGB decoded by lin_dec, encoded by lin_enc */
    const uint16_t *lin_dec;    /* [256] L16 of each sRGB value (NULL unless linear) */
    const uint8_t *lin_enc;     /* [IC_RS_LINEAR_ENC] sRGB value of each L16 (NULL unless linear) */
} ic_rs_geom;

/* Per-thread scratch, at the start of each slot. */
typedef struct ic_rs_slot {
    int32_t plane;              /* plane whose rows the ring holds (-1: none) */
    int32_t lo, hi;             /* ring holds reduced rows [lo, hi) */
    uint8_t *ring;              /* R rows of ring_stride bytes */
    const int16_t **rows;       /* R row pointers for the vertical kernel */
    int16_t *s16;               /* one source row as P7 */
    uint32_t *acc;              /* one source row of box sums */
    uint16_t *lin;              /* linear light: one output row of L16 (out_w * ch) */
} ic_rs_slot;

struct ic_resize_plan {
    ic_resize_params params;    /* max_threads resolved */
    int32_t geom_count;         /* 1, or 2 for YUV (luma, chroma) */
    ic_rs_geom geom[2];
    int32_t slots;
    uint8_t *slot_base;         /* slots * slot_bytes */
    size_t slot_bytes;
    int32_t owned;              /* made by ic_resize_plan_create */
    int32_t busy;               /* atomic: a call is running */
};

/* ---- resize_coeffs.c ---- */

/* Sizes of an axis' tables before building it: window counts and padding. */
typedef struct ic_rs_axis_shape {
    int32_t n, max_count;
} ic_rs_axis_shape;

/* Shape of the weights of `in` -> `out` with the filter, pre-reduction factor k (the filter
 * runs on ceil(in / k) samples of extent in / k) and, when `fold` is set, the box folded
 * into the weights so the windows index full-resolution samples. `pad` rounds n up. */
IC_INTERNAL ic_status ic__rs_axis_shape(ic_resize_filter filter, int32_t in, int32_t out, int32_t k,
                                        int32_t fold, int32_t pad, ic_rs_axis_shape *shape);

/* Fills `axis` (arrays already pointing at memory of the shape's size). With `fit`, windows
 * are shifted to hold exactly shape.n samples where the row allows (axis->fits). `tmp` holds
 * at least shape.max_count + 1 doubles. */
IC_INTERNAL void ic__rs_axis_build(ic_resize_filter filter, int32_t in, int32_t out, int32_t k,
                                   int32_t fold, int32_t fit, const ic_rs_axis_shape *shape,
                                   ic_rs_axis *axis, double *tmp);

/* The pre-reduction factor for in -> out: floor(in / out / 2) when >= 2, else 1. */
IC_INTERNAL int32_t ic__rs_reduce_factor(int32_t in, int32_t out);

/* The linear-light tables: dec[v] = round(L(v / 255) * 65280) for the sRGB decoding L, and
 * enc[i] = round(255 * S(i / 65280)) for the sRGB encoding S (the inverse), each entry
 * correctly rounded (enc from the 255 decision thresholds, so no entry is off by one). */
IC_INTERNAL void ic__rs_linear_tables(uint16_t *dec, uint8_t *enc);

/* ---- row kernels (resize_rows.c; AVX2 in resize_avx2.c) ---- */

/* Horizontal: dst[x * ch + c] for x in [x0, x1) from a u8 or P7 source row. */
IC_INTERNAL void ic_resize_h_u8_row_c(const uint8_t *src, int32_t ch, const ic_rs_axis *h, int32_t x0,
                                      int32_t x1, int16_t *dst);
IC_INTERNAL void ic_resize_h_s16_row_c(const int16_t *src, int32_t ch, const ic_rs_axis *h, int32_t x0,
                                       int32_t x1, int16_t *dst);

/* Row producers for the int16 path. */
IC_INTERNAL void ic_resize_premul_row_c(const uint8_t *rgba, int32_t pixels, int16_t *dst);
IC_INTERNAL void ic_resize_box_add_u8_c(const uint8_t *src, int32_t n, int32_t first, uint32_t *acc);
IC_INTERNAL void ic_resize_box_add_s16_c(const int16_t *src, int32_t n, int32_t first, uint32_t *acc);
IC_INTERNAL void ic_resize_box_finish_c(const uint32_t *acc, int32_t n, uint32_t mult, int32_t shift,
                                        int16_t *dst);
/* Fused block means of `rows` (<= 257) u8 rows `stride` bytes apart, n values each, as P7:
 * (sum * m + 2^16) >> 17 with m = round(2^24 / rows); sums fit 16 bits, products 32. */
enum { IC_RS_BOX16_MAX_ROWS = 257 };
IC_INTERNAL void ic_resize_box_rows_u8_c(const uint8_t *src, size_t stride, int32_t rows, int32_t n,
                                         uint32_t m, int16_t *dst);

/* Horizontal block means for large kx: pixels [j*kx, min(j*kx + kx, w)) of `ch` channels
 * into reduced pixel j, as P7, rounded exactly: (sum * scale + size / 2) / size with scale
 * 128 for a u8 row, 1 for a P7 row. The s16 version may work in place (dst == src). */
IC_INTERNAL void ic_resize_hbox_u8_c(const uint8_t *src, int32_t w, int32_t ch, int32_t kx, int16_t *dst);
IC_INTERNAL void ic_resize_hbox_s16_c(const int16_t *src, int32_t w, int32_t ch, int32_t kx, int16_t *dst);

/* Vertical: dst[e] for elements [e0, e1) of `count` rows weighted by w. */
IC_INTERNAL void ic_resize_v_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                   int32_t e0, int32_t e1, uint8_t *dst);
/* Straight RGBA: pixels [x0, x1), un-premultiplied. */
IC_INTERNAL void ic_resize_v_unpremul_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                            int32_t x0, int32_t x1, uint8_t *dst);
/* Premultiplied RGBA: colour = min(colour, alpha) for pixels [x0, x1). */
IC_INTERNAL void ic_resize_clamp_alpha_row_c(uint8_t *rgba, int32_t x0, int32_t x1);

/* Linear light. A source row of `pixels` pixels of `ch` channels to P7 linear values:
 * (dec[v] + 1) >> 1 for colour; alpha (ch == 4) as a << 7, or with `straight` the colour
 * premultiplied: (dec[v] * a + 255) / 510, i.e. round(L * a * 128). */
IC_INTERNAL void ic_resize_linear_row_c(const uint8_t *src, int32_t pixels, int32_t ch, int32_t straight,
                                        const uint16_t *dec, int16_t *dst);
/* Vertical to L16: elements [e0, e1), (sum + 2^11) >> 12 clamped to 0 ... 65280. */
IC_INTERNAL void ic_resize_v_u16_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                       int32_t e0, int32_t e1, uint16_t *dst);
/* L16 to sRGB bytes through `enc`; alpha (every 4th value when ch == 4) as (v + 128) >> 8. */
IC_INTERNAL void ic_resize_linear_encode_row_c(const uint16_t *src, int32_t pixels, int32_t ch,
                                               const uint8_t *enc, uint8_t *dst);
/* Straight RGBA in linear light: pixels [x0, x1) un-premultiplied (L16 = C' * 65280 / A' in
 * single precision, clamped) and encoded. */
IC_INTERNAL void ic_resize_v_unpremul_linear_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                                   int32_t x0, int32_t x1, const uint8_t *enc, uint8_t *dst);

/* One un-premultiplied channel from C', A' with 8 fractional bits (shared by every path):
 * C' is clamped to [0, A'] (ringing can push either past the other, or A' past 255), then
 * colour = min(255, trunc(C' * 255 / A' + 0.5)) in IEEE single precision: a multiply, a
 * divide and an add, each rounded, in this order in the scalar and the SIMD code (no
 * multiply-add pattern, so no compiler may fuse them). */
static inline uint8_t ic__rs_unpremul(int32_t c8, int32_t a8) {
    int32_t alpha = (a8 + 128) >> 8;
    if (alpha <= 0) return 0;
    if (c8 <= 0) return 0;
    if (c8 > a8) c8 = a8;
    float num = (float)c8 * 255.0f;
    float q = num / (float)a8;
    q = q + 0.5f;
    int32_t v = (int32_t)q;
    return (uint8_t)(v > 255 ? 255 : v);
}

/* ---- resize.c: kernels picked once per run, and the row steps both drivers share ---- */

/* Whole-row kernels for one geometry: the scalar references, or AVX2 where it applies. */
typedef struct ic_rs_kernels {
    void (*h_u8)(const uint8_t *, const ic_rs_geom *, int16_t *, size_t);
    void (*h_s16)(const int16_t *, const ic_rs_geom *, int16_t *);
    void (*v)(const int16_t *const *, const int16_t *, const int32_t *, int32_t, int32_t, uint8_t *);
    void (*v_unpremul)(const int16_t *const *, const int16_t *, const int32_t *, int32_t, int32_t,
                       uint8_t *);
    void (*premul)(const uint8_t *, int32_t, int16_t *);
    void (*box_u8)(const uint8_t *, int32_t, int32_t, uint32_t *);
    void (*box_s16)(const int16_t *, int32_t, int32_t, uint32_t *);
    void (*box_finish)(const uint32_t *, int32_t, uint32_t, int32_t, int16_t *);
    void (*box_rows_u8)(const uint8_t *, size_t, int32_t, int32_t, uint32_t, int16_t *);
    void (*v_u16)(const int16_t *const *, const int16_t *, const int32_t *, int32_t, int32_t, uint16_t *);
} ic_rs_kernels;

IC_INTERNAL ic_rs_kernels ic__rs_pick_kernels(const ic_rs_geom *g, uint32_t cpu);

/* Intermediate row (out_w * ch int16, I6) from a u8 source row, for geometries that need no
 * vertical box and no premultiplication (ky == 1, mode != STRAIGHT); s16 is scratch for the
 * horizontal block means of large factors. `ahead`: see ic_resize_h_u8_row_avx2. */
IC_INTERNAL void ic__rs_h_from_u8(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *row,
                                  size_t ahead, int16_t *s16, int16_t *out);
/* One source row as full-width P7 into s16, for the geometries whose source is not read as
 * u8 (straight alpha: premultiplied; linear light: decoded, and premultiplied). */
IC_INTERNAL void ic__rs_to_p7(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *row, int16_t *s16);
/* Whether the geometry's source rows go through ic__rs_to_p7. */
static inline int ic__rs_p7_source(const ic_rs_geom *g) { return g->mode == IC_RS_STRAIGHT || g->linear; }
/* Intermediate row from a full-width P7 row in s16 (overwritten by block means when !hfold). */
IC_INTERNAL void ic__rs_h_from_p7(const ic_rs_geom *g, const ic_rs_kernels *k, int16_t *s16,
                                  int16_t *out);
/* Output row y into `d` from the ring (intermediate row r at slot r % v.max_count, every row
 * of y's window present); `rows` holds v.max_count pointers of scratch, `lin` (linear light)
 * one output row of L16. */
IC_INTERNAL void ic__rs_v_out_row(const ic_rs_geom *g, const ic_rs_kernels *k, const uint8_t *ring,
                                  const int16_t **rows, uint16_t *lin, int32_t y, uint8_t *d);

#if IC_X86
/* Whole-row AVX2 kernels; they finish ragged ends with the scalar ones. The u8 one also
 * prefetches (into L2) the source row `ahead` bytes after `src`, at the position it is
 * reading, so the next row is in cache when it is needed (0: nothing to prefetch). */
IC_INTERNAL void ic_resize_h_u8_row_avx2(const uint8_t *src, const ic_rs_geom *g, int16_t *dst,
                                         size_t ahead);
IC_INTERNAL void ic_resize_h_s16_row_avx2(const int16_t *src, const ic_rs_geom *g, int16_t *dst);
IC_INTERNAL int ic_resize_h_avx2_supports(const ic_rs_geom *g);
IC_INTERNAL void ic_resize_v_row_avx2(const int16_t *const *rows, const int16_t *w, const int32_t *wp,
                                      int32_t count, int32_t elems, uint8_t *dst);
IC_INTERNAL void ic_resize_v_unpremul_row_avx2(const int16_t *const *rows, const int16_t *w,
                                               const int32_t *wp, int32_t count, int32_t pixels,
                                               uint8_t *dst);
IC_INTERNAL void ic_resize_premul_row_avx2(const uint8_t *rgba, int32_t pixels, int16_t *dst);
IC_INTERNAL void ic_resize_box_add_u8_avx2(const uint8_t *src, int32_t n, int32_t first, uint32_t *acc);
IC_INTERNAL void ic_resize_box_add_s16_avx2(const int16_t *src, int32_t n, int32_t first, uint32_t *acc);
IC_INTERNAL void ic_resize_box_finish_avx2(const uint32_t *acc, int32_t n, uint32_t mult, int32_t shift,
                                           int16_t *dst);
IC_INTERNAL void ic_resize_box_rows_u8_avx2(const uint8_t *src, size_t stride, int32_t rows, int32_t n,
                                            uint32_t m, int16_t *dst);
IC_INTERNAL void ic_resize_v_u16_row_avx2(const int16_t *const *rows, const int16_t *w, const int32_t *wp,
                                          int32_t count, int32_t elems, uint16_t *dst);
#endif

#endif
