/* Parallel JPEG decode over restart-interval stripes (jpeg_restart.c finds the markers and
 * cuts the stripes). Each stripe is decoded by an independent libjpeg decompressor, through
 * the same decode path as a serial decode, straight into its rows of the caller's image.
 *
 * What a stripe's decompressor reads (the stripe source below; no byte is copied): the
 * file's header with the frame height patched to the stripe's rows, then the entropy-coded
 * data from the restart marker its first row follows to the end of the file. Its first
 * interval is numbered 0 mod 8, so the markers it meets are numbered as a fresh decoder
 * expects. To that decompressor the stripe is a whole image, so:
 * - it starts at least one MCU row above the rows it writes and ends one below, so fancy
 *   upsampling sees the same chroma rows across the stripe boundary as a serial decode; the
 *   rows above its own are skipped as a crop skips them;
 * - the data ahead of it runs to the end of the file, as in a serial decode, so libjpeg's
 *   Huffman decoder takes the same fast or slow path at every MCU, and the last stripe meets
 *   the end of the image, EOI and a truncated file as a serial decode does;
 * - every stripe reports the warnings (recoverable corruption) raised while it decodes the
 *   MCU rows it owns, and only those, so their sum equals a serial decode's count.
 * Files whose markers are not all where the restart interval puts them are decoded serially
 * (jpeg_restart.c), because libjpeg's resynchronisation cannot be reproduced from a stripe. */
#include "jpeg_parallel.h"

#include <stdlib.h>
#include <string.h>

/* ---- stripe source ----------------------------------------------------------------------- */

enum { PHASE_HEAD, PHASE_HEIGHT, PHASE_TABLES, PHASE_DATA, PHASE_END };

static const JOCTET eoi_marker[2] = {0xFF, JPEG_EOI};

static void stripe_src_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void stripe_src_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean serve(ic_jpeg_stripe_source *s, int next, const uint8_t *p, size_t n) {
    s->phase = next;
    s->pub.next_input_byte = p;
    s->pub.bytes_in_buffer = n;
    return TRUE;
}

/* Called whenever the current piece is used up; never suspends. */
static boolean stripe_src_fill(j_decompress_ptr cinfo) {
    ic_jpeg_stripe_source *s = (ic_jpeg_stripe_source *)cinfo->src;
    const ic_jpeg_restart_map *m = s->map;
    switch (s->phase) {
    case PHASE_HEAD: return serve(s, PHASE_HEIGHT, s->data, m->sof_height);
    case PHASE_HEIGHT: return serve(s, PHASE_TABLES, s->height, 2);
    case PHASE_TABLES: return serve(s, PHASE_DATA, s->data + m->sof_height + 2, m->entropy - m->sof_height - 2);
    case PHASE_DATA: return serve(s, PHASE_END, s->data + s->begin, s->size - s->begin);
    default:
        /* Past the end of the file, as the memory source: a warning and a fake EOI. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        return serve(s, PHASE_END, eoi_marker, 2);
    }
}

static void stripe_src_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    ic_jpeg_stripe_source *s = (ic_jpeg_stripe_source *)src;
    if (count <= 0) return;
    while ((size_t)count > src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        const int at_end = s->phase == PHASE_END;
        (void)stripe_src_fill(cinfo);
        if (at_end) return; /* skipping past the end: as the memory source does */
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

void ic__jpeg_stripe_source_install(j_decompress_ptr cinfo, void *context) {
    ic_jpeg_stripe_source *s = (ic_jpeg_stripe_source *)context;
    s->pub.init_source = stripe_src_init;
    s->pub.fill_input_buffer = stripe_src_fill;
    s->pub.skip_input_data = stripe_src_skip;
    s->pub.resync_to_restart = jpeg_resync_to_restart;
    s->pub.term_source = stripe_src_term;
    s->pub.next_input_byte = NULL;
    s->pub.bytes_in_buffer = 0; /* the first read calls fill */
    cinfo->src = &s->pub;
}

void ic__jpeg_stripe_source_init(ic_jpeg_stripe_source *s, const uint8_t *data, size_t size,
                                 const ic_jpeg_restart_map *map, const ic_jpeg_stripe *stripe) {
    memset(s, 0, sizeof *s);
    s->data = data;
    s->size = size;
    s->map = map;
    s->phase = PHASE_HEAD;
    s->begin = stripe->data_begin;
    s->height[0] = (uint8_t)(stripe->height >> 8);
    s->height[1] = (uint8_t)stripe->height;
}

/* ---- bytes libjpeg has skipped but not reported ----------------------------------------------
 * jpegint.h's struct jpeg_marker_reader, whose state fields the library documents as readable
 * by applications. Its layout is the same in IJG libjpeg 6b to 9 and libjpeg-turbo 1.x to
 * 3.x; it is mirrored because not every installation ships jpegint.h. */
struct ic_marker_reader_layout {
    void (*reset_marker_reader)(j_decompress_ptr cinfo);
    int (*read_markers)(j_decompress_ptr cinfo);
    jpeg_marker_parser_method read_restart_marker;
    boolean saw_SOI;
    boolean saw_SOF;
    int next_restart_num;
    unsigned int discarded_bytes;
};

unsigned int ic__jpeg_pending_discards(j_decompress_ptr cinfo) {
    return ((const struct ic_marker_reader_layout *)(const void *)cinfo->marker)->discarded_bytes;
}

/* ---- the driver -------------------------------------------------------------------------- */

typedef struct stripe_outcome {
    ic_status status;
    ic_jpeg_stripe_outcome o;
} stripe_outcome;

typedef struct parallel_run {
    const ic_jpeg_parallel_job *job;
    const ic_jpeg_restart_map *map;
    const ic_jpeg_stripe *stripes;
    ic_image *rows;         /* each stripe's output rows */
    uint64_t max_memory;    /* each stripe's */
    stripe_outcome *outcomes;
} parallel_run;

static void run_stripes(void *context, int64_t begin, int64_t end) {
    parallel_run *r = (parallel_run *)context;
    for (int64_t k = begin; k < end; k++) {
        ic_jpeg_stripe_source src;
        ic__jpeg_stripe_source_init(&src, r->job->data, r->job->size, r->map, &r->stripes[k]);
        stripe_outcome *o = &r->outcomes[k];
        o->status = r->job->decode_stripe(r->job->context, &r->stripes[k], r->max_memory, &r->rows[k], &src, &o->o);
    }
}

/* Rows [begin, end) of `image` (whose row 0 is output row `origin`) as an image of their own;
 * 4:2:0 rows come in pairs (begin and origin are even). */
static ic_image rows_of(const ic_image *image, int32_t origin, int32_t begin, int32_t end) {
    ic_image v = *image;
    v.height = end - begin;
    for (int32_t p = 0; p < ic_format_plane_count(v.format); p++)
        v.planes[p].data += (size_t)(p == 0 ? begin - origin : (begin - origin) / 2) * v.planes[p].stride;
    return v;
}

ic_jpeg_parallel_result ic__jpeg_decode_parallel(j_decompress_ptr cinfo, const ic_jpeg_parallel_job *job,
                                                int32_t *stripes_out, uint64_t *peak_memory) {
    *stripes_out = 1;
    *peak_memory = 0;
    if (job->settings.threads < 2) return IC_PARALLEL_NOT_SPLIT;
    ic_jpeg_restart_map map;
    if (!ic__jpeg_restart_geometry(cinfo, job->data, job->size, &map)) return IC_PARALLEL_NOT_SPLIT;

    /* The table of row starts (at most 8193 entries, 64 KiB) lives outside libjpeg's pools
     * and is freed before returning, so a serial decode after this has the whole budget;
     * within the budget it is counted as the driver's. */
    const size_t table = sizeof(size_t) * (size_t)(map.starts + 1);
    const ic_jpeg_budget *b = &((const ic_jpeg_decoder *)cinfo->client_data)->budget;
    const uint64_t used = b->pool[0] + b->pool[1] + b->virt + table;
    if (job->max_memory && used >= job->max_memory) return IC_PARALLEL_NOT_SPLIT;
    size_t *start = (size_t *)malloc(table);
    if (!start) return IC_PARALLEL_NOT_SPLIT;
    ic_jpeg_parallel_result result = IC_PARALLEL_NOT_SPLIT;
    ic_jpeg_stripe stripes[IC_JPEG_PLAN_MAX_STRIPES];
    ic_jpeg_stripe_request req = job->request;
    req.max_stripes = job->settings.threads;
    int32_t n = 0;
    if (ic__jpeg_restart_scan(&map, job->data, job->size, job->settings.cpu, start))
        n = ic__jpeg_plan_stripes(&map, &req, stripes);
    if (n >= 2) {
        /* Each stripe's share of what the budget leaves (0 would mean no budget). */
        uint64_t share = 0;
        if (job->max_memory) share = (job->max_memory - used) / (uint64_t)n + 1;
        stripe_outcome outcomes[IC_JPEG_PLAN_MAX_STRIPES];
        memset(outcomes, 0, sizeof outcomes);
        ic_image rows[IC_JPEG_PLAN_MAX_STRIPES];
        for (int32_t k = 0; k < n; k++) rows[k] = rows_of(job->dst, job->request.y0, stripes[k].out_begin, stripes[k].out_end);
        parallel_run run = {job, &map, stripes, rows, share, outcomes};
        (void)ic__parallel_for(&job->settings, n, 1, run_stripes, &run);
        *stripes_out = n;
        *peak_memory = table;
        result = IC_PARALLEL_DONE;
        for (int32_t k = 0; k < n; k++) {
            *peak_memory += outcomes[k].o.peak_memory;
            if (outcomes[k].status != IC_OK || outcomes[k].o.warnings != 0) result = IC_PARALLEL_REDO;
        }
    }
    free(start);
    return result;
}

/* ---- ic_jpeg_scan_restarts ----------------------------------------------------------------- */

typedef struct scan_job {
    const uint8_t *data;
    size_t size;
    uint32_t cpu;
    ic_jpeg_restart_info *info;
} scan_job;

static ic_status scan_body(ic_jpeg_decoder *dec, void *context) {
    scan_job *job = (scan_job *)context;
    j_decompress_ptr cinfo = &dec->cinfo;
    ic_jpeg_restart_info *info = job->info;
    (void)jpeg_read_header(cinfo, TRUE);
    if (cinfo->image_width < 1 || cinfo->image_height < 1) return IC_ERR_CORRUPT_DATA;
    info->restart_interval = (int32_t)cinfo->restart_interval;
    ic_jpeg_restart_map map;
    if (!ic__jpeg_restart_geometry(cinfo, job->data, job->size, &map)) return IC_OK;
    info->mcu_rows = map.mcu_rows;
    info->intervals = (int32_t)(((int64_t)map.mcus_per_row * map.mcu_rows + map.interval - 1) / map.interval);
    info->cut_rows = (map.mcu_rows - 1) / ic__jpeg_restart_cut_period(&map);
    size_t *start = (size_t *)ic__jpeg_scratch((j_common_ptr)cinfo, sizeof(size_t) * (size_t)(map.starts + 1));
    info->splittable = info->cut_rows >= 1 && ic__jpeg_restart_scan(&map, job->data, job->size, job->cpu, start);
    return IC_OK;
}

ic_status ic_jpeg_scan_restarts(const uint8_t *data, size_t size, ic_jpeg_restart_info *out) {
    if (!out || (!data && size)) return IC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return IC_ERR_CORRUPT_DATA;
    ic_jpeg_restart_info info;
    memset(&info, 0, sizeof info);
    scan_job job = {data, size, ic__settings_read().cpu /* the call's one read */, &info};
    ic_jpeg_decoder dec;
    const ic_status st = ic__jpeg_guard(&dec, data, size, 0, IC_JPEG_DEFAULT_MAX_SCANS, 0, scan_body, &job);
    if (st == IC_OK) *out = info;
    return st;
}

/* ---- ic_jpeg_decode_stream in parallel --------------------------------------------------------- */

enum { STREAM_SLOT_BYTES = 8 << 20, STREAM_MIN_CHUNK = 16, STREAM_CHUNK = 32 };

typedef struct stream_state {
    const ic_jpeg_parallel_job *job;
    const ic_jpeg_restart_map *map;
    ic_jpeg_sink *sink;
    int32_t lines, y0, y1, last_row, overlap;
    int32_t chunk;          /* MCU rows a chunk owns */
    int32_t band;           /* rows per band */
    int32_t next;           /* the next band's first row (request coordinates, from 0) */
    int32_t copied;         /* rows of that band already in the sink's band buffer */
} stream_state;

/* The chunk after `prev` (or the first when prev is NULL): its decode starts at an interval
 * numbered 0 mod 8, it owns `chunk` MCU rows or more from `overlap` rows below that, and it
 * writes output rows. Returns 0 past the last. */
static int next_chunk(const stream_state *st, const ic_jpeg_stripe *prev, ic_jpeg_stripe *c) {
    const ic_jpeg_restart_map *m = st->map;
    memset(c, 0, sizeof *c);
    if (prev && prev->last) return 0;
    c->first_row = prev ? prev->first_row + st->chunk : 0;
    c->own_begin = prev ? prev->own_end : 0;
    /* The next chunk starts `chunk` rows further, or further still until it writes rows. */
    int32_t s = c->first_row + st->chunk;
    while (s + st->overlap <= st->y0 / st->lines) s += st->chunk;
    if (s + st->overlap > st->last_row) {
        c->last = 1;
        c->own_end = INT32_MAX;
    } else {
        c->own_end = s + st->overlap;
    }
    const int32_t end_row = c->last ? m->mcu_rows : c->own_end + 1;
    const int64_t bottom = (int64_t)end_row * m->mcu_height;
    c->height = (int32_t)((bottom < m->image_height ? bottom : m->image_height) - (int64_t)c->first_row * m->mcu_height);
    const int64_t ob = (int64_t)c->own_begin * st->lines, oe = c->last ? st->y1 : (int64_t)c->own_end * st->lines;
    c->out_begin = (int32_t)(ob > st->y0 ? ob : st->y0);
    c->out_end = (int32_t)(oe < st->y1 ? oe : st->y1);
    c->data_begin = m->start[c->first_row / m->period];
    return 1;
}

/* Copies rows [begin, end) (request coordinates) from a chunk's rows to the sink's band. */
static void copy_rows(stream_state *st, const ic_image *from, int32_t from_row, int32_t begin, int32_t end) {
    ic_jpeg_sink *s = st->sink;
    for (int32_t p = 0; p < ic_format_plane_count(from->format); p++) {
        const int32_t shift = p == 0 ? 0 : 1;
        const size_t n = ic__row_bytes(from->format, from->width, p);
        for (int32_t r = begin >> shift; r < (end + shift) >> shift; r++)
            memcpy(s->band.planes[p].data + (size_t)(r - (st->next >> shift)) * s->band.planes[p].stride,
                   from->planes[p].data + (size_t)(r - (from_row >> shift)) * from->planes[p].stride, n);
    }
}

/* Hands the complete bands among a finished chunk's rows [c0, c1) (request coordinates) to
 * the callback: straight from the chunk's rows when a band lies within them, else copied
 * into the sink's band buffer until the band is complete. */
static ic_status deliver(stream_state *st, const ic_image *rows, int32_t c0, int32_t c1) {
    ic_jpeg_sink *s = st->sink;
    const int32_t total = st->y1 - st->y0;
    while (st->next < c1) {
        const int32_t b0 = st->next, b1 = b0 + st->band < total ? b0 + st->band : total;
        if (st->copied == 0 && b0 >= c0 && b1 <= c1) {
            ic_image band = rows_of(rows, c0, b0, b1);
            if (s->fn(s->context, &band, b0) != 0) return IC_ERR_CANCELLED;
            st->next = b1;
            continue;
        }
        const int32_t from = b0 + st->copied > c0 ? b0 + st->copied : c0, to = b1 < c1 ? b1 : c1;
        copy_rows(st, rows, c0, from, to);
        st->copied = to - b0;
        if (to < b1) break; /* the rest of the band is in the next chunk */
        ic_image band = s->band;
        band.height = b1 - b0;
        if (s->fn(s->context, &band, b0) != 0) return IC_ERR_CANCELLED;
        st->next = b1;
        st->copied = 0;
    }
    return IC_OK;
}

ic_jpeg_parallel_result ic__jpeg_stream_parallel(j_decompress_ptr cinfo, const ic_jpeg_parallel_job *job,
                                                ic_jpeg_sink *sink, int32_t *resume, ic_status *status,
                                                int32_t *stripes_out, uint64_t *peak_memory) {
    *stripes_out = 1;
    *peak_memory = 0;
    *status = IC_OK;
    const int32_t threads = job->settings.threads < IC_JPEG_PLAN_MAX_STRIPES ? job->settings.threads : IC_JPEG_PLAN_MAX_STRIPES;
    if (threads < 2) return IC_PARALLEL_NOT_SPLIT;
    ic_jpeg_restart_map map;
    if (!ic__jpeg_restart_geometry(cinfo, job->data, job->size, &map)) return IC_PARALLEL_NOT_SPLIT;

    const ic_jpeg_stripe_request *r = &job->request;
    stream_state st;
    memset(&st, 0, sizeof st);
    st.job = job;
    st.map = &map;
    st.sink = sink;
    st.lines = r->lines;
    st.y0 = r->y0;
    st.y1 = r->y1;
    st.last_row = (r->y1 - 1) / r->lines;
    st.overlap = r->overlap;
    st.band = sink->band.height;
    /* Chunk length: a multiple of the period of intervals numbered 0 mod 8 (of 2 when 4:2:0
     * output has an odd number of rows per MCU row), as long as the slots' budget allows. */
    int32_t period = ic__jpeg_restart_cut_period(&map);
    if (r->even && (r->lines & 1) && (period & 1)) period *= 2;
    const ic_image *band = &sink->band;
    const int planes = ic_format_plane_count(band->format);
    size_t row_bytes = 0; /* per MCU row of output, all planes */
    for (int32_t p = 0; p < planes; p++)
        row_bytes += ic__row_bytes(band->format, band->width, p) * (size_t)(p == 0 ? r->lines : (r->lines + 1) / 2);
    /* A chunk writes at most chunk + overlap + 1 MCU rows (the first one also those from the
     * crop's first row down to its own end). */
    const int32_t extra = st.overlap + 1;
    int32_t chunk = (STREAM_CHUNK + period - 1) / period * period;
    while (chunk > period && (uint64_t)threads * (uint64_t)(chunk + extra) * row_bytes > STREAM_SLOT_BYTES) chunk -= period;
    if (chunk < STREAM_MIN_CHUNK || (uint64_t)threads * (uint64_t)(chunk + extra) * row_bytes > STREAM_SLOT_BYTES ||
        chunk + st.overlap > st.last_row)
        return IC_PARALLEL_NOT_SPLIT;
    st.chunk = chunk;

    /* The row-start table, then the slots: all outside libjpeg's pools, within the budget. */
    const size_t table = sizeof(size_t) * (size_t)(map.starts + 1);
    const size_t slot_rows = (size_t)(chunk + extra) * (size_t)r->lines;
    size_t slot_bytes = 0, stride[IC_MAX_PLANES];
    for (int32_t p = 0; p < planes; p++) {
        stride[p] = (ic__row_bytes(band->format, band->width, p) + 63) & ~(size_t)63;
        slot_bytes += stride[p] * (p == 0 ? slot_rows : (slot_rows + 1) / 2);
    }
    const ic_jpeg_budget *b = &((const ic_jpeg_decoder *)cinfo->client_data)->budget;
    const uint64_t used = b->pool[0] + b->pool[1] + b->virt + table + (uint64_t)threads * slot_bytes;
    if (job->max_memory && used >= job->max_memory) return IC_PARALLEL_NOT_SPLIT;
    size_t *start = (size_t *)malloc(table);
    uint8_t *slots = start ? (uint8_t *)malloc(slot_bytes * (size_t)threads) : NULL;
    ic_jpeg_parallel_result result = IC_PARALLEL_NOT_SPLIT;
    if (slots && ic__jpeg_restart_scan(&map, job->data, job->size, job->settings.cpu, start)) {
        result = IC_PARALLEL_DONE;
        const uint64_t share = job->max_memory ? (job->max_memory - used) / (uint64_t)threads + 1 : 0;
        ic_image views[IC_JPEG_PLAN_MAX_STRIPES];
        for (int32_t k = 0; k < threads; k++) {
            views[k] = *band;
            uint8_t *at = slots + slot_bytes * (size_t)k;
            for (int32_t p = 0; p < planes; p++) {
                views[k].planes[p].data = at;
                views[k].planes[p].stride = stride[p];
                at += stride[p] * (p == 0 ? slot_rows : (slot_rows + 1) / 2);
            }
        }
        ic_jpeg_stripe wave[IC_JPEG_PLAN_MAX_STRIPES];
        ic_image rows[IC_JPEG_PLAN_MAX_STRIPES];
        stripe_outcome outcomes[IC_JPEG_PLAN_MAX_STRIPES];
        ic_jpeg_stripe last;   /* the previous wave's last chunk */
        const ic_jpeg_stripe *prev = NULL;
        int32_t count = 0;
        uint64_t wave_peak = 0;
        for (;;) {
            int32_t n = 0;
            while (n < threads && next_chunk(&st, prev, &wave[n])) {
                rows[n] = views[n];
                rows[n].height = wave[n].out_end - wave[n].out_begin;
                last = wave[n++];
                prev = &last;
            }
            if (n == 0) break;
            for (int32_t k = 0; k < n; k++) {
                if ((size_t)rows[k].height > slot_rows) { /* cannot happen (see `extra`): stay safe */
                    result = IC_PARALLEL_REDO;
                    *resume = st.next;
                }
            }
            if (result != IC_PARALLEL_DONE) break;
            memset(outcomes, 0, sizeof outcomes);
            parallel_run run = {job, &map, wave, rows, share, outcomes};
            (void)ic__parallel_for(&job->settings, n, 1, run_stripes, &run);
            count += n;
            uint64_t peak = 0;
            for (int32_t k = 0; k < n; k++) peak += outcomes[k].o.peak_memory;
            if (peak > wave_peak) wave_peak = peak;
            for (int32_t k = 0; k < n && result == IC_PARALLEL_DONE && *status == IC_OK; k++) {
                if (outcomes[k].status != IC_OK || outcomes[k].o.warnings != 0) {
                    result = IC_PARALLEL_REDO;
                    *resume = st.next; /* the first band not delivered */
                    break;
                }
                *status = deliver(&st, &rows[k], wave[k].out_begin - st.y0, wave[k].out_end - st.y0);
            }
            if (result != IC_PARALLEL_DONE || *status != IC_OK || last.last) break;
        }
        *stripes_out = count;
        *peak_memory = table + (uint64_t)threads * slot_bytes + wave_peak;
    }
    free(slots);
    free(start);
    return result;
}
