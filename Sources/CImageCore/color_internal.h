/* Private declarations of the colour family (color.c): the CMYK -> sRGB transform the JPEG
 * decoder runs row by row for a CMYK or YCCK file with a CMYK profile. */
#ifndef IMAGECORE_COLOR_INTERNAL_H
#define IMAGECORE_COLOR_INTERNAL_H

#include "internal.h"

/* A Little CMS transform from `profile` (CMYK, as libjpeg outputs it: `inverted` for Adobe
 * files, which store 255 - ink) to sRGB, 3 (RGB8) or 4 (RGBA8, alpha written 255) bytes a
 * pixel, perceptual intent, without the one-pixel cache. IC_ERR_CORRUPT_DATA for a profile
 * Little CMS cannot read or build a transform from, IC_ERR_UNSUPPORTED for one whose colour
 * space is not CMYK, IC_ERR_INVALID_ARGUMENT for a null profile or a size of 0 or >= 2^32. */
IC_INTERNAL ic_status ic__icc_cmyk_transform(const uint8_t *profile, size_t size, int inverted, int channels,
                                             void **transform);
/* n pixels of CMYK at `cmyk` to `dst` (the transform's channels). */
IC_INTERNAL void ic__icc_cmyk_row(void *transform, const uint8_t *cmyk, uint8_t *dst, size_t n);
/* Frees a transform; NULL is ignored. */
IC_INTERNAL void ic__icc_transform_free(void *transform);

#endif
