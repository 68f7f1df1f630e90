/* libFuzzer harness over the encoders, JPEG and PNG: a guarded source image of fuzzer-chosen
 * format, size, row padding and pixels, fuzzer-chosen options (an EXIF block and, for JPEG,
 * an ICC profile taken from the input's front); encode into a buffer of the bound (must
 * succeed unless the options are unsupported for the input), into a short buffer (must fail
 * cleanly), through a write callback that may stop, and with the growing buffer (same
 * bytes); the result must decode again with no warning (PNG: to the same pixels) and carry
 * the orientation and profile asked for. */
#include "fuzz_common.h"

static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12};

typedef struct sink { size_t total, stop_after; } sink;
static ic_status write_fn(void *ctx, const uint8_t *bytes, size_t n) {
    sink *s = (sink *)ctx;
    volatile uint8_t x = 0;
    for (size_t i = 0; i < n; i++) x ^= bytes[i]; /* every byte handed over is readable */
    (void)x;
    s->total += n;
    return s->stop_after && s->total >= s->stop_after ? IC_ERR_CANCELLED : IC_OK;
}

/* The PNG encoder: GRAY8 / RGB8 / RGBA8 (any alpha mode: premultiplied is refused). */
static void png_encode(fuzz_in *in, const uint8_t *data) {
    static const ic_format pf[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8};
    const ic_format f = pf[fuzz_u32(in, 2)];
    const ic_alpha alpha = f == IC_FORMAT_RGBA8 ? (ic_alpha)fuzz_u32(in, 2) : IC_ALPHA_STRAIGHT;
    const int32_t w = fuzz_range(in, 1, 80), h = fuzz_range(in, 1, 80);
    const size_t pad = fuzz_u32(in, 40);
    ic_png_encode_options o;
    ic_png_encode_options_init(&o);
    o.compression_level = fuzz_range(in, -1, 9);
    o.filters = fuzz_u32(in, 255) & IC_PNG_FILTER_ALL;
    o.orientation = (int32_t)fuzz_u32(in, 8);
    if (fuzz_u32(in, 3) == 0) { /* an EXIF block from the input's front */
        o.exif = data;
        o.exif_size = fuzz_u32(in, (uint32_t)in->size);
    }
    guarded g;
    if (!guarded_alloc(&g, f, alpha, w, h, pad, data, in->size)) { guarded_free(&g); return; }
    size_t bound = 0, n = 0, m = 0;
    if (ic_png_encode_bound(f, w, h, &o, &bound) != IC_OK || bound == 0) FUZZ_FAIL();
    uint8_t *out = (uint8_t *)malloc(bound);
    ic_status st = ic_png_encode(&g.im, &o, out, bound, &n);
    guarded_check(&g);
    /* Premultiplied alpha is refused; an EXIF block libspng does not take (not a TIFF
     * structure) is an argument error (png.h); anything else encodes. */
    if (alpha == IC_ALPHA_PREMULTIPLIED ? st != IC_ERR_UNSUPPORTED
                                        : st != IC_OK && !(o.exif && st == IC_ERR_INVALID_ARGUMENT)) FUZZ_FAIL();
    if (st == IC_OK) {
        if (n == 0 || n > bound) FUZZ_FAIL();
        ic_png_info info;
        if (ic_png_probe(out, n, &info) != IC_OK || info.width != w || info.height != h) FUZZ_FAIL();
        if (!o.exif && (info.orientation != (o.orientation ? o.orientation : 1) || info.has_exif != (o.orientation != 0))) FUZZ_FAIL();
        guarded back;
        if (guarded_alloc(&back, f, IC_ALPHA_STRAIGHT, w, h, 0, NULL, 0)) {
            ic_png_decode_options d;
            ic_png_decode_options_init(&d);
            d.flags = IC_PNG_STRICT;
            ic_png_decode_result r;
            if (ic_png_decode(out, n, &d, &back.im, &r) != IC_OK || r.warnings != 0) FUZZ_FAIL();
            for (int32_t y = 0; y < h; y++) /* lossless */
                if (memcmp(back.im.planes[0].data + (size_t)y * back.im.planes[0].stride,
                           g.im.planes[0].data + (size_t)y * g.im.planes[0].stride, g.row_bytes[0])) FUZZ_FAIL();
        }
        guarded_free(&back);
        const size_t cap = (size_t)fuzz_u32(in, (uint32_t)(n - 1));
        uint8_t *shortbuf = (uint8_t *)malloc(cap ? cap : 1);
        if (ic_png_encode(&g.im, &o, shortbuf, cap, &m) != IC_ERR_BUFFER_TOO_SMALL) FUZZ_FAIL();
        free(shortbuf);
        sink s = {0, fuzz_u32(in, (uint32_t)n)};
        st = ic_png_encode_to(&g.im, &o, write_fn, &s, &m);
        if (s.stop_after ? st != IC_ERR_CANCELLED : (st != IC_OK || m != n || s.total != n)) FUZZ_FAIL();
        uint8_t *grown = NULL;
        if (ic_png_encode_alloc(&g.im, &o, &grown, &m) != IC_OK || m != n || memcmp(grown, out, n) != 0) FUZZ_FAIL();
        ic_png_free(grown);
    }
    free(out);
    guarded_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    if (fuzz_u32(&in, 2) == 0) { png_encode(&in, data); return 0; }
    const ic_format f = formats[fuzz_u32(&in, 4)];
    const int32_t w = fuzz_range(&in, 1, 80), h = fuzz_range(&in, 1, 80);
    const size_t pad = fuzz_u32(&in, 40);
    ic_jpeg_encode_options o;
    ic_jpeg_encode_options_init(&o);
    o.quality = (int32_t)fuzz_u32(&in, 100);
    o.subsampling = (ic_jpeg_subsampling)fuzz_u32(&in, 6);
    o.flags = fuzz_u32(&in, 7);
    o.restart_interval = (int32_t)fuzz_u32(&in, 20);
    o.orientation = (int32_t)fuzz_u32(&in, 8);
    o.restart_rows = fuzz_range(&in, -1, 3); /* none, automatic, or every 1-3 MCU rows */
    if (fuzz_u32(&in, 3) == 0) { /* EXIF and an ICC profile from the input's front */
        o.exif = data;
        o.exif_size = fuzz_u32(&in, (uint32_t)(in.size < 65000 ? in.size : 65000));
        o.icc_profile = data;
        o.icc_size = fuzz_u32(&in, (uint32_t)in.size);
    }
    fuzz_threads(&in);
    guarded g;
    if (!guarded_alloc(&g, f, IC_ALPHA_STRAIGHT, w, h, pad, data, in.size)) { guarded_free(&g); return 0; }
    size_t bound = 0;
    if (ic_jpeg_encode_bound(w, h, &o, &bound) != IC_OK || bound == 0) FUZZ_FAIL();
    uint8_t *out = (uint8_t *)malloc(bound);
    size_t n = 0;
    ic_status st = ic_jpeg_encode(&g.im, &o, out, bound, &n);
    if (st != IC_OK && st != IC_ERR_UNSUPPORTED) FUZZ_FAIL();
    guarded_check(&g);
    if (st == IC_OK) {
        if (n == 0 || n > bound) FUZZ_FAIL();
        /* Our output decodes cleanly, at the input's size. */
        ic_jpeg_decode_options d;
        ic_jpeg_decode_options_init(&d);
        d.flags = IC_JPEG_STRICT;
        int32_t dw = 0, dh = 0;
        if (ic_jpeg_decode_size(out, n, &d, &dw, &dh, NULL) != IC_OK || dw != w || dh != h) FUZZ_FAIL();
        ic_jpeg_info info;
        if (ic_jpeg_probe(out, n, &info) != IC_OK || (!o.exif && info.orientation != (o.orientation ? o.orientation : 1))) FUZZ_FAIL();
        if (o.icc_size) { /* the profile comes back byte for byte */
            uint8_t *icc = (uint8_t *)malloc(o.icc_size);
            size_t got = 0;
            if (ic_jpeg_icc_profile(out, n, icc, o.icc_size, &got) != IC_OK || got != o.icc_size ||
                memcmp(icc, o.icc_profile, got)) FUZZ_FAIL();
            free(icc);
        }
        guarded back;
        if (guarded_alloc(&back, IC_FORMAT_RGB8, IC_ALPHA_STRAIGHT, w, h, 0, NULL, 0)) {
            ic_jpeg_decode_result r;
            if (ic_jpeg_decode(out, n, &d, &back.im, &r) != IC_OK || r.warnings != 0 || r.valid_rows != h) FUZZ_FAIL();
        }
        guarded_free(&back);
        /* A buffer too short by a fuzzer-chosen amount fails without writing past it. */
        const size_t cap = (size_t)fuzz_u32(&in, (uint32_t)(n - 1));
        uint8_t *shortbuf = (uint8_t *)malloc(cap ? cap : 1);
        size_t m = 0;
        if (ic_jpeg_encode(&g.im, &o, shortbuf, cap, &m) != IC_ERR_BUFFER_TOO_SMALL) FUZZ_FAIL();
        free(shortbuf);
        sink s = {0, fuzz_u32(&in, (uint32_t)n)};
        st = ic_jpeg_encode_to(&g.im, &o, write_fn, &s, &m);
        if (s.stop_after ? st != IC_ERR_CANCELLED : (st != IC_OK || m != n || s.total != n)) FUZZ_FAIL();
        uint8_t *grown = NULL;
        if (ic_jpeg_encode_alloc(&g.im, &o, &grown, &m) != IC_OK || m != n || memcmp(grown, out, n) != 0) FUZZ_FAIL();
        ic_jpeg_free(grown);
    }
    free(out);
    guarded_free(&g);
    return 0;
}
