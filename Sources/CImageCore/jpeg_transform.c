/* Lossless JPEG rotate / flip (ic_jpeg_transform): TurboJPEG's tjTransform moves the DCT
 * coefficients; this file checks the request and the limits from the header first, decides
 * the iMCU-edge rule itself (so the refusal can say what a trim would drop) and rewrites the
 * copied EXIF orientation tag in place.
 *
 * The one place the library calls TurboJPEG (tj*) rather than libjpeg: the coefficient
 * transforms (transupp.c) are not part of libjpeg's API, and TurboJPEG is their maintained
 * public entry point in the same libjpeg-turbo package. */
#include "jpeg_internal.h"

#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* EXIF orientation (what to apply to the stored pixels) -> TurboJPEG's operation. */
static const int op_for_orientation[9] = {
    0, TJXOP_NONE, TJXOP_HFLIP, TJXOP_ROT180, TJXOP_VFLIP,
    TJXOP_TRANSPOSE, TJXOP_ROT90, TJXOP_TRANSVERSE, TJXOP_ROT270
};

/* Whether the operation moves the source's right edge (its partial iMCU column would land
 * inside the image) / its bottom edge: transupp.c's jtransform_perfect_transform. */
static int moves_right(int o) { return o == 2 || o == 3 || o == 7 || o == 8; }
static int moves_bottom(int o) { return o == 3 || o == 4 || o == 6 || o == 7; }

static void imcu_size(ic_jpeg_subsampling s, int32_t *w, int32_t *h) {
    switch (s) {
    case IC_JPEG_SUBSAMP_444: case IC_JPEG_SUBSAMP_GRAY: *w = 8; *h = 8; break;
    case IC_JPEG_SUBSAMP_422: *w = 16; *h = 8; break;
    case IC_JPEG_SUBSAMP_420: *w = 16; *h = 16; break;
    case IC_JPEG_SUBSAMP_440: *w = 8; *h = 16; break;
    case IC_JPEG_SUBSAMP_411: *w = 32; *h = 8; break;
    default: *w = 0; *h = 0; break; /* unnamed sampling: tjTransform's own TJXOPT_PERFECT decides */
    }
}

ic_status ic_jpeg_transform(const uint8_t *data, size_t size, const ic_jpeg_transform_options *options,
                            uint8_t **out, size_t *out_size, ic_jpeg_transform_result *result) {
    ic_jpeg_transform_result r;
    memset(&r, 0, sizeof r);
    if (result) *result = r;
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!options || !out || !out_size || (!data && size > 0))
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "jpeg transform: null argument");
    const int o = options->orientation;
    if (o < 1 || o > 8) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "jpeg transform: orientation %d not in 1...8", o);
    if (options->flags & ~(uint32_t)IC_JPEG_TRANSFORM_TRIM)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "jpeg transform: unknown flags 0x%x", options->flags);
    if (options->exif_orientation < 0 || options->exif_orientation > 8)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "jpeg transform: exif_orientation %d not in 0...8", options->exif_orientation);
    /* tjTransform takes an unsigned long size. */
    if (size > (size_t)(unsigned long)-1) return ic__refuse(IC_ERR_TOO_LARGE, "jpeg transform: %zu bytes", size);

    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    if (st != IC_OK) return st;
    const uint64_t max_pixels = options->max_pixels ? options->max_pixels : (uint64_t)IC_JPEG_DEFAULT_MAX_PIXELS;
    const uint64_t max_memory = options->max_memory ? options->max_memory : (uint64_t)IC_JPEG_TRANSFORM_DEFAULT_MAX_MEMORY;
    const uint64_t pixels = (uint64_t)info.width * (uint64_t)info.height;
    if (pixels > max_pixels)
        return ic__refuse(IC_ERR_TOO_LARGE, "jpeg transform: %dx%d is above the limit of %llu pixels", info.width,
                          info.height, (unsigned long long)max_pixels);
    /* Coefficients: 2 bytes a sample, blocks padded to 16 px (the largest common iMCU; 4:1:1's
     * 32 px width is covered by the full-resolution bound on chroma), source and destination. */
    const uint64_t padded = (((uint64_t)info.width + 31) & ~(uint64_t)31) * (((uint64_t)info.height + 15) & ~(uint64_t)15);
    const uint64_t coefficients = 2 * padded * 2 * (uint64_t)info.components;
    if (coefficients > max_memory)
        return ic__refuse(IC_ERR_TOO_LARGE, "jpeg transform: %dx%d needs about %llu bytes of coefficients, above %llu",
                          info.width, info.height, (unsigned long long)coefficients, (unsigned long long)max_memory);

    imcu_size(info.subsampling, &r.imcu_width, &r.imcu_height);
    if (r.imcu_width > 0) {
        r.dropped_columns = moves_right(o) ? info.width % r.imcu_width : 0;
        r.dropped_rows = moves_bottom(o) ? info.height % r.imcu_height : 0;
        r.perfect = r.dropped_columns == 0 && r.dropped_rows == 0;
    }
    /* An edge the operation moves that is shorter than one iMCU cannot be trimmed (nothing
     * would be left) and tjTransform would keep it, shifting the padding into view: refused,
     * trim or not. */
    if (r.imcu_width > 0 && ((r.dropped_columns > 0 && info.width < r.imcu_width) ||
                             (r.dropped_rows > 0 && info.height < r.imcu_height))) {
        if (result) *result = r;
        return ic__refuse(IC_ERR_UNSUPPORTED,
                          "jpeg transform: orientation %d of %dx%d: a moved edge is shorter than one %dx%d iMCU, so no "
                          "lossless result exists (a trim would drop the whole image)",
                          o, info.width, info.height, r.imcu_width, r.imcu_height);
    }
    const int trim = (options->flags & IC_JPEG_TRANSFORM_TRIM) != 0;
    if (r.imcu_width > 0 && !r.perfect && !trim) {
        if (result) *result = r;
        return ic__refuse(IC_ERR_UNSUPPORTED,
                          "jpeg transform: orientation %d of %dx%d: not a whole %dx%d iMCU; --trim drops %d right columns, %d bottom rows",
                          o, info.width, info.height, r.imcu_width, r.imcu_height, r.dropped_columns, r.dropped_rows);
    }

    tjhandle tj = tjInitTransform();
    if (!tj) return ic__refuse(IC_ERR_OUT_OF_MEMORY, "jpeg transform: tjInitTransform failed");
    tjtransform xf;
    memset(&xf, 0, sizeof xf);
    xf.op = op_for_orientation[o];
    xf.options = trim ? TJXOPT_TRIM : TJXOPT_PERFECT;
    if (info.progressive) xf.options |= TJXOPT_PROGRESSIVE;
    unsigned char *dst = NULL; /* TurboJPEG allocates (tjAlloc is malloc, so ic_jpeg_free frees it) */
    unsigned long dst_size = 0;
    const int rc = tjTransform(tj, data, (unsigned long)size, 1, &dst, &dst_size, &xf,
                               TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS);
    if (rc != 0) {
        const char *why = tjGetErrorStr2(tj);
        st = strstr(why, "perfect") ? IC_ERR_UNSUPPORTED
           : strstr(why, "scans") ? IC_ERR_TOO_LARGE
           : strstr(why, "memory") ? IC_ERR_OUT_OF_MEMORY : IC_ERR_CORRUPT_DATA;
        st = ic__refuse(st, "jpeg transform: %s", why);
        tjDestroy(tj);
        tjFree(dst);
        if (result) *result = r;
        return st;
    }
    tjDestroy(tj);

    ic_jpeg_info done;
    st = ic_jpeg_probe(dst, dst_size, &done);
    if (st != IC_OK) {
        tjFree(dst);
        return ic__refuse(IC_ERR_INTERNAL, "jpeg transform: the output does not probe");
    }
    if (options->exif_orientation > 0 && done.exif_length > 0 &&
        (uint64_t)done.exif_offset + done.exif_length <= dst_size)
        r.exif_rewritten = ic_exif_set_orientation(dst + done.exif_offset, done.exif_length, options->exif_orientation);
    r.width = done.width;
    r.height = done.height;
    if (result) *result = r;
    *out = dst;
    *out_size = dst_size;
    return IC_OK;
}
