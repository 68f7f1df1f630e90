/* Scaled sizes (libjpeg's M/8 arithmetic) and the choice of a scale for a target size. */
#include "jpeg_internal.h"


static int32_t scaled(int32_t size, int32_t num) {
    /* libjpeg's jdiv_round_up(size * num, 8); size <= 65535, so no overflow in 64 bits. */
    return (int32_t)(((int64_t)size * num + 7) / 8);
}

ic_status ic_jpeg_scaled_size(int32_t width, int32_t height, int32_t scale_num,
                              int32_t *scaled_width, int32_t *scaled_height) {
    if (!scaled_width || !scaled_height) return IC_ERR_INVALID_ARGUMENT;
    if (width < 1 || height < 1 || scale_num < 1 || scale_num > 8) return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    *scaled_width = scaled(width, scale_num);
    *scaled_height = scaled(height, scale_num);
    return IC_OK;
}

ic_status ic_jpeg_pick_scale(int32_t width, int32_t height, int32_t target_width,
                             int32_t target_height, double min_residual, int32_t *scale_num) {
    if (!scale_num) return IC_ERR_INVALID_ARGUMENT;
    if (width < 1 || height < 1 || target_width < 0 || target_height < 0 ||
        (target_width == 0 && target_height == 0))
        return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    if (!(min_residual >= 1.0)) min_residual = 1.0; /* also catches NaN */
    if (min_residual > 65536.0) min_residual = 65536.0;
    /* A scaled side s covers target t with residual r when s >= t * r (no libm needed). */
    const double need_w = (double)target_width * min_residual;
    const double need_h = (double)target_height * min_residual;
    for (int32_t m = 1; m < 8; m++) {
        if ((double)scaled(width, m) >= need_w && (double)scaled(height, m) >= need_h) {
            *scale_num = m;
            return IC_OK;
        }
    }
    *scale_num = 8;
    return IC_OK;
}
