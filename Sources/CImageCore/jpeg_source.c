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

/* Called only when the data is exhausted: feed an EOI marker, and warn (as jdatasrc.c). */
static boolean src_fill(j_decompress_ptr cinfo) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void src_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
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
    src->pub.init_source = src_init;
    src->pub.fill_input_buffer = src_fill;
    src->pub.skip_input_data = src_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = src_term;
    src->pub.next_input_byte = data;
    src->pub.bytes_in_buffer = size;
    cinfo->src = &src->pub;
}

/* ---- guard -------------------------------------------------------------------------- */

void *ic__jpeg_scratch(j_common_ptr cinfo, size_t bytes) {
    /* alloc_large errors out (longjmp, IC_ERR_OUT_OF_MEMORY) rather than return NULL. */
    return (*cinfo->mem->alloc_large)(cinfo, JPOOL_IMAGE, bytes ? bytes : 1);
}

ic_status ic__jpeg_guard(ic_jpeg_decoder *dec, const uint8_t *data, size_t size, int strict,
                         int32_t max_scans, ic_jpeg_body_fn body, void *context) {
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
    jpeg_create_decompress(&dec->cinfo);
    memset(&dec->progress, 0, sizeof dec->progress);
    dec->progress.progress_monitor = on_progress;
    dec->cinfo.progress = &dec->progress;
    ic__jpeg_source_init(&dec->cinfo, &dec->src, data, size);
    ic_status st = body(dec, context);
    jpeg_destroy_decompress(&dec->cinfo);
    dec->created = 0;
    return st;
}
