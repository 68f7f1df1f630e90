/* Resize as a stream of rows: the driver for sources that arrive top to bottom (a scanline
 * decode). The arithmetic is the plan's: the stream builds an ordinary one-slot plan in its
 * own memory (coefficient tables, the ring of intermediate rows, the P7 and box-sum rows)
 * and runs the same row kernels (ic__rs_pick_kernels) and the same row steps as resize.c
 * (ic__rs_h_from_u8, ic__rs_h_from_p7, ic__rs_v_out_row); only the order differs.
 *
 * Schedule. Source row y belongs to reduced row r = y / ky. When r is complete (ky == 1:
 * at once), its horizontally filtered row goes to ring slot r % R (R = the largest vertical
 * window), and then every output row whose window [start, start + count) ends at or before
 * r + 1 is written. The windows' starts and ends never decrease with the output row (they
 * are the clamped floor/ceil of an increasing centre), so an output is written right after
 * its last row arrives, and a row overwritten in the ring (r - R) is in no pending window:
 * a pending output's window ends after r, so it starts after r - R.
 *
 * Vertical box sums, streamed. The one-shot driver averages ky rows in one pass
 * (box_rows_u8: (sum * m + 2^16) >> 17 with m = round(2^24 / rows), for rows <= 257);
 * here the rows arrive one by one, so they are summed into the uint32 row (box_u8) and
 * finished with box_finish(mult = m, shift = 17): ((uint64)sum * m + 2^16) >> 17, the same
 * value (the 32-bit product of box_rows_u8 never wraps: sum * m <= 255 * 2^24 + 255 * rows
 * < 2^32). The other cases (straight alpha, linear light, > 257 rows) are the one-shot's own
 * sequence. */
#include "resize_internal.h"
#include "planar.h"

#include <string.h>

struct ic_resize_stream {
    ic_resize_params params;   /* as given */
    ic_resize_plan *plan;      /* one slot, built right after this struct */
    int32_t pushed;            /* source rows pushed */
    int32_t produced;          /* reduced rows filtered into the ring */
    int32_t written;           /* output rows written */
    int32_t busy;              /* atomic: a push is running */
};

enum { STREAM_ALIGN = 64 };

static size_t header_bytes(void) {
    return (sizeof(struct ic_resize_stream) + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN;
}

/* The plan's parameters: one slot; the formats a row stream can carry. */
static ic_status plan_params(const ic_resize_params *params, ic_resize_params *p) {
    if (!params) return IC_ERR_INVALID_ARGUMENT;
    if (ic_format_plane_count(params->format) != 1) return IC_ERR_UNSUPPORTED; /* YUV, unknown */
    *p = *params;
    if (p->max_threads < 0 || p->max_threads > IC_RS_MAX_THREADS) return IC_ERR_INVALID_ARGUMENT;
    p->max_threads = 1;
    return IC_OK;
}

ic_status ic_resize_stream_size(const ic_resize_params *params, size_t *size) {
    if (!size) return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params p;
    ic_status st = plan_params(params, &p);
    if (st != IC_OK) return st;
    size_t plan = 0;
    if ((st = ic_resize_plan_size(&p, &plan)) != IC_OK) return st;
    *size = header_bytes() + plan;
    return IC_OK;
}

ic_status ic_resize_stream_init(void *memory, size_t size, const ic_resize_params *params,
                                ic_resize_stream **stream) {
    if (!memory || !stream || ((uintptr_t)memory & (STREAM_ALIGN - 1))) return IC_ERR_INVALID_ARGUMENT;
    size_t need = 0;
    ic_status st = ic_resize_stream_size(params, &need);
    if (st != IC_OK) return st;
    if (size < need) return IC_ERR_BUFFER_TOO_SMALL;
    ic_resize_params p;
    (void)plan_params(params, &p);
    ic_resize_stream *s = (ic_resize_stream *)memory;
    memset(s, 0, sizeof *s);
    s->params = *params;
    if ((st = ic_resize_plan_init((uint8_t *)memory + header_bytes(), need - header_bytes(), &p,
                                  &s->plan)) != IC_OK)
        return st;
    *stream = s;
    return IC_OK;
}

ic_status ic_resize_stream_reset(ic_resize_stream *stream) {
    if (!stream) return IC_ERR_INVALID_ARGUMENT;
    if (__atomic_exchange_n(&stream->busy, 1, __ATOMIC_ACQUIRE)) return IC_ERR_INVALID_ARGUMENT;
    stream->pushed = stream->produced = stream->written = 0;
    __atomic_store_n(&stream->busy, 0, __ATOMIC_RELEASE);
    return IC_OK;
}

ic_status ic_resize_stream_progress(const ic_resize_stream *stream, int32_t *rows_pushed,
                                    int32_t *rows_written) {
    if (!stream) return IC_ERR_INVALID_ARGUMENT;
    if (rows_pushed) *rows_pushed = stream->pushed;
    if (rows_written) *rows_written = stream->written;
    return IC_OK;
}

ic_status ic_resize_stream_params(const ic_resize_stream *stream, ic_resize_params *params) {
    if (!stream || !params) return IC_ERR_INVALID_ARGUMENT;
    *params = stream->params;
    return IC_OK;
}

ic_status ic_resize_stream_ring_rows(const ic_resize_stream *stream, int32_t *rows) {
    if (!stream || !rows) return IC_ERR_INVALID_ARGUMENT;
    *rows = stream->plan->geom[0].v.max_count;
    return IC_OK;
}

/* round(2^bits / rows) */
static uint32_t reciprocal(int32_t bits, int32_t rows) {
    return (uint32_t)((((uint64_t)1 << bits) + (uint64_t)rows / 2) / (uint64_t)rows);
}

/* Source row `pushed` in; every output row it completes out. */
static void push_one(ic_resize_stream *s, const ic_rs_kernels *k, const uint8_t *row, size_t ahead,
                     uint8_t *dst, size_t dst_stride) {
    const ic_rs_geom *g = &s->plan->geom[0];
    ic_rs_slot *slot = (ic_rs_slot *)(void *)s->plan->slot_base;
    const int32_t y = s->pushed++;
    const int32_t r = y / g->ky, y0 = r * g->ky;
    const int32_t rows = y0 + g->ky < g->in_h ? g->ky : g->in_h - y0;
    const int first = y == y0, last = y == y0 + rows - 1;
    int16_t *out = (int16_t *)(void *)(slot->ring + (size_t)(r % g->v.max_count) * g->ring_stride);

    if (g->ky == 1 && !ic__rs_p7_source(g)) {
        ic__rs_h_from_u8(g, k, row, ahead, slot->s16, out);
    } else {
        const int32_t elems = g->in_w * g->ch;
        if (ic__rs_p7_source(g)) {
            ic__rs_to_p7(g, k, row, slot->s16);
            if (rows > 1) {
                k->box_s16(slot->s16, elems, first, slot->acc);
                if (last) k->box_finish(slot->acc, elems, reciprocal(32, rows), 32, slot->s16);
            }
        } else {
            k->box_u8(row, elems, first, slot->acc);
            if (last) {
                if (rows <= IC_RS_BOX16_MAX_ROWS)
                    k->box_finish(slot->acc, elems, reciprocal(24, rows), 17, slot->s16);
                else
                    k->box_finish(slot->acc, elems, reciprocal(32, rows), 25, slot->s16);
            }
        }
        if (!last) return;
        ic__rs_h_from_p7(g, k, slot->s16, out);
    }
    s->produced = r + 1;
    while (s->written < g->out_h && g->v.start[s->written] + g->v.count[s->written] <= s->produced) {
        ic__rs_v_out_row(g, k, slot->ring, slot->rows, slot->lin, s->written,
                         dst + (size_t)s->written * dst_stride);
        s->written++;
    }
}

ic_status ic_resize_stream_push_rows(ic_resize_stream *stream, const void *rows, size_t stride,
                                     int32_t count, int32_t width, ic_image *dst,
                                     int32_t *rows_written) {
    if (!stream || !rows || count < 1) return IC_ERR_INVALID_ARGUMENT;
    const ic_resize_params *p = &stream->params;
    const ic_rs_geom *g = &stream->plan->geom[0];
    if (width != p->src_width) return IC_ERR_INVALID_ARGUMENT;
    const size_t row_bytes = (size_t)width * (size_t)g->ch;
    if (count > 1 && stride < row_bytes) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (dst->format != p->format || dst->width != p->dst_width || dst->height != p->dst_height)
        return IC_ERR_INVALID_ARGUMENT;
    /* The rows, as a byte range, must not overlap the destination plane. */
    uint64_t src_extent;
    if (!ic__region_extent(stride, row_bytes, count, &src_extent)) return IC_ERR_INVALID_ARGUMENT;
    if (ic__regions_overlap(rows, src_extent, dst->planes[0].data, ic__plane_extent(dst, 0)))
        return IC_ERR_INVALID_ARGUMENT;
    if (__atomic_exchange_n(&stream->busy, 1, __ATOMIC_ACQUIRE)) return IC_ERR_INVALID_ARGUMENT;
    if (count > p->src_height - stream->pushed) { /* too many rows, or the stream is complete */
        __atomic_store_n(&stream->busy, 0, __ATOMIC_RELEASE);
        return IC_ERR_INVALID_ARGUMENT;
    }
    const ic_rs_kernels k = ic__rs_pick_kernels(g, ic__settings_read().cpu); /* the call's one read */
    const uint8_t *row = (const uint8_t *)rows;
    for (int32_t i = 0; i < count; i++, row += stride)
        push_one(stream, &k, row, i + 1 < count ? stride : 0, dst->planes[0].data,
                 dst->planes[0].stride);
    if (rows_written) *rows_written = stream->written;
    __atomic_store_n(&stream->busy, 0, __ATOMIC_RELEASE);
    return IC_OK;
}

ic_status ic_resize_stream_push(ic_resize_stream *stream, const void *row, int32_t width,
                                ic_image *dst, int32_t *rows_written) {
    return ic_resize_stream_push_rows(stream, row, 0, 1, width, dst, rows_written);
}
