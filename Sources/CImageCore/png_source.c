/* The PNG decoder's libspng context: limits set before the first chunk is read, the error
 * mapping, and the header check shared by probe, decode and stream. */
#include "png_internal.h"

#include <stdio.h>
#include <string.h>

/* The largest single inflated chunk (an iCCP profile, a zTXt text) is capped at this or at
 * max_memory, whichever is smaller: real ICC profiles are at most a few MiB. */
enum { MAX_INFLATED_CHUNK = 16 * 1024 * 1024 };

ic_status ic__png_limits(const ic_png_decode_options *o, ic_png_limits *out) {
    memset(out, 0, sizeof *out);
    out->max_pixels = o && o->max_pixels ? o->max_pixels : IC_PNG_DEFAULT_MAX_PIXELS;
    out->max_memory = o && o->max_memory ? o->max_memory : IC_PNG_DEFAULT_MAX_MEMORY;
    out->strict = o && (o->flags & IC_PNG_STRICT);
    out->min_valid_permille = o && o->min_valid_permille ? o->min_valid_permille : 500;
    if (o && (o->band_rows < 0 || o->min_valid_permille > 1000 || (o->flags & ~(uint32_t)IC_PNG_STRICT)))
        return IC_ERR_INVALID_ARGUMENT;
    return IC_OK;
}

spng_ctx *ic__png_open(const uint8_t *data, size_t size, const ic_png_limits *limits) {
    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) return NULL;
    size_t cache = limits->max_memory > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)limits->max_memory;
    size_t chunk = cache < MAX_INFLATED_CHUNK ? cache : MAX_INFLATED_CHUNK;
    /* The stored-chunk count keeps libspng's default (IC_PNG_MAX_CHUNKS; see png.h). Each setter only fails on a NULL context or bad values, neither possible here; a failed
     * setter would leave libspng's (unlimited) default, so they are checked anyway. */
    if (spng_set_image_limits(ctx, IC_MAX_DIMENSION, IC_MAX_DIMENSION) ||
        spng_set_chunk_limits(ctx, chunk, cache) ||
        spng_set_crc_action(ctx, SPNG_CRC_ERROR, limits->strict ? SPNG_CRC_ERROR : SPNG_CRC_DISCARD) ||
        spng_set_png_buffer(ctx, data, size)) {
        spng_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

ic_status ic__png_status(int e) {
    switch (e) {
    case 0: return IC_OK;
    case SPNG_EMEM: return IC_ERR_OUT_OF_MEMORY;
    case SPNG_ECHUNK_LIMITS:
    case SPNG_EUSER_WIDTH:
    case SPNG_EUSER_HEIGHT:
    case SPNG_EOVERFLOW: return IC_ERR_TOO_LARGE;
    default: return IC_ERR_CORRUPT_DATA;
    }
}

void ic__png_message(char *message, size_t n, const char *what, int e) {
    if (message && n) snprintf(message, n, "%s: %s", what, spng_strerror(e));
}

ic_status ic__png_header(spng_ctx *ctx, const ic_png_limits *limits, struct spng_ihdr *ihdr,
                         char *message, size_t message_size) {
    int e = spng_get_ihdr(ctx, ihdr);
    if (e) {
        ic__png_message(message, message_size, "PNG header", e);
        return ic__png_status(e);
    }
    /* libspng checked 1 <= width, height <= IC_MAX_DIMENSION (the image limits above). */
    if ((uint64_t)ihdr->width * ihdr->height > limits->max_pixels) {
        if (message && message_size)
            snprintf(message, message_size, "%ux%u PNG is above the limit of %llu pixels", ihdr->width,
                     ihdr->height, (unsigned long long)limits->max_pixels);
        return IC_ERR_TOO_LARGE;
    }
    return IC_OK;
}
