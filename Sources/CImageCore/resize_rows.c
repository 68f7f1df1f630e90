/* Scalar reference row kernels of the resize (resize_internal.h); the AVX2 versions in
 * resize_avx2.c do the same integer arithmetic and must give the same bits (the tests
 * compare them).
 *
 * Horizontal: weighted windows of u8 or P7 samples into I6 rows, and the row producers of
 * the int16 path (premultiply, box sums). */
#include "resize_internal.h"

static inline int16_t sat16(int32_t v) {
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* One template for both horizontal kernels: u8 or P7 (int16) source samples, each with its
 * own shift to I6; specialised per call (constant arguments, always inlined). */
static inline __attribute__((always_inline)) void h_row(const void *src, int s16, int32_t shift, int32_t ch,
                                                        const ic_rs_axis *h, int32_t x0, int32_t x1, int16_t *dst) {
    const int32_t round = 1 << (shift - 1);
    for (int32_t x = x0; x < x1; x++) {
        const int16_t *w = h->w + (size_t)x * (size_t)h->n;
        const size_t first = (size_t)h->start[x] * (size_t)ch;
        const uint8_t *p8 = (const uint8_t *)src + first;
        const int16_t *p16 = (const int16_t *)src + first;
        const int32_t count = h->count[x];
        for (int32_t c = 0; c < ch; c++) {
            int32_t acc = 0;
            for (int32_t t = 0; t < count; t++) acc += w[t] * (int32_t)(s16 ? p16[t * ch + c] : p8[t * ch + c]);
            dst[x * ch + c] = sat16((acc + round) >> shift);
        }
    }
}

void ic_resize_h_u8_row_c(const uint8_t *src, int32_t ch, const ic_rs_axis *h, int32_t x0,
                          int32_t x1, int16_t *dst) {
    h_row(src, 0, IC_RS_SHIFT_U8, ch, h, x0, x1, dst);
}

void ic_resize_h_s16_row_c(const int16_t *src, int32_t ch, const ic_rs_axis *h, int32_t x0,
                           int32_t x1, int16_t *dst) {
    h_row(src, 1, IC_RS_SHIFT_P7, ch, h, x0, x1, dst);
}

/* P7 = round(c * a * 128 / 255) for the colour channels, a * 128 for alpha. With t = c * a:
 * t * 128 / 255 = t * 32896 / 65535, and (y + (y >> 16) + 32768) >> 16 with y = t * 32896
 * (< 2^31) equals round(t * 128 / 255) for every t <= 255 * 255 (checked exhaustively). */
void ic_resize_premul_row_c(const uint8_t *rgba, int32_t pixels, int16_t *dst) {
    for (int32_t i = 0; i < pixels; i++) {
        uint32_t a = rgba[4 * i + 3];
        for (int32_t c = 0; c < 3; c++) {
            uint32_t y = (uint32_t)rgba[4 * i + c] * a * 32896u;
            dst[4 * i + c] = (int16_t)((y + (y >> 16) + 32768u) >> 16);
        }
        dst[4 * i + 3] = (int16_t)(a << 7);
    }
}

/* Vertical box sums: acc = src (first row of a block) or acc += src. */
void ic_resize_box_add_u8_c(const uint8_t *src, int32_t n, int32_t first, uint32_t *acc) {
    if (first) for (int32_t i = 0; i < n; i++) acc[i] = src[i];
    else for (int32_t i = 0; i < n; i++) acc[i] += src[i];
}

void ic_resize_box_add_s16_c(const int16_t *src, int32_t n, int32_t first, uint32_t *acc) {
    if (first) for (int32_t i = 0; i < n; i++) acc[i] = (uint32_t)(uint16_t)src[i];
    else for (int32_t i = 0; i < n; i++) acc[i] += (uint32_t)(uint16_t)src[i];
}

/* Block means as P7: (acc * mult + 2^(shift-1)) >> shift, with mult = round(2^32 / rows) and
 * shift 25 for u8 sums (so the mean gains 7 fractional bits) or 32 for P7 sums. */
void ic_resize_box_finish_c(const uint32_t *acc, int32_t n, uint32_t mult, int32_t shift,
                            int16_t *dst) {
    const uint64_t round = (uint64_t)1 << (shift - 1);
    for (int32_t i = 0; i < n; i++)
        dst[i] = (int16_t)(((uint64_t)acc[i] * mult + round) >> shift);
}

void ic_resize_box_rows_u8_c(const uint8_t *src, size_t stride, int32_t rows, int32_t n,
                             uint32_t m, int16_t *dst) {
    for (int32_t i = 0; i < n; i++) {
        uint32_t sum = 0;
        for (int32_t r = 0; r < rows; r++) sum += src[(size_t)r * stride + (size_t)i];
        dst[i] = (int16_t)((sum * m + 65536u) >> 17);
    }
}

/* Horizontal block means for large factors (rare, so scalar). Sums fit 32 bits: at most
 * 32640 * 65535 < 2^31. Reading pixel j*kx.. before writing pixel j keeps in-place safe. */
void ic_resize_hbox_u8_c(const uint8_t *src, int32_t w, int32_t ch, int32_t kx, int16_t *dst) {
    for (int32_t j = 0, x0 = 0; x0 < w; j++, x0 += kx) {
        const int32_t x1 = x0 + kx < w ? x0 + kx : w, size = x1 - x0;
        for (int32_t c = 0; c < ch; c++) {
            uint32_t sum = 0;
            for (int32_t x = x0; x < x1; x++) sum += src[x * ch + c];
            dst[j * ch + c] = (int16_t)(((uint64_t)sum * 128u + (uint64_t)size / 2) / (uint64_t)size);
        }
    }
}

void ic_resize_hbox_s16_c(const int16_t *src, int32_t w, int32_t ch, int32_t kx, int16_t *dst) {
    for (int32_t j = 0, x0 = 0; x0 < w; j++, x0 += kx) {
        const int32_t x1 = x0 + kx < w ? x0 + kx : w, size = x1 - x0;
        for (int32_t c = 0; c < ch; c++) {
            uint32_t sum = 0;
            for (int32_t x = x0; x < x1; x++) sum += (uint16_t)src[x * ch + c];
            dst[j * ch + c] = (int16_t)((sum + (uint32_t)size / 2) / (uint32_t)size);
        }
    }
}

/* ---- vertical ---------------------------------------------------------------------------
 * weighted sums of `count` intermediate
 * rows (int16, 6 fractional bits) with 14-bit weights, in 32-bit integers. The AVX2
 * versions (resize_avx2.c) sum the same products in another order; integer addition makes
 * that exact, and the sums cannot overflow (|sum| <= sum|w| * 32767 < 2^31 for sum|w| < 4;
 * these filters stay below 1.7). */

void ic_resize_v_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                       int32_t e0, int32_t e1, uint8_t *dst) {
    const int32_t round = 1 << (IC_RS_SHIFT_V - 1);
    for (int32_t e = e0; e < e1; e++) {
        int32_t acc = round;
        for (int32_t t = 0; t < count; t++) acc += w[t] * (int32_t)rows[t][e];
        acc >>= IC_RS_SHIFT_V;
        dst[e] = (uint8_t)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
    }
}

void ic_resize_v_unpremul_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                int32_t x0, int32_t x1, uint8_t *dst) {
    const int32_t round = 1 << (IC_RS_SHIFT_V8 - 1);
    for (int32_t x = x0; x < x1; x++) {
        int32_t v[4];
        for (int32_t c = 0; c < 4; c++) {
            int32_t acc = round;
            for (int32_t t = 0; t < count; t++) acc += w[t] * (int32_t)rows[t][4 * x + c];
            v[c] = acc >> IC_RS_SHIFT_V8; /* 8 fractional bits */
        }
        int32_t alpha = (v[3] + 128) >> 8;
        dst[4 * x + 3] = (uint8_t)(alpha < 0 ? 0 : alpha > 255 ? 255 : alpha);
        for (int32_t c = 0; c < 3; c++) dst[4 * x + c] = ic__rs_unpremul(v[c], v[3]);
    }
}

void ic_resize_clamp_alpha_row_c(uint8_t *rgba, int32_t x0, int32_t x1) {
    for (int32_t x = x0; x < x1; x++) {
        uint8_t a = rgba[4 * x + 3];
        for (int32_t c = 0; c < 3; c++)
            if (rgba[4 * x + c] > a) rgba[4 * x + c] = a;
    }
}

/* ---- linear light ------------------------------------------------------------------------
 * Table lookups per sample (gathers are slower than scalar loads on the cores here), so one
 * version each; the vertical sums before the encoding have an AVX2 twin. */

void ic_resize_linear_row_c(const uint8_t *src, int32_t pixels, int32_t ch, int32_t straight,
                            const uint16_t *dec, int16_t *dst) {
    if (ch != 4) {
        for (int32_t i = 0; i < pixels * ch; i++) dst[i] = (int16_t)((dec[src[i]] + 1) >> 1);
        return;
    }
    for (int32_t i = 0; i < pixels; i++) {
        const uint32_t a = src[4 * i + 3];
        for (int32_t c = 0; c < 3; c++) {
            const uint32_t l = dec[src[4 * i + c]];
            /* round(l * a / 510) = round(L * a * 128): P7 of the premultiplied linear colour */
            dst[4 * i + c] = (int16_t)(straight ? (l * a + 255u) / 510u : (l + 1u) >> 1);
        }
        dst[4 * i + 3] = (int16_t)(a << 7);
    }
}

void ic_resize_v_u16_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                           int32_t e0, int32_t e1, uint16_t *dst) {
    const int32_t round = 1 << (IC_RS_SHIFT_V8 - 1);
    for (int32_t e = e0; e < e1; e++) {
        int32_t acc = round;
        for (int32_t t = 0; t < count; t++) acc += w[t] * (int32_t)rows[t][e];
        acc >>= IC_RS_SHIFT_V8;
        dst[e] = (uint16_t)(acc < 0 ? 0 : acc > IC_RS_LINEAR_MAX ? IC_RS_LINEAR_MAX : acc);
    }
}

void ic_resize_linear_encode_row_c(const uint16_t *src, int32_t pixels, int32_t ch, const uint8_t *enc,
                                   uint8_t *dst) {
    if (ch != 4) {
        for (int32_t i = 0; i < pixels * ch; i++) dst[i] = enc[src[i]];
        return;
    }
    for (int32_t i = 0; i < pixels; i++) {
        dst[4 * i] = enc[src[4 * i]];
        dst[4 * i + 1] = enc[src[4 * i + 1]];
        dst[4 * i + 2] = enc[src[4 * i + 2]];
        dst[4 * i + 3] = (uint8_t)((src[4 * i + 3] + 128u) >> 8);
    }
}

void ic_resize_v_unpremul_linear_row_c(const int16_t *const *rows, const int16_t *w, int32_t count,
                                       int32_t x0, int32_t x1, const uint8_t *enc, uint8_t *dst) {
    const int32_t round = 1 << (IC_RS_SHIFT_V8 - 1);
    for (int32_t x = x0; x < x1; x++) {
        int32_t v[4];
        for (int32_t c = 0; c < 4; c++) {
            int32_t acc = round;
            for (int32_t t = 0; t < count; t++) acc += w[t] * (int32_t)rows[t][4 * x + c];
            v[c] = acc >> IC_RS_SHIFT_V8; /* 8 fractional bits */
        }
        const int32_t alpha = (v[3] + 128) >> 8;
        dst[4 * x + 3] = (uint8_t)(alpha < 0 ? 0 : alpha > 255 ? 255 : alpha);
        for (int32_t c = 0; c < 3; c++) {
            int32_t l = 0;
            if (alpha > 0 && v[c] > 0) {
                /* as ic__rs_unpremul, to L16: multiply, divide, add, truncate in single precision */
                const int32_t c8 = v[c] > v[3] ? v[3] : v[c];
                float q = (float)c8 * (float)IC_RS_LINEAR_MAX;
                q = q / (float)v[3];
                q = q + 0.5f;
                l = (int32_t)q;
                if (l > IC_RS_LINEAR_MAX) l = IC_RS_LINEAR_MAX;
            }
            dst[4 * x + c] = alpha > 0 ? enc[l] : 0;
        }
    }
}
