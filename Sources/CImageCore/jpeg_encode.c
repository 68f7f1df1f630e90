/* JPEG encode from RGBA8 / RGB8 / GRAY8 rows (libjpeg converts and subsamples) and straight
 * from I420 / NV12 planes (libjpeg's raw-data input: no colour round trip), into a caller
 * buffer, a write callback or a growing malloc'd buffer.
 *
 * Settings follow TurboJPEG's setCompDefaults step by step (defaults, quality, DCT choice,
 * colour space, progression, sampling factors), so the bytes equal tjCompress2's and
 * tjCompressFromYUVPlanes' for the same options. */
#include "jpeg_restart.h"
#include "row.h"

#include <stdlib.h>
#include <string.h>

enum { DEFAULT_QUALITY = 85, CHUNK_BYTES = 64 * 1024, MAX_ROW_POINTERS = 64, APP1_BYTES = 32 };

/* Below this many pixels a parallel encode costs more than it saves (a compressor per stripe,
 * a fork and join, the joining copy): bench jpeg-encode-threshold. */
enum { PARALLEL_MIN_PIXELS = 512 * 1024 };

void ic_jpeg_encode_options_init(ic_jpeg_encode_options *options) {
    if (options) memset(options, 0, sizeof *options);
}

void ic_jpeg_free(void *buffer) { free(buffer); }

/* ---- options ---------------------------------------------------------------------------- */

/* Profile bytes per APP2 chunk: 65535 - 2 (length) - 12 ("ICC_PROFILE\0") - 2 (number, count). */
enum { ICC_CHUNK = 65519 };

static int has_exif_prefix(const uint8_t *p, size_t n) { return n >= 6 && memcmp(p, "Exif\0", 5) == 0; }

/* The APP1 payload the encoder writes for `exif`: the bytes with the "Exif\0\0" prefix. */
static size_t exif_app1_size(const ic_jpeg_encode_options *o) {
    return o->exif_size + (has_exif_prefix(o->exif, o->exif_size) ? 0 : 6);
}

static ic_status normalize(const ic_jpeg_encode_options *in, ic_format format, ic_jpeg_encode_options *o) {
    if (in) *o = *in;
    else memset(o, 0, sizeof *o);
    if (o->quality == 0) o->quality = DEFAULT_QUALITY;
    if (o->quality < 1 || o->quality > 100) return IC_ERR_INVALID_ARGUMENT;
    if (o->flags & ~(uint32_t)(IC_JPEG_PROGRESSIVE | IC_JPEG_OPTIMIZE | IC_JPEG_ACCURATE_DCT))
        return IC_ERR_INVALID_ARGUMENT;
    if (o->restart_interval < 0 || o->restart_interval > 65535)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "restart interval %d: 0...65535", (int)o->restart_interval);
    if (o->restart_rows < -1 || o->restart_rows > 65535)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "restart rows %d: -1 (none), 0 (automatic) or 1...65535", (int)o->restart_rows);
    if (o->orientation < 0 || o->orientation > 8) return IC_ERR_INVALID_ARGUMENT;
    if ((!o->icc_profile && o->icc_size) || (!o->exif && o->exif_size)) return IC_ERR_INVALID_ARGUMENT;
    if (o->icc_size > (size_t)255 * ICC_CHUNK) return IC_ERR_TOO_LARGE;
    if (o->exif && exif_app1_size(o) > 65533) return IC_ERR_TOO_LARGE;
    if ((int)o->subsampling < 0 || o->subsampling > IC_JPEG_SUBSAMP_411) return IC_ERR_INVALID_ARGUMENT;
    if (o->subsampling == IC_JPEG_SUBSAMP_UNKNOWN)
        o->subsampling = format == IC_FORMAT_GRAY8 ? IC_JPEG_SUBSAMP_GRAY : IC_JPEG_SUBSAMP_420;
    switch (format) {
    case IC_FORMAT_RGBA8:
    case IC_FORMAT_RGB8:
        return IC_OK;
    case IC_FORMAT_GRAY8:
        return o->subsampling == IC_JPEG_SUBSAMP_GRAY ? IC_OK : IC_ERR_UNSUPPORTED;
    case IC_FORMAT_I420:
    case IC_FORMAT_NV12:
        return o->subsampling == IC_JPEG_SUBSAMP_420 || o->subsampling == IC_JPEG_SUBSAMP_GRAY
                   ? IC_OK : IC_ERR_UNSUPPORTED;
    default:
        return IC_ERR_INVALID_ARGUMENT;
    }
}

/* MCU size in pixels per subsampling (TurboJPEG's tjMCUWidth / tjMCUHeight). */
static void mcu_size(ic_jpeg_subsampling s, int *w, int *h) {
    switch (s) {
    case IC_JPEG_SUBSAMP_422: *w = 16; *h = 8; break;
    case IC_JPEG_SUBSAMP_420: *w = 16; *h = 16; break;
    case IC_JPEG_SUBSAMP_440: *w = 8; *h = 16; break;
    case IC_JPEG_SUBSAMP_411: *w = 32; *h = 8; break;
    default: *w = 8; *h = 8; break;
    }
}

/* MCUs between restart markers for a `width` x `height` image (normalized options): the
 * interval, else libjpeg's restart_in_rows arithmetic for the rows asked for or chosen. */
static int32_t effective_restart(const ic_jpeg_encode_options *o, int32_t width, int32_t height) {
    if (o->restart_interval > 0) return o->restart_interval;
    int mw, mh;
    mcu_size(o->subsampling, &mw, &mh);
    const int64_t per_row = ((int64_t)width + mw - 1) / mw;
    int64_t rows = o->restart_rows;
    if (rows == 0) rows = (int64_t)width * height >= IC_JPEG_AUTO_RESTART_PIXELS ? 1 : 0;
    if (rows <= 0) return 0;
    const int64_t r = rows * per_row;
    return (int32_t)(r < 65535 ? r : 65535);
}

ic_status ic_jpeg_encode_bound(int32_t width, int32_t height, const ic_jpeg_encode_options *options,
                               size_t *bound) {
    if (!bound) return IC_ERR_INVALID_ARGUMENT;
    if (width < 1 || height < 1) return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    ic_jpeg_encode_options o;
    /* Any input format will do for the size; RGB accepts every subsampling. */
    ic_status st = normalize(options, IC_FORMAT_RGB8, &o);
    if (st != IC_OK) return st;
    int mw, mh;
    mcu_size(o.subsampling, &mw, &mh);
    const uint64_t pw = ((uint64_t)width + (uint64_t)mw - 1) / (uint64_t)mw * (uint64_t)mw;
    const uint64_t ph = ((uint64_t)height + (uint64_t)mh - 1) / (uint64_t)mh * (uint64_t)mh;
    const uint64_t chroma = o.subsampling == IC_JPEG_SUBSAMP_GRAY ? 0 : (uint64_t)(4 * 64 / (mw * mh));
    uint64_t b = pw * ph * (2 + chroma) + 2048;            /* tjBufSize */
    if (o.exif) b += exif_app1_size(&o) + 4;               /* APP1 marker, length, payload */
    else if (o.orientation) b += APP1_BYTES + 4;
    if (o.icc_size) b += o.icc_size + 18 * ((o.icc_size + ICC_CHUNK - 1) / ICC_CHUNK); /* APP2 chunks */
    const int32_t restart = effective_restart(&o, width, height);
    if (restart) b += 3 * ((pw / (uint64_t)mw) * (ph / (uint64_t)mh) / (uint64_t)restart + 1);
    if (o.flags & IC_JPEG_PROGRESSIVE) b += 4096;         /* scan headers and tables */
    if (b > (uint64_t)SIZE_MAX) return IC_ERR_TOO_LARGE;
    *bound = (size_t)b;
    return IC_OK;
}

/* ---- destinations ----------------------------------------------------------------------- */

enum { DEST_FIXED, DEST_CALLBACK, DEST_GROW };

typedef struct enc_dest {
    struct jpeg_destination_mgr pub;
    int mode;
    uint8_t *buf;
    size_t cap;
    size_t flushed;          /* bytes already handed to the callback */
    ic_jpeg_write_fn write;
    void *context;
    /* Fixed buffers: libjpeg asks to empty the buffer as soon as its last byte is written, even
     * if no byte follows, so output that fits exactly must not fail there. Further bytes go to
     * this sink; a byte actually landing in it means the output did not fit. */
    int spilled;
    uint8_t sink[16];
} enc_dest;

static void dest_init(j_compress_ptr cinfo) {
    enc_dest *d = (enc_dest *)cinfo->dest;
    d->pub.next_output_byte = d->buf;
    d->pub.free_in_buffer = d->cap;
}

/* libjpeg calls this when the buffer is full (the whole buffer is to be emptied). */
static boolean dest_empty(j_compress_ptr cinfo) {
    enc_dest *d = (enc_dest *)cinfo->dest;
    switch (d->mode) {
    case DEST_FIXED:
        if (d->spilled) ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_BUFFER_TOO_SMALL, "output buffer too small");
        d->spilled = 1;
        d->pub.next_output_byte = d->sink;
        d->pub.free_in_buffer = sizeof d->sink;
        break;
    case DEST_CALLBACK: {
        ic_status st = d->write(d->context, d->buf, d->cap);
        if (st != IC_OK) ic__jpeg_fail((j_common_ptr)cinfo, st, "write callback stopped the encode");
        d->flushed += d->cap;
        d->pub.next_output_byte = d->buf;
        d->pub.free_in_buffer = d->cap;
        break;
    }
    default: {
        size_t cap = d->cap * 2;
        if (cap < d->cap) ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_TOO_LARGE, "output size overflow");
        uint8_t *p = (uint8_t *)realloc(d->buf, cap);
        if (!p) ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_OUT_OF_MEMORY, "output buffer growth failed");
        d->buf = p; /* the old block is gone; the caller's cleanup frees this one on error */
        d->pub.next_output_byte = p + d->cap;
        d->pub.free_in_buffer = cap - d->cap;
        d->cap = cap;
        break;
    }
    }
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    enc_dest *d = (enc_dest *)cinfo->dest;
    if (d->mode == DEST_FIXED && d->spilled && d->pub.free_in_buffer < sizeof d->sink)
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_BUFFER_TOO_SMALL, "output buffer too small");
    if (d->mode == DEST_CALLBACK) {
        const size_t n = d->cap - d->pub.free_in_buffer;
        if (n) {
            ic_status st = d->write(d->context, d->buf, n);
            if (st != IC_OK) ic__jpeg_fail((j_common_ptr)cinfo, st, "write callback stopped the encode");
            d->flushed += n;
            d->pub.next_output_byte = d->buf;
            d->pub.free_in_buffer = d->cap;
        }
    }
}

static size_t dest_size(const enc_dest *d) {
    if (d->mode == DEST_CALLBACK) return d->flushed;
    if (d->spilled) return d->cap; /* filled exactly (term checked that nothing spilled) */
    return d->cap - d->pub.free_in_buffer;
}

/* ---- the encode ------------------------------------------------------------------------- */

typedef struct enc_job {
    struct jpeg_compress_struct cinfo;
    ic_jpeg_error err;
    enc_dest dest;
    const ic_image *src;
    ic_jpeg_encode_options opt;
    int created;
    ic__settings settings;  /* read once per call */
    int32_t restart;        /* MCUs between restart markers (effective_restart of the whole image) */
} enc_job;

/* Settings in tjCompress2's order (setCompDefaults). */
static void configure(j_compress_ptr cinfo, const enc_job *job, int raw) {
    const ic_image *src = job->src;
    const ic_jpeg_encode_options *o = &job->opt;
    cinfo->image_width = (JDIMENSION)src->width;
    cinfo->image_height = (JDIMENSION)src->height;
    switch (src->format) {
    case IC_FORMAT_RGBA8: cinfo->in_color_space = JCS_EXT_RGBA; cinfo->input_components = 4; break;
    case IC_FORMAT_RGB8: cinfo->in_color_space = JCS_EXT_RGB; cinfo->input_components = 3; break;
    case IC_FORMAT_GRAY8: cinfo->in_color_space = JCS_GRAYSCALE; cinfo->input_components = 1; break;
    default: cinfo->in_color_space = JCS_EXT_RGB; cinfo->input_components = 3; break; /* raw: unused */
    }
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, o->quality, TRUE);
    cinfo->dct_method = (o->quality >= 96 || (o->flags & IC_JPEG_ACCURATE_DCT)) ? JDCT_ISLOW : JDCT_IFAST;
    const int gray = o->subsampling == IC_JPEG_SUBSAMP_GRAY;
    jpeg_set_colorspace(cinfo, gray ? JCS_GRAYSCALE : JCS_YCbCr);
    if (o->flags & IC_JPEG_PROGRESSIVE) jpeg_simple_progression(cinfo);
    int mw, mh;
    mcu_size(o->subsampling, &mw, &mh);
    for (int c = 0; c < cinfo->num_components; c++) {
        cinfo->comp_info[c].h_samp_factor = c == 0 ? mw / 8 : 1;
        cinfo->comp_info[c].v_samp_factor = c == 0 ? mh / 8 : 1;
    }
    if (o->flags & IC_JPEG_OPTIMIZE) cinfo->optimize_coding = TRUE;
    cinfo->restart_interval = (unsigned int)job->restart;
    cinfo->raw_data_in = raw ? TRUE : FALSE;
}

/* EXIF as APP1: the caller's bytes (prefixed, orientation set in the copy) or the minimal
 * orientation-only APP1; then the ICC profile as APP2 chunks. */
static void write_metadata(j_compress_ptr cinfo, const ic_jpeg_encode_options *o) {
    if (o->exif) {
        const size_t n = exif_app1_size(o);
        uint8_t *app1 = (uint8_t *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, n);
        const size_t head = n - o->exif_size;
        memcpy(app1, "Exif\0\0", head);
        memcpy(app1 + head, o->exif, o->exif_size);
        if (o->orientation) (void)ic_exif_set_orientation(app1, n, o->orientation);
        jpeg_write_marker(cinfo, JPEG_APP0 + 1, app1, (unsigned int)n);
    } else if (o->orientation) {
        uint8_t app1[APP1_BYTES];
        const size_t n = ic__exif_orientation_app1(app1, o->orientation);
        jpeg_write_marker(cinfo, JPEG_APP0 + 1, app1, (unsigned int)n);
    }
    if (o->icc_size) jpeg_write_icc_profile(cinfo, o->icc_profile, (unsigned int)o->icc_size);
}

static void encode_packed(j_compress_ptr cinfo, const ic_image *src) {
    JSAMPROW rows[MAX_ROW_POINTERS];
    while (cinfo->next_scanline < cinfo->image_height) {
        const JDIMENSION y = cinfo->next_scanline;
        JDIMENSION n = cinfo->image_height - y;
        if (n > MAX_ROW_POINTERS) n = MAX_ROW_POINTERS;
        for (JDIMENSION i = 0; i < n; i++) rows[i] = src->planes[0].data + (size_t)(y + i) * src->planes[0].stride;
        if (jpeg_write_scanlines(cinfo, rows, n) == 0)
            ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_INTERNAL, "encoder made no progress");
    }
}

/* Raw input, one iMCU row at a time. A component's rows point straight at the caller's plane
 * when the plane is as wide as the block-padded row and the iMCU row lies inside it; otherwise
 * (right or bottom edge, NV12 chroma) they are copied into a band buffer with the last column
 * and row repeated, which is what libjpeg does to non-raw input and what TurboJPEG's tmpbuf does. */
static void encode_raw(j_compress_ptr cinfo, const ic_image *src, uint32_t cpu) {
    const int nc = cinfo->num_components;
    const int nv12 = src->format == IC_FORMAT_NV12;
    const ic_row_split_uv_fn split = ic__row_pick_split_uv(cpu); /* the call's settings snapshot */
    size_t iw[3], pw[3];
    int32_t ph[3], th[3];
    uint8_t *buf[3];
    JSAMPROW rows[3][2 * DCTSIZE];
    for (int c = 0; c < nc; c++) {
        const jpeg_component_info *comp = &cinfo->comp_info[c];
        iw[c] = (size_t)comp->width_in_blocks * DCTSIZE;
        th[c] = comp->v_samp_factor * DCTSIZE;
        pw[c] = ic__row_bytes(IC_FORMAT_I420, src->width, c); /* samples per row */
        ph[c] = ic__plane_rows(IC_FORMAT_I420, src->height, c);
        buf[c] = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, iw[c] * (size_t)th[c]);
    }
    const int32_t lines = cinfo->max_v_samp_factor * DCTSIZE;
    for (int32_t row = 0; row < (int32_t)cinfo->image_height; row += lines) {
        JSAMPARRAY planes[3];
        for (int c = 0; c < nc; c++) {
            planes[c] = rows[c];
            const int32_t crow = row * cinfo->comp_info[c].v_samp_factor / cinfo->max_v_samp_factor;
            const int direct = !(nv12 && c > 0) && iw[c] == pw[c] && crow + th[c] <= ph[c];
            for (int32_t i = 0; i < th[c]; i++) {
                if (direct) {
                    rows[c][i] = src->planes[c].data + (size_t)(crow + i) * src->planes[c].stride;
                    continue;
                }
                uint8_t *dst = buf[c] + (size_t)i * iw[c];
                rows[c][i] = dst;
                if (nv12 && c == 2) continue; /* filled with U below */
                const int32_t sy = crow + i < ph[c] ? crow + i : ph[c] - 1; /* repeat the last row */
                if (nv12 && c == 1) {
                    uint8_t *v = buf[2] + (size_t)i * iw[2];
                    split(src->planes[1].data + (size_t)sy * src->planes[1].stride, dst, v, pw[1]);
                    memset(v + pw[2], v[pw[2] - 1], iw[2] - pw[2]);
                } else {
                    memcpy(dst, src->planes[c].data + (size_t)sy * src->planes[c].stride, pw[c]);
                }
                memset(dst + pw[c], dst[pw[c] - 1], iw[c] - pw[c]); /* repeat the last column */
            }
        }
        if (jpeg_write_raw_data(cinfo, planes, (JDIMENSION)lines) == 0)
            ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_INTERNAL, "encoder made no progress");
    }
}

static ic_status encode_guarded(enc_job *job) {
    j_compress_ptr cinfo = &job->cinfo;
    memset(cinfo, 0, sizeof *cinfo);
    ic__jpeg_error_init(&job->err, 0);
    cinfo->err = &job->err.pub;
    job->created = 1;
    if (setjmp(job->err.jump)) {
        jpeg_destroy_compress(cinfo);
        job->created = 0;
        return job->err.status != IC_OK ? job->err.status : IC_ERR_INTERNAL;
    }
    jpeg_create_compress(cinfo);
    if (job->dest.mode == DEST_CALLBACK)
        job->dest.buf = (uint8_t *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT, CHUNK_BYTES);
    job->dest.pub.init_destination = dest_init;
    job->dest.pub.empty_output_buffer = dest_empty;
    job->dest.pub.term_destination = dest_term;
    cinfo->dest = &job->dest.pub;
    const int raw = job->src->format == IC_FORMAT_I420 || job->src->format == IC_FORMAT_NV12;
    configure(cinfo, job, raw);
    jpeg_start_compress(cinfo, TRUE);
    write_metadata(cinfo, &job->opt);
    if (raw) encode_raw(cinfo, job->src, job->settings.cpu);
    else encode_packed(cinfo, job->src);
    jpeg_finish_compress(cinfo);
    jpeg_destroy_compress(cinfo);
    job->created = 0;
    return IC_OK;
}

/* ---- parallel encode (jpeg_encode_parallel.c) -------------------------------------------- */

typedef struct stripe_context {
    enc_job *job;           /* the call: options, settings, restart interval, destination */
    enc_job *stripes;       /* one compressor's job per stripe */
} stripe_context;

/* One stripe: rows [row0, row0 + rows) of the source as a JPEG of its own. The first writes
 * straight into a fixed or growing destination; the others (and all, for a write callback,
 * which is only ever called on the caller's thread) into growing buffers of their own. */
static ic_status encode_rows(void *context, int32_t row0, int32_t rows, int32_t index, ic_jpeg_part *out) {
    stripe_context *c = (stripe_context *)context;
    const enc_job *job = c->job;
    enc_job *s = &c->stripes[index];
    memset(s, 0, sizeof *s);
    s->opt = job->opt;
    if (index > 0) { /* the join keeps only the first stripe's header: no metadata to write */
        s->opt.exif = NULL;
        s->opt.exif_size = 0;
        s->opt.icc_profile = NULL;
        s->opt.icc_size = 0;
        s->opt.orientation = 0;
    }
    s->settings = job->settings;
    s->restart = job->restart;
    ic_image view = *job->src;
    view.height = rows;
    for (int32_t p = 0; p < ic_format_plane_count(view.format); p++)
        view.planes[p].data += (size_t)(p == 0 ? row0 : row0 / 2) * view.planes[p].stride;
    s->src = &view;
    const int direct = index == 0 && job->dest.mode != DEST_CALLBACK;
    if (direct) {
        s->dest.mode = job->dest.mode;
        s->dest.buf = job->dest.buf;
        s->dest.cap = job->dest.cap;
    } else {
        s->dest.mode = DEST_GROW;
        s->dest.cap = (size_t)view.width * (size_t)rows / 4 + 4096;
        s->dest.buf = (uint8_t *)malloc(s->dest.cap);
        if (!s->dest.buf) return IC_ERR_OUT_OF_MEMORY;
    }
    const ic_status st = encode_guarded(s);
    out->data = s->dest.buf;
    out->size = st == IC_OK ? dest_size(&s->dest) : 0;
    out->owned = !direct;
    return st;
}

/* Writes the joined segments after the first part (already in a fixed or growing
 * destination), or all of them to a write callback. */
static ic_status emit(enc_job *job, const ic_jpeg_stripes *s, size_t *size) {
    size_t total = 0;
    for (int32_t i = 0; i < s->segments; i++) total += s->segment[i].size;
    enc_dest *d = &job->dest;
    if (d->mode == DEST_CALLBACK) {
        for (int32_t i = 0; i < s->segments; i++) {
            for (size_t at = 0; at < s->segment[i].size; at += CHUNK_BYTES) {
                const size_t n = s->segment[i].size - at < CHUNK_BYTES ? s->segment[i].size - at : CHUNK_BYTES;
                const ic_status st = d->write(d->context, s->segment[i].data + at, n);
                if (st != IC_OK) return st;
            }
        }
        *size = total;
        return IC_OK;
    }
    if (total > d->cap) {
        if (d->mode == DEST_FIXED) return IC_ERR_BUFFER_TOO_SMALL;
        uint8_t *p = (uint8_t *)realloc(d->buf, total);
        if (!p) return IC_ERR_OUT_OF_MEMORY;
        d->buf = p;
        d->cap = total;
    }
    size_t at = s->segment[0].size;
    for (int32_t i = 1; i < s->segments; i++) {
        memcpy(d->buf + at, s->segment[i].data, s->segment[i].size);
        at += s->segment[i].size;
    }
    *size = total;
    return IC_OK;
}

/* Encodes in stripes when the options allow it, there are threads and the image is large
 * enough; returns 1 when it did (status in *status). */
static int try_parallel(enc_job *job, ic_status *status, size_t *size, int32_t *stripes) {
    const ic_image *src = job->src;
    if (job->settings.threads < 2 || job->restart == 0 || (job->opt.flags & (IC_JPEG_PROGRESSIVE | IC_JPEG_OPTIMIZE)))
        return 0;
    if ((uint64_t)src->width * (uint64_t)src->height < PARALLEL_MIN_PIXELS) return 0;
    int mw, mh;
    mcu_size(job->opt.subsampling, &mw, &mh);
    const int32_t most = job->settings.threads < IC_JPEG_ENCODE_MAX_STRIPES ? job->settings.threads : IC_JPEG_ENCODE_MAX_STRIPES;
    ic_jpeg_stripes *s = (ic_jpeg_stripes *)calloc(1, sizeof *s);
    enc_job *jobs = (enc_job *)calloc((size_t)most, sizeof *jobs);
    if (!s || !jobs) {
        free(s);
        free(jobs);
        return 0;
    }
    stripe_context c = {job, jobs};
    const int ran = ic__jpeg_encode_parallel(&job->settings, src->width, src->height, mw, mh, job->restart, encode_rows,
                                             &c, s, status);
    if (ran) {
        *stripes = s->count;
        /* The first stripe may have grown the destination: it is the call's now. */
        if (job->dest.mode == DEST_GROW) {
            job->dest.buf = s->part[0].data;
            job->dest.cap = jobs[0].dest.cap;
        }
        if (*status == IC_OK) *status = emit(job, s, size);
        ic__jpeg_stripes_free(s);
    }
    free(jobs);
    free(s);
    return ran;
}

static _Thread_local int32_t t_last_stripes;

int32_t ic_jpeg_last_encode_stripes(void) { return t_last_stripes; }

static ic_status encode(enc_job *job, size_t *size) {
    ic_status st;
    int32_t stripes = 1;
    if (try_parallel(job, &st, size, &stripes)) {
        t_last_stripes = st == IC_OK ? stripes : 0;
        return st;
    }
    t_last_stripes = 1;
    st = encode_guarded(job);
    if (st == IC_OK) *size = dest_size(&job->dest);
    return st;
}

static ic_status prepare(enc_job *job, const ic_image *src, const ic_jpeg_encode_options *options) {
    memset(job, 0, sizeof *job);
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    job->src = src;
    t_last_stripes = 0;
    job->settings = ic__settings_read(); /* the call's one read */
    st = normalize(options, src->format, &job->opt);
    job->restart = effective_restart(&job->opt, src->width, src->height);
    return st;
}

ic_status ic_jpeg_encode(const ic_image *src, const ic_jpeg_encode_options *options, uint8_t *dst,
                         size_t capacity, size_t *size) {
    if (!size || (!dst && capacity)) return IC_ERR_INVALID_ARGUMENT;
    *size = 0;
    enc_job *job = (enc_job *)malloc(sizeof *job);
    if (!job) return IC_ERR_OUT_OF_MEMORY;
    ic_status st = prepare(job, src, options);
    if (st == IC_OK) {
        if (capacity == 0) st = IC_ERR_BUFFER_TOO_SMALL;
        else {
            job->dest.mode = DEST_FIXED;
            job->dest.buf = dst;
            job->dest.cap = capacity;
            st = encode(job, size);
        }
    }
    free(job);
    return st;
}

ic_status ic_jpeg_encode_to(const ic_image *src, const ic_jpeg_encode_options *options,
                            ic_jpeg_write_fn write, void *context, size_t *size) {
    if (size) *size = 0;
    if (!write) return IC_ERR_INVALID_ARGUMENT;
    enc_job *job = (enc_job *)malloc(sizeof *job);
    if (!job) return IC_ERR_OUT_OF_MEMORY;
    ic_status st = prepare(job, src, options);
    if (st == IC_OK) {
        job->dest.mode = DEST_CALLBACK;
        job->dest.cap = CHUNK_BYTES;
        job->dest.write = write;
        job->dest.context = context;
        size_t n = 0;
        st = encode(job, &n);
        if (st == IC_OK && size) *size = n;
    }
    free(job);
    return st;
}

ic_status ic_jpeg_encode_alloc(const ic_image *src, const ic_jpeg_encode_options *options,
                               uint8_t **out, size_t *size) {
    if (!out || !size) return IC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    *size = 0;
    enc_job *job = (enc_job *)malloc(sizeof *job);
    if (!job) return IC_ERR_OUT_OF_MEMORY;
    ic_status st = prepare(job, src, options);
    if (st == IC_OK) {
        /* Start near a typical photo's size (about a quarter of a byte per pixel at q85). */
        size_t cap = (size_t)src->width * (size_t)src->height / 4 + 4096;
        job->dest.mode = DEST_GROW;
        job->dest.cap = cap;
        job->dest.buf = (uint8_t *)malloc(cap);
        size_t n = 0;
        if (!job->dest.buf) st = IC_ERR_OUT_OF_MEMORY;
        else st = encode(job, &n);
        if (st == IC_OK) {
            *out = job->dest.buf;
            *size = n;
        } else {
            free(job->dest.buf); /* the caller owns nothing on failure */
        }
    }
    free(job);
    return st;
}
