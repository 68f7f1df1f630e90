/* The JPEG decoder's band sink: where decoded rows go, for both decode paths (the scanline
 * path in jpeg_decode.c and the raw YUV path in jpeg_decode_yuv.c), so neither calls back
 * into the other. Not installed. */
#ifndef IMAGECORE_JPEG_SINK_H
#define IMAGECORE_JPEG_SINK_H

#include "internal.h"

/* Where decoded rows go: the destination image (one band as tall as the output), or a band
 * buffer handed to a callback each time it fills. Rows are in output (crop) coordinates;
 * `first` is the output row held by the band's row 0 (even for YUV formats). */
typedef struct ic_jpeg_sink {
    ic_image band;        /* planes to write; band.height = rows the band holds */
    int32_t first;
    int32_t total;        /* output rows in all */
    ic_jpeg_band_fn fn;   /* NULL: writing straight into the destination */
    void *context;
    int32_t resume;       /* bands ending at or above this row were delivered already (by a
                             parallel stream that met corrupt data: jpeg_parallel.c) */
} ic_jpeg_sink;

/* Row r of plane p (luma rows for p = 0, chroma rows for YUV planes 1 and 2). */
static inline uint8_t *ic__sink_row(const ic_jpeg_sink *s, int32_t plane, int32_t r) {
    const int32_t first = plane == 0 ? s->first : s->first / 2;
    return s->band.planes[plane].data + (size_t)(r - first) * s->band.planes[plane].stride;
}

/* Hands the band's rows [first, end) to the callback (if any; not when they end at or above
 * `resume`) and starts the next band. Returns IC_ERR_CANCELLED when the callback asks to stop. */
IC_INTERNAL ic_status ic__sink_flush(ic_jpeg_sink *s, int32_t end);

/* A streaming sink: a band of `rows` rows (even for YUV formats; at most the image's
 * height, rounded up to even) of every plane of a `width`-wide image of `format`, in
 * `memory` (from libjpeg's pool) laid out by ic__sink_band_bytes. */
IC_INTERNAL size_t ic__sink_band_bytes(ic_format format, int32_t width, int32_t rows);
IC_INTERNAL void ic__sink_init_stream(ic_jpeg_sink *s, ic_format format, int32_t width, int32_t rows,
                                      int32_t total, uint8_t *memory, ic_jpeg_band_fn fn, void *context);
/* A sink writing straight into `dst` (checked by the caller). */
IC_INTERNAL void ic__sink_init_image(ic_jpeg_sink *s, const ic_image *dst, int32_t total);

#endif
