/* The JPEG decoder's band sink (jpeg_sink.h). */
#include "jpeg_sink.h"

#include <string.h>

ic_status ic__sink_flush(ic_jpeg_sink *s, int32_t end) {
    if (!s->fn || end <= s->first) return IC_OK;
    if (end <= s->resume) { /* delivered by a parallel stream already */
        s->first = end;
        return IC_OK;
    }
    ic_image band = s->band;
    band.height = end - s->first;
    const int32_t first = s->first;
    s->first = end;
    return s->fn(s->context, &band, first) != 0 ? IC_ERR_CANCELLED : IC_OK;
}

/* Plane p of a band of `rows` rows: luma rows, or chroma rows (rows + 1) / 2. */
static int32_t band_plane_rows(int32_t p, int32_t rows) { return p == 0 ? rows : (rows + 1) / 2; }

size_t ic__sink_band_bytes(ic_format format, int32_t width, int32_t rows) {
    size_t bytes = 0;
    for (int32_t p = 0; p < ic_format_plane_count(format); p++)
        bytes += ic__row_bytes(format, width, p) * (size_t)band_plane_rows(p, rows);
    return bytes;
}

void ic__sink_init_stream(ic_jpeg_sink *s, ic_format format, int32_t width, int32_t rows, int32_t total,
                          uint8_t *memory, ic_jpeg_band_fn fn, void *context) {
    memset(s, 0, sizeof *s);
    s->total = total;
    s->fn = fn;
    s->context = context;
    ic_image *b = &s->band;
    b->format = format;
    b->alpha = format == IC_FORMAT_RGBA8 ? IC_ALPHA_OPAQUE : IC_ALPHA_STRAIGHT;
    b->width = width;
    b->height = rows;
    for (int32_t p = 0; p < ic_format_plane_count(format); p++) {
        const size_t row_bytes = ic__row_bytes(format, width, p);
        b->planes[p].stride = row_bytes;
        b->planes[p].data = memory;
        memory += row_bytes * (size_t)band_plane_rows(p, rows);
    }
}

void ic__sink_init_image(ic_jpeg_sink *s, const ic_image *dst, int32_t total) {
    memset(s, 0, sizeof *s);
    s->total = total;
    s->band = *dst;
}
