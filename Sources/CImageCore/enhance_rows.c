/* Scalar reference row kernels of page enhancement (enhance_internal.h). */
#include "enhance_internal.h"
#include "row.h"

static inline uint8_t map_value(float v, float inv, float b, float scale) {
    float o = (v * inv - b) * scale + 0.5f;
    return !(o > 0) ? 0 : o >= 255 ? 255 : (uint8_t)o; /* NaN -> 0, never converted */
}

void ic_enhance_gray_row_c(const uint8_t *src, uint8_t *dst, const float *inv, int32_t n, float b,
                           float scale) {
    for (int32_t i = 0; i < n; i++) dst[i] = map_value(src[i], inv[i], b, scale);
}

void ic_enhance_rgba_row_c(uint8_t *px, const float *inv, int32_t n, float b, float scale, int gray) {
    for (int32_t i = 0; i < n; i++, px += 4) {
        if (gray) {
            uint8_t v = map_value((float)ic__luma(px[0], px[1], px[2]), inv[i], b, scale);
            px[0] = px[1] = px[2] = v;
        } else {
            for (int c = 0; c < 3; c++) px[c] = map_value(px[c], inv[i], b, scale);
        }
    }
}

void ic_enhance_rgba_color_row_c(uint8_t *px, const float *inv, int32_t n, float b, float scale) {
    ic_enhance_rgba_row_c(px, inv, n, b, scale, 0);
}

