/* libFuzzer harness over the C systems (imagecore/pipeline.h) on hostile JPEGs: the thumbnail
 * plan and run (scaled decode or the EXIF thumbnail, streamed resize, orientation; linear
 * light) and the scan plan and run (crop decode, rectification with the orientation composed
 * in, enhancement, the page's encode through a callback), with fuzzer-chosen targets,
 * corners, size requests, decoder limits and thread counts. Outputs are guarded planes; a
 * plan's scratch one byte short must be refused. Choices come from the input's last bytes. */
#include "fuzz_common.h"

static const ic_format thumb_formats[] = {IC_FORMAT_INVALID, IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8};

static void limits(fuzz_in *in, ic_jpeg_decode_options *d) {
    ic_jpeg_decode_options_init(d);
    d->max_pixels = 1 + fuzz_u32(in, 400000); /* keep each input fast */
    d->max_scans = (int32_t)fuzz_u32(in, 600);
    d->min_valid_permille = fuzz_range(in, -2, 1000);
    d->flags = fuzz_u32(in, 7); /* strict, fast upsample, fast DCT */
}

static void *scratch_of(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64)) FUZZ_FAIL();
    return p;
}

static ic_status count_bytes(void *ctx, const uint8_t *bytes, size_t n) {
    volatile uint8_t x = 0;
    for (size_t i = 0; i < n; i++) x ^= bytes[i];
    (void)x;
    *(size_t *)ctx += n;
    return IC_OK;
}

static void thumbnail(fuzz_in *in, const uint8_t *jpeg, size_t n) {
    ic_thumbnail_options o;
    memset(&o, 0, sizeof o);
    o.max_width = fuzz_range(in, 1, 300);
    o.max_height = fuzz_range(in, 1, 300);
    o.format = thumb_formats[fuzz_u32(in, 3)];
    o.min_residual = fuzz_double(in, 0, 3);
    o.band_rows = (int32_t)fuzz_u32(in, 40);
    o.no_exif_thumbnail = (int32_t)fuzz_u32(in, 1);
    o.linear_light = (int32_t)fuzz_u32(in, 1);
    limits(in, &o.decode);
    const size_t pad = fuzz_u32(in, 40);
    fuzz_threads(in);
    ic_thumbnail_plan plan;
    ic_status st = ic_thumbnail_plan_jpeg(jpeg, n, &o, &plan);
    fuzz_expect(st, 1);
    if (st != IC_OK) return;
    if (plan.width < 1 || plan.height < 1 || plan.width > o.max_width || plan.height > o.max_height ||
        plan.scratch_size != plan.resize_bytes + plan.turn_bytes || plan.orientation < 1 || plan.orientation > 8)
        FUZZ_FAIL();
    guarded g;
    if (guarded_alloc(&g, plan.format, IC_ALPHA_OPAQUE, plan.width, plan.height, pad, NULL, 0)) {
        void *scratch = scratch_of(plan.scratch_size);
        if (plan.scratch_size &&
            ic_thumbnail_jpeg(jpeg, n, &plan, scratch, plan.scratch_size - 1, &g.im, NULL) != IC_ERR_BUFFER_TOO_SMALL)
            FUZZ_FAIL();
        ic_jpeg_decode_result r;
        st = ic_thumbnail_jpeg(jpeg, n, &plan, scratch, plan.scratch_size, &g.im, &r);
        fuzz_expect(st, 1);
        guarded_check(&g);
        free(scratch);
    }
    guarded_free(&g);
}

static void scan(fuzz_in *in, const uint8_t *jpeg, size_t n) {
    ic_jpeg_info info;
    const int known = ic_jpeg_probe(jpeg, n, &info) == IC_OK;
    const double w = known ? info.width : 100, h = known ? info.height : 100;
    ic_scan_options o;
    memset(&o, 0, sizeof o);
    const int raw = fuzz_u32(in, 7) == 0;
    for (int i = 0; i < 4; i++) {
        o.corners.corners[i].x = raw ? fuzz_raw_double(in) : fuzz_double(in, -0.1 * w, 1.1 * w);
        o.corners.corners[i].y = raw ? fuzz_raw_double(in) : fuzz_double(in, -0.1 * h, 1.1 * h);
    }
    o.size.kind = (ic_size_kind)fuzz_u32(in, 4); /* 4: invalid */
    o.size.width = fuzz_range(in, -1, 400);
    o.size.height = fuzz_range(in, -1, 400);
    o.size.long_side = fuzz_range(in, -1, 400);
    o.size.paper = (ic_paper)fuzz_u32(in, 4);
    o.size.dpi = fuzz_double(in, -1, 40);
    o.mode = (ic_enhance_mode)fuzz_u32(in, 3);
    o.no_enhance = (int32_t)fuzz_u32(in, 1);
    o.interpolation = (ic_interpolation)fuzz_u32(in, 2);
    o.quality = fuzz_range(in, -1, 101);
    limits(in, &o.decode);
    const size_t pad = fuzz_u32(in, 40);
    const int encode = (int)fuzz_u32(in, 1);
    fuzz_threads(in);
    ic_scan_plan plan;
    ic_status st = ic_scan_plan_jpeg(jpeg, n, &o, &plan);
    fuzz_expect(st, 0); /* corners and requests are fuzzer-made: argument errors are fine */
    if (st != IC_OK) return;
    if (plan.width < 1 || plan.height < 1) FUZZ_FAIL();
    if ((uint64_t)plan.width * (uint64_t)plan.height > 400000) return; /* a paper size at a high dpi: keep it fast */
    guarded g;
    if (guarded_alloc(&g, plan.format, IC_ALPHA_OPAQUE, plan.width, plan.height, pad, NULL, 0)) {
        void *scratch = scratch_of(plan.scratch_size);
        if (plan.scratch_size &&
            ic_scan_jpeg(jpeg, n, &plan, scratch, plan.scratch_size - 1, &g.im, NULL, NULL, NULL) != IC_ERR_BUFFER_TOO_SMALL)
            FUZZ_FAIL();
        size_t written = 0, encoded = 0;
        st = ic_scan_jpeg(jpeg, n, &plan, scratch, plan.scratch_size, &g.im, encode ? count_bytes : NULL, &written, &encoded);
        fuzz_expect(st, 1);
        if (st == IC_OK && encoded != written) FUZZ_FAIL();
        guarded_check(&g);
        free(scratch);
    }
    guarded_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    /* The whole input is the JPEG (libjpeg ignores what follows EOI, where the choices are). */
    if (fuzz_u32(&in, 1) == 0) thumbnail(&in, data, size);
    else scan(&in, data, size);
    return 0;
}
