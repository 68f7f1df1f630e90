/* Scalar reference row kernels of the boundary map: convolution rows, the decoder's
 * additions and the reduction's column and box sums. The AVX2 and AVX-512 kernels
 * (detect_map_avx2.c, detect_map_avx512.c) compute the same bits. */
#include "detect_map_internal.h"

#include <math.h>

/* int16 weights of a pair word (low half first) */
static inline int32_t lo16(uint32_t w) { return (int32_t)(int16_t)(uint16_t)(w & 0xFFFFu); }
static inline int32_t hi16(uint32_t w) { return (int32_t)(int16_t)(uint16_t)(w >> 16); }

/* byte j of a word */
static inline int32_t byte_of(uint32_t v, int j) { return (int32_t)((v >> (8 * j)) & 0xFFu); }

/* rint(clamp(r, 0, 255)) as the vector kernels compute it (min and max, then a conversion
 * that rounds ties to even; r is finite) */
static inline uint32_t to_byte(float r) {
    r = r > 0.0f ? r : 0.0f;
    r = r < 255.0f ? r : 255.0f;
    return (uint32_t)lrintf(r);
}

void ic__dm_conv_row_c(const ic_dm_conv *L, const ic_dm_bytes *in, const ic_dm_bytes *out, const ic_dm_floats *fout,
                       int32_t y) {
    const int32_t k = L->k, s = L->stride, d = L->dil, half = k / 2, taps = k * k, groups = L->cin / 4;
    const int32_t W = out ? out->w : fout->w;
    for (int32_t co = 0; co < L->cout; co++) {
        const uint32_t *wc = L->wp + (size_t)co * groups * taps * 2;
        for (int32_t x = 0; x < W; x++) {
            int32_t acc = 0;
            for (int32_t g = 0; g < groups; g++) {
                const uint32_t *pl = in->data + g * in->plane;
                const uint32_t *wk = wc + (size_t)g * taps * 2;
                for (int32_t ky = 0; ky < k; ky++) {
                    const uint32_t *row = pl + (ptrdiff_t)(y * s + (ky - half) * d) * in->stride;
                    for (int32_t kx = 0; kx < k; kx++) {
                        const uint32_t v = row[x * s + (kx - half) * d];
                        const uint32_t we = wk[2 * (ky * k + kx)], wo = wk[2 * (ky * k + kx) + 1];
                        acc += lo16(we) * byte_of(v, 0) + hi16(we) * byte_of(v, 2) + lo16(wo) * byte_of(v, 1) +
                               hi16(wo) * byte_of(v, 3);
                    }
                }
            }
            const float r = fmaf((float)acc, L->m[co], L->c[co]);
            if (out) {
                uint32_t *o = out->data + (co / 4) * out->plane + (ptrdiff_t)y * out->stride + x;
                const int sh = 8 * (co % 4);
                *o = (*o & ~((uint32_t)0xFF << sh)) | to_byte(r) << sh;
            } else {
                fout->data[co * fout->plane + (ptrdiff_t)y * fout->stride + x] = r;
            }
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

void ic__dm_column_sums2_c(const uint8_t *src, size_t stride, int32_t rows, uint16_t *const out[2], const int add[2],
                           const size_t n[2]) {
    const size_t hi = n[0] > n[1] ? n[0] : n[1];
    for (size_t i = 0; i < hi; i++) {
        uint16_t v = 0;
        for (int32_t y = 0; y < rows; y++) v = (uint16_t)(v + src[(size_t)y * stride + i]);
        for (int o = 0; o < 2; o++)
            if (i < n[o]) out[o][i] = add[o] ? (uint16_t)(out[o][i] + v) : v;
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

void ic__dm_add_row_c(const float *low, ptrdiff_t plane, const float *a, uint32_t *o, int32_t w) {
    for (int32_t x = 0; x < w; x++) {
        uint32_t v = 0;
        for (int j = 0; j < 4; j++)
            v |= to_byte(fmaf((float)byte_of(o[x], j), a[j], low[j * plane + x / 2])) << (8 * j);
        o[x] = v;
    }
}
