/* libFuzzer harness over the PNG codec (libspng underneath, uninstrumented): probe, ICC
 * extraction, decode into guarded planes (fuzzer-chosen format, limits, data-sanity rule, row
 * padding), streaming with band checks, and, for what decodes, an encode round trip that must
 * give the same pixels back. Choices from the input's last bytes, the PNG from the rest. */
#include "fuzz_common.h"

static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8};

typedef struct rows_seen { int32_t next, width; } rows_seen;
static int band(void *ctx, const ic_image *b, int32_t first) {
    rows_seen *r = (rows_seen *)ctx;
    if (first != r->next || b->width != r->width || ic_image_validate(b) != IC_OK) FUZZ_FAIL();
    volatile unsigned s = 0;
    for (int32_t y = 0; y < b->height; y++)
        for (size_t x = 0; x < (size_t)b->width * (b->format == IC_FORMAT_RGBA8 ? 4 : b->format == IC_FORMAT_RGB8 ? 3 : 1); x++)
            s += b->planes[0].data[(size_t)y * b->planes[0].stride + x];
    r->next += b->height;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    ic_png_decode_options o;
    memset(&o, 0, sizeof o);
    o.format = formats[fuzz_u32(&in, 2)];
    o.flags = 0;
    o.max_pixels = 1 + fuzz_u32(&in, 1000000);
    o.max_memory = fuzz_u32(&in, 1) ? 0 : fuzz_u32(&in, 8u << 20);
    o.band_rows = (int32_t)fuzz_u32(&in, 33);
    o.min_valid_permille = fuzz_range(&in, -2, 1000); /* negative: no rule; 0: 500 (png.h) */
    const size_t pad = fuzz_u32(&in, 40);
    const uint8_t *png = data;
    const size_t n = in.size;

    ic_png_info info;
    ic_status st = ic_png_probe(png, n, &info);
    fuzz_expect(st, 1);
    if (st != IC_OK) return 0;
    /* The eXIf fields: inside the input, the data of a chunk named eXIf whose length field
     * is exactly theirs. */
    if (info.exif_length || info.exif_offset) {
        const uint64_t off = info.exif_offset, len = info.exif_length;
        if (!info.has_exif || off < 16 || off + len > n || memcmp(png + off - 4, "eXIf", 4) != 0) FUZZ_FAIL();
        if (((uint64_t)png[off - 8] << 24 | (uint64_t)png[off - 7] << 16 | (uint64_t)png[off - 6] << 8 | png[off - 5]) != len)
            FUZZ_FAIL();
    }
    if (info.has_icc && info.icc_size <= (1u << 20)) {
        uint8_t *icc = (uint8_t *)malloc(info.icc_size ? info.icc_size : 1);
        size_t got = 0;
        fuzz_expect(ic_png_icc_profile(png, n, icc, info.icc_size, &got), 1);
        free(icc);
    }
    if ((uint64_t)info.width * (uint64_t)info.height > o.max_pixels) return 0;
    guarded g;
    if (!guarded_alloc(&g, o.format, IC_ALPHA_STRAIGHT, info.width, info.height, pad, NULL, 0)) { guarded_free(&g); return 0; }
    ic_png_decode_result r;
    st = ic_png_decode(png, n, &o, &g.im, &r);
    fuzz_expect(st, 1);
    guarded_check(&g);
    if (st == IC_OK) {
        if (r.valid_rows < 0 || r.valid_rows > info.height) FUZZ_FAIL();
        /* The data-sanity rule held. */
        if (o.min_valid_permille >= 0 &&
            (int64_t)r.valid_rows * 1000 < (int64_t)(o.min_valid_permille ? o.min_valid_permille : 500) * info.height) FUZZ_FAIL();
        if (!info.interlaced) {
            rows_seen rs = {0, info.width};
            st = ic_png_decode_stream(png, n, &o, band, &rs, NULL);
            fuzz_expect(st, 1);
            if (st == IC_OK && rs.next != info.height) FUZZ_FAIL();
        }
        /* Encode what was decoded and decode it again: the same pixels. */
        uint8_t *out = NULL;
        size_t m = 0;
        if (ic_png_encode_alloc(&g.im, NULL, &out, &m) != IC_OK) FUZZ_FAIL();
        guarded back;
        if (guarded_alloc(&back, o.format, IC_ALPHA_STRAIGHT, info.width, info.height, 0, NULL, 0)) {
            ic_png_decode_options d;
            memset(&d, 0, sizeof d);
            d.max_pixels = o.max_pixels;
            if (ic_png_decode(out, m, &d, &back.im, NULL) != IC_OK) FUZZ_FAIL();
            for (int32_t y = 0; y < info.height; y++)
                if (memcmp(back.im.planes[0].data + (size_t)y * back.im.planes[0].stride,
                           g.im.planes[0].data + (size_t)y * g.im.planes[0].stride, g.row_bytes[0])) FUZZ_FAIL();
        }
        guarded_free(&back);
        free(out);
    }
    guarded_free(&g);

    /* The C thumbnail (ic_thumbnail_plan_png / ic_thumbnail_png) into a guarded image: a
     * fuzzer-chosen box, format, bands, linear light (choices from the tail before the PNG's); the plan's scratch exactly, then one byte
     * short (refused). */
    ic_thumbnail_options to;
    memset(&to, 0, sizeof to);
    to.max_width = 1 + (int32_t)fuzz_u32(&in, 300);
    to.max_height = 1 + (int32_t)fuzz_u32(&in, 300);
    to.format = formats[fuzz_u32(&in, 2)];
    to.band_rows = (int32_t)fuzz_u32(&in, 20);
    to.linear_light = (int32_t)fuzz_u32(&in, 1);
    to.decode.max_pixels = o.max_pixels;
    to.decode.min_valid_permille = o.min_valid_permille;
    ic_thumbnail_plan tp;
    st = ic_thumbnail_plan_png(png, n, &to, &tp);
    fuzz_expect(st, 1);
    if (st != IC_OK) return 0;
    if (tp.width < 1 || tp.height < 1 || tp.width > to.max_width || tp.height > to.max_height) FUZZ_FAIL();
    guarded t;
    uint8_t *block = (uint8_t *)malloc(tp.scratch_size + 64);
    if (block && guarded_alloc(&t, tp.format, IC_ALPHA_STRAIGHT, tp.width, tp.height, pad, NULL, 0)) {
        uint8_t *scratch = (uint8_t *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
        st = ic_thumbnail_png(png, n, &tp, scratch, tp.scratch_size, &t.im, NULL);
        fuzz_expect(st, 1);
        guarded_check(&t);
        if (ic_thumbnail_png(png, n, &tp, scratch, tp.scratch_size - 1, &t.im, NULL) != IC_ERR_BUFFER_TOO_SMALL) FUZZ_FAIL();
        guarded_free(&t);
    }
    free(block);
    return 0;
}
