/* libFuzzer harness over the JPEG decode entry points and the lossless transform: decode size, full / scaled / cropped
 * decode and streaming, into guarded planes (each ends at a PROT_NONE page; row padding holds
 * a canary that must survive), with fuzzer-chosen format, scale, crop, flags and limits
 * (pixels, scans, memory budget, data-sanity rule, band rows) and thread count. The choices
 * come from the input's last bytes (fuzz_common.h), the JPEG from the rest. Every request is
 * also decoded on one thread and on 2-4 threads with restart-interval stripes at any size
 * (IC_JPEG_PARALLEL_ANY_SIZE), image and stream: status, warnings, message, valid rows and
 * bytes must be the same.
 * Built twice by fuzz/run.sh: with the serial backend and with the OpenMP runtime. */
#include "fuzz_common.h"

#include <stdio.h>

static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12};

/* Reads every byte of every band (a band pointing at unowned memory faults) and checks the
 * band's geometry. */
typedef struct band_check { int32_t next_row, width; ic_format format; unsigned sum; int stop_at; uint64_t hash; } band_check;
static int consume_band(void *context, const ic_image *band, int32_t first_row) {
    band_check *c = (band_check *)context;
    if (first_row != c->next_row || band->width != c->width || band->format != c->format || band->height < 1) FUZZ_FAIL();
    if (ic_image_validate(band) != IC_OK) FUZZ_FAIL();
    static uint8_t copy[65536 * 4];
    for (int32_t p = 0; p < ic_format_plane_count(band->format); p++) {
        size_t row = 0;
        int32_t rows = 0;
        ic_plane_geometry(band->format, band->width, band->height, p, &row, &rows);
        for (int32_t y = 0; y < rows; y++) { /* memcpy: ASan checks the whole row at once */
            memcpy(copy, band->planes[p].data + (size_t)y * band->planes[p].stride, row);
            c->sum += copy[0] + copy[row - 1];
            for (size_t i = 0; i < row; i++) c->hash = (c->hash ^ copy[i]) * 0x100000001b3u; /* FNV-1a */
        }
    }
    c->next_row += band->height;
    return c->stop_at > 0 && c->next_row >= c->stop_at;
}

static int same_outcome(ic_status a, const ic_jpeg_decode_result *ra, ic_status b, const ic_jpeg_decode_result *rb) {
    return a == b && ra->warnings == rb->warnings && ra->valid_rows == rb->valid_rows &&
           ra->width == rb->width && ra->height == rb->height && strcmp(ra->message, rb->message) == 0;
}

/* The request decoded serially (one thread) and in stripes (`threads`, any size): the same
 * outcome and the same bytes, into an image and as a stream. */
static void compare_parallel(const uint8_t *jpeg, size_t n, const ic_jpeg_decode_options *o, int32_t w, int32_t h,
                             int32_t threads) {
    ic_jpeg_decode_options par = *o;
    par.flags |= IC_JPEG_PARALLEL_ANY_SIZE;
    guarded a, b;
    ic_jpeg_decode_result ra, rb;
    const int ga = guarded_alloc(&a, o->format, IC_ALPHA_OPAQUE, w, h, 0, NULL, 0);
    const int gb = guarded_alloc(&b, o->format, IC_ALPHA_OPAQUE, w, h, 0, NULL, 0);
    if (ga && gb) {
        ic_set_num_threads(1);
        const ic_status sa = ic_jpeg_decode(jpeg, n, o, &a.im, &ra);
        ic_set_num_threads(threads);
        const ic_status sb = ic_jpeg_decode(jpeg, n, &par, &b.im, &rb);
        if (!same_outcome(sa, &ra, sb, &rb)) FUZZ_FAIL();
        if (sa == IC_OK)
            for (int32_t p = 0; p < ic_format_plane_count(o->format); p++)
                for (int32_t y = 0; y < a.rows[p]; y++)
                    if (memcmp(a.im.planes[p].data + (size_t)y * a.im.planes[p].stride,
                               b.im.planes[p].data + (size_t)y * b.im.planes[p].stride, a.row_bytes[p]) != 0)
                        FUZZ_FAIL();
    }
    guarded_free(&a);
    guarded_free(&b);
    band_check ca = {0, w, o->format, 0, 0, 0xcbf29ce484222325u}, cb = ca;
    ic_set_num_threads(1);
    const ic_status sa = ic_jpeg_decode_stream(jpeg, n, o, consume_band, &ca, &ra);
    ic_set_num_threads(threads);
    const ic_status sb = ic_jpeg_decode_stream(jpeg, n, &par, consume_band, &cb, &rb);
    if (!same_outcome(sa, &ra, sb, &rb) || ca.next_row != cb.next_row || (sa == IC_OK && ca.hash != cb.hash)) FUZZ_FAIL();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    const uint32_t sel = fuzz_u32(&in, UINT32_MAX);
    o.format = formats[sel % 5];
    o.scale_num = (int32_t)((sel >> 3) % 9);            /* 0 = default */
    o.flags = (sel >> 7) & 7;                            /* strict, fast upsample, fast DCT */
    if (sel & (1u << 11)) o.flags |= IC_JPEG_EXIF_THUMBNAIL; /* the embedded thumbnail instead */
    o.max_pixels = 1 + fuzz_u32(&in, 400000);            /* keep each input fast */
    o.max_scans = (int32_t)fuzz_u32(&in, 600);
    o.max_memory = (sel & (1u << 10)) ? fuzz_u32(&in, 64u << 20) : 0;
    o.min_valid_permille = fuzz_range(&in, -2, 1000);
    o.band_rows = (int32_t)fuzz_u32(&in, 40);
    const size_t pad = fuzz_u32(&in, 70);
    fuzz_threads(&in);
    const uint8_t *jpeg = data;
    const size_t n = in.size;

    /* The marker scan alone: a consistent answer whatever the bytes. */
    ic_jpeg_restart_info ri;
    ic_status st = ic_jpeg_scan_restarts(jpeg, n, &ri);
    fuzz_expect(st, 1);
    if (st == IC_OK && ri.splittable &&
        (ri.restart_interval < 1 || ri.intervals < 1 || ri.cut_rows < 1 || ri.cut_rows >= ri.mcu_rows)) FUZZ_FAIL();

    /* The lossless transform (ic_jpeg_transform, tjTransform): any orientation, trim or not,
     * the harness's pixel limit; an output must probe at the size the result reports, with
     * at most the partial iMCUs dropped and, when the tag was rewritten, the new tag. */
    {
        ic_jpeg_transform_options t;
        memset(&t, 0, sizeof t);
        t.orientation = 1 + (int32_t)((sel >> 12) % 8);
        t.flags = (sel >> 15) & 1 ? IC_JPEG_TRANSFORM_TRIM : 0;
        t.exif_orientation = (int32_t)((sel >> 16) % 9);
        t.max_pixels = o.max_pixels;
        t.max_memory = (sel >> 20) & 1 ? 1 + fuzz_u32(&in, 64u << 20) : 0;
        uint8_t *out = NULL;
        size_t out_size = 0;
        ic_jpeg_transform_result tr;
        st = ic_jpeg_transform(jpeg, n, &t, &out, &out_size, &tr);
        fuzz_expect(st, 1);
        if ((st == IC_OK) != (out != NULL)) FUZZ_FAIL();
        if (st == IC_OK) {
            ic_jpeg_info src, dst;
            if (ic_jpeg_probe(jpeg, n, &src) != IC_OK || ic_jpeg_probe(out, out_size, &dst) != IC_OK) FUZZ_FAIL();
            if (dst.width != tr.width || dst.height != tr.height) FUZZ_FAIL();
            const int swap = t.orientation >= 5;
            const int32_t kw = src.width - tr.dropped_columns, kh = src.height - tr.dropped_rows;
            if (tr.imcu_width && /* an unnamed sampling's trim is tjTransform's own */
                (swap ? dst.width != kh || dst.height != kw : dst.width != kw || dst.height != kh)) FUZZ_FAIL();
            if (tr.imcu_width && (tr.dropped_columns >= tr.imcu_width || tr.dropped_rows >= tr.imcu_height)) FUZZ_FAIL();
            if (tr.exif_rewritten && dst.orientation != t.exif_orientation) FUZZ_FAIL();
            ic_jpeg_free(out);
        }
    }

    int32_t w = 0, h = 0;
    ic_jpeg_decode_result r;
    st = ic_jpeg_decode_size(jpeg, n, &o, &w, &h, &r);
    fuzz_expect(st, 1);
    if (st != IC_OK) return 0;
    if (w < 1 || h < 1 || (uint64_t)w * (uint64_t)h > 400000) FUZZ_FAIL();

    guarded g;
    if (guarded_alloc(&g, o.format, IC_ALPHA_OPAQUE, w, h, pad, NULL, 0)) {
        st = ic_jpeg_decode(jpeg, n, &o, &g.im, &r);
        fuzz_expect(st, 1);
        guarded_check(&g);
        if (st == IC_OK && (r.width != w || r.height != h || r.valid_rows < 0 || r.valid_rows > h)) FUZZ_FAIL();
        /* The rule held: an accepted decode has its share of valid rows. */
        if (st == IC_OK && o.min_valid_permille >= 0 &&
            (int64_t)r.valid_rows * 1000 < (int64_t)(o.min_valid_permille ? o.min_valid_permille : 500) * h) FUZZ_FAIL();
        if (st == IC_OK && o.max_memory && r.peak_memory > o.max_memory) FUZZ_FAIL();
    }
    guarded_free(&g);

    /* A crop the fuzzer places inside the output (even origin for YUV). */
    if (w > 1 && h > 1) {
        ic_jpeg_decode_options c = o;
        c.crop_x = fuzz_range(&in, 0, w - 1);
        c.crop_y = fuzz_range(&in, 0, h - 1);
        if (o.format == IC_FORMAT_I420 || o.format == IC_FORMAT_NV12) { c.crop_x &= ~1; c.crop_y &= ~1; }
        c.crop_width = fuzz_range(&in, 1, w - c.crop_x);
        c.crop_height = fuzz_range(&in, 1, h - c.crop_y);
        if (guarded_alloc(&g, o.format, IC_ALPHA_OPAQUE, c.crop_width, c.crop_height, pad, NULL, 0)) {
            fuzz_expect(ic_jpeg_decode(jpeg, n, &c, &g.im, &r), 1);
            guarded_check(&g);
        }
        guarded_free(&g);
        /* A destination of the wrong size is an argument error, never a write. */
        if (guarded_alloc(&g, o.format, IC_ALPHA_OPAQUE, c.crop_width, c.crop_height + 1, pad, NULL, 0)) {
            st = ic_jpeg_decode(jpeg, n, &c, &g.im, &r);
            if (st == IC_OK) FUZZ_FAIL();
            guarded_check(&g);
        }
        guarded_free(&g);
    }

    band_check bc = {0, w, o.format, 0, (int)fuzz_u32(&in, 1) ? 0 : fuzz_range(&in, 1, h), 0};
    st = ic_jpeg_decode_stream(jpeg, n, &o, consume_band, &bc, &r);
    fuzz_expect(st, 1);
    if (st == IC_OK && bc.next_row != h) FUZZ_FAIL(); /* every row delivered exactly once */
    compare_parallel(jpeg, n, &o, w, h, 2 + (int32_t)fuzz_u32(&in, 2));
    return 0;
}
