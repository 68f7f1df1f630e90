/* Minimal JPEG header read through TurboJPEG (no pixels decoded). The codec builds its
 * full probe (EXIF, ICC, progressive, restart interval) on libjpeg's own API. */
#include "internal.h"

#include <turbojpeg.h>

static ic_jpeg_subsampling map_subsampling(int s) {
    switch (s) {
    case TJSAMP_444: return IC_JPEG_SUBSAMP_444;
    case TJSAMP_422: return IC_JPEG_SUBSAMP_422;
    case TJSAMP_420: return IC_JPEG_SUBSAMP_420;
    case TJSAMP_GRAY: return IC_JPEG_SUBSAMP_GRAY;
    case TJSAMP_440: return IC_JPEG_SUBSAMP_440;
    case TJSAMP_411: return IC_JPEG_SUBSAMP_411;
    default: return IC_JPEG_SUBSAMP_UNKNOWN;
    }
}

static ic_jpeg_colorspace map_colorspace(int c) {
    switch (c) {
    case TJCS_RGB: return IC_JPEG_CS_RGB;
    case TJCS_YCbCr: return IC_JPEG_CS_YCBCR;
    case TJCS_GRAY: return IC_JPEG_CS_GRAY;
    case TJCS_CMYK: return IC_JPEG_CS_CMYK;
    case TJCS_YCCK: return IC_JPEG_CS_YCCK;
    default: return IC_JPEG_CS_UNKNOWN;
    }
}

ic_status ic_jpeg_read_header(const uint8_t *data, size_t size, ic_jpeg_header *out) {
    if (!out || (!data && size)) return IC_ERR_INVALID_ARGUMENT;
    /* Cheap rejection before creating a handle: a JPEG starts with SOI (FF D8). */
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return IC_ERR_CORRUPT_DATA;
    if (size > (size_t)0xffffffffu) return IC_ERR_TOO_LARGE; /* tj takes unsigned long */
    tjhandle h = tjInitDecompress();
    if (!h) return IC_ERR_OUT_OF_MEMORY;
    int w = 0, hgt = 0, ss = -1, cs = -1;
    int rc = tjDecompressHeader3(h, data, (unsigned long)size, &w, &hgt, &ss, &cs);
    tjDestroy(h);
    if (rc != 0 || w < 1 || hgt < 1) return IC_ERR_CORRUPT_DATA;
    out->width = w;
    out->height = hgt;
    out->colorspace = map_colorspace(cs);
    out->subsampling = map_subsampling(ss);
    return IC_OK;
}
