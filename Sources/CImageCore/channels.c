/* Channel-layout conversions between GRAY8, RGB8 and RGBA8: the driver. Row kernels: the
 * scalar reference in channels_rows.c, AVX2 in channels_avx2.c (the generic scalar loop runs
 * 3-4 times slower than memory, 12 MP RGB to RGBA took 6.4 ms against 1.5 ms for a memcpy
 * of the source); to GRAY8 the row layer's luma (row.h). */
#include "channels_internal.h"
#include "planar.h"
#include "row.h"

#include <string.h>

static int channels_of(ic_format f) {
    switch (f) {
    case IC_FORMAT_GRAY8: return 1;
    case IC_FORMAT_RGB8: return 3;
    case IC_FORMAT_RGBA8: return 4;
    default: return 0;
    }
}

typedef struct channels_job {
    const ic_image *src;
    ic_image *dst;
    int sc, dc;
    ic_channels_row_fn row;
    ic_row_luma_fn luma;   /* to GRAY8 */
} channels_job;

static void channels_rows(void *ctx, int64_t begin, int64_t end) {
    const channels_job *j = (const channels_job *)ctx;
    for (int64_t y = begin; y < end; y++) {
        const uint8_t *s = j->src->planes[0].data + (size_t)y * j->src->planes[0].stride;
        uint8_t *d = j->dst->planes[0].data + (size_t)y * j->dst->planes[0].stride;
        if (j->luma) j->luma(s, j->sc, d, (size_t)j->src->width);
        else j->row(s, j->sc, d, j->dc, j->src->width);
    }
}

ic_status ic_convert_channels(const ic_image *src, ic_image *dst) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    const uint32_t features = set.cpu;
    channels_job j = {src, dst, channels_of(src->format), channels_of(dst->format), ic_channels_row_c, NULL};
    if (!j.sc || !j.dc)
        return ic__refuse(IC_ERR_UNSUPPORTED, "channel conversion is between GRAY8, RGB8 and RGBA8 (formats %d -> %d)",
                          (int)src->format, (int)dst->format);
#if IC_X86
    if ((features & IC_CPU_AVX2) && j.sc != j.dc) j.row = ic_channels_row_avx2;
#endif
    if (j.dc == 1 && j.sc > 1) j.luma = ic__row_pick_luma(features);
    size_t row_bytes = (size_t)src->width * (size_t)(j.sc > j.dc ? j.sc : j.dc);
    return ic__parallel_for(&set, src->height, ic__band_rows(row_bytes, 256 * 1024), channels_rows, &j);
}
