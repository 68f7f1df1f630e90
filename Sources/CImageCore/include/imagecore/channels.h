/**
 * @file imagecore/channels.h
 * @brief Channel-layout conversions between GRAY8, RGB8 and RGBA8.
 *
 * Included by imagecore.h; may also be included on its own.
 */
#ifndef IMAGECORE_CHANNELS_H
#define IMAGECORE_CHANNELS_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Converts `src` into `dst` (same size; formats GRAY8, RGB8 or RGBA8, different or equal):
 *
 * | src → dst | each pixel |
 * |---|---|
 * | GRAY8 → RGB8 / RGBA8 | (g, g, g[, 255]) |
 * | RGB8 → RGBA8 | (r, g, b, 255) |
 * | RGBA8 → RGB8 | (r, g, b): alpha dropped (premultiplied colour as stored) |
 * | RGB8 / RGBA8 → GRAY8 | the library's luma, BT.601 full range: (9798 R + 19235 G + 3735 B + 16384) >> 15, within 0.503 of 0.299 R + 0.587 G + 0.114 B and equal to the Y of ::ic_rgb_to_yuv (BT.601, full range); alpha ignored |
 * | same format | a copy |
 *
 * Rows in parallel bands; strides honoured, padding untouched; no memory allocated.
 * @param src  a valid GRAY8, RGB8 or RGBA8 image.
 * @param dst  a valid GRAY8, RGB8 or RGBA8 image of the same size, sharing no byte with `src`.
 * @return IC_ERR_INVALID_ARGUMENT for a bad descriptor, a size mismatch or overlapping
 *         images; IC_ERR_UNSUPPORTED for another format.
 */
IC_API ic_status ic_convert_channels(const ic_image *src, ic_image *dst);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_CHANNELS_H */
