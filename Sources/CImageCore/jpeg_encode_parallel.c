/* Parallel JPEG encode in stripes of whole restart intervals (the encode driver's entry is in
 * jpeg_encode.c, which also writes the joined result into its destination).
 *
 * With a restart marker at each stripe boundary, what a stripe's compressor writes for its
 * rows is what a serial encoder writes for them: the DC predictions restart at 0 and the bit
 * stream is padded to a byte and restarted at every marker, and nothing else (colour
 * conversion, downsampling without smoothing, DCT, quantisation, the fixed Huffman tables)
 * looks beyond an MCU row. So each stripe is encoded as a JPEG of its own rows by its own
 * compressor, and the results are joined: the first stripe's file with the frame height
 * patched to the whole image's and its EOI dropped, then for every further stripe the restart
 * marker that precedes its first interval and its entropy-coded data, with the markers inside
 * renumbered to continue the sequence (each compressor counts from RST0), then EOI. The bytes
 * are the serial encoder's. Optimised Huffman tables and progressive mode need statistics of
 * the whole image before any byte is written; they stay serial. */
#include "jpeg_restart.h"

#include <stdlib.h>
#include <string.h>

typedef struct encode_run {
    ic_jpeg_encode_rows_fn fn;
    void *context;
    ic_jpeg_stripes *s;
    ic_status status[IC_JPEG_ENCODE_MAX_STRIPES];
} encode_run;

static void run_stripes(void *context, int64_t begin, int64_t end) {
    encode_run *r = (encode_run *)context;
    for (int64_t k = begin; k < end; k++) {
        const int32_t row0 = r->s->first_row[k] * r->s->mcu_height;
        const int32_t row1 = k + 1 < r->s->count ? r->s->first_row[k + 1] * r->s->mcu_height : r->s->height;
        r->status[k] = r->fn(r->context, row0, row1 - row0, (int32_t)k, &r->s->part[k]);
    }
}

void ic__jpeg_stripes_free(ic_jpeg_stripes *s) {
    for (int32_t k = 0; k < s->count; k++) {
        if (s->part[k].owned) free(s->part[k].data);
        s->part[k].data = NULL;
        s->part[k].owned = 0;
    }
}

/* Joins the parts (see the file comment): fills the segments, renumbering the markers of the
 * parts after the first in place (those buffers are the stripes' own). */
static ic_status join(ic_jpeg_stripes *s, const ic__settings *set) {
    const ic_find_marker_fn find = ic__jpeg_pick_find_marker(set->cpu);
    int32_t n = 0;
    for (int32_t k = 0; k < s->count; k++) {
        ic_jpeg_part *p = &s->part[k];
        size_t sof_height = 0, entropy = 0;
        if (p->size < 4 || p->data[p->size - 2] != 0xFF || p->data[p->size - 1] != JPEG_EOI ||
            !ic__jpeg_walk_header(p->data, p->size, &sof_height, &entropy))
            return IC_ERR_INTERNAL;
        const size_t end = p->size - 2; /* before EOI */
        if (k == 0) {
            p->data[sof_height] = (uint8_t)(s->height >> 8);
            p->data[sof_height + 1] = (uint8_t)s->height;
            s->segment[n].data = p->data;
            s->segment[n++].size = end;
            continue;
        }
        const int64_t first = (int64_t)s->first_row[k] * s->mcus_per_row / s->interval;
        s->marker[k][0] = 0xFF;
        s->marker[k][1] = (uint8_t)(JPEG_RST0 + ((first - 1) & 7));
        s->segment[n].data = s->marker[k];
        s->segment[n++].size = 2;
        int64_t j = first;
        for (size_t q = entropy; (q = find(p->data, q, end)) < end; q += 2) {
            const uint8_t code = p->data[q + 1];
            if (code < JPEG_RST0 || code > JPEG_RST0 + 7) return IC_ERR_INTERNAL;
            p->data[q + 1] = (uint8_t)(JPEG_RST0 + (j++ & 7));
        }
        s->segment[n].data = p->data + entropy;
        s->segment[n++].size = end - entropy;
    }
    static const uint8_t eoi[2] = {0xFF, JPEG_EOI};
    s->segment[n].data = eoi;
    s->segment[n++].size = 2;
    s->segments = n;
    return IC_OK;
}

int ic__jpeg_encode_parallel(const ic__settings *set, int32_t width, int32_t height, int32_t mcu_width,
                             int32_t mcu_height, int32_t interval, ic_jpeg_encode_rows_fn fn, void *context,
                             ic_jpeg_stripes *out, ic_status *status) {
    memset(out, 0, sizeof *out);
    if (set->threads < 2 || interval < 1) return 0;
    const int32_t mcu_rows = (height + mcu_height - 1) / mcu_height;
    const int32_t per_row = (width + mcu_width - 1) / mcu_width;
    /* Stripes start at MCU rows where an interval starts: multiples of `period`. */
    const int32_t period = ic__jpeg_restart_period(interval, per_row);
    int32_t n = set->threads < IC_JPEG_ENCODE_MAX_STRIPES ? set->threads : IC_JPEG_ENCODE_MAX_STRIPES;
    if (n > mcu_rows / period) n = mcu_rows / period;
    if (n < 2) return 0;
    /* The work is the same per row: boundaries at the multiples of the period nearest k/n. */
    out->first_row[0] = 0;
    int32_t count = 1;
    for (int32_t k = 1; k < n; k++) {
        const int32_t row = (int32_t)(((int64_t)mcu_rows * k / n + period / 2) / period * period);
        if (row > out->first_row[count - 1] && row < mcu_rows) out->first_row[count++] = row;
    }
    if (count < 2) return 0;
    out->count = count;
    out->height = height;
    out->mcu_height = mcu_height;
    out->mcus_per_row = per_row;
    out->interval = interval;

    encode_run run;
    memset(&run, 0, sizeof run);
    run.fn = fn;
    run.context = context;
    run.s = out;
    (void)ic__parallel_for(set, count, 1, run_stripes, &run);
    *status = IC_OK;
    for (int32_t k = 0; k < count && *status == IC_OK; k++) *status = run.status[k];
    if (*status == IC_OK) *status = join(out, set);
    return 1;
}
