/* Scalar reference kernels of the rotate family: row reversal (out of place and in
 * place) and tiled transposes, for 1-, 2-, 3- and 4-byte elements. Elements are moved
 * with fixed-size memcpy, which compiles to one load and one store. */
#include "rotate_internal.h"

#include <string.h>

/* ---- reversal --------------------------------------------------------------- */

static inline __attribute__((always_inline)) void reverse_row(const uint8_t *src, uint8_t *dst,
                                                              size_t n, size_t e) {
    for (size_t i = 0; i < n; i++) memcpy(dst + i * e, src + (n - 1 - i) * e, e);
}

void ic_reverse_row1_c(const uint8_t *src, uint8_t *dst, size_t n) { reverse_row(src, dst, n, 1); }
void ic_reverse_row2_c(const uint8_t *src, uint8_t *dst, size_t n) { reverse_row(src, dst, n, 2); }
void ic_reverse_row3_c(const uint8_t *src, uint8_t *dst, size_t n) { reverse_row(src, dst, n, 3); }
void ic_reverse_row4_c(const uint8_t *src, uint8_t *dst, size_t n) { reverse_row(src, dst, n, 4); }

static inline __attribute__((always_inline)) void reverse_inplace(uint8_t *row, size_t n, size_t e) {
    uint8_t t[4];
    for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
        memcpy(t, row + i * e, e);
        memcpy(row + i * e, row + j * e, e);
        memcpy(row + j * e, t, e);
    }
}

void ic_reverse_inplace1_c(uint8_t *row, size_t n) { reverse_inplace(row, n, 1); }
void ic_reverse_inplace2_c(uint8_t *row, size_t n) { reverse_inplace(row, n, 2); }
void ic_reverse_inplace3_c(uint8_t *row, size_t n) { reverse_inplace(row, n, 3); }
void ic_reverse_inplace4_c(uint8_t *row, size_t n) { reverse_inplace(row, n, 4); }

static inline __attribute__((always_inline)) void reverse_swap(uint8_t *a, uint8_t *b, size_t n,
                                                               size_t e) {
    uint8_t t[4];
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = a + i * e, *q = b + (n - 1 - i) * e;
        memcpy(t, p, e);
        memcpy(p, q, e);
        memcpy(q, t, e);
    }
}

void ic_reverse_swap1_c(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 1); }
void ic_reverse_swap2_c(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 2); }
void ic_reverse_swap3_c(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 3); }
void ic_reverse_swap4_c(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 4); }

/* ---- transpose -------------------------------------------------------------- */

/* Column by column across the block (the vector kernels walk column tiles the same
 * way): each output row is written in one contiguous segment, and the block's rows are
 * few enough (a stripe, see rotate.c) that their lines stay in cache across columns. */
static inline __attribute__((always_inline)) void
transpose(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds, int32_t w, int32_t h,
          size_t e) {
    for (int32_t x = 0; x < w; x++) {
        uint8_t *d = dst + (ptrdiff_t)x * ds;
        const uint8_t *s = src + (ptrdiff_t)x * (ptrdiff_t)e;
        for (int32_t y = 0; y < h; y++) memcpy(d + (size_t)y * e, s + (ptrdiff_t)y * ss, e);
    }
}

void ic_transpose1_c(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds, int32_t w, int32_t h) {
    transpose(src, ss, dst, ds, w, h, 1);
}
void ic_transpose2_c(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds, int32_t w, int32_t h) {
    transpose(src, ss, dst, ds, w, h, 2);
}
void ic_transpose3_c(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds, int32_t w, int32_t h) {
    transpose(src, ss, dst, ds, w, h, 3);
}
void ic_transpose4_c(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds, int32_t w, int32_t h) {
    transpose(src, ss, dst, ds, w, h, 4);
}
