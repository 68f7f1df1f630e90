/* libFuzzer harness over JPEG encode: a guarded source image of fuzzer-chosen format, size,
 * row padding and pixels, fuzzer-chosen options; encode into a buffer of the bound (must
 * succeed unless the subsampling is unsupported for the input), into a short buffer (must
 * fail cleanly), through a write callback that may stop, and with the growing buffer; the
 * result must decode again with no warning. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
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
        if (ic_jpeg_probe(out, n, &info) != IC_OK || info.orientation != (o.orientation ? o.orientation : 1)) FUZZ_FAIL();
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
