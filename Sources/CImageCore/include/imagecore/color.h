/**
 * @file imagecore/color.h
 * @brief Colour-profile conversion to sRGB with Little CMS (lcms2), in caller memory.
 *        Included by imagecore.h.
 */
#ifndef IMAGECORE_COLOR_H
#define IMAGECORE_COLOR_H

#include "../imagecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** ICC rendering intents (the ICC / Little CMS values). */
typedef enum ic_icc_intent {
    IC_ICC_PERCEPTUAL = 0,             /**< The default of Little CMS's tificc / jpgicc. */
    IC_ICC_RELATIVE_COLORIMETRIC = 1,
    IC_ICC_SATURATION = 2,
    IC_ICC_ABSOLUTE_COLORIMETRIC = 3
} ic_icc_intent;

/**
 * Converts `image` in place from the colour space described by the ICC profile
 * `profile[0..size)` to sRGB (Little CMS's built-in sRGB profile), with `intent`. RGB8 and
 * RGBA8 (alpha copied unchanged; colour converted as stored, so premultiplied input is refused)
 * with an RGB profile. The transform is made once (8-bit, Little CMS's optimised pipeline,
 * exactly the transform `cmsCreateTransform(profile, TYPE_RGB_8, sRGB, TYPE_RGB_8, intent,
 * cmsFLAGS_NOCACHE)` gives, which is what tificc runs) and applied to bands of rows in parallel
 * through ::ic_parallel_for; the pixels never leave the caller's buffer. Padding bytes are not
 * touched. Scratch: Little CMS's transform (its lookup tables), freed before return.
 * @param profile the ICC profile's bytes (e.g. from ::ic_jpeg_icc_profile or ::ic_png_icc_profile).
 * @param size    bytes at `profile`, 1 .. 2^32 - 1.
 * @param image   RGB8 or RGBA8 (straight or opaque), converted in place.
 * @param intent  the rendering intent (::IC_ICC_PERCEPTUAL, tificc's default).
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT (bad descriptor, null profile, unknown intent),
 *         IC_ERR_CORRUPT_DATA (Little CMS cannot read the profile or build the transform),
 *         IC_ERR_UNSUPPORTED (another pixel format, premultiplied alpha, or a profile whose
 *         colour space is not RGB, e.g. gray or CMYK), IC_ERR_OUT_OF_MEMORY.
 */
IC_API ic_status ic_icc_convert_to_srgb(const uint8_t *profile, size_t size, ic_image *image, ic_icc_intent intent);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IMAGECORE_COLOR_H */
