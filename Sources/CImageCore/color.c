/* ICC conversion to sRGB on Little CMS: one 8-bit transform per call, made without the
 * one-pixel cache (cmsFLAGS_NOCACHE) so that worker threads may share it, applied in bands of
 * rows through ic_parallel_for with cmsDoTransformLineStride, in place. */
#include "color_internal.h"
#include "internal.h"
#include "planar.h"

#include <stdlib.h>

#include <lcms2.h>

typedef struct icc_job {
    cmsHTRANSFORM transform;
    ic_image *image;
    uint32_t bpp;
} icc_job;

static void icc_rows(void *context, int64_t begin, int64_t end) {
    const icc_job *j = (const icc_job *)context;
    uint8_t *row = j->image->planes[0].data + (size_t)begin * j->image->planes[0].stride;
    const cmsUInt32Number stride = (cmsUInt32Number)j->image->planes[0].stride;
    /* In place: input and output formats have the same size. */
    cmsDoTransformLineStride(j->transform, row, row, (cmsUInt32Number)j->image->width,
                             (cmsUInt32Number)(end - begin), stride, stride, 0, 0);
}

ic_status ic_icc_convert_to_srgb(const uint8_t *profile, size_t size, ic_image *image, ic_icc_intent intent) {
    if (!profile || !size || size > 0xFFFFFFFFu || (unsigned)intent > IC_ICC_ABSOLUTE_COLORIMETRIC)
        return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    if (image->format != IC_FORMAT_RGB8 && image->format != IC_FORMAT_RGBA8) return IC_ERR_UNSUPPORTED;
    if (image->format == IC_FORMAT_RGBA8 && image->alpha == IC_ALPHA_PREMULTIPLIED) return IC_ERR_UNSUPPORTED;
    if (image->planes[0].stride > 0xFFFFFFFFu) return IC_ERR_TOO_LARGE;
    cmsHPROFILE in = cmsOpenProfileFromMem(profile, (cmsUInt32Number)size);
    if (!in) return IC_ERR_CORRUPT_DATA;
    if (cmsGetColorSpace(in) != cmsSigRgbData) {
        cmsCloseProfile(in);
        return IC_ERR_UNSUPPORTED;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (!srgb) {
        cmsCloseProfile(in);
        return IC_ERR_OUT_OF_MEMORY;
    }
    const cmsUInt32Number type = image->format == IC_FORMAT_RGBA8 ? TYPE_RGBA_8 : TYPE_RGB_8;
    const cmsUInt32Number flags = cmsFLAGS_NOCACHE | (image->format == IC_FORMAT_RGBA8 ? cmsFLAGS_COPY_ALPHA : 0);
    cmsHTRANSFORM t = cmsCreateTransform(in, type, srgb, type, (cmsUInt32Number)intent, flags);
    cmsCloseProfile(in);
    cmsCloseProfile(srgb);
    if (!t) return IC_ERR_CORRUPT_DATA;
    icc_job j = {t, image, image->format == IC_FORMAT_RGBA8 ? 4u : 3u};
    const size_t row_bytes = (size_t)image->width * j.bpp;
    ic__settings set = ic__settings_read(); /* once per call (internal.h) */
    ic__settings_limit_work(&set, 2 * ic__image_bytes(image)); /* read and written in place */
    st = ic__parallel_for(&set, image->height, ic__band_rows(row_bytes, 64 * 1024), icc_rows, &j);
    cmsDeleteTransform(t);
    return st;
}

/* ---- CMYK -> sRGB for the JPEG decoder (color_internal.h) ------------------------------- */

typedef struct cmyk_transform {
    cmsHTRANSFORM t;
    int channels;
} cmyk_transform;

ic_status ic__icc_cmyk_transform(const uint8_t *profile, size_t size, int inverted, int channels, void **transform) {
    *transform = NULL;
    if (!profile || !size || size > 0xFFFFFFFFu || (channels != 3 && channels != 4)) return IC_ERR_INVALID_ARGUMENT;
    cmsHPROFILE in = cmsOpenProfileFromMem(profile, (cmsUInt32Number)size);
    if (!in) return ic__refuse(IC_ERR_CORRUPT_DATA, "CMYK profile: Little CMS cannot read it");
    if (cmsGetColorSpace(in) != cmsSigCmykData) {
        cmsCloseProfile(in);
        return ic__refuse(IC_ERR_UNSUPPORTED, "CMYK profile: its colour space is not CMYK");
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (!srgb) {
        cmsCloseProfile(in);
        return IC_ERR_OUT_OF_MEMORY;
    }
    cmyk_transform *c = (cmyk_transform *)malloc(sizeof *c);
    if (!c) {
        cmsCloseProfile(in);
        cmsCloseProfile(srgb);
        return IC_ERR_OUT_OF_MEMORY;
    }
    /* TYPE_CMYK_8_REV: Little CMS reads 255 - ink (Adobe's storage), as jpgicc does. */
    c->t = cmsCreateTransform(in, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, srgb, channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8,
                              INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
    c->channels = channels;
    cmsCloseProfile(in);
    cmsCloseProfile(srgb);
    if (!c->t) {
        free(c);
        return ic__refuse(IC_ERR_CORRUPT_DATA, "CMYK profile: Little CMS cannot build a transform to sRGB");
    }
    *transform = c;
    return IC_OK;
}

void ic__icc_cmyk_row(void *transform, const uint8_t *cmyk, uint8_t *dst, size_t n) {
    const cmyk_transform *c = (const cmyk_transform *)transform;
    cmsDoTransform(c->t, cmyk, dst, (cmsUInt32Number)n);
    if (c->channels == 4)
        for (size_t i = 0; i < n; i++) dst[4 * i + 3] = 255; /* Little CMS leaves the extra channel alone */
}

void ic__icc_transform_free(void *transform) {
    cmyk_transform *c = (cmyk_transform *)transform;
    if (!c) return;
    cmsDeleteTransform(c->t);
    free(c);
}
