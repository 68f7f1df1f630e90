/* PNG decode: libspng's progressive row decode straight into the destination rows when its
 * output layout is the destination's, else into one scratch row converted by png_rows.c
 * (16-bit rounding, BT.601 luma for GRAY8 from colour). Adam7 rows arrive pass by pass; each
 * pass writes only its columns, so the conversion visits only those. The stream hands bands of
 * rows to a callback (non-interlaced files only). */
#include "png_internal.h"
#include "row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t ADAM7_X0[7] = {0, 4, 0, 2, 0, 1, 0};
static const uint8_t ADAM7_DX[7] = {8, 8, 4, 4, 2, 2, 1};

void ic_png_decode_options_init(ic_png_decode_options *options) {
    if (options) memset(options, 0, sizeof *options);
}

/* ---- where rows go ------------------------------------------------------------- */

typedef struct png_sink {
    ic_image band;        /* band.height rows; row 0 holds image row `first` */
    int32_t first;
    ic_png_band_fn fn;    /* NULL: the band is the whole destination */
    void *context;
} png_sink;

static uint8_t *sink_row(const png_sink *s, int32_t y) {
    return s->band.planes[0].data + (size_t)(y - s->first) * s->band.planes[0].stride;
}

/* Hands rows [first, end) to the callback and starts the next band. */
static ic_status sink_flush(png_sink *s, int32_t end) {
    if (!s->fn || end <= s->first) return IC_OK;
    ic_image b = s->band;
    b.height = end - s->first;
    if (s->fn(s->context, &b, s->first)) return IC_ERR_CANCELLED;
    s->first = end;
    return IC_OK;
}

/* Makes room for row y (flushing a full band) and returns its address. */
static ic_status sink_next(png_sink *s, int32_t y, uint8_t **row) {
    if (s->fn && y - s->first == s->band.height) {
        ic_status st = sink_flush(s, y);
        if (st != IC_OK) return st;
    }
    *row = sink_row(s, y);
    return IC_OK;
}

/* ---- what libspng produces and how it becomes the destination -------------------- */

typedef enum conv { CONV_NONE, CONV_ROUND16, CONV_LUMA } conv;

typedef struct png_plan {
    int fmt;              /* libspng output format */
    int flags;            /* SPNG_DECODE_TRNS where alpha is kept */
    conv conv;
    int dc;               /* destination channels */
    size_t spng_row;      /* bytes of one libspng output row */
} png_plan;

static png_plan plan_for(const struct spng_ihdr *h, ic_format format) {
    png_plan p = {0, 0, CONV_NONE, format == IC_FORMAT_RGBA8 ? 4 : format == IC_FORMAT_RGB8 ? 3 : 1, 0};
    if (h->bit_depth == 16) {
        p.fmt = SPNG_FMT_RGBA16;
        p.flags = p.dc == 4 ? SPNG_DECODE_TRNS : 0;
        p.conv = CONV_ROUND16;
        p.spng_row = (size_t)h->width * 8;
    } else if (p.dc == 4) {
        p.fmt = SPNG_FMT_RGBA8;
        p.flags = SPNG_DECODE_TRNS;
        p.spng_row = (size_t)h->width * 4;
    } else if (p.dc == 3 || h->color_type != SPNG_COLOR_TYPE_GRAYSCALE) {
        p.fmt = SPNG_FMT_RGB8; /* GRAY8 from colour: luma of this row */
        p.conv = p.dc == 3 ? CONV_NONE : CONV_LUMA;
        p.spng_row = (size_t)h->width * 3;
    } else {
        p.fmt = SPNG_FMT_G8; /* 1, 2, 4, 8-bit gray, scaled by libspng */
        p.spng_row = (size_t)h->width;
    }
    return p;
}

/* Converts the pixels at columns x0, x0 + dx, ... < width of libspng's row `src` into `dst`. */
static void convert(const png_plan *p, const uint8_t *src, uint8_t *dst, int32_t x0, int32_t dx, int32_t width) {
    if (p->conv == CONV_NONE) return;
    if (dx == 1) {
        if (p->conv == CONV_ROUND16) ic_png_round16_row_c((const uint16_t *)(const void *)src, dst, p->dc, width);
        else ic_row_luma_c(src, 3, dst, (size_t)width);
        return;
    }
    for (int32_t x = x0; x < width; x += dx) {
        if (p->conv == CONV_ROUND16)
            ic_png_round16_row_c((const uint16_t *)(const void *)(src + (size_t)x * 8), dst + (size_t)x * p->dc, p->dc, 1);
        else dst[x] = ic__luma(src[3 * (size_t)x], src[3 * (size_t)x + 1], src[3 * (size_t)x + 2]);
    }
}

/* ---- the row loop ---------------------------------------------------------------- */

typedef struct png_job {
    spng_ctx *ctx;
    struct spng_ihdr ihdr;
    png_plan plan;
    png_sink sink;
    uint8_t *scratch;     /* one libspng row when plan.conv != CONV_NONE (8-byte aligned by malloc) */
    int strict;
    int32_t min_valid_permille;
    ic_png_decode_result *result;
} png_job;

static void set_message(ic_png_decode_result *r, const char *text) {
    snprintf(r->message, sizeof r->message, "%s", text);
}

/* Image data ended or broke after `done` complete rows of a non-interlaced file: zero the rest
 * and report a warning (the JPEG codec's contract for a truncated scan). */
static ic_status recover(png_job *j, int32_t done, int e) {
    /* A negative permille turns the rule off (png.h), as the JPEG codec's. */
    const int64_t needed = j->min_valid_permille < 0 ? 0 : ((int64_t)j->min_valid_permille * j->ihdr.height + 999) / 1000;
    j->result->valid_rows = done;
    if (done < needed) {
        snprintf(j->result->message, sizeof j->result->message,
                 "PNG image data: %s after %d of %u rows (fewer than the %d/1000 required)", spng_strerror(e), done,
                 j->ihdr.height, j->min_valid_permille);
        return IC_ERR_CORRUPT_DATA;
    }
    const size_t row_bytes = (size_t)j->ihdr.width * (size_t)j->plan.dc;
    for (int32_t y = done; y < (int32_t)j->ihdr.height; y++) {
        uint8_t *row;
        ic_status st = sink_next(&j->sink, y, &row);
        if (st != IC_OK) return st;
        memset(row, 0, row_bytes);
    }
    j->result->warnings = 1;
    snprintf(j->result->message, sizeof j->result->message, "PNG image data: %s; rows %d to %u set to 0",
             spng_strerror(e), done, j->ihdr.height - 1);
    return sink_flush(&j->sink, (int32_t)j->ihdr.height);
}

static ic_status fail(png_job *j, const char *what, int e) {
    ic__png_message(j->result->message, sizeof j->result->message, what, e);
    return ic__png_status(e);
}

/* The chunks after the last row, through IEND: the last IDAT's CRC, trailing metadata. Every
 * pixel is decoded and vouched for by zlib's Adler-32, so damage here is a warning (strict: an
 * error). */
static ic_status after_image(png_job *j) {
    int e = spng_decode_chunks(j->ctx);
    if (!e) return IC_OK;
    if (j->strict || ic__png_status(e) != IC_ERR_CORRUPT_DATA) return fail(j, "PNG chunks after the image data", e);
    j->result->warnings = 1;
    snprintf(j->result->message, sizeof j->result->message, "PNG chunks after the image data: %s", spng_strerror(e));
    return IC_OK;
}

static ic_status decode_rows(png_job *j) {
    const png_plan *p = &j->plan;
    const int32_t w = (int32_t)j->ihdr.width, h = (int32_t)j->ihdr.height;
    /* The chunks before the image data (a no-op when ic_png_decode has read them), so that a
     * failure of spng_decode_image below is the image data's own. */
    int e = spng_decode_chunks(j->ctx);
    if (e) return fail(j, "PNG chunks", e);
    e = spng_decode_image(j->ctx, NULL, 0, p->fmt, p->flags | SPNG_DECODE_PROGRESSIVE);
    if (e) {
        /* libspng reads a whole IDAT chunk before inflating it: data that ends inside the first
         * one fails here, before any row. Without the rule that is a warning too. */
        if (!j->strict && j->min_valid_permille < 0 && !j->ihdr.interlace_method &&
            ic__png_status(e) == IC_ERR_CORRUPT_DATA) return recover(j, 0, e);
        return fail(j, "PNG image data", e);
    }
    struct spng_trns trns; /* known once the chunks before the image data are read */
    if (spng_get_trns(j->ctx, &trns) == 0) j->result->has_alpha = 1;
    if (!j->ihdr.interlace_method) {
        for (int32_t y = 0; y < h; y++) {
            uint8_t *row;
            ic_status st = sink_next(&j->sink, y, &row);
            if (st != IC_OK) return st;
            uint8_t *target = p->conv == CONV_NONE ? row : j->scratch;
            e = spng_decode_row(j->ctx, target, p->spng_row);
            if (e && e != SPNG_EOI) {
                /* Without the rule even a break in the first row is a warning (every row 0). */
                if (!j->strict && (y > 0 || j->min_valid_permille < 0) && ic__png_status(e) == IC_ERR_CORRUPT_DATA)
                    return recover(j, y, e);
                return fail(j, "PNG image data", e);
            }
            convert(p, target, row, 0, 1, w);
            if (e == SPNG_EOI && y != h - 1) return fail(j, "PNG image data", SPNG_EINTERNAL);
        }
        j->result->valid_rows = h;
        ic_status st = sink_flush(&j->sink, h);
        return st == IC_OK ? after_image(j) : st;
    }
    for (;;) { /* Adam7: rows of each pass in turn; the sink is the whole destination */
        struct spng_row_info ri;
        e = spng_get_row_info(j->ctx, &ri);
        if (e == SPNG_EOI) break;
        if (e || ri.pass < 0 || ri.pass > 6 || ri.row_num >= (uint32_t)h) return fail(j, "PNG image data", e ? e : SPNG_EINTERNAL);
        uint8_t *row = sink_row(&j->sink, (int32_t)ri.row_num);
        uint8_t *target = p->conv == CONV_NONE ? row : j->scratch;
        e = spng_decode_row(j->ctx, target, p->spng_row);
        if (e && e != SPNG_EOI) return fail(j, "PNG image data (interlaced)", e);
        convert(p, target, row, ADAM7_X0[ri.pass], ADAM7_DX[ri.pass], w);
        if (e == SPNG_EOI) break;
    }
    j->result->valid_rows = h;
    return after_image(j);
}

/* Opens the file, checks the header and the pixel limit, fills the job's plan. */
static ic_status open_job(png_job *j, const uint8_t *data, size_t size, const ic_png_decode_options *options,
                          ic_format format, ic_png_decode_result *result) {
    memset(result, 0, sizeof *result);
    ic_png_limits limits;
    if (ic__png_limits(options, &limits) != IC_OK) {
        set_message(result, "PNG decode options: negative count or unknown flag");
        return IC_ERR_INVALID_ARGUMENT;
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (size < 8 || memcmp(data, sig, 8) != 0) {
        set_message(result, "not a PNG file (no PNG signature)");
        return IC_ERR_CORRUPT_DATA;
    }
    j->strict = limits.strict;
    j->min_valid_permille = limits.min_valid_permille;
    j->result = result;
    j->ctx = ic__png_open(data, size, &limits);
    if (!j->ctx) return IC_ERR_OUT_OF_MEMORY;
    ic_status st = ic__png_header(j->ctx, &limits, &j->ihdr, result->message, sizeof result->message);
    if (st != IC_OK) return st;
    result->width = (int32_t)j->ihdr.width;
    result->height = (int32_t)j->ihdr.height;
    const int32_t o = ic__png_exif_orientation(data, size, NULL, NULL, NULL);
    result->orientation = o ? o : 1;
    result->has_alpha = j->ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ||
                        j->ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    j->plan = plan_for(&j->ihdr, format);
    if (j->plan.conv != CONV_NONE) {
        j->scratch = (uint8_t *)malloc(j->plan.spng_row);
        if (!j->scratch) return IC_ERR_OUT_OF_MEMORY;
    }
    return IC_OK;
}

static void close_job(png_job *j) {
    spng_ctx_free(j->ctx);
    free(j->scratch);
}

static int is_decode_format(ic_format f) {
    return f == IC_FORMAT_GRAY8 || f == IC_FORMAT_RGB8 || f == IC_FORMAT_RGBA8;
}

ic_status ic_png_decode(const uint8_t *data, size_t size, const ic_png_decode_options *options,
                        ic_image *dst, ic_png_decode_result *result) {
    ic_png_decode_result local;
    if (!result) result = &local;
    memset(result, 0, sizeof *result);
    if ((!data && size) || !dst) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (!is_decode_format(dst->format)) return IC_ERR_UNSUPPORTED;
    if (options && options->format != IC_FORMAT_INVALID && options->format != dst->format)
        return IC_ERR_INVALID_ARGUMENT;
    png_job j;
    memset(&j, 0, sizeof j);
    st = open_job(&j, data, size, options, dst->format, result);
    if (st == IC_OK) { /* the chunks before the image data first: corrupt data wins over a size mismatch */
        int e = spng_decode_chunks(j.ctx);
        if (e) st = fail(&j, "PNG chunks", e);
    }
    if (st == IC_OK) {
        const int32_t w = (int32_t)j.ihdr.width, h = (int32_t)j.ihdr.height;
        if (dst->width < w || dst->height < h) {
            snprintf(result->message, sizeof result->message, "destination %dx%d is smaller than the %dx%d image",
                     dst->width, dst->height, w, h);
            st = IC_ERR_BUFFER_TOO_SMALL;
        } else if (dst->width != w || dst->height != h) {
            snprintf(result->message, sizeof result->message, "destination %dx%d is larger than the %dx%d image",
                     dst->width, dst->height, w, h);
            st = IC_ERR_INVALID_ARGUMENT;
        } else {
            j.sink.band = *dst;
            st = decode_rows(&j);
        }
    }
    close_job(&j);
    return st;
}

ic_status ic_png_decode_stream(const uint8_t *data, size_t size, const ic_png_decode_options *options,
                               ic_png_band_fn fn, void *context, ic_png_decode_result *result) {
    ic_png_decode_result local;
    if (!result) result = &local;
    memset(result, 0, sizeof *result);
    if ((!data && size) || !fn) return IC_ERR_INVALID_ARGUMENT;
    const ic_format format = options && options->format ? options->format : IC_FORMAT_RGBA8;
    if (!is_decode_format(format)) return IC_ERR_UNSUPPORTED;
    png_job j;
    memset(&j, 0, sizeof j);
    ic_status st = open_job(&j, data, size, options, format, result);
    uint8_t *band = NULL;
    if (st == IC_OK && j.ihdr.interlace_method) {
        set_message(result, "an interlaced (Adam7) PNG cannot be streamed: decode it whole");
        st = IC_ERR_UNSUPPORTED;
    }
    if (st == IC_OK) {
        const int32_t h = (int32_t)j.ihdr.height;
        int32_t rows = options && options->band_rows ? options->band_rows : 16;
        if (rows > h) rows = h;
        const size_t row_bytes = (size_t)j.ihdr.width * (size_t)j.plan.dc;
        band = (uint8_t *)malloc(row_bytes * (size_t)rows);
        if (!band) st = IC_ERR_OUT_OF_MEMORY;
        else {
            j.sink.band.format = format;
            j.sink.band.alpha = IC_ALPHA_STRAIGHT;
            j.sink.band.width = (int32_t)j.ihdr.width;
            j.sink.band.height = rows;
            j.sink.band.planes[0].data = band;
            j.sink.band.planes[0].stride = row_bytes;
            j.sink.fn = fn;
            j.sink.context = context;
            st = decode_rows(&j);
        }
    }
    free(band);
    close_job(&j);
    return st;
}
