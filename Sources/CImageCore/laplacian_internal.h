/* Private declarations shared by laplacian.c (drivers, scalar reference) and
 * laplacian_avx2.c (the AVX2 row kernels). Not installed. */
#ifndef IMAGECORE_LAPLACIAN_INTERNAL_H
#define IMAGECORE_LAPLACIAN_INTERNAL_H

#include "internal.h"
#include "imagecore/laplacian.h"

/* Row kernels. Each computes the response of columns [x0, x0 + n) of one row of a plane of
 * `width` columns, from the rows above (`up`), at (`mid`) and below (`down`) it — already
 * reflected at the top and bottom edges by the caller. Columns -1 and `width` are
 * reflect-101'd here. They read only columns max(x0-1,0) ... min(x0+n, width-1) of the three
 * rows (plus the reflected ones), never padding. */

/* Signed response to int16. */
IC_INTERNAL void ic_laplacian_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                    int32_t width, int32_t x0, int32_t n, int16_t *out);
/* Response clamped to 0...255, then mapped through `lut` if it is not NULL. */
IC_INTERNAL void ic_laplacian_u8_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                       int32_t width, int32_t x0, int32_t n, const uint8_t *lut,
                                       uint8_t *out);
/* Adds the sum and the sum of squares of the response to *sum and *sum_squares. */
IC_INTERNAL void ic_laplacian_score_row_c(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                          int32_t width, int32_t x0, int32_t n, int64_t *sum,
                                          uint64_t *sum_squares);

#if IC_X86
IC_INTERNAL void ic_laplacian_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                       int32_t width, int32_t x0, int32_t n, int16_t *out);
IC_INTERNAL void ic_laplacian_u8_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                          int32_t width, int32_t x0, int32_t n, const uint8_t *lut,
                                          uint8_t *out);
IC_INTERNAL void ic_laplacian_score_row_avx2(const uint8_t *up, const uint8_t *mid, const uint8_t *down,
                                             int32_t width, int32_t x0, int32_t n, int64_t *sum,
                                             uint64_t *sum_squares);
#endif

/* round(255 * (i / 255)^(1/2.2)) for i = 0...255: the seed's display gamma. */
IC_INTERNAL extern const uint8_t ic__laplacian_gamma[256];

/* Reflect-101 of index i into [0, len): -1 -> 1, len -> len - 2; len 1 -> 0. Only ever
 * called with i in [-1, len]. */
static inline int32_t ic__reflect101(int32_t i, int32_t len) {
    if (len == 1) return 0;
    if (i < 0) return -i;
    if (i >= len) return 2 * len - 2 - i;
    return i;
}

#endif
