/* Scalar reference row kernels of the boundary map: convolution rows and the reduction's
 * column and box sums. The AVX2 kernels (detect_map_avx2.c) compute the same bits. */
#include "detect_map_internal.h"

#include <math.h>

void ic__dm_conv_row_c(const ic_dm_conv *L, const ic_dm_tensor *in, const ic_dm_tensor *out, int32_t y,
                       int relu) {
    const int32_t k = L->k, s = L->stride, d = L->dil, half = k / 2, taps = k * k;
    for (int32_t co = 0; co < L->cout; co++) {
        float *o = out->data + co * out->plane + (ptrdiff_t)y * out->stride;
        const float *wc = L->w + (size_t)co * L->cin * taps;
        for (int32_t x = 0; x < out->w; x++) {
            float acc = L->b[co];
            for (int32_t ci = 0; ci < L->cin; ci++) {
                const float *pl = in->data + ci * in->plane;
                const float *wk = wc + ci * taps;
                for (int32_t ky = 0; ky < k; ky++) {
                    const float *row = pl + (ptrdiff_t)(y * s + (ky - half) * d) * in->stride;
                    for (int32_t kx = 0; kx < k; kx++)
                        acc = fmaf(wk[ky * k + kx], row[x * s + (kx - half) * d], acc);
                }
            }
            o[x] = relu && !(acc > 0.0f) ? 0.0f : acc; /* as _mm256_max_ps(acc, 0) */
        }
    }
}

void ic__dm_column_sums_c(const uint8_t *src, size_t stride, int32_t rows, uint16_t *sums, size_t n) {
    for (size_t i = 0; i < n; i++) sums[i] = src[i];
    for (int32_t y = 1; y < rows; y++) {
        const uint8_t *r = src + (size_t)y * stride;
        for (size_t i = 0; i < n; i++) sums[i] = (uint16_t)(sums[i] + r[i]);
    }
}

void ic__dm_box_sums4_c(const uint16_t *sums, int32_t k, int32_t w, uint32_t *out) {
    for (int32_t i = 0; i < w; i++) {
        const uint16_t *p = sums + (size_t)4 * i * k;
        uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int32_t x = 0; x < k; x++, p += 4) {
            a0 += p[0];
            a1 += p[1];
            a2 += p[2];
            a3 += p[3];
        }
        out[4 * i] = a0;
        out[4 * i + 1] = a1;
        out[4 * i + 2] = a2;
        out[4 * i + 3] = a3;
    }
}

void ic__dm_up_add_row_c(const float *low, float *o, int32_t w) {
    for (int32_t x = 0; x < w; x++) {
        const float v = low[x / 2] + o[x];
        o[x] = v > 0.0f ? v : 0.0f;
    }
}
