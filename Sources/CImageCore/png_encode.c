/* PNG encode on libspng: 8-bit gray / RGB / RGBA rows handed to spng_encode_row one at a time
 * from the caller's image (libspng filters each into its own row buffers), bytes out through a
 * write callback: the caller's, a bounded buffer, or a growing malloc buffer. */
#include "png_internal.h"

#include <stdint.h>

#include <stdlib.h>
#include <string.h>

void ic_png_encode_options_init(ic_png_encode_options *options) {
    if (options) memset(options, 0, sizeof *options);
}

static int color_type_of(ic_format f) {
    switch (f) {
    case IC_FORMAT_GRAY8: return SPNG_COLOR_TYPE_GRAYSCALE;
    case IC_FORMAT_RGB8: return SPNG_COLOR_TYPE_TRUECOLOR;
    case IC_FORMAT_RGBA8: return SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    default: return -1;
    }
}

static ic_status check_options(const ic_png_encode_options *o) {
    if (!o) return IC_OK;
    if (o->compression_level < -1 || o->compression_level > 9) return IC_ERR_INVALID_ARGUMENT;
    if (o->filters & ~(uint32_t)IC_PNG_FILTER_ALL) return IC_ERR_INVALID_ARGUMENT;
    if (o->orientation < 0 || o->orientation > 8) return IC_ERR_INVALID_ARGUMENT;
    if ((!o->icc_profile && o->icc_size) || (!o->exif && o->exif_size)) return IC_ERR_INVALID_ARGUMENT;
    if (o->icc_size > 0x7FFFFFF0u || o->exif_size > 0x7FFFFFF0u) return IC_ERR_TOO_LARGE;
    return IC_OK;
}

/* eXIf holds a bare TIFF structure: the encoder's APP1 payload without "Exif\0\0". */
enum { EXIF_APP1_BYTES = 32, EXIF_HEADER = 6 };

ic_status ic_png_encode_bound(ic_format format, int32_t width, int32_t height,
                              const ic_png_encode_options *options, size_t *bound) {
    if (!bound) return IC_ERR_INVALID_ARGUMENT;
    *bound = 0;
    ic_status st = check_options(options);
    if (st != IC_OK) return st;
    size_t row_bytes;
    int32_t rows;
    if (color_type_of(format) < 0) return IC_ERR_UNSUPPORTED;
    if ((st = ic_plane_geometry(format, width, height, 0, &row_bytes, &rows)) != IC_OK) return st;
    const uint64_t raw = (uint64_t)(row_bytes + 1) * (uint64_t)rows; /* a filter byte per row */
    const uint64_t z = raw + (raw >> 12) + (raw >> 14) + (raw >> 25) + 13; /* zlib's compressBound */
    uint64_t total = 8 + 25 + 12               /* signature, IHDR, IEND */
                     + z + 12 * (z / 8192 + 2); /* IDAT chunks of at most 8 KiB each (libspng) */
    if (options && options->exif) total += 12 + options->exif_size;
    else if (options && options->orientation) total += 12 + EXIF_APP1_BYTES - EXIF_HEADER;
    if (options && options->icc_size) { /* name, NUL, method, then the deflated profile */
        const uint64_t n = options->icc_size;
        total += 12 + 13 + n + (n >> 12) + (n >> 14) + (n >> 25) + 13;
    }
    if (total > SIZE_MAX) return IC_ERR_TOO_LARGE;
    *bound = (size_t)total;
    return IC_OK;
}

typedef struct png_writer {
    ic_png_write_fn write;
    void *context;
    ic_status status;     /* the callback's failure, reported instead of libspng's IO error */
    size_t total;
} png_writer;

static int spng_write(spng_ctx *ctx, void *user, void *src, size_t length) {
    (void)ctx;
    png_writer *w = (png_writer *)user;
    ic_status st = w->write(w->context, (const uint8_t *)src, length);
    if (st != IC_OK) {
        w->status = st;
        return SPNG_IO_ERROR;
    }
    w->total += length;
    return 0;
}

static ic_status encode(const ic_image *src, const ic_png_encode_options *o, png_writer *w) {
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = check_options(o)) != IC_OK) return st;
    const int color = color_type_of(src->format);
    if (color < 0) return IC_ERR_UNSUPPORTED;
    if (src->format == IC_FORMAT_RGBA8 && src->alpha == IC_ALPHA_PREMULTIPLIED) return IC_ERR_UNSUPPORTED;
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!ctx) return IC_ERR_OUT_OF_MEMORY;
    int bad_metadata = 0; /* libspng refused the caller's EXIF or profile */
    struct spng_ihdr ihdr = {(uint32_t)src->width, (uint32_t)src->height, 8, (uint8_t)color, 0, 0, 0};
    int e = spng_set_png_stream(ctx, spng_write, w);
    if (!e) e = spng_set_ihdr(ctx, &ihdr);
    if (!e && o && o->compression_level)
        e = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, o->compression_level < 0 ? 0 : o->compression_level);
    if (!e && o && o->filters) e = spng_set_option(ctx, SPNG_FILTER_CHOICE, (int)o->filters);
    uint8_t app1[EXIF_APP1_BYTES];
    uint8_t *exif_copy = NULL;
    if (!e && o && o->exif) { /* the caller's EXIF without the APP1 prefix, orientation set in a copy */
        const size_t skip = o->exif_size >= 6 && memcmp(o->exif, "Exif\0", 5) == 0 ? 6 : 0;
        const size_t n = o->exif_size - skip;
        exif_copy = (uint8_t *)malloc(n ? n : 1);
        if (!exif_copy) e = SPNG_EMEM;
        else {
            memcpy(exif_copy, o->exif + skip, n);
            if (o->orientation) (void)ic_exif_set_orientation(exif_copy, n, o->orientation);
            struct spng_exif exif = {n, (char *)exif_copy};
            e = spng_set_exif(ctx, &exif);
            if (e) bad_metadata = 1;
        }
    } else if (!e && o && o->orientation) {
        size_t n = ic__exif_orientation_app1(app1, o->orientation);
        struct spng_exif exif = {n - EXIF_HEADER, (char *)app1 + EXIF_HEADER};
        e = spng_set_exif(ctx, &exif);
    }
    if (!e && o && o->icc_size) {
        struct spng_iccp iccp;
        memset(&iccp, 0, sizeof iccp);
        memcpy(iccp.profile_name, "ICC profile", 12);
        iccp.profile_len = o->icc_size;
        iccp.profile = (char *)(uintptr_t)o->icc_profile; /* libspng only reads it */
        e = spng_set_iccp(ctx, &iccp);
        if (e) bad_metadata = 1;
    }
    if (!e) e = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG, SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    const size_t row_bytes = (size_t)src->width * (size_t)(color == SPNG_COLOR_TYPE_GRAYSCALE ? 1 : color == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : 4);
    for (int32_t y = 0; !e && y < src->height; y++)
        e = spng_encode_row(ctx, src->planes[0].data + (size_t)y * src->planes[0].stride, row_bytes);
    spng_ctx_free(ctx);
    free(exif_copy);
    if (w->status != IC_OK) return w->status;
    if (bad_metadata) return IC_ERR_INVALID_ARGUMENT; /* not a TIFF structure / empty profile */
    if (e != SPNG_EOI && e != 0) return e == SPNG_EMEM ? IC_ERR_OUT_OF_MEMORY : IC_ERR_INTERNAL;
    return e == SPNG_EOI ? IC_OK : IC_ERR_INTERNAL; /* the last row returns SPNG_EOI */
}

ic_status ic_png_encode_to(const ic_image *src, const ic_png_encode_options *options,
                           ic_png_write_fn write, void *context, size_t *size) {
    if (size) *size = 0;
    if (!src || !write) return IC_ERR_INVALID_ARGUMENT;
    png_writer w = {write, context, IC_OK, 0};
    ic_status st = encode(src, options, &w);
    if (st == IC_OK && size) *size = w.total;
    return st;
}

/* ---- bounded buffer ---------------------------------------------------------------- */

typedef struct fixed_buffer {
    uint8_t *data;
    size_t capacity, used;
} fixed_buffer;

static ic_status write_fixed(void *context, const uint8_t *data, size_t size) {
    fixed_buffer *b = (fixed_buffer *)context;
    if (size > b->capacity - b->used) return IC_ERR_BUFFER_TOO_SMALL;
    memcpy(b->data + b->used, data, size);
    b->used += size;
    return IC_OK;
}

ic_status ic_png_encode(const ic_image *src, const ic_png_encode_options *options, uint8_t *dst,
                        size_t capacity, size_t *size) {
    if (!size || (!dst && capacity)) return IC_ERR_INVALID_ARGUMENT;
    fixed_buffer b = {dst, capacity, 0};
    return ic_png_encode_to(src, options, write_fixed, &b, size);
}

/* ---- growing buffer ---------------------------------------------------------------- */

typedef struct grow_buffer {
    uint8_t *data;
    size_t capacity, used;
} grow_buffer;

static ic_status write_grow(void *context, const uint8_t *data, size_t size) {
    grow_buffer *b = (grow_buffer *)context;
    if (size > b->capacity - b->used) {
        size_t cap = b->capacity ? b->capacity : 64 * 1024;
        while (size > cap - b->used) {
            if (cap > SIZE_MAX / 2) return IC_ERR_OUT_OF_MEMORY;
            cap *= 2;
        }
        uint8_t *p = (uint8_t *)realloc(b->data, cap);
        if (!p) return IC_ERR_OUT_OF_MEMORY;
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->used, data, size);
    b->used += size;
    return IC_OK;
}

ic_status ic_png_encode_alloc(const ic_image *src, const ic_png_encode_options *options,
                              uint8_t **out, size_t *size) {
    if (!out || !size) return IC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    *size = 0;
    grow_buffer b = {NULL, 0, 0};
    ic_status st = ic_png_encode_to(src, options, write_grow, &b, size);
    if (st != IC_OK) {
        free(b.data);
        *size = 0;
        return st;
    }
    *out = b.data;
    return IC_OK;
}

void ic_png_free(void *buffer) { free(buffer); }
