/* The JPEG and PNG thumbnails (imagecore/pipeline.h): a plan from the header (a JPEG's main
 * image, or its EXIF thumbnail when that covers the target; a PNG's rows), and one call that
 * streams the decoded bands through the row-push resize and orients the small result. */
#include "internal.h"

#include <math.h>
#include <string.h>

enum { THUMB_ALIGN = 64, THUMB_BAND_ROWS = 16 };

static size_t align_up(size_t v) { return (v + THUMB_ALIGN - 1) / THUMB_ALIGN * THUMB_ALIGN; }

static int32_t channels_of(ic_format f) { return f == IC_FORMAT_RGBA8 ? 4 : f == IC_FORMAT_RGB8 ? 3 : 1; }

static int swaps(int32_t orientation) { return orientation >= 5 && orientation <= 8; }

/* The largest w x h with the source's aspect inside max_w x max_h, never upscaled (the
 * aspect ratios compared exactly, the other side rounded half away from zero). */
static void fit(int32_t w, int32_t h, int32_t max_w, int32_t max_h, int32_t *ow, int32_t *oh) {
    if (w <= max_w && h <= max_h) { *ow = w; *oh = h; return; }
    if ((int64_t)w * max_h >= (int64_t)h * max_w) {
        const double s = floor((double)h * (double)max_w / (double)w + 0.5);
        *ow = max_w;
        *oh = s < 1 ? 1 : s > max_h ? max_h : (int32_t)s;
    } else {
        const double s = floor((double)w * (double)max_h / (double)h + 0.5);
        *ow = s < 1 ? 1 : s > max_w ? max_w : (int32_t)s;
        *oh = max_h;
    }
}

/* The resize of the plan: Lanczos-3, RGBA read as opaque (straight for a PNG with alpha), one
 * thread (it runs per band). */
static ic_resize_params resize_params(const ic_thumbnail_plan *p) {
    ic_resize_params r;
    memset(&r, 0, sizeof r);
    r.format = p->format;
    r.alpha = p->straight_alpha ? IC_ALPHA_STRAIGHT : IC_ALPHA_OPAQUE;
    r.src_width = p->decoded_width;
    r.src_height = p->decoded_height;
    r.dst_width = p->resized_width;
    r.dst_height = p->resized_height;
    r.filter = IC_RESIZE_LANCZOS3;
    r.flags = p->linear_light ? IC_RESIZE_LINEAR_LIGHT : 0;
    r.max_threads = 1;
    return r;
}

/* The plan's output size (turned by its orientation) and the scratch of the resize stream
 * and of the turn, from its resized size, format and orientation (both plans). */
static ic_status plan_output(ic_thumbnail_plan *p) {
    p->width = swaps(p->orientation) ? p->resized_height : p->resized_width;
    p->height = swaps(p->orientation) ? p->resized_width : p->resized_height;
    ic_resize_params r = resize_params(p);
    ic_status st = ic_resize_stream_size(&r, &p->resize_bytes);
    if (st != IC_OK) return st;
    p->resize_bytes = align_up(p->resize_bytes);
    if (swaps(p->orientation))
        p->turn_bytes = align_up((size_t)p->resized_width * (size_t)channels_of(p->format) * (size_t)p->resized_height);
    return IC_OK;
}

/* The EXIF thumbnail as the source, when it is a smaller copy of the main image and its picture
 * covers the stored-orientation target at 1x or more: its smallest M/8 at which the picture
 * (rounded inwards) still covers it, cropped to the picture. Returns 0 to decode the main image. */
static int plan_exif(const uint8_t *data, size_t size, ic_thumbnail_plan *p) {
    ic_jpeg_exif_thumbnail t;
    if (ic_jpeg_find_exif_thumbnail(data, size, &t) != IC_OK) return 0;
    if (t.content_width < p->resized_width || t.content_height < p->resized_height) return 0;
    for (int32_t n = 1; n <= 8; n++) {
        const int32_t x0 = (t.content_x * n + 7) / 8, y0 = (t.content_y * n + 7) / 8;
        const int32_t x1 = (t.content_x + t.content_width) * n / 8, y1 = (t.content_y + t.content_height) * n / 8;
        if (x1 - x0 < p->resized_width || y1 - y0 < p->resized_height) continue;
        int32_t sw = 0, sh = 0;
        if (ic_jpeg_scaled_size(t.width, t.height, n, &sw, &sh) != IC_OK) return 0;
        p->source = IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL;
        p->exif = t;
        p->scale_num = n;
        p->decode.scale_num = n;
        p->decode.flags |= IC_JPEG_EXIF_THUMBNAIL;
        if (x0 != 0 || y0 != 0 || x1 != sw || y1 != sh) {
            p->decode.crop_x = x0;
            p->decode.crop_y = y0;
            p->decode.crop_width = x1 - x0;
            p->decode.crop_height = y1 - y0;
        }
        return 1;
    }
    return 0;
}

/* The options both plans take, checked, with the default format filled in; 0 if invalid. */
static int thumb_options(const ic_thumbnail_options *options, ic_thumbnail_options *o) {
    if (!options) return 0;
    *o = *options;
    if (o->format == IC_FORMAT_INVALID) o->format = IC_FORMAT_RGBA8;
    return (o->format == IC_FORMAT_RGBA8 || o->format == IC_FORMAT_RGB8 || o->format == IC_FORMAT_GRAY8) &&
           o->max_width >= 1 && o->max_height >= 1 && o->band_rows >= 0 && o->band_rows <= IC_MAX_DIMENSION;
}

ic_status ic_thumbnail_plan_jpeg(const uint8_t *data, size_t size, const ic_thumbnail_options *options,
                                 ic_thumbnail_plan *plan) {
    ic_thumbnail_options o;
    if (!plan || !thumb_options(options, &o)) return IC_ERR_INVALID_ARGUMENT;
    if (!(o.min_residual >= 1)) o.min_residual = 1; /* also NaN */
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    if (st != IC_OK) return st;

    ic_thumbnail_plan p;
    memset(&p, 0, sizeof p);
    p.source = IC_THUMBNAIL_SOURCE_SCALED_DECODE;
    p.format = o.format;
    p.source_width = info.width;
    p.source_height = info.height;
    p.orientation = info.orientation >= 1 && info.orientation <= 8 ? info.orientation : 1;
    p.linear_light = o.linear_light != 0;
    /* The caller's limits and flags; format, scale, crop and bands are the plan's. */
    p.decode = o.decode;
    p.decode.format = o.format;
    p.decode.band_rows = o.band_rows ? o.band_rows : THUMB_BAND_ROWS;
    p.decode.crop_x = p.decode.crop_y = p.decode.crop_width = p.decode.crop_height = 0;
    /* The target in stored orientation. */
    const int32_t tw = swaps(p.orientation) ? o.max_height : o.max_width;
    const int32_t th = swaps(p.orientation) ? o.max_width : o.max_height;
    fit(info.width, info.height, tw, th, &p.resized_width, &p.resized_height);
    p.decode.flags &= ~(uint32_t)IC_JPEG_EXIF_THUMBNAIL; /* the plan picks the source */
    if (!o.no_exif_thumbnail && info.thumbnail_length > 0 && plan_exif(data, size, &p)) {
        /* the EXIF thumbnail covers the target: p.decode, scale and crop set */
    } else {
        st = ic_jpeg_pick_scale(info.width, info.height, p.resized_width, p.resized_height, o.min_residual,
                                &p.scale_num);
        if (st != IC_OK) return st;
        p.decode.scale_num = p.scale_num;
    }
    st = ic_jpeg_decode_size(data, size, &p.decode, &p.decoded_width, &p.decoded_height, NULL);
    if (st != IC_OK) return st;
    if ((st = plan_output(&p)) != IC_OK) return st;
    p.scratch_size = p.resize_bytes + p.turn_bytes;
    *plan = p;
    return IC_OK;
}

typedef struct thumb_run {
    ic_resize_stream *stream;
    ic_image *target;
    int32_t width;
    int32_t pushed;
    ic_status status;
    uint8_t *memory;            /* the stream's memory and parameters, to start it over (JPEG; NULL */
                                /* for PNG, whose decode never starts over: a row 0 again fails) */
    size_t memory_size;
    const ic_resize_params *params;
} thumb_run;

/* The decoder's band callback: the band's rows into the resize. Row 0 again after later rows
 * (IC_JPEG_STREAM_RESTART: the reduced progressive decoder met data it left to libjpeg
 * halfway) starts the resize over; libjpeg's bands then make the thumbnail. */
static int push_band(void *context, const ic_image *band, int32_t first_row) {
    thumb_run *r = (thumb_run *)context;
    if (first_row == 0 && r->pushed > 0) {
        r->status = ic_resize_stream_init(r->memory, r->memory_size, r->params, &r->stream);
        if (r->status != IC_OK) return 1;
        r->pushed = 0;
    }
    if (first_row != r->pushed || band->width != r->width) { /* not the file planned */
        r->status = IC_ERR_INVALID_ARGUMENT;
        return 1;
    }
    r->status = ic_resize_stream_push_rows(r->stream, band->planes[0].data, band->planes[0].stride, band->height,
                                           band->width, r->target, NULL);
    if (r->status != IC_OK) return 1;
    r->pushed += band->height;
    return 0;
}

/* What the JPEG and PNG runs share. Begin: the scratch checked against the plan (extra_bytes:
 * a PNG's whole Adam7 image after the stream and the turn), the resize stream started at its
 * start, and the resize's target: dst, or for a turn (orientations 5-8) the scratch after the
 * stream, described in *turn. */
static ic_status thumb_begin(const ic_thumbnail_plan *plan, void *scratch, size_t scratch_size, size_t extra_bytes,
                             ic_image *dst, const ic_resize_params *r, ic_image *turn, thumb_run *run) {
    const size_t turn_row = (size_t)plan->resized_width * (size_t)channels_of(plan->format);
    if (scratch_size < plan->scratch_size || plan->scratch_size < plan->resize_bytes + plan->turn_bytes + extra_bytes ||
        (swaps(plan->orientation) && plan->turn_bytes < turn_row * (size_t)plan->resized_height))
        return IC_ERR_BUFFER_TOO_SMALL;
    uint8_t *mem = (uint8_t *)scratch;
    memset(run, 0, sizeof *run);
    memset(turn, 0, sizeof *turn);
    const ic_status st = ic_resize_stream_init(mem, plan->resize_bytes, r, &run->stream);
    if (st != IC_OK) return st;
    run->target = dst;
    run->width = plan->decoded_width;
    run->status = IC_OK;
    if (swaps(plan->orientation)) {
        turn->format = plan->format;
        turn->alpha = plan->straight_alpha ? IC_ALPHA_STRAIGHT : IC_ALPHA_OPAQUE;
        turn->width = plan->resized_width;
        turn->height = plan->resized_height;
        turn->planes[0].data = mem + plan->resize_bytes;
        turn->planes[0].stride = turn_row;
        run->target = turn;
    }
    return IC_OK;
}

/* End: every planned row came, then the stored-orientation result oriented into dst. */
static ic_status thumb_finish(const ic_thumbnail_plan *plan, const thumb_run *run, ic_image *turn, ic_image *dst) {
    if (run->pushed != plan->decoded_height) return IC_ERR_CORRUPT_DATA;
    if (swaps(plan->orientation)) return ic_image_orient(turn, dst, (ic_orientation)plan->orientation);
    return ic_image_orient_in_place(dst, (ic_orientation)plan->orientation);
}

ic_status ic_thumbnail_jpeg(const uint8_t *data, size_t size, const ic_thumbnail_plan *plan, void *scratch,
                            size_t scratch_size, ic_image *dst, ic_jpeg_decode_result *result) {
    if (result) memset(result, 0, sizeof *result);
    if (!plan || !scratch || ((uintptr_t)scratch & (THUMB_ALIGN - 1))) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (dst->format != plan->format || dst->width != plan->width || dst->height != plan->height ||
        (plan->source != IC_THUMBNAIL_SOURCE_SCALED_DECODE && plan->source != IC_THUMBNAIL_SOURCE_EXIF_THUMBNAIL) ||
        plan->orientation < 1 || plan->orientation > 8)
        return IC_ERR_INVALID_ARGUMENT;
    ic_resize_params r = resize_params(plan);
    ic_image turn;
    thumb_run run;
    if ((st = thumb_begin(plan, scratch, scratch_size, 0, dst, &r, &turn, &run)) != IC_OK) return st;
    run.memory = (uint8_t *)scratch; /* the JPEG decode may start over (push_band) */
    run.memory_size = plan->resize_bytes;
    run.params = &r;
    ic_jpeg_decode_options d = plan->decode;
    d.format = plan->format;
    d.scale_num = plan->scale_num;
    d.flags |= IC_JPEG_STREAM_RESTART; /* push_band starts over: no checking pass before the first band */
    st = ic_jpeg_decode_stream(data, size, &d, push_band, &run, result);
    if (st == IC_ERR_CANCELLED && run.status != IC_OK) return run.status;
    if (st != IC_OK) return st;
    return thumb_finish(plan, &run, &turn, dst);
}

/* ---- PNG ----------------------------------------------------------------------------------- */

ic_status ic_thumbnail_plan_png(const uint8_t *data, size_t size, const ic_thumbnail_options *options,
                                ic_thumbnail_plan *plan) {
    ic_thumbnail_options o;
    if (!plan || !thumb_options(options, &o)) return IC_ERR_INVALID_ARGUMENT;
    if (o.decode.min_valid_permille > 1000) return IC_ERR_INVALID_ARGUMENT;
    ic_png_info info;
    ic_status st = ic_png_probe(data, size, &info);
    if (st != IC_OK) return st;
    const uint64_t max_pixels = o.decode.max_pixels ? o.decode.max_pixels : (uint64_t)IC_PNG_DEFAULT_MAX_PIXELS;
    if ((uint64_t)info.width * (uint64_t)info.height > max_pixels)
        return ic__refuse(IC_ERR_TOO_LARGE, "PNG thumbnail: %dx%d is above the limit of %llu pixels", info.width,
                          info.height, (unsigned long long)max_pixels);

    ic_thumbnail_plan p;
    memset(&p, 0, sizeof p);
    p.source = IC_THUMBNAIL_SOURCE_PNG;
    p.format = o.format;
    p.source_width = p.decoded_width = info.width;
    p.source_height = p.decoded_height = info.height;
    p.orientation = info.orientation >= 1 && info.orientation <= 8 ? info.orientation : 1;
    p.scale_num = 8;
    p.linear_light = o.linear_light != 0;
    p.straight_alpha = o.format == IC_FORMAT_RGBA8 && info.has_alpha;
    /* The limits the run gives the PNG decoder, kept in the plan's decode options. */
    p.decode.format = o.format;
    p.decode.flags = o.decode.flags & IC_JPEG_STRICT;
    p.decode.max_pixels = max_pixels;
    p.decode.min_valid_permille = o.decode.min_valid_permille;
    p.decode.band_rows = o.band_rows ? o.band_rows : THUMB_BAND_ROWS;
    p.decode.scale_num = 8;
    const int32_t tw = swaps(p.orientation) ? o.max_height : o.max_width;
    const int32_t th = swaps(p.orientation) ? o.max_width : o.max_height;
    fit(info.width, info.height, tw, th, &p.resized_width, &p.resized_height);
    if ((st = plan_output(&p)) != IC_OK) return st;
    if (info.interlaced) /* <= 65535^2 * 4: no overflow in 64 bits */
        p.whole_bytes = align_up((size_t)info.width * (size_t)channels_of(p.format) * (size_t)info.height);
    p.scratch_size = p.resize_bytes + p.turn_bytes + p.whole_bytes;
    *plan = p;
    return IC_OK;
}

ic_status ic_thumbnail_png(const uint8_t *data, size_t size, const ic_thumbnail_plan *plan, void *scratch,
                           size_t scratch_size, ic_image *dst, ic_png_decode_result *result) {
    if (result) memset(result, 0, sizeof *result);
    if (!plan || !scratch || ((uintptr_t)scratch & (THUMB_ALIGN - 1))) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (dst->format != plan->format || dst->width != plan->width || dst->height != plan->height ||
        plan->source != IC_THUMBNAIL_SOURCE_PNG || plan->orientation < 1 || plan->orientation > 8 ||
        plan->decoded_width != plan->source_width || plan->decoded_height != plan->source_height)
        return IC_ERR_INVALID_ARGUMENT;
    const size_t whole_row = (size_t)plan->decoded_width * (size_t)channels_of(plan->format);
    if (plan->whole_bytes && plan->whole_bytes < whole_row * (size_t)plan->decoded_height)
        return IC_ERR_BUFFER_TOO_SMALL;
    ic_resize_params r = resize_params(plan);
    ic_image turn;
    thumb_run run;
    if ((st = thumb_begin(plan, scratch, scratch_size, plan->whole_bytes, dst, &r, &turn, &run)) != IC_OK) return st;
    uint8_t *mem = (uint8_t *)scratch;
    ic_png_decode_options d;
    memset(&d, 0, sizeof d);
    d.format = plan->format;
    d.flags = (plan->decode.flags & IC_JPEG_STRICT) ? IC_PNG_STRICT : 0;
    d.max_pixels = plan->decode.max_pixels;
    d.band_rows = plan->decode.band_rows;
    d.min_valid_permille = plan->decode.min_valid_permille;
    if (plan->whole_bytes) {
        /* Adam7: the whole image in the scratch, then every row pushed at once. */
        ic_image whole;
        memset(&whole, 0, sizeof whole);
        whole.format = plan->format;
        whole.alpha = plan->straight_alpha ? IC_ALPHA_STRAIGHT : IC_ALPHA_OPAQUE;
        whole.width = plan->decoded_width;
        whole.height = plan->decoded_height;
        whole.planes[0].data = mem + plan->resize_bytes + plan->turn_bytes;
        whole.planes[0].stride = whole_row;
        if ((st = ic_png_decode(data, size, &d, &whole, result)) != IC_OK) return st;
        if ((st = push_band(&run, &whole, 0) ? run.status : IC_OK) != IC_OK) return st;
    } else {
        st = ic_png_decode_stream(data, size, &d, push_band, &run, result);
        if (st == IC_ERR_CANCELLED && run.status != IC_OK) return run.status;
        if (st != IC_OK) return st;
    }
    return thumb_finish(plan, &run, &turn, dst);
}
