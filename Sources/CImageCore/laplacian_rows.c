/* Scalar reference row kernels of the 3x3 Laplacian (laplacian_internal.h). */
#include "laplacian_internal.h"

/* The response at column x: 9 * centre - the 3x3 sum, columns reflected at the edges. */
static inline int32_t response_at(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                  int32_t width, int32_t x) {
    int32_t l = ic__reflect101(x - 1, width), r = ic__reflect101(x + 1, width);
    int32_t box = up[l] + up[x] + up[r] + mid[l] + mid[x] + mid[r] + down[l] + down[x] + down[r];
    return 9 * (int32_t)mid[x] - box;
}

void ic_laplacian_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                        int32_t width, int32_t x0, int32_t n, int16_t *out) {
    for (int32_t i = 0; i < n; i++) out[i] = (int16_t)response_at(up, mid, down, width, x0 + i);
}

void ic_laplacian_u8_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                           int32_t width, int32_t x0, int32_t n, const uint8_t *lut,
                           uint8_t *out) {
    for (int32_t i = 0; i < n; i++) {
        int32_t r = response_at(up, mid, down, width, x0 + i);
        uint8_t v = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        out[i] = lut ? lut[v] : v;
    }
}

void ic_laplacian_score_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                              int32_t width, int32_t x0, int32_t n, int64_t *sum,
                              uint64_t *sum_squares) {
    int64_t s = 0;
    uint64_t q = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = response_at(up, mid, down, width, x0 + i);
        s += r;
        q += (uint64_t)(r * r); /* r*r <= 2040^2 fits in int32 */
    }
    *sum += s;
    *sum_squares += q;
}

