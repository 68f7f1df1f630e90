/* Row kernels of the reduced progressive decoder: libjpeg-turbo's reduced inverse DCTs
 * (1x1, 2x2, 4x4 outputs per 8x8 block), its h2v1 triangle and box upsampling, and its
 * YCbCr -> RGB conversion, with the same integer arithmetic, so that the output equals
 * libjpeg's own scaled decode byte for byte. Scalar only: at 1/8 and 1/4 the output is
 * 1/64 or 1/16 of the pixels, and entropy decoding is the cost. */
#include "jpeg_lowfreq_internal.h"

/* The reduced IDCTs' fixed point: 13 fraction bits for the constants, 2 extra bits kept
 * between the column and the row pass (as jidctred.c for 8-bit samples). */
enum { CONST_BITS = 13, PASS1_BITS = 2 };

/* round(x * 2^13) of the cosine combinations the reduced IDCTs use. */
enum {
    F_0_211 = 1730, F_0_509 = 4176, F_0_601 = 4926, F_0_720 = 5906, F_0_765 = 6270,
    F_0_850 = 6967, F_0_899 = 7373, F_1_061 = 8697, F_1_272 = 10426, F_1_451 = 11893,
    F_1_847 = 15137, F_2_172 = 17799, F_2_562 = 20995, F_3_624 = 29692
};

/* x / 2^n rounded half up, in 64-bit arithmetic (libjpeg's DESCALE on JLONG). */
static inline int64_t descale(int64_t x, int n) { return (x + ((int64_t)1 << (n - 1))) >> n; }

/* x * 2^n without signed-shift overflow (libjpeg's LEFT_SHIFT). */
static inline int64_t shl(int64_t x, int n) { return (int64_t)((uint64_t)x << n); }

/* libjpeg's post-IDCT range limit, indexed by (value & 1023): value + 128 clamped to 0..255
 * for -512..511, wrapping beyond (what its table does with out-of-range garbage). */
static inline uint8_t range_limit(int64_t v) {
    const int t = (int)(v & 1023);
    if (t < 128) return (uint8_t)(t + 128);
    if (t < 512) return 255;
    if (t < 896) return 0;
    return (uint8_t)(t - 896);
}

/* DEQUANTIZE: libjpeg multiplies the 16-bit coefficient by the 16-bit table entry in int. */
static inline int32_t dq(int16_t c, int16_t q) { return (int32_t)c * (int32_t)q; }

void ic_jpeg_idct_1x1_row_c(const int16_t *coef, int cpb, int32_t n, const int16_t *quant, uint8_t *out) {
    const int16_t q = quant[0];
    for (int32_t i = 0; i < n; i++) out[i] = range_limit(descale(dq(coef[(size_t)i * (size_t)cpb], q), 3));
}

static void idct_2x2(const int16_t *in, const int16_t *q, uint8_t *out, size_t stride) {
    int32_t ws[16];
    /* Columns 0, 1, 3, 5, 7 (the row pass reads no others); rows 2, 4, 6 do not contribute. */
    static const int cols[5] = {0, 1, 3, 5, 7};
    for (int i = 0; i < 5; i++) {
        const int c = cols[i];
        if (in[8 + c] == 0 && in[24 + c] == 0 && in[40 + c] == 0 && in[56 + c] == 0) {
            const int32_t dc = (int32_t)shl(dq(in[c], q[c]), PASS1_BITS);
            ws[c] = ws[8 + c] = dc;
            continue;
        }
        const int64_t even = shl(dq(in[c], q[c]), CONST_BITS + 2);
        const int64_t odd = (int64_t)dq(in[56 + c], q[56 + c]) * -F_0_720 +
                            (int64_t)dq(in[40 + c], q[40 + c]) * F_0_850 +
                            (int64_t)dq(in[24 + c], q[24 + c]) * -F_1_272 +
                            (int64_t)dq(in[8 + c], q[8 + c]) * F_3_624;
        ws[c] = (int32_t)descale(even + odd, CONST_BITS - PASS1_BITS + 2);
        ws[8 + c] = (int32_t)descale(even - odd, CONST_BITS - PASS1_BITS + 2);
    }
    for (int r = 0; r < 2; r++) {
        const int32_t *w = ws + 8 * r;
        uint8_t *o = out + (size_t)r * stride;
        if (w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0) {
            o[0] = o[1] = range_limit(descale(w[0], PASS1_BITS + 3));
            continue;
        }
        const int64_t even = shl(w[0], CONST_BITS + 2);
        const int64_t odd = (int64_t)w[7] * -F_0_720 + (int64_t)w[5] * F_0_850 + (int64_t)w[3] * -F_1_272 +
                            (int64_t)w[1] * F_3_624;
        o[0] = range_limit(descale(even + odd, CONST_BITS + PASS1_BITS + 3 + 2));
        o[1] = range_limit(descale(even - odd, CONST_BITS + PASS1_BITS + 3 + 2));
    }
}

void ic_jpeg_idct_2x2_row_c(const int16_t *coef, int32_t n, const int16_t *quant, uint8_t *out, size_t stride) {
    for (int32_t i = 0; i < n; i++) idct_2x2(coef + (size_t)i * 64, quant, out + (size_t)i * 2, stride);
}

/* The 4-point odd part shared by both passes: inputs at frequencies 1, 3, 5, 7. */
static inline void odd4(int64_t z4, int64_t z3, int64_t z2, int64_t z1, int64_t *t0, int64_t *t2) {
    *t0 = z1 * -F_0_211 + z2 * F_1_451 + z3 * -F_2_172 + z4 * F_1_061;
    *t2 = z1 * -F_0_509 + z2 * -F_0_601 + z3 * F_0_899 + z4 * F_2_562;
}

static void idct_4x4(const int16_t *in, const int16_t *q, uint8_t *out, size_t stride) {
    int32_t ws[32];
    for (int c = 0; c < 8; c++) {
        if (c == 4) continue; /* the row pass does not read column 4 */
        if (in[8 + c] == 0 && in[16 + c] == 0 && in[24 + c] == 0 && in[40 + c] == 0 && in[48 + c] == 0 &&
            in[56 + c] == 0) {
            const int32_t dc = (int32_t)shl(dq(in[c], q[c]), PASS1_BITS);
            ws[c] = ws[8 + c] = ws[16 + c] = ws[24 + c] = dc;
            continue;
        }
        const int64_t t0 = shl(dq(in[c], q[c]), CONST_BITS + 1);
        const int64_t t2 = (int64_t)dq(in[16 + c], q[16 + c]) * F_1_847 + (int64_t)dq(in[48 + c], q[48 + c]) * -F_0_765;
        const int64_t e10 = t0 + t2, e12 = t0 - t2;
        int64_t o0, o2;
        odd4(dq(in[8 + c], q[8 + c]), dq(in[24 + c], q[24 + c]), dq(in[40 + c], q[40 + c]), dq(in[56 + c], q[56 + c]),
             &o0, &o2);
        const int n = CONST_BITS - PASS1_BITS + 1;
        ws[c] = (int32_t)descale(e10 + o2, n);
        ws[24 + c] = (int32_t)descale(e10 - o2, n);
        ws[8 + c] = (int32_t)descale(e12 + o0, n);
        ws[16 + c] = (int32_t)descale(e12 - o0, n);
    }
    for (int r = 0; r < 4; r++) {
        const int32_t *w = ws + 8 * r;
        uint8_t *o = out + (size_t)r * stride;
        if (w[1] == 0 && w[2] == 0 && w[3] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0) {
            o[0] = o[1] = o[2] = o[3] = range_limit(descale(w[0], PASS1_BITS + 3));
            continue;
        }
        const int64_t t0 = shl(w[0], CONST_BITS + 1);
        const int64_t t2 = (int64_t)w[2] * F_1_847 + (int64_t)w[6] * -F_0_765;
        const int64_t e10 = t0 + t2, e12 = t0 - t2;
        int64_t o0, o2;
        odd4(w[1], w[3], w[5], w[7], &o0, &o2);
        const int n = CONST_BITS + PASS1_BITS + 3 + 1;
        o[0] = range_limit(descale(e10 + o2, n));
        o[3] = range_limit(descale(e10 - o2, n));
        o[1] = range_limit(descale(e12 + o0, n));
        o[2] = range_limit(descale(e12 - o0, n));
    }
}

void ic_jpeg_idct_4x4_row_c(const int16_t *coef, int32_t n, const int16_t *quant, uint8_t *out, size_t stride) {
    for (int32_t i = 0; i < n; i++) idct_4x4(coef + (size_t)i * 64, quant, out + (size_t)i * 4, stride);
}

/* ---- upsampling -------------------------------------------------------------------------- */

void ic_jpeg_h2v1_fancy_row_c(const uint8_t *in, int32_t width, uint8_t *out) {
    /* Each output sample is 3/4 of the nearer input and 1/4 of the farther one, rounded
     * alternately down and up (+1, +2) so that no direction is favoured; edges copy. */
    out[0] = in[0];
    out[1] = (uint8_t)((in[0] * 3 + in[1] + 2) >> 2);
    for (int32_t i = 1; i < width - 1; i++) {
        const int v = in[i] * 3;
        out[2 * i] = (uint8_t)((v + in[i - 1] + 1) >> 2);
        out[2 * i + 1] = (uint8_t)((v + in[i + 1] + 2) >> 2);
    }
    out[2 * width - 2] = (uint8_t)((in[width - 1] * 3 + in[width - 2] + 1) >> 2);
    out[2 * width - 1] = in[width - 1];
}

void ic_jpeg_box_row_c(const uint8_t *in, int factor, int32_t out_width, uint8_t *out) {
    for (int32_t x = 0; x < out_width; x++) out[x] = in[x / factor];
}

/* ---- colour ------------------------------------------------------------------------------ */

enum { SCALEBITS = 16 };

void ic__jpeg_ycc_tables_init(ic_jpeg_ycc_tables *t) {
    /* JFIF's YCbCr -> RGB: R = Y + 1.402 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr',
     * B = Y + 1.772 Cb' (C' = C - 128), the factors in 16-bit fixed point rounded to nearest;
     * R and B are rounded per table entry, G once from the sum. */
    const int32_t f_r = 91881, f_b = 116130, f_g_cr = 46802, f_g_cb = 22554; /* round(f * 65536) */
    for (int i = 0; i < 256; i++) {
        const int32_t x = i - 128;
        t->cr_r[i] = (f_r * x + (1 << (SCALEBITS - 1))) >> SCALEBITS;
        t->cb_b[i] = (f_b * x + (1 << (SCALEBITS - 1))) >> SCALEBITS;
        t->cr_g[i] = -f_g_cr * x;
        t->cb_g[i] = -f_g_cb * x + (1 << (SCALEBITS - 1));
    }
}

static inline uint8_t clamp255(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void ic_jpeg_ycc_rgb_row_c(const ic_jpeg_ycc_tables *t, const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                           uint8_t *out, int32_t n, int channels) {
    for (int32_t i = 0; i < n; i++, out += channels) {
        const int l = y[i], b = cb[i], r = cr[i];
        out[0] = clamp255(l + t->cr_r[r]);
        out[1] = clamp255(l + ((t->cb_g[b] + t->cr_g[r]) >> SCALEBITS));
        out[2] = clamp255(l + t->cb_b[b]);
        if (channels == 4) out[3] = 255;
    }
}

void ic_jpeg_gray_rgb_row_c(const uint8_t *y, uint8_t *out, int32_t n, int channels) {
    for (int32_t i = 0; i < n; i++, out += channels) {
        out[0] = out[1] = out[2] = y[i];
        if (channels == 4) out[3] = 255;
    }
}
