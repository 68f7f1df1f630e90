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
 * | RGB8 / RGBA8 → GRAY8 | full-range BT.601 luma (19595 R + 38470 G + 7471 B + 32768) >> 16, within 1 LSB of 0.299 R + 0.587 G + 0.114 B; alpha ignored |
 * | same format | a copy |
 *
 * Rows in parallel bands; strides honoured, padding untouched; no memory allocated.
 * @return IC_ERR_INVALID_ARGUMENT for a bad descriptor, a size mismatch or overlapping
 *         images; IC_ERR_UNSUPPORTED for another format.
 */
IC_API ic_status ic_convert_channels(const ic_image *src, ic_image *dst);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_CHANNELS_H */
