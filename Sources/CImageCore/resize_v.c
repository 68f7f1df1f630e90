/* Vertical resize row kernels (scalar reference): weighted sums of `count` intermediate
 * rows (int16, 6 fractional bits) with 14-bit weights, in 32-bit integers. The AVX2
 * versions (resize_v_avx2.c) sum the same products in another order; integer addition makes
 * that exact, and the sums cannot overflow (|sum| <= sum|w| * 32767 < 2^31 for sum|w| < 4;
 * these filters stay below 1.7). */
#include "resize_internal.h"

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
