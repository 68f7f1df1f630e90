/* Scalar row kernels of the JPEG codec: chroma resampled to 4:2:0 and CMYK to RGB/RGBA/gray.
 * (U/V interleave and de-interleave for NV12 are the row layer's, row.h.) */
#include "jpeg_internal.h"
#include "row.h"

/* ---- chroma to 4:2:0 -------------------------------------------------------------------- */

void ic_jpeg_chroma420_row_c(const uint8_t *a, const uint8_t *b, uint8_t *out, int32_t x0, int32_t n,
                             int rh, int32_t width) {
    if (rh == 2) { /* 4:2:2: the samples are already at 4:2:0 columns */
        for (int32_t i = 0; i < n; i++) out[i] = (uint8_t)((a[x0 + i] + b[x0 + i] + 1) >> 1);
    } else if (rh == 4) { /* 4:1:1: each sample covers two 4:2:0 columns */
        for (int32_t i = 0; i < n; i++) out[i] = (uint8_t)((a[(x0 + i) / 2] + b[(x0 + i) / 2] + 1) >> 1);
    } else { /* full-width chroma: 2x2 (4:4:4; for 4:4:0 a == b, the pair mean) */
        int32_t full = n;
        if (2 * (x0 + n - 1) + 1 >= width) full = n - 1; /* odd width: the last pair is one sample */
        for (int32_t i = 0; i < full; i++) {
            const int32_t x = 2 * (x0 + i);
            out[i] = (uint8_t)((a[x] + a[x + 1] + b[x] + b[x + 1] + 2) >> 2);
        }
        if (full < n) {
            const int32_t x = 2 * (x0 + full);
            out[full] = (uint8_t)((2 * a[x] + 2 * b[x] + 2) >> 2);
        }
    }
}

/* ---- CMYK ---------------------------------------------------------------------------- */

/* round(x / 255) for 0 <= x <= 255 * 255, exactly (no ties: 255 is odd). */
static inline uint32_t div255(uint32_t x) {
    x += 128;
    return (x + (x >> 8)) >> 8;
}

void ic_jpeg_cmyk_row_c(const uint8_t *cmyk, uint8_t *dst, size_t n, int channels, int inverted) {
    /* Adobe files store 255 - ink; others store ink. Either way "amount of light" is c' k'. */
    const uint32_t flip = inverted ? 0 : 255;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = cmyk + 4 * i;
        const uint32_t k = flip ^ s[3];
        const uint32_t r = div255((flip ^ s[0]) * k);
        const uint32_t g = div255((flip ^ s[1]) * k);
        const uint32_t b = div255((flip ^ s[2]) * k);
        if (channels == 1) {
            dst[i] = ic__luma(r, g, b);
        } else {
            uint8_t *d = dst + (size_t)channels * i;
            d[0] = (uint8_t)r;
            d[1] = (uint8_t)g;
            d[2] = (uint8_t)b;
            if (channels == 4) d[3] = 255;
        }
    }
}
