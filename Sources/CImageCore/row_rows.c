/* Scalar reference kernels of the row layer (row.h). */
#include "row.h"

#include <string.h>

/* memcpy is the copy kernel: glibc already picks a vector version per CPU. */
void ic_row_copy_c(const uint8_t *src, uint8_t *dst, size_t n) { memcpy(dst, src, n); }

void ic_row_fill_c(uint8_t *dst, size_t n, const uint8_t *pattern, size_t size) {
    if (size == 1) { memset(dst, pattern[0], n); return; }
    size_t done = n < size ? n : size;
    memcpy(dst, pattern, done);
    while (done < n) { /* doubling: log2(n) memcpy calls */
        size_t k = done <= n - done ? done : n - done;
        memcpy(dst + done, dst, k);
        done += k;
    }
}

void ic_row_merge_uv_c(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uv[2 * i] = u[i];
        uv[2 * i + 1] = v[i];
    }
}

void ic_row_split_uv_c(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        u[i] = uv[2 * i];
        v[i] = uv[2 * i + 1];
    }
}

void ic_row_luma_c(const uint8_t *src, int channels, uint8_t *dst, size_t n) {
    for (size_t i = 0; i < n; i++, src += channels) dst[i] = ic__luma(src[0], src[1], src[2]);
}

void ic_row_lut_c(const uint8_t *src, uint8_t *dst, size_t n, const uint8_t lut[256]) {
    for (size_t i = 0; i < n; i++) dst[i] = lut[src[i]];
}
