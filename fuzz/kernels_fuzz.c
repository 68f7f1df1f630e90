/* libFuzzer harness over every kernel family with fuzzer-chosen sizes, row padding, formats
 * and options, on guarded images (every plane ends at a PROT_NONE page; row padding holds a
 * canary that must survive): copy / fill, channels, YUV conversions and layouts, orientation
 * (and in place), Laplacian (score, s16, u8, ROIs), resize (one-shot, plans with a thread
 * count, streaming), warp / rectify / homography / quad checks, page detection and
 * enhancement. The first choice picks the family; pixels come from the input's front.
 * Built twice by fuzz/run.sh: serial backend and the OpenMP runtime (1-4 threads). */
#include "fuzz_common.h"

#include <math.h>

static const ic_format all_formats[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12};

typedef struct ctx {
    fuzz_in in;
    const uint8_t *pixels;
    size_t npixels;
} ctx;

static ic_format any_format(ctx *c) { return all_formats[fuzz_u32(&c->in, 4)]; }
static int32_t dim(ctx *c, int32_t max) { return fuzz_range(&c->in, 1, max); }
static ic_alpha alpha(ctx *c) { return (ic_alpha)fuzz_u32(&c->in, 2); }

static int image(ctx *c, guarded *g, ic_format f, int32_t w, int32_t h) {
    return guarded_alloc(g, f, f == IC_FORMAT_RGBA8 ? alpha(c) : IC_ALPHA_STRAIGHT, w, h, fuzz_u32(&c->in, 67),
                         c->pixels, c->npixels);
}

static void copy_fill(ctx *c) {
    const ic_format f = any_format(c);
    const int32_t w = dim(c, 70), h = dim(c, 70);
    guarded a, b;
    if (image(c, &a, f, w, h) && image(c, &b, f, w, h)) {
        fuzz_expect(ic_image_copy(&a.im, &b.im), 1);
        for (int32_t p = 0; p < ic_format_plane_count(f); p++)
            for (int32_t y = 0; y < a.rows[p]; y++)
                if (memcmp(a.im.planes[p].data + (size_t)y * a.im.planes[p].stride,
                           b.im.planes[p].data + (size_t)y * b.im.planes[p].stride, a.row_bytes[p])) FUZZ_FAIL();
        const uint8_t v[4] = {fuzz_u8(&c->in), fuzz_u8(&c->in), fuzz_u8(&c->in), fuzz_u8(&c->in)};
        fuzz_expect(ic_image_fill(&b.im, v), 1);
        const size_t ps = fuzz_range(&c->in, 1, 16);
        const size_t rb = a.row_bytes[0] / ps * ps;
        if (rb) fuzz_expect(ic_plane_fill(a.im.planes[0].data, a.im.planes[0].stride, rb, a.rows[0], v, ps < 4 ? ps : 4), 0);
        guarded_check(&a);
        guarded_check(&b);
    }
    guarded_free(&a);
    guarded_free(&b);
}

static void channels_yuv(ctx *c) {
    const ic_format sf = any_format(c), df = any_format(c);
    const int32_t w = dim(c, 80), h = dim(c, 80);
    guarded a, b;
    if (image(c, &a, sf, w, h) && image(c, &b, df, w, h)) {
        const uint32_t op = fuzz_u32(&c->in, 4);
        const ic_yuv_matrix m = (ic_yuv_matrix)fuzz_u32(&c->in, 1);
        const ic_yuv_range r = (ic_yuv_range)fuzz_u32(&c->in, 1);
        ic_status st;
        switch (op) {
        case 0: st = ic_convert_channels(&a.im, &b.im); break;
        case 1: st = ic_rgb_to_yuv(&a.im, &b.im, m, r); break;
        case 2: st = ic_yuv_to_rgb(&a.im, &b.im, m, r); break;
        case 3: st = ic_yuv_convert_layout(&a.im, &b.im); break;
        default: st = fuzz_u32(&c->in, 1) ? ic_yuv_to_gray(&a.im, &b.im, r) : ic_gray_to_yuv(&a.im, &b.im, r); break;
        }
        fuzz_expect(st, 0);
        guarded_check(&a);
        guarded_check(&b);
    }
    guarded_free(&a);
    guarded_free(&b);
}

static void orient(ctx *c) {
    const ic_format f = any_format(c);
    const int32_t w = dim(c, 90), h = dim(c, 90);
    const ic_orientation o = (ic_orientation)fuzz_range(&c->in, 1, 8);
    int32_t ow = 0, oh = 0;
    if (ic_oriented_size(o, w, h, &ow, &oh) != IC_OK) FUZZ_FAIL();
    guarded a, b;
    if (image(c, &a, f, w, h) && image(c, &b, f, ow, oh)) {
        fuzz_expect(ic_image_orient(&a.im, &b.im, o), 1);
        /* Then back with the inverse: lossless for every format. */
        guarded back;
        if (image(c, &back, f, w, h)) {
            fuzz_expect(ic_image_orient(&b.im, &back.im, ic_orientation_inverse(o)), 1);
            for (int32_t y = 0; y < a.rows[0]; y++)
                if (memcmp(a.im.planes[0].data + (size_t)y * a.im.planes[0].stride,
                           back.im.planes[0].data + (size_t)y * back.im.planes[0].stride, a.row_bytes[0])) FUZZ_FAIL();
            guarded_check(&back);
        }
        guarded_free(&back);
        fuzz_expect(ic_image_orient_in_place(&a.im, (ic_orientation)fuzz_range(&c->in, 1, 4)), 1);
        guarded_check(&a);
        guarded_check(&b);
    }
    guarded_free(&a);
    guarded_free(&b);
}

static void laplacian(ctx *c) {
    const ic_format f = fuzz_u32(&c->in, 1) ? IC_FORMAT_GRAY8 : (fuzz_u32(&c->in, 1) ? IC_FORMAT_NV12 : IC_FORMAT_I420);
    const int32_t w = dim(c, 100), h = dim(c, 100);
    guarded a;
    if (image(c, &a, f, w, h)) {
        ic_rect roi = {fuzz_range(&c->in, -2, w), fuzz_range(&c->in, -2, h), fuzz_range(&c->in, 0, w + 2), fuzz_range(&c->in, 0, h + 2)};
        const int whole = fuzz_u32(&c->in, 1);
        const ic_rect *rp = whole ? NULL : &roi;
        const int valid_roi = whole || (roi.x >= 0 && roi.y >= 0 && roi.width >= 1 && roi.height >= 1 &&
                                        roi.x + roi.width <= w && roi.y + roi.height <= h);
        ic_laplacian_stats s;
        fuzz_expect(ic_laplacian_score(&a.im, rp, &s), valid_roi);
        const int32_t rw = whole ? w : roi.width, rh = whole ? h : roi.height;
        if (valid_roi) {
            guarded d;
            if (image(c, &d, IC_FORMAT_GRAY8, rw, rh)) {
                fuzz_expect(ic_laplacian_u8(&a.im, rp, &d.im, fuzz_u32(&c->in, 1) ? IC_LAPLACIAN_CLAMP : IC_LAPLACIAN_CLAMP_GAMMA), 1);
                guarded_check(&d);
            }
            guarded_free(&d);
            /* s16 plane through a guarded GRAY8 mapping twice as wide. */
            if (image(c, &d, IC_FORMAT_GRAY8, 2 * rw, rh)) {
                ic_plane_s16 ps = {(int16_t *)(void *)d.im.planes[0].data, d.im.planes[0].stride, rw, rh};
                if (((uintptr_t)ps.data & 1) == 0 && (ps.stride & 1) == 0) fuzz_expect(ic_laplacian_s16(&a.im, rp, &ps), 1);
                guarded_check(&d);
            }
            guarded_free(&d);
        }
        guarded_check(&a);
    }
    guarded_free(&a);
}

static int band_sink(void *ctx_, const ic_image *band, int32_t first) { (void)ctx_; (void)band; (void)first; return 0; }

static void resize(ctx *c) {
    const ic_format f = any_format(c);
    const int32_t sw = dim(c, 120), sh = dim(c, 120), dw = dim(c, 120), dh = dim(c, 120);
    guarded a, b;
    if (image(c, &a, f, sw, sh) && image(c, &b, f, dw, dh)) {
        if (f == IC_FORMAT_RGBA8) b.im.alpha = a.im.alpha;
        ic_resize_params p;
        memset(&p, 0, sizeof p);
        p.format = f; p.alpha = a.im.alpha; p.src_width = sw; p.src_height = sh; p.dst_width = dw; p.dst_height = dh;
        p.filter = (ic_resize_filter)fuzz_u32(&c->in, 4);
        p.flags = fuzz_u32(&c->in, 3); /* IC_RESIZE_NO_PREREDUCE, IC_RESIZE_LINEAR_LIGHT */
        p.max_threads = (int32_t)fuzz_u32(&c->in, 5);
        switch (fuzz_u32(&c->in, 2)) {
        case 0: fuzz_expect(ic_resize(&a.im, &b.im, p.filter), 1); break;
        case 1: {
            ic_resize_plan *plan = NULL;
            ic_status st = ic_resize_plan_create(&p, &plan);
            fuzz_expect(st, 1);
            if (st == IC_OK) {
                fuzz_expect(ic_resize_plan_execute(plan, &a.im, &b.im), 1);
                ic_resize_plan_destroy(plan);
            }
            break;
        }
        default: {
            size_t need = 0;
            if (ic_resize_stream_size(&p, &need) != IC_OK) break; /* YUV cannot stream */
            void *mem = NULL;
            if (posix_memalign(&mem, 64, need)) FUZZ_FAIL();
            ic_resize_stream *s = NULL;
            fuzz_expect(ic_resize_stream_init(mem, need, &p, &s), 1);
            int32_t pushed = 0, written = 0;
            while (pushed < sh) {
                const int32_t k = fuzz_range(&c->in, 1, sh - pushed);
                fuzz_expect(ic_resize_stream_push_rows(s, a.im.planes[0].data + (size_t)pushed * a.im.planes[0].stride,
                                                       a.im.planes[0].stride, k, sw, &b.im, &written), 1);
                pushed += k;
            }
            if (written != dh) FUZZ_FAIL();
            /* One row too many is refused. */
            if (ic_resize_stream_push(s, a.im.planes[0].data, sw, &b.im, &written) != IC_ERR_INVALID_ARGUMENT) FUZZ_FAIL();
            free(mem);
        }
        }
        guarded_check(&a);
        guarded_check(&b);
    }
    guarded_free(&a);
    guarded_free(&b);
    (void)band_sink;
}

static void warp(ctx *c) {
    const ic_format wf[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12};
    const ic_format f = wf[fuzz_u32(&c->in, 3)];
    const int32_t sw = dim(c, 90), sh = dim(c, 90), dw = dim(c, 90), dh = dim(c, 90);
    guarded a, b;
    if (image(c, &a, f, sw, sh) && image(c, &b, f, dw, dh)) {
        ic_warp_options o = ic_warp_options_default(f);
        o.interpolation = (ic_interpolation)fuzz_u32(&c->in, 1);
        ic_homography h;
        const int raw = fuzz_u32(&c->in, 3) == 0;
        for (int i = 0; i < 9; i++) h.m[i] = raw ? fuzz_raw_double(&c->in) : fuzz_double(&c->in, -4, 4);
        fuzz_expect(ic_warp_perspective(&a.im, &b.im, &h, &o), 0);
        /* Homography helpers on the same numbers. */
        ic_homography inv, prod;
        if (ic_homography_invert(&h, &inv) == IC_OK) (void)ic_homography_multiply(&h, &inv, &prod);
        ic_point pt = {fuzz_raw_double(&c->in), fuzz_double(&c->in, -100, 100)}, out;
        (void)ic_homography_map(&h, pt, &out);
        /* A quad: validate, order, rectified size, rectify. */
        ic_quad q;
        for (int i = 0; i < 4; i++) {
            q.corners[i].x = raw ? fuzz_raw_double(&c->in) : fuzz_double(&c->in, -20, sw + 20);
            q.corners[i].y = raw ? fuzz_raw_double(&c->in) : fuzz_double(&c->in, -20, sh + 20);
        }
        ic_quad_problem problem;
        (void)ic_quad_validate(&q, sw, sh, &problem);
        (void)ic_quad_problem_string(problem);
        ic_quad ordered;
        (void)ic_quad_order(q.corners, &ordered);
        ic_homography from;
        (void)ic_homography_from_points(q.corners, ordered.corners, &from);
        const int32_t orientation = fuzz_range(&c->in, 1, 8);
        fuzz_expect(ic_rectify(&a.im, &q, orientation, &b.im, &o), 0);
        guarded_check(&a);
        guarded_check(&b);
    }
    guarded_free(&a);
    guarded_free(&b);
}

static void detect_enhance(ctx *c) {
    const ic_format ef[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12, IC_FORMAT_RGB8};
    const ic_format f = ef[fuzz_u32(&c->in, 4)];
    const int32_t w = dim(c, 160), h = dim(c, 160);
    guarded a;
    if (image(c, &a, f, w, h)) {
        if (fuzz_u32(&c->in, 1)) {
            ic_detect_options o;
            memset(&o, 0, sizeof o);
            o.work_size = fuzz_u32(&c->in, 1) ? 0 : fuzz_range(&c->in, 64, 160);
            /* the default threshold, or none: the best quad is then always reported and polished */
            o.min_confidence = fuzz_u32(&c->in, 1) ? 0 : -1;
            size_t need = 0;
            if (ic_detect_scratch_size(w, h, &o, &need) == IC_OK) {
                void *scratch = malloc(need);
                ic_page_detection d;
                fuzz_expect(ic_detect_page(&a.im, &o, scratch, need, &d), 0);
                int32_t mw = 0, mh = 0;
                if (ic_detect_map_size(w, h, &o, &mw, &mh) == IC_OK) { /* both maps, in [0, 1] */
                    float *maps = malloc(2 * (size_t)mw * (size_t)mh * sizeof *maps);
                    const ic_status st = ic_detect_maps(&a.im, &o, scratch, need, maps, maps + (size_t)mw * mh, (size_t)mw);
                    fuzz_expect(st, 0);
                    for (size_t i = 0; st == IC_OK && i < 2 * (size_t)mw * mh; i++)
                        if (!(maps[i] >= 0 && maps[i] <= 1)) abort();
                    free(maps);
                }
                free(scratch);
            }
        } else {
            ic_enhance_options o;
            memset(&o, 0, sizeof o);
            o.mode = (ic_enhance_mode)fuzz_u32(&c->in, 2);
            o.cell = fuzz_u32(&c->in, 1) ? 0 : fuzz_range(&c->in, 8, 64);
            o.bw_offset = (int32_t)fuzz_u32(&c->in, 255);
            o.neutral_chroma = (int32_t)fuzz_u32(&c->in, 1);
            size_t need = 0;
            if (ic_enhance_scratch_size(w, h, &o, &need) == IC_OK) {
                void *scratch = malloc(need);
                fuzz_expect(ic_enhance_page(&a.im, &o, scratch, need), 0);
                free(scratch);
            }
        }
        guarded_check(&a);
    }
    guarded_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ctx c = {{data, size}, data, 0};
    const uint32_t family = fuzz_u32(&c.in, 6);
    fuzz_threads(&c.in);
    ic_set_cpu_mask(fuzz_u32(&c.in, 3) == 0 ? 0 : 0xffffffffu); /* scalar references too */
    c.npixels = c.in.size; /* what the choices left */
    switch (family) {
    case 0: copy_fill(&c); break;
    case 1: channels_yuv(&c); break;
    case 2: orient(&c); break;
    case 3: laplacian(&c); break;
    case 4: resize(&c); break;
    case 5: warp(&c); break;
    default: detect_enhance(&c); break;
    }
    return 0;
}
