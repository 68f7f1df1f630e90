/* The document scan (imagecore/pipeline.h): a plan from the image size, the corners and the
 * output size, and one call that decodes only the page's crop at the smallest DCT scale that
 * covers the output, rectifies it (orientation composed in), enhances it in place and
 * optionally encodes it. */
#include "internal.h"

#include <math.h>
#include <string.h>

enum { SCAN_ALIGN = 64, SCAN_DEFAULT_QUALITY = 85 };

static size_t align_up(size_t v) { return (v + SCAN_ALIGN - 1) / SCAN_ALIGN * SCAN_ALIGN; }

static double dist(ic_point a, ic_point b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)); }

static int finite_quad(const ic_quad *q) {
    for (int i = 0; i < 4; i++)
        if (!isfinite(q->corners[i].x) || !isfinite(q->corners[i].y)) return 0;
    return 1;
}

/* The plan; a colour page's crop decoded to RGBA8 when colour_rgba, else NV12; GRAY8 otherwise. */
static ic_status plan_scan(int32_t width, int32_t height, int32_t orientation, const ic_scan_options *options,
                           int colour_rgba, ic_scan_plan *plan) {
    if (!options || !plan) return IC_ERR_INVALID_ARGUMENT;
    if (width < 1 || height < 1 || orientation < 0 || orientation > 8) return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    ic_scan_options o = *options;
    if (o.quality == 0) o.quality = SCAN_DEFAULT_QUALITY;
    const uint64_t max_pixels = o.decode.max_pixels ? o.decode.max_pixels : IC_JPEG_DEFAULT_MAX_PIXELS;
    if (o.quality < 1 || o.quality > 100 ||
        (o.mode != IC_ENHANCE_COLOR && o.mode != IC_ENHANCE_GRAY && o.mode != IC_ENHANCE_BW) ||
        (o.interpolation != IC_INTERPOLATION_BILINEAR && o.interpolation != IC_INTERPOLATION_BICUBIC) ||
        !finite_quad(&o.corners))
        return IC_ERR_INVALID_ARGUMENT;
    if ((uint64_t)width * (uint64_t)height > max_pixels) return IC_ERR_TOO_LARGE;
    ic_status st = ic_quad_validate(&o.corners, width, height, NULL);
    if (st != IC_OK) return st;

    ic_scan_plan p;
    memset(&p, 0, sizeof p);
    p.source_width = width;
    p.source_height = height;
    p.orientation = orientation ? orientation : 1;
    p.format = o.mode != IC_ENHANCE_COLOR ? IC_FORMAT_GRAY8 : colour_rgba ? IC_FORMAT_RGBA8 : IC_FORMAT_NV12;
    if ((st = ic_rectified_size(&o.corners, &o.size, &p.page_width, &p.page_height)) != IC_OK) return st;
    /* The smallest scale at which the page's shorter opposite sides cover the output. */
    const ic_point *c = o.corners.corners; /* top-left, top-right, bottom-right, bottom-left */
    const double across = fmin(dist(c[0], c[1]), dist(c[3], c[2]));
    const double down = fmin(dist(c[0], c[3]), dist(c[1], c[2]));
    const int32_t aw = across >= 1 ? (int32_t)floor(across) : 1, ah = down >= 1 ? (int32_t)floor(down) : 1;
    if ((st = ic_jpeg_pick_scale(aw, ah, p.page_width, p.page_height, 1, &p.scale_num)) != IC_OK) return st;
    int32_t sw, sh;
    if ((st = ic_jpeg_scaled_size(width, height, p.scale_num, &sw, &sh)) != IC_OK) return st;
    /* The crop of the scaled image that holds the page, 2 px to spare (the interpolation's
     * taps), origin even for 4:2:0. */
    const double fx = (double)sw / width, fy = (double)sh / height, margin = 2.0;
    double lx = INFINITY, ly = INFINITY, hx = -INFINITY, hy = -INFINITY;
    ic_point s[4];
    for (int i = 0; i < 4; i++) {
        s[i].x = c[i].x * fx;
        s[i].y = c[i].y * fy;
        lx = fmin(lx, s[i].x);
        ly = fmin(ly, s[i].y);
        hx = fmax(hx, s[i].x);
        hy = fmax(hy, s[i].y);
    }
    int32_t x0 = (int32_t)fmax(0, floor(lx - margin)), y0 = (int32_t)fmax(0, floor(ly - margin));
    x0 &= ~1;
    y0 &= ~1;
    const int32_t x1 = (int32_t)fmin(sw, ceil(hx + margin)), y1 = (int32_t)fmin(sh, ceil(hy + margin));
    p.crop.x = x0;
    p.crop.y = y0;
    p.crop.width = x1 - x0 > 1 ? x1 - x0 : 1;
    p.crop.height = y1 - y0 > 1 ? y1 - y0 : 1;
    for (int i = 0; i < 4; i++) {
        p.quad_in_crop.corners[i].x = s[i].x - x0;
        p.quad_in_crop.corners[i].y = s[i].y - y0;
    }
    if ((st = ic_oriented_size((ic_orientation)p.orientation, p.page_width, p.page_height, &p.width, &p.height)) !=
        IC_OK)
        return st;
    /* The run rectifies the quad scaled into the crop: its checks are made here, so that a
     * nearly degenerate quad that the scaling (x and y apart) or the crop's origin tips over
     * is refused by the plan, not by the run (pipeline_fuzz). */
    ic_homography m;
    if ((st = ic_quad_validate(&p.quad_in_crop, p.crop.width, p.crop.height, NULL)) != IC_OK ||
        (st = ic_rectify_homography(&p.quad_in_crop, p.page_width, p.page_height, p.orientation, &m)) != IC_OK)
        return st;
    if ((st = ic_image_size(p.format, p.crop.width, p.crop.height, SCAN_ALIGN, &p.crop_bytes)) != IC_OK) return st;
    if (!o.no_enhance) {
        ic_enhance_options e = {o.mode, 0, 0, 0};
        if ((st = ic_enhance_scratch_size(p.width, p.height, &e, &p.enhance_bytes)) != IC_OK) return st;
    }
    p.crop_bytes = align_up(p.crop_bytes);
    p.enhance_bytes = align_up(p.enhance_bytes);
    p.scratch_size = p.crop_bytes > p.enhance_bytes ? p.crop_bytes : p.enhance_bytes;
    p.options = o;
    *plan = p;
    return IC_OK;
}

ic_status ic_scan_plan_size(int32_t width, int32_t height, int32_t orientation, const ic_scan_options *options,
                            ic_scan_plan *plan) {
    return plan_scan(width, height, orientation, options, 0, plan);
}

ic_status ic_scan_plan_jpeg(const uint8_t *data, size_t size, const ic_scan_options *options, ic_scan_plan *plan) {
    if (!options || !plan) return IC_ERR_INVALID_ARGUMENT;
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    if (st != IC_OK) return st;
    /* a colour page of a CMYK, YCCK or RGB file, or of an unusual sampling, is decoded to
     * RGBA8 (4 bytes a crop pixel against NV12's 1.5, the page likewise) */
    const int nv12 = ic__jpeg_yuv_decodable(info.colorspace, info.subsampling);
    return plan_scan(info.width, info.height, info.orientation, options, !nv12, plan);
}

ic_status ic_scan_jpeg(const uint8_t *data, size_t size, const ic_scan_plan *plan, void *scratch, size_t scratch_size,
                       ic_image *dst, ic_jpeg_write_fn write, void *context, size_t *encoded_size) {
    if (encoded_size) *encoded_size = 0;
    if (!plan || !scratch || ((uintptr_t)scratch & (SCAN_ALIGN - 1))) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(dst);
    if (st != IC_OK) return st;
    if (dst->format != plan->format || dst->width != plan->width || dst->height != plan->height)
        return IC_ERR_INVALID_ARGUMENT;
    if (scratch_size < plan->scratch_size || plan->scratch_size < plan->crop_bytes ||
        plan->scratch_size < plan->enhance_bytes)
        return IC_ERR_BUFFER_TOO_SMALL;
    const ic_scan_options *o = &plan->options;

    /* 1. The crop, at the plan's scale, into the scratch. */
    ic_layout layout;
    if ((st = ic_layout_compute(plan->format, plan->crop.width, plan->crop.height, SCAN_ALIGN, &layout)) != IC_OK)
        return st;
    if (layout.total_size > plan->crop_bytes) return IC_ERR_BUFFER_TOO_SMALL;
    ic_image crop;
    if ((st = ic_image_init(&crop, plan->format, IC_ALPHA_STRAIGHT, plan->crop.width, plan->crop.height,
                            (uint8_t *)scratch, &layout)) != IC_OK)
        return st;
    ic_jpeg_decode_options d = o->decode; /* the caller's limits and flags */
    d.format = plan->format;
    d.scale_num = plan->scale_num;
    d.crop_x = plan->crop.x;
    d.crop_y = plan->crop.y;
    d.crop_width = plan->crop.width;
    d.crop_height = plan->crop.height;
    ic_jpeg_decode_result result;
    st = ic_jpeg_decode(data, size, &d, &crop, &result);
    if (o->result) *o->result = result; /* warnings for the host to report */
    if (st != IC_OK) return st;

    /* 2. Rectified into dst, the orientation composed into the mapping; paper-white fill. */
    ic_warp_options w = ic_warp_options_default(plan->format);
    w.interpolation = o->interpolation;
    w.fill[0] = 255;
    if (plan->format == IC_FORMAT_NV12) w.fill[1] = w.fill[2] = 128;
    if (plan->format == IC_FORMAT_RGBA8) w.fill[1] = w.fill[2] = w.fill[3] = 255;
    if ((st = ic_rectify(&crop, &plan->quad_in_crop, plan->orientation, dst, &w)) != IC_OK) return st;

    /* 3. Enhanced in place; its scratch reuses the crop's bytes, which are dead now. */
    if (!o->no_enhance) {
        ic_enhance_options e = {o->mode, 0, 0, 0};
        if ((st = ic_enhance_page(dst, &e, scratch, plan->scratch_size)) != IC_OK) return st;
    }

    /* 4. Optionally encoded (EXIF orientation 1: the page is upright). */
    if (!write) return IC_OK;
    ic_jpeg_encode_options eo;
    ic_jpeg_encode_options_init(&eo);
    eo.quality = o->quality;
    eo.orientation = 1;
    return ic_jpeg_encode_to(dst, &eo, write, context, encoded_size);
}
