/* The JPEG codec's plumbing into libjpeg: an error manager that longjmps with a status
 * instead of exiting, warning counting and strict mode, a scan-count limit, a source manager
 * over the caller's memory, and the guard that owns the decompressor's lifetime. */
#include "jpeg_internal.h"

#include <string.h>

/* ---- error manager ---------------------------------------------------------------- */

static ic_status status_for(int code) {
    switch (code) {
    case JERR_OUT_OF_MEMORY:
        return IC_ERR_OUT_OF_MEMORY;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
    case JERR_NO_BACKING_STORE: /* a whole-image buffer above max_memory (jmemnobs) */
    case JERR_TFILE_CREATE:
        return IC_ERR_TOO_LARGE;
    case JERR_BAD_PRECISION: /* 12-bit: this libjpeg build decodes 8-bit only */
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
        return IC_ERR_UNSUPPORTED;
    case JERR_BAD_STATE:
    case JERR_BAD_BUFFER_MODE:
    case JERR_BAD_CROP_SPEC:
        return IC_ERR_INTERNAL;
    default:
        return IC_ERR_CORRUPT_DATA;
    }
}

static void on_error_exit(j_common_ptr cinfo) {
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    err->status = status_for(err->pub.msg_code);
    (*err->pub.format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

/* The data-sanity rule (imagecore/jpeg.h, ic_jpeg_decode_options::min_valid_permille): the
 * first warning about the entropy data fixes how many output rows came from real data. */
static void note_data_problem(j_common_ptr cinfo, int code) {
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    if (!err->decoding || err->problem || !cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    /* Huffman decoders warn JWRN_HIT_MARKER when bits they need are missing; running out of
     * bytes alone (JWRN_JPEG_EOF) also happens with every bit read, e.g. a file without its EOI
     * marker or one cut between two progressive scans. Arithmetic decoders stuff zeros with no
     * warning of their own, so there the end of the bytes is the problem. */
    if (code == JWRN_JPEG_EOF && !d->arith_code) return;
    err->problem = 1;
    /* iMCU rows completed before the problem: the one being decoded counts as lost. A problem
     * in a later scan of a multi-scan file leaves every row with the first scan's data. */
    const int64_t imcu = d->input_scan_number <= 1 ? (int64_t)d->input_iMCU_row : (int64_t)d->total_iMCU_rows;
    int64_t v = imcu * err->imcu_rows;
    if (v >= err->out_rows) v = err->out_rows;
    else v -= err->context_rows;
    v -= err->first_row;
    err->valid_rows = (int32_t)(v < 0 ? 0 : v > err->rows ? err->rows : v);
    if (err->min_valid > 0 && err->valid_rows < err->min_valid) {
        char why[JMSG_LENGTH_MAX];
        (*err->pub.format_message)(cinfo, why);
        snprintf(err->message, sizeof err->message,
                 "only %d of %d rows have image data, %d required (%.100s)", (int)err->valid_rows,
                 (int)err->rows, (int)err->min_valid, why);
        err->status = IC_ERR_CORRUPT_DATA;
        longjmp(err->jump, 1);
    }
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    if (level >= 0) return; /* trace messages */
    err->warnings++;
    err->pub.num_warnings++;
    (*err->pub.format_message)(cinfo, err->message);
    if (err->strict) {
        err->status = IC_ERR_CORRUPT_DATA;
        longjmp(err->jump, 1);
    }
    note_data_problem(cinfo, err->pub.msg_code);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

void ic__jpeg_error_init(ic_jpeg_error *err, int strict) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = on_error_exit;
    err->pub.emit_message = on_emit_message;
    err->pub.output_message = on_output_message;
    err->status = IC_OK;
    err->strict = strict;
    err->warnings = 0;
    err->max_scans = 0;
    err->message[0] = '\0';
    err->decoding = 0;
    err->imcu_rows = err->context_rows = err->out_rows = err->first_row = err->rows = 0;
    err->min_valid = err->valid_rows = 0;
    err->problem = 0;
}

void ic__jpeg_start(j_decompress_ptr cinfo) {
    ((ic_jpeg_error *)cinfo->err)->decoding = 1;
    jpeg_start_decompress(cinfo);
}

void ic__jpeg_fail(j_common_ptr cinfo, ic_status status, const char *message) {
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    err->status = status;
    snprintf(err->message, sizeof err->message, "%s", message);
    longjmp(err->jump, 1);
}

/* libjpeg calls this at least once per scan while absorbing input: a file of thousands of
 * tiny progressive scans would otherwise cost time proportional to scans x image size. */
static void on_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    if (err->max_scans > 0 && d->input_scan_number > err->max_scans) {
        char m[80];
        snprintf(m, sizeof m, "more than %d scans", (int)err->max_scans);
        ic__jpeg_fail(cinfo, IC_ERR_TOO_LARGE, m);
    }
}

/* ---- memory source ---------------------------------------------------------------- */

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void src_init(j_decompress_ptr cinfo) { (void)cinfo; }

/* Called only when the data is exhausted: the next chunk from the reader if there is one,
 * else feed an EOI marker, and warn (as jdatasrc.c). */
static boolean src_fill(j_decompress_ptr cinfo) {
    ic_jpeg_source *src = (ic_jpeg_source *)cinfo->src;
    if (src->read) {
        const size_t n = src->read(src->read_context, src->buffer, src->capacity);
        if (n > 0 && n <= src->capacity) {
            src->pub.next_input_byte = src->buffer;
            src->pub.bytes_in_buffer = n;
            return TRUE;
        }
        src->read = NULL; /* the end (or a read error): never asked again */
    }
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void src_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    /* A streamed file: skip through the reader's chunks. The end of the data (an EOI fed,
     * one warning) stops it where a file in memory stops: one warning, not a second one for
     * skipping past the fed EOI. */
    while ((unsigned long)count > src->bytes_in_buffer && ((ic_jpeg_source *)src)->read) {
        count -= (long)src->bytes_in_buffer;
        src->bytes_in_buffer = 0;
        (void)src_fill(cinfo);
        if (!((ic_jpeg_source *)src)->read) return;
    }
    if ((unsigned long)count > src->bytes_in_buffer) {
        (void)src_fill(cinfo); /* skipping past the end: the file is truncated */
        return;
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static void src_term(j_decompress_ptr cinfo) { (void)cinfo; }

void ic__jpeg_source_init(j_decompress_ptr cinfo, ic_jpeg_source *src, const uint8_t *data,
                          size_t size) {
    src->data = data;
    src->size = size;
    src->read = NULL;
    src->read_context = NULL;
    src->buffer = NULL;
    src->capacity = 0;
    src->pub.init_source = src_init;
    src->pub.fill_input_buffer = src_fill;
    src->pub.skip_input_data = src_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = src_term;
    src->pub.next_input_byte = data;
    src->pub.bytes_in_buffer = size;
    cinfo->src = &src->pub;
}

enum { STREAM_CHUNK = 64 * 1024 };

void ic__jpeg_source_stream(j_decompress_ptr cinfo, ic_jpeg_source *src, ic_jpeg_read_fn read,
                            void *read_context) {
    if (!read) return;
    /* The permanent pool: the buffer lives until the decompressor is destroyed. */
    src->buffer = (uint8_t *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT, STREAM_CHUNK);
    src->capacity = STREAM_CHUNK;
    src->read_context = read_context;
    src->read = read;
}

/* ---- memory budget -------------------------------------------------------------------
 * libjpeg allocates only through its memory manager's methods (jmemmgr.c calls its own
 * array allocators directly only while realizing virtual arrays, which are counted when
 * requested). Each wrapper charges the bytes, plus libjpeg's per-object overhead, before the
 * real allocation. */

enum { SMALL_OVERHEAD = 16, LARGE_OVERHEAD = 64, ROW_ALIGN = 64 };

static ic_jpeg_budget *budget_of(j_common_ptr cinfo) {
    return &((ic_jpeg_decoder *)cinfo->client_data)->budget;
}

static void charge(j_common_ptr cinfo, int pool_id, uint64_t bytes) {
    ic_jpeg_budget *b = budget_of(cinfo);
    const uint64_t total = b->pool[0] + b->pool[1] + b->virt + bytes;
    if (b->limit && total > b->limit) {
        char m[IC_JPEG_MESSAGE_LENGTH];
        snprintf(m, sizeof m, "the decode needs more than its memory budget of %llu bytes",
                 (unsigned long long)b->limit);
        ic__jpeg_fail(cinfo, IC_ERR_TOO_LARGE, m);
    }
    b->pool[pool_id == JPOOL_PERMANENT ? 0 : 1] += bytes;
    if (total > b->peak) b->peak = total;
}

static uint64_t sarray_bytes(JDIMENSION samples, JDIMENSION rows) {
    const uint64_t row = ((uint64_t)samples + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
    return (uint64_t)rows * (row + sizeof(JSAMPROW)) + 2 * LARGE_OVERHEAD;
}

static uint64_t barray_bytes(JDIMENSION blocks, JDIMENSION rows) {
    return (uint64_t)rows * ((uint64_t)blocks * sizeof(JBLOCK) + sizeof(JBLOCKROW)) + 2 * LARGE_OVERHEAD;
}

static void *w_alloc_small(j_common_ptr c, int pool, size_t n) {
    charge(c, pool, (uint64_t)n + SMALL_OVERHEAD);
    return budget_of(c)->real.alloc_small(c, pool, n);
}

static void *w_alloc_large(j_common_ptr c, int pool, size_t n) {
    charge(c, pool, (uint64_t)n + LARGE_OVERHEAD);
    return budget_of(c)->real.alloc_large(c, pool, n);
}

static JSAMPARRAY w_alloc_sarray(j_common_ptr c, int pool, JDIMENSION samples, JDIMENSION rows) {
    charge(c, pool, sarray_bytes(samples, rows));
    return budget_of(c)->real.alloc_sarray(c, pool, samples, rows);
}

static JBLOCKARRAY w_alloc_barray(j_common_ptr c, int pool, JDIMENSION blocks, JDIMENSION rows) {
    charge(c, pool, barray_bytes(blocks, rows));
    return budget_of(c)->real.alloc_barray(c, pool, blocks, rows);
}

/* Virtual arrays are allocated whole when realized (there is no backing store): count them
 * at the request, so the budget refuses before jpeg_start_decompress allocates them. */
static jvirt_sarray_ptr w_request_sarray(j_common_ptr c, int pool, boolean zero, JDIMENSION samples,
                                         JDIMENSION rows, JDIMENSION access) {
    ic_jpeg_budget *b = budget_of(c);
    const uint64_t bytes = sarray_bytes(samples, rows);
    charge(c, pool, bytes);
    b->pool[pool == JPOOL_PERMANENT ? 0 : 1] -= bytes; /* held in `virt` until freed */
    b->virt += bytes;
    return b->real.request_virt_sarray(c, pool, zero, samples, rows, access);
}

static jvirt_barray_ptr w_request_barray(j_common_ptr c, int pool, boolean zero, JDIMENSION blocks,
                                         JDIMENSION rows, JDIMENSION access) {
    ic_jpeg_budget *b = budget_of(c);
    const uint64_t bytes = barray_bytes(blocks, rows);
    charge(c, pool, bytes);
    b->pool[pool == JPOOL_PERMANENT ? 0 : 1] -= bytes;
    b->virt += bytes;
    return b->real.request_virt_barray(c, pool, zero, blocks, rows, access);
}

static void w_free_pool(j_common_ptr c, int pool) {
    ic_jpeg_budget *b = budget_of(c);
    b->real.free_pool(c, pool);
    b->pool[pool == JPOOL_PERMANENT ? 0 : 1] = 0;
    if (pool != JPOOL_PERMANENT) b->virt = 0; /* virtual arrays live in the image pool */
}

static void install_budget(ic_jpeg_decoder *dec, uint64_t limit) {
    struct jpeg_memory_mgr *mem = dec->cinfo.mem;
    memset(&dec->budget, 0, sizeof dec->budget);
    dec->budget.limit = limit;
    dec->budget.real = *mem;
    dec->cinfo.client_data = dec;
    mem->alloc_small = w_alloc_small;
    mem->alloc_large = w_alloc_large;
    mem->alloc_sarray = w_alloc_sarray;
    mem->alloc_barray = w_alloc_barray;
    mem->request_virt_sarray = w_request_sarray;
    mem->request_virt_barray = w_request_barray;
    mem->free_pool = w_free_pool;
}

/* ---- guard -------------------------------------------------------------------------- */

void *ic__jpeg_scratch(j_common_ptr cinfo, size_t bytes) {
    /* alloc_large errors out (longjmp, IC_ERR_OUT_OF_MEMORY) rather than return NULL. */
    return (*cinfo->mem->alloc_large)(cinfo, JPOOL_IMAGE, bytes ? bytes : 1);
}

ic_status ic__jpeg_guard(ic_jpeg_decoder *dec, const uint8_t *data, size_t size, int strict,
                         int32_t max_scans, uint64_t max_memory, ic_jpeg_body_fn body, void *context) {
    return ic__jpeg_guard_source(dec, data, size, NULL, NULL, strict, max_scans, max_memory, body, context);
}

ic_status ic__jpeg_guard_source(ic_jpeg_decoder *dec, const uint8_t *data, size_t size,
                                ic_jpeg_source_fn install, void *source, int strict,
                                int32_t max_scans, uint64_t max_memory, ic_jpeg_body_fn body, void *context) {
    /* Zeroed first so that jpeg_destroy_decompress is safe even if creation fails early. */
    memset(&dec->cinfo, 0, sizeof dec->cinfo);
    ic__jpeg_error_init(&dec->err, strict);
    dec->err.max_scans = max_scans;
    dec->cinfo.err = &dec->err.pub;
    dec->created = 1;
    if (setjmp(dec->err.jump)) {
        /* Everything we allocated lives in libjpeg's pools: destroying frees it all. */
        if (dec->created) jpeg_destroy_decompress(&dec->cinfo);
        dec->created = 0;
        return dec->err.status != IC_OK ? dec->err.status : IC_ERR_INTERNAL;
    }
    memset(&dec->budget, 0, sizeof dec->budget);
    jpeg_create_decompress(&dec->cinfo);
    install_budget(dec, max_memory);
    memset(&dec->progress, 0, sizeof dec->progress);
    dec->progress.progress_monitor = on_progress;
    dec->cinfo.progress = &dec->progress;
    if (install) install(&dec->cinfo, source);
    else ic__jpeg_source_init(&dec->cinfo, &dec->src, data, size);
    ic_status st = body(dec, context);
    jpeg_destroy_decompress(&dec->cinfo);
    dec->created = 0;
    return st;
}
