/* JPEG decode: options, limits, scale and crop planning, and the scanline path (RGBA8,
 * RGB8, GRAY8, including CMYK/YCCK files) into a destination image or a stream of bands.
 * The raw YUV path is in jpeg_decode_yuv.c.
 *
 * The scanline path sets libjpeg up exactly as tjDecompress2 does (out_color_space, M/8
 * scale, ISLOW IDCT and fancy upsampling unless asked otherwise) and reads rows straight into
 * the caller's rows, so its output is TurboJPEG's, pixel for pixel, at no extra cost. Only a
 * crop whose left edge libjpeg cannot start at, and CMYK (which libjpeg does not convert to
 * RGB), go through a scratch band. */
#include "color_internal.h"
#include "jpeg_lowfreq_internal.h"
#include "jpeg_parallel.h"
#include "row.h"

#include <limits.h>
#include <string.h>

enum { DEFAULT_BAND_ROWS = 16, SCRATCH_ROWS = 16, MAX_ROW_POINTERS = 64 };

void ic_jpeg_decode_options_init(ic_jpeg_decode_options *options) {
    if (options) memset(options, 0, sizeof *options);
}

/* ---- planning ----------------------------------------------------------------------- */

typedef struct decode_job {
    const uint8_t *data;            /* what is decoded: the file, or its EXIF thumbnail */
    size_t size;
    const uint8_t *file;            /* the whole file (its EXIF orientation applies either way) */
    size_t file_size;
    ic_jpeg_decode_options opt;     /* defaults applied */
    ic_format format;
    ic_jpeg_plan plan;
    int size_only;                  /* ic_jpeg_decode_size: stop after planning */
    const ic_image *dst;            /* ic_jpeg_decode: the destination to check */
    ic_jpeg_band_fn fn;             /* ic_jpeg_decode_stream */
    void *fn_context;
    ic_jpeg_sink sink;
    ic_jpeg_decoder_kind decoder;   /* who produced the pixels */
    ic__settings settings;          /* read once per call (threads, CPU features) */
    const ic_jpeg_stripe *stripe;   /* a stripe of a parallel decode (jpeg_parallel.c) */
    int32_t request_lines;          /* output rows per MCU row, for the stripes */
    int32_t stripes;                /* stripes decoded in parallel (1: serial) */
    unsigned int pending_discards;  /* a stripe: bytes libjpeg skipped but did not report */
    uint64_t stripes_peak;          /* the stripes' decompressors' peaks, summed */
    void *cmyk_transform;           /* the CMYK profile's transform (color.c); freed by run() */
} decode_job;

static int is_yuv(ic_format f) { return f == IC_FORMAT_I420 || f == IC_FORMAT_NV12; }

static ic_status check_options(const ic_jpeg_decode_options *o, ic_format format) {
    const ic_status bad = IC_ERR_INVALID_ARGUMENT;
    if (format != IC_FORMAT_RGBA8 && format != IC_FORMAT_RGB8 && format != IC_FORMAT_GRAY8 && !is_yuv(format))
        return ic__refuse(bad, "decode format %d: RGBA8, RGB8, GRAY8, I420 or NV12", (int)format);
    if (o->scale_num < 1 || o->scale_num > 8) return ic__refuse(bad, "scale %d/8: 1...8", (int)o->scale_num);
    if (o->flags & ~(uint32_t)(IC_JPEG_STRICT | IC_JPEG_FAST_UPSAMPLE | IC_JPEG_FAST_DCT | IC_JPEG_LIBJPEG_ONLY |
                               IC_JPEG_EXIF_THUMBNAIL | IC_JPEG_PARALLEL_ANY_SIZE | IC_JPEG_STREAM_RESTART))
        return ic__refuse(bad, "unknown decode flags 0x%x", (unsigned)o->flags);
    if (o->max_scans < 1) return ic__refuse(bad, "max_scans %d < 1", (int)o->max_scans);
    if (o->band_rows < 1 || o->band_rows > IC_MAX_DIMENSION)
        return ic__refuse(bad, "band_rows %d: 1...%d", (int)o->band_rows, IC_MAX_DIMENSION);
    if (o->min_valid_permille > 1000) return ic__refuse(bad, "min_valid_permille %d > 1000", (int)o->min_valid_permille);
    const int crop = o->crop_width > 0 || o->crop_height > 0;
    if (o->crop_x < 0 || o->crop_y < 0 || o->crop_width < 0 || o->crop_height < 0 ||
        (crop && (o->crop_width == 0 || o->crop_height == 0)) || (!crop && (o->crop_x != 0 || o->crop_y != 0)))
        return ic__refuse(bad, "crop %dx%d at (%d, %d): origin >= 0 and both sides >= 1, or no crop at all",
                          (int)o->crop_width, (int)o->crop_height, (int)o->crop_x, (int)o->crop_y);
    if (crop && is_yuv(format) && ((o->crop_x | o->crop_y) & 1))
        return ic__refuse(bad, "crop origin (%d, %d) of an I420/NV12 decode must be even", (int)o->crop_x, (int)o->crop_y);
    return IC_OK;
}

/* Copies the options with defaults filled in (NULL = all defaults). */
static void apply_defaults(const ic_jpeg_decode_options *in, ic_jpeg_decode_options *o) {
    if (in) *o = *in;
    else memset(o, 0, sizeof *o);
    if (o->scale_num == 0) o->scale_num = 8;
    if (o->max_pixels == 0) o->max_pixels = IC_JPEG_DEFAULT_MAX_PIXELS;
    if (o->max_scans == 0) o->max_scans = IC_JPEG_DEFAULT_MAX_SCANS;
    if (o->band_rows == 0) o->band_rows = DEFAULT_BAND_ROWS;
    if (o->min_valid_permille == 0) o->min_valid_permille = IC_JPEG_DEFAULT_MIN_VALID_PERMILLE;
}

static J_COLOR_SPACE packed_colorspace(ic_format f) {
    switch (f) {
    case IC_FORMAT_RGBA8: return JCS_EXT_RGBA;
    case IC_FORMAT_RGB8: return JCS_EXT_RGB;
    default: return JCS_GRAYSCALE;
    }
}

static int channels_of(ic_format f) {
    return f == IC_FORMAT_RGBA8 ? 4 : f == IC_FORMAT_RGB8 ? 3 : 1;
}

/* Reads the header, applies the limits and settings, and fixes the output rectangle. */
static void plan_decode(j_decompress_ptr cinfo, decode_job *job) {
    char m[IC_JPEG_MESSAGE_LENGTH];
    (void)jpeg_read_header(cinfo, TRUE);
    /* The limit is checked here, before jpeg_start_decompress allocates anything sized by
     * the image. */
    const uint64_t pixels = (uint64_t)cinfo->image_width * cinfo->image_height;
    if (pixels > job->opt.max_pixels) {
        snprintf(m, sizeof m, "%ux%u is %llu pixels, above the limit of %llu",
                 (unsigned)cinfo->image_width, (unsigned)cinfo->image_height,
                 (unsigned long long)pixels, (unsigned long long)job->opt.max_pixels);
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_TOO_LARGE, m);
    }
    if (cinfo->image_width < 1 || cinfo->image_height < 1)
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_CORRUPT_DATA, "empty image");

    ic_jpeg_plan *p = &job->plan;
    p->format = job->format;
    p->scale_num = job->opt.scale_num;
    p->flags = job->opt.flags;
    p->subsampling = ic__jpeg_subsampling(cinfo);
    p->cpu = job->settings.cpu;

    if (is_yuv(job->format)) {
        if (!ic__jpeg_yuv_decodable(ic__jpeg_colorspace(cinfo->jpeg_color_space), p->subsampling))
            ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_UNSUPPORTED,
                          "I420/NV12 output needs a YCbCr or gray JPEG with standard sampling");
    } else if (cinfo->num_components == 4) {
        cinfo->out_color_space = JCS_CMYK; /* converted to RGB by us; YCCK -> CMYK by libjpeg */
    } else {
        cinfo->out_color_space = packed_colorspace(job->format);
    }
    cinfo->scale_num = (unsigned int)job->opt.scale_num;
    cinfo->scale_denom = 8;
    cinfo->dct_method = (job->opt.flags & IC_JPEG_FAST_DCT) ? JDCT_IFAST : JDCT_ISLOW;
    cinfo->do_fancy_upsampling = (job->opt.flags & IC_JPEG_FAST_UPSAMPLE) ? FALSE : TRUE;
    jpeg_calc_output_dimensions(cinfo);
    p->out_width = (int32_t)cinfo->output_width;
    p->out_height = (int32_t)cinfo->output_height;

    if (job->opt.crop_width > 0) {
        const ic_jpeg_decode_options *o = &job->opt;
        if ((int64_t)o->crop_x + o->crop_width > p->out_width ||
            (int64_t)o->crop_y + o->crop_height > p->out_height) {
            snprintf(m, sizeof m, "crop %d,%d %dx%d is outside the %dx%d output", (int)o->crop_x,
                     (int)o->crop_y, (int)o->crop_width, (int)o->crop_height, (int)p->out_width,
                     (int)p->out_height);
            ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_INVALID_ARGUMENT, m);
        }
        p->x = o->crop_x;
        p->y = o->crop_y;
        p->width = o->crop_width;
        p->height = o->crop_height;
        p->cropped = p->width != p->out_width || p->height != p->out_height;
    } else {
        p->x = p->y = 0;
        p->width = p->out_width;
        p->height = p->out_height;
        p->cropped = 0;
    }

    /* The data-sanity rule's geometry: iMCU rows map to scaled output rows (the YUV path keeps
     * the luma IDCT size, so the same holds there). */
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
#if JPEG_LIB_VERSION >= 70
    err->imcu_rows = cinfo->max_v_samp_factor * cinfo->min_DCT_v_scaled_size;
#else
    err->imcu_rows = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
#endif
    err->context_rows = 0;
    if (!is_yuv(job->format) && cinfo->do_fancy_upsampling)
        for (int c = 0; c < cinfo->num_components; c++)
            if (cinfo->comp_info[c].v_samp_factor < cinfo->max_v_samp_factor) err->context_rows = 1;
    err->out_rows = p->out_height;
    err->first_row = p->y;
    err->rows = p->height;
    err->min_valid = job->opt.min_valid_permille < 0 ? 0
        : (int32_t)(((int64_t)job->opt.min_valid_permille * p->height + 999) / 1000);
}

/* ---- sinks ---------------------------------------------------------------------------- */

static ic_status check_destination(j_decompress_ptr cinfo, const decode_job *job) {
    const ic_image *d = job->dst;
    if (d->width < job->plan.width || d->height < job->plan.height) {
        char m[IC_JPEG_MESSAGE_LENGTH];
        snprintf(m, sizeof m, "destination %dx%d is smaller than the %dx%d decode", (int)d->width,
                 (int)d->height, (int)job->plan.width, (int)job->plan.height);
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_BUFFER_TOO_SMALL, m);
    }
    if (d->width != job->plan.width || d->height != job->plan.height) {
        char m[IC_JPEG_MESSAGE_LENGTH];
        snprintf(m, sizeof m, "destination %dx%d differs from the %dx%d decode", (int)d->width,
                 (int)d->height, (int)job->plan.width, (int)job->plan.height);
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_INVALID_ARGUMENT, m);
    }
    return IC_OK;
}

/* ---- the scanline path ------------------------------------------------------------------ */

/* Reads `n` rows (n <= MAX_ROW_POINTERS) into rows[0..n), looping until libjpeg delivers all. */
static void read_rows(j_decompress_ptr cinfo, JSAMPROW *rows, int32_t n) {
    int32_t done = 0;
    while (done < n) {
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows + done, (JDIMENSION)(n - done));
        if (got == 0) ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_CORRUPT_DATA, "decoder made no progress");
        done += (int32_t)got;
    }
}

static ic_status decode_packed(j_decompress_ptr cinfo, decode_job *job) {
    const ic_jpeg_plan *p = &job->plan;
    ic_jpeg_sink *s = &job->sink;
    const int cmyk = cinfo->out_color_space == JCS_CMYK;
    const int inverted = cinfo->saw_Adobe_marker ? 1 : 0;
    const int channels = channels_of(p->format);
    ic__jpeg_start(cinfo);

    /* Horizontal crop: ask for one more pixel each side (upsampling context), let libjpeg
     * widen to iMCU columns, and copy the requested columns out of the decoded rows. */
    int32_t skip_left = 0;
    if (p->cropped && p->width != p->out_width) {
        const int fancy = cinfo->do_fancy_upsampling;
        int32_t x0 = (fancy && p->x > 0) ? p->x - 1 : p->x;
        int32_t x1 = (fancy && p->x + p->width < p->out_width) ? p->x + p->width + 1 : p->x + p->width;
        if (fancy) {
            /* libjpeg falls back to box upsampling for a component only 1 or 2 samples wide
             * (jdsample.c), which a full decode would not do: keep >= 3 chroma samples. */
            int ratio = 1;
            for (int c = 0; c < cinfo->num_components; c++) {
                const int r = cinfo->max_h_samp_factor / cinfo->comp_info[c].h_samp_factor;
                if (r > ratio) ratio = r;
            }
            const int32_t min_width = 2 * ratio + 1;
            if (x1 - x0 < min_width) x1 = x0 + min_width < p->out_width ? x0 + min_width : p->out_width;
            if (x1 - x0 < min_width) x0 = x1 - min_width > 0 ? x1 - min_width : 0;
        }
        JDIMENSION xoff = (JDIMENSION)x0, cw = (JDIMENSION)(x1 - x0);
        jpeg_crop_scanline(cinfo, &xoff, &cw);
        skip_left = p->x - (int32_t)xoff;
    }
    /* Vertical crop: skip to the rectangle. libjpeg-turbo's jpeg_skip_scanlines entropy-
     * decodes the skipped rows and decodes the iMCU row it lands in, keeping the upsampler's
     * context rows, so the first rows match a full decode (the tests check every scale). */
    if (p->y > 0) (void)jpeg_skip_scanlines(cinfo, (JDIMENSION)p->y);

    const int direct = !cmyk && skip_left == 0 && (int32_t)cinfo->output_width == p->width;
    const size_t in_channels = (size_t)cinfo->output_components;
    const size_t in_row = (size_t)cinfo->output_width * in_channels;
    uint8_t *scratch = NULL;
    if (!direct) scratch = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, in_row * SCRATCH_ROWS);
    /* A CMYK profile: Little CMS converts each row (to RGB first for GRAY8, then the luma). */
    uint8_t *rgb_row = NULL;
    if (cmyk && job->opt.cmyk_profile) {
        const ic_status st = ic__icc_cmyk_transform(job->opt.cmyk_profile, job->opt.cmyk_profile_size, inverted,
                                                    channels == 4 ? 4 : 3, &job->cmyk_transform);
        if (st != IC_OK) return st;
        if (channels == 1) rgb_row = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, (size_t)p->width * 3);
    }
    JSAMPROW rows[MAX_ROW_POINTERS];

    const size_t out_bytes = (size_t)p->width * (size_t)channels;
    int32_t r = 0;
    while (r < p->height) {
        /* Rows that fit in the current band, the scratch and the row-pointer array. */
        int32_t n = s->first + s->band.height - r;
        if (n > p->height - r) n = p->height - r;
        if (n > (direct ? MAX_ROW_POINTERS : SCRATCH_ROWS)) n = direct ? MAX_ROW_POINTERS : SCRATCH_ROWS;
        for (int32_t i = 0; i < n; i++)
            rows[i] = direct ? ic__sink_row(s, 0, r + i) : scratch + (size_t)i * in_row;
        read_rows(cinfo, rows, n);
        if (!direct) {
            for (int32_t i = 0; i < n; i++) {
                const uint8_t *src = scratch + (size_t)i * in_row + (size_t)skip_left * in_channels;
                uint8_t *dst = ic__sink_row(s, 0, r + i);
                if (job->cmyk_transform && rgb_row) {
                    ic__icc_cmyk_row(job->cmyk_transform, src, rgb_row, (size_t)p->width);
                    ic_row_luma_c(rgb_row, 3, dst, (size_t)p->width);
                } else if (job->cmyk_transform) {
                    ic__icc_cmyk_row(job->cmyk_transform, src, dst, (size_t)p->width);
                } else if (cmyk) {
                    ic_jpeg_cmyk_row_c(src, dst, (size_t)p->width, channels, inverted);
                } else {
                    memcpy(dst, src, out_bytes);
                }
            }
        }
        r += n;
        if (r == s->first + s->band.height || r == p->height) {
            ic_status st = ic__sink_flush(s, r);
            if (st != IC_OK) return st;
        }
    }
    /* Reading to the end checks the trailer (and reports its warnings), as tjDecompress2
     * does; a crop that stops early leaves the rest undecoded (the guard aborts). */
    if (cinfo->output_scanline == cinfo->output_height) jpeg_finish_decompress(cinfo);
    return IC_OK;
}

/* ---- parallel decode over restart intervals (jpeg_parallel.c) -------------------------------- */

/* Below this much work a parallel decode costs more than it saves: a decompressor per stripe,
 * an MCU row decoded twice at each cut, a fork and join (measured with bench
 * jpeg-decode-threshold). Work counts entropy-coded bytes and output pixels. */
enum { PARALLEL_MIN_BYTES = 96 * 1024, PARALLEL_MIN_PIXELS = 512 * 1024 };

static ic_status decode_body(ic_jpeg_decoder *dec, void *context);
static ic_status run(decode_job *job, ic_jpeg_decode_result *result, ic_jpeg_stripe_source *src);

/* One stripe: the same request with the stripe's rows as the crop, in the coordinates of the
 * image its decompressor sees, into those rows of the destination. */
static ic_status decode_stripe(void *context, const ic_jpeg_stripe *stripe, uint64_t max_memory,
                               ic_image *dst, ic_jpeg_stripe_source *src, ic_jpeg_stripe_outcome *outcome) {
    const decode_job *base = (const decode_job *)context;
    const ic_jpeg_plan *p = &base->plan;
    decode_job job = *base;
    job.stripe = stripe;
    job.fn = NULL;
    memset(&job.sink, 0, sizeof job.sink);
    memset(&job.plan, 0, sizeof job.plan);
    const int32_t rows = stripe->out_end - stripe->out_begin;
    job.dst = dst;
    job.opt.crop_x = p->x;
    job.opt.crop_width = p->width;
    job.opt.crop_y = stripe->out_begin - stripe->first_row * base->request_lines;
    job.opt.crop_height = rows;
    job.opt.max_memory = max_memory;
    ic_jpeg_decode_result r;
    const ic_status st = run(&job, &r, src);
    outcome->warnings = r.warnings + (job.pending_discards ? 1 : 0);
    outcome->peak_memory = r.peak_memory;
    return st;
}

/* The parallel drivers' view of the request. Returns 0 when it cannot be split here. */
static int parallel_job(j_decompress_ptr cinfo, decode_job *job, ic_jpeg_parallel_job *pj) {
    const ic_jpeg_plan *p = &job->plan;
    if (job->stripe || job->settings.threads < 2 || cinfo->restart_interval == 0) return 0;
    if (!(job->opt.flags & IC_JPEG_PARALLEL_ANY_SIZE) && job->size < PARALLEL_MIN_BYTES &&
        (uint64_t)p->width * (uint64_t)p->height < PARALLEL_MIN_PIXELS)
        return 0;
    const int yuv = is_yuv(job->format);
    const int32_t lines = cinfo->max_v_samp_factor * p->scale_num;
    memset(pj, 0, sizeof *pj);
    pj->data = job->data;
    pj->size = job->size;
    pj->settings = job->settings;
    pj->request.lines = lines;
    pj->request.out_height = p->out_height;
    pj->request.y0 = p->y;
    pj->request.y1 = p->y + p->height;
    /* One MCU row above (the chroma context of fancy upsampling); for 4:2:0 output with an
     * odd number of rows per MCU row two, so that the stripe starts on an even row too. */
    pj->request.overlap = yuv && (lines & 1) ? 2 : 1;
    pj->request.even = yuv;
    /* Instructions counted with callgrind on 12 MP 4:2:0 files of 0.8 to 6.7 MB: about 63
     * per entropy-coded byte at 1/8 (AC coefficients decoded, not stored) and 100 above,
     * 175 per block, 9 per output pixel. */
    int blocks = 0;
    for (int c = 0; c < cinfo->num_components; c++)
        blocks += cinfo->comp_info[c].h_samp_factor * cinfo->comp_info[c].v_samp_factor;
    const double mcus = (double)((cinfo->image_width + (JDIMENSION)cinfo->max_h_samp_factor * 8 - 1) /
                                 ((JDIMENSION)cinfo->max_h_samp_factor * 8));
    pj->request.byte_cost = p->scale_num == 1 ? 63.0 : 100.0;
    pj->request.mcu_row_cost = 175.0 * blocks * mcus;
    pj->request.written_row_cost = 9.0 * p->width;
    pj->max_memory = job->opt.max_memory;
    pj->dst = job->dst;
    pj->decode_stripe = decode_stripe;
    pj->context = job;
    job->request_lines = lines;
    return 1;
}

/* Decodes in stripes when the file has restart markers at MCU-row boundaries, there are
 * threads for it and the work is worth it. Returns 1 when the decode is done (its status in
 * *status); 0 to decode serially (for a stream, delivering from sink.resume on). */
static int try_parallel(j_decompress_ptr cinfo, decode_job *job, ic_status *status) {
    ic_jpeg_parallel_job pj;
    if (!parallel_job(cinfo, job, &pj)) return 0;
    if (job->fn) {
        int32_t resume = 0;
        const ic_jpeg_parallel_result r =
            ic__jpeg_stream_parallel(cinfo, &pj, &job->sink, &resume, status, &job->stripes, &job->stripes_peak);
        if (r == IC_PARALLEL_REDO) job->sink.resume = resume;
        return r == IC_PARALLEL_DONE;
    }
    *status = IC_OK;
    return ic__jpeg_decode_parallel(cinfo, &pj, &job->stripes, &job->stripes_peak) == IC_PARALLEL_DONE;
}

/* ---- entry points ------------------------------------------------------------------------ */

static ic_status decode_body(ic_jpeg_decoder *dec, void *context) {
    decode_job *job = (decode_job *)context;
    j_decompress_ptr cinfo = &dec->cinfo;
    /* A streamed file (ic_jpeg_decode_options::read): the headers are in data, the rest of
     * the file comes through the reader. Never for a size (headers only: nothing may be read
     * past them) nor an EXIF thumbnail (its bytes are in data). */
    const int streamed = job->opt.read != NULL && !job->size_only && !(job->opt.flags & IC_JPEG_EXIF_THUMBNAIL);
    if (streamed) ic__jpeg_source_stream(cinfo, &dec->src, job->opt.read, job->opt.read_context);
    plan_decode(cinfo, job);
    if (job->size_only) return IC_OK;

    ic_jpeg_sink *s = &job->sink;
    if (job->dst) {
        check_destination(cinfo, job);
        ic__sink_init_image(s, job->dst, job->plan.height);
    } else {
        const ic_format f = job->format;
        int32_t rows = job->opt.band_rows;
        if (is_yuv(f)) rows += rows & 1;
        if (rows > job->plan.height) rows = job->plan.height + (is_yuv(f) ? (job->plan.height & 1) : 0);
        uint8_t *memory = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, ic__sink_band_bytes(f, job->plan.width, rows));
        ic__sink_init_stream(s, f, job->plan.width, rows, job->plan.height, memory, job->fn, job->fn_context);
    }
    job->plan.sink = s;
    /* One dispatch: progressive files at 1/8 and 1/4 to the scans those scales read, row by
     * row (jpeg_lowfreq.c); baseline files with restart markers at MCU-row boundaries to
     * stripes decoded in parallel (jpeg_parallel.c); the rest, and anything either does not
     * take, to libjpeg here. A streamed file goes to the reduced decoder only with a
     * positional reader (it reads the file by offset, leaving libjpeg's source where it is),
     * never to the stripes (they read the whole file from memory). */
    if (!job->stripe && (!streamed || job->opt.read_at)) {
        int used = 0;
        ic_lf_file file = {job->data, job->size, streamed ? job->opt.read_at : NULL, job->opt.read_context};
        const ic_status st = ic__jpeg_decode_lowfreq(cinfo, &file, &job->plan, &used);
        if (used) {
            job->decoder = IC_JPEG_DECODER_LOWFREQ;
            return st;
        }
    }
    ic_status parallel_status;
    if (!streamed && try_parallel(cinfo, job, &parallel_status)) {
        ((ic_jpeg_error *)cinfo->err)->decoding = 1; /* every row came from the data */
        return parallel_status;
    }
    job->stripes = 1; /* serial, or redone serially after a stripe met corrupt data */
    const ic_status st = is_yuv(job->format) ? ic__jpeg_decode_yuv(cinfo, &job->plan) : decode_packed(cinfo, job);
    if (job->stripe) job->pending_discards = ic__jpeg_pending_discards(cinfo);
    return st;
}

static void fill_result(ic_jpeg_decode_result *result, const decode_job *job, const ic_jpeg_decoder *dec,
                        ic_status st) {
    if (!result) return;
    memset(result, 0, sizeof *result);
    if (st == IC_OK || job->plan.width > 0) {
        result->width = job->plan.width;
        result->height = job->plan.height;
    }
    ic_jpeg_markers m;
    ic__jpeg_scan_markers(job->file, job->file_size, &m);
    result->orientation = m.orientation ? m.orientation : 1;
    result->warnings = dec->err.warnings;
    result->decoder = job->decoder;
    result->stripes = job->stripes;
    memcpy(result->message, dec->err.message, sizeof result->message);
    result->message[sizeof result->message - 1] = '\0';
    result->valid_rows = !dec->err.decoding ? 0 : dec->err.problem ? dec->err.valid_rows : result->height;
    result->peak_memory = dec->budget.peak + (job->stripes > 1 ? job->stripes_peak : 0);
}

static ic_status run(decode_job *job, ic_jpeg_decode_result *result, ic_jpeg_stripe_source *src) {
    ic_jpeg_decoder dec;
    memset(&dec.err, 0, sizeof dec.err);
    memset(&dec.budget, 0, sizeof dec.budget);
    ic_status st;
    int thumbnail = (job->opt.flags & IC_JPEG_EXIF_THUMBNAIL) != 0;
    if (thumbnail) {
        /* The embedded JPEG, found by the marker walk (ic_jpeg_info's thumbnail_offset). */
        ic_jpeg_markers m;
        ic__jpeg_scan_markers(job->file, job->file_size, &m);
        job->data = job->file + m.thumb_offset;
        job->size = m.thumb_length;
    }
    if (job->file_size < 4 || job->file[0] != 0xFF || job->file[1] != 0xD8) {
        st = IC_ERR_CORRUPT_DATA; /* empty or not a JPEG: no decompressor needed */
        snprintf(dec.err.message, sizeof dec.err.message, "%s",
                 job->file_size == 0 ? "empty input" : "not a JPEG (no SOI marker)");
    } else if (thumbnail && job->size == 0) {
        st = IC_ERR_UNSUPPORTED;
        snprintf(dec.err.message, sizeof dec.err.message, "no EXIF thumbnail");
    } else {
        st = ic__jpeg_guard_source(&dec, job->data, job->size, src ? ic__jpeg_stripe_source_install : NULL, src,
                                   (job->opt.flags & IC_JPEG_STRICT) != 0, job->opt.max_scans, job->opt.max_memory,
                                   decode_body, job);
    }
    ic__icc_transform_free(job->cmyk_transform); /* also after a longjmp out of the decode */
    job->cmyk_transform = NULL;
    if (st != IC_OK && job->plan.width == 0) job->plan.height = 0;
    fill_result(result, job, &dec, st);
    if (result && st != IC_OK && result->message[0] == '\0')
        snprintf(result->message, sizeof result->message, "%s", ic_status_string(st));
    return st;
}

static ic_status prepare(decode_job *job, const uint8_t *data, size_t size,
                         const ic_jpeg_decode_options *options, ic_format format) {
    memset(job, 0, sizeof *job);
    if (!data && size) return IC_ERR_INVALID_ARGUMENT;
    job->data = job->file = data;
    job->size = job->file_size = size;
    apply_defaults(options, &job->opt);
    job->format = format;
    return check_options(&job->opt, format);
}

ic_status ic_jpeg_decode_size(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                              int32_t *width, int32_t *height, ic_jpeg_decode_result *result) {
    if (result) memset(result, 0, sizeof *result);
    if (!width || !height) return IC_ERR_INVALID_ARGUMENT;
    decode_job job;
    ic_format f = options && options->format != IC_FORMAT_INVALID ? options->format : IC_FORMAT_RGBA8;
    ic_status st = prepare(&job, data, size, options, f);
    if (st != IC_OK) return st;
    job.size_only = 1;
    st = run(&job, result, NULL);
    if (st != IC_OK) return st;
    *width = job.plan.width;
    *height = job.plan.height;
    return IC_OK;
}

ic_status ic_jpeg_decode(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                         ic_image *dst, ic_jpeg_decode_result *result) {
    if (result) memset(result, 0, sizeof *result);
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (options && options->format != IC_FORMAT_INVALID && options->format != dst->format)
        return IC_ERR_INVALID_ARGUMENT;
    decode_job job;
    if ((st = prepare(&job, data, size, options, dst->format)) != IC_OK) return st;
    job.dst = dst;
    job.settings = ic__settings_read(); /* the call's one read */
    return run(&job, result, NULL);
}

ic_status ic_jpeg_decode_stream(const uint8_t *data, size_t size, const ic_jpeg_decode_options *options,
                                ic_jpeg_band_fn fn, void *context, ic_jpeg_decode_result *result) {
    if (result) memset(result, 0, sizeof *result);
    if (!fn) return IC_ERR_INVALID_ARGUMENT;
    decode_job job;
    ic_format f = options && options->format != IC_FORMAT_INVALID ? options->format : IC_FORMAT_RGBA8;
    ic_status st = prepare(&job, data, size, options, f);
    if (st != IC_OK) return st;
    job.fn = fn;
    job.fn_context = context;
    job.settings = ic__settings_read(); /* the call's one read */
    return run(&job, result, NULL);
}
