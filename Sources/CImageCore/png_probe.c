/* PNG probe: libspng reads IHDR and the chunks before the first IDAT (inflating iCCP within
 * the limits); a walk of our own over the chunk headers finds eXIf wherever it is. */
#include "png_internal.h"

#include <string.h>

static const uint8_t SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int32_t ic__png_exif_orientation(const uint8_t *data, size_t size, int32_t *has_exif, size_t *offset,
                                 size_t *length) {
    if (has_exif) *has_exif = 0;
    if (offset) *offset = 0;
    if (length) *length = 0;
    if (!data || size < 8 || memcmp(data, SIGNATURE, 8) != 0) return 0;
    size_t pos = 8;
    while (size - pos >= 12) { /* length, type, (data), CRC */
        const uint32_t len = be32(data + pos);
        const uint8_t *type = data + pos + 4;
        if (len > 0x7FFFFFFFu || size - pos - 12 < len) return 0; /* bad or truncated chunk */
        if (memcmp(type, "eXIf", 4) == 0) {
            if (has_exif) *has_exif = 1;
            if (offset) *offset = pos + 8;
            if (length) *length = len;
            return ic_exif_orientation(data + pos + 8, len);
        }
        if (memcmp(type, "IEND", 4) == 0) return 0;
        pos += 12 + (size_t)len;
    }
    return 0;
}

typedef struct probe_result {
    ic_png_info info;
    const char *icc;      /* libspng's copy, valid until the context is freed */
    size_t icc_size;
} probe_result;

/* Reads everything the probe reports into `r` (the context must stay alive for r->icc). */
static ic_status probe(spng_ctx *ctx, const uint8_t *data, size_t size, probe_result *r) {
    struct spng_ihdr ihdr;
    int e = spng_get_ihdr(ctx, &ihdr); /* no pixel limit here: the probe reports big images */
    if (e) return ic__png_status(e);
    e = spng_decode_chunks(ctx); /* the chunks before the first IDAT */
    if (e) return ic__png_status(e);
    ic_png_info *info = &r->info;
    info->width = (int32_t)ihdr.width;
    info->height = (int32_t)ihdr.height;
    info->bit_depth = ihdr.bit_depth;
    info->color_type = (ic_png_color_type)ihdr.color_type;
    info->interlaced = ihdr.interlace_method ? 1 : 0;
    struct spng_trns trns;
    info->has_trns = spng_get_trns(ctx, &trns) == 0;
    info->has_alpha = info->has_trns || ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ||
                      ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    struct spng_iccp iccp;
    if (spng_get_iccp(ctx, &iccp) == 0 && iccp.profile_len > 0 && iccp.profile_len <= UINT32_MAX) {
        info->has_icc = 1;
        info->icc_size = (uint32_t)iccp.profile_len;
        r->icc = iccp.profile;
        r->icc_size = iccp.profile_len;
    }
    uint8_t intent = 0;
    if (spng_get_srgb(ctx, &intent) == 0) {
        info->has_srgb = 1;
        info->srgb_intent = intent;
    }
    uint32_t gamma = 0;
    if (spng_get_gama_int(ctx, &gamma) == 0) {
        info->has_gamma = 1;
        info->gamma = gamma;
    }
    size_t exif_offset = 0, exif_length = 0;
    const int32_t o = ic__png_exif_orientation(data, size, &info->has_exif, &exif_offset, &exif_length);
    info->orientation = o ? o : 1;
    /* a chunk past 4 GiB into the file is not reported (the pixels still decode) */
    if (exif_offset <= UINT32_MAX && exif_length <= UINT32_MAX) {
        info->exif_offset = (uint32_t)exif_offset;
        info->exif_length = (uint32_t)exif_length;
    }
    return IC_OK;
}

static ic_status with_probe(const uint8_t *data, size_t size, probe_result *r, spng_ctx **ctx_out) {
    memset(r, 0, sizeof *r);
    *ctx_out = NULL;
    if (size < 8 || memcmp(data, SIGNATURE, 8) != 0) return IC_ERR_CORRUPT_DATA; /* cheap rejection */
    ic_png_limits limits;
    (void)ic__png_limits(NULL, &limits);
    spng_ctx *ctx = ic__png_open(data, size, &limits);
    if (!ctx) return IC_ERR_OUT_OF_MEMORY;
    ic_status st = probe(ctx, data, size, r);
    if (st != IC_OK) {
        spng_ctx_free(ctx);
        return st;
    }
    *ctx_out = ctx;
    return IC_OK;
}

ic_status ic_png_probe(const uint8_t *data, size_t size, ic_png_info *out) {
    if (!out || (!data && size)) return IC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    probe_result r;
    spng_ctx *ctx;
    ic_status st = with_probe(data, size, &r, &ctx);
    if (st != IC_OK) return st;
    *out = r.info;
    spng_ctx_free(ctx);
    return IC_OK;
}

ic_status ic_png_icc_profile(const uint8_t *data, size_t size, uint8_t *out, size_t capacity,
                             size_t *profile_size) {
    if (!profile_size || (!data && size) || (!out && capacity)) return IC_ERR_INVALID_ARGUMENT;
    *profile_size = 0;
    probe_result r;
    spng_ctx *ctx;
    ic_status st = with_probe(data, size, &r, &ctx);
    if (st != IC_OK) return st;
    *profile_size = r.icc_size;
    if (r.icc_size > capacity) st = IC_ERR_BUFFER_TOO_SMALL;
    else if (r.icc_size) memcpy(out, r.icc, r.icc_size);
    spng_ctx_free(ctx);
    return st;
}
