/* C99 host of the installed library: copies a padded RGBA image with ic_plane_copy and
 * ic_image_copy and checks every byte, padding included. Exit 0 on success. */
#include <imagecore.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 333, H = 77, PAD = 19, SENT = 0xA5 };

/* Rows equal to src, padding still the sentinel. */
static int check(const uint8_t *src, const uint8_t *dst, size_t row_bytes, size_t stride) {
    size_t y, x;
    for (y = 0; y < H; y++)
        for (x = 0; x < stride; x++) {
            uint8_t want = x < row_bytes ? src[y * stride + x] : (uint8_t)SENT;
            if (dst[y * stride + x] != want) {
                fprintf(stderr, "mismatch at row %zu byte %zu\n", y, x);
                return 0;
            }
        }
    return 1;
}

int main(void) {
    size_t row_bytes = 0, stride, size, i;
    int32_t rows = 0;
    uint8_t *src, *dst;
    ic_image s, d;
    int ok = 1;

    if (ic_plane_geometry(IC_FORMAT_RGBA8, W, H, 0, &row_bytes, &rows) != IC_OK ||
        row_bytes != 4 * W || rows != H)
        return 1;
    stride = row_bytes + PAD;
    size = stride * H;
    src = (uint8_t *)malloc(size);
    dst = (uint8_t *)malloc(size);
    if (!src || !dst) return 1;
    for (i = 0; i < size; i++) src[i] = (uint8_t)(i * 31u + 7u);

    memset(dst, SENT, size);
    ok &= ic_plane_copy(src, stride, dst, stride, row_bytes, H) == IC_OK;
    ok &= check(src, dst, row_bytes, stride);

    memset(&s, 0, sizeof s);
    s.format = IC_FORMAT_RGBA8;
    s.alpha = IC_ALPHA_STRAIGHT;
    s.width = W;
    s.height = H;
    s.planes[0].data = src;
    s.planes[0].stride = stride;
    d = s;
    d.planes[0].data = dst;
    memset(dst, SENT, size);
    ok &= ic_image_copy(&s, &d) == IC_OK;
    ok &= check(src, dst, row_bytes, stride);

    printf("host_c: %s (imagecore %s, backend %s)\n", ok ? "ok" : "FAILED", ic_version_string(),
           ic_parallel_backend());
    free(src);
    free(dst);
    return ok ? 0 : 1;
}
