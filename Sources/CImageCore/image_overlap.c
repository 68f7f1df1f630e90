/* Byte extents of planes, compared pairwise (at most 3 x 3). */
#include "image_overlap.h"

static void extent(const ic_image *im, int32_t p, uintptr_t *lo, uintptr_t *hi) {
    *lo = (uintptr_t)im->planes[p].data;
    *hi = *lo + im->planes[p].stride * (size_t)(ic__plane_rows(im->format, im->height, p) - 1) +
          ic__row_bytes(im->format, im->width, p);
}

int ic__images_overlap(const ic_image *a, const ic_image *b) {
    for (int32_t p = 0; p < ic_format_plane_count(a->format); p++) {
        uintptr_t a0, a1;
        extent(a, p, &a0, &a1);
        for (int32_t q = 0; q < ic_format_plane_count(b->format); q++) {
            uintptr_t b0, b1;
            extent(b, q, &b0, &b1);
            if (a0 < b1 && b0 < a1) return 1;
        }
    }
    return 0;
}
