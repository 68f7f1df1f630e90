/* libFuzzer harness over the colour-profile code with hostile profiles: the input is an ICC
 * profile, or a JPEG (starting with SOI) whose APP2 chunks ic_jpeg_icc_profile reassembles.
 * - ic_jpeg_icc_profile: the size query, an exact buffer (must succeed with the same size)
 *   and a buffer one byte short (BUFFER_TOO_SMALL, nothing written past it: ASan);
 * - ic_icc_convert_to_srgb (Little CMS underneath, uninstrumented) on a guarded RGB8 / RGBA8
 *   image with fuzzer-chosen size, padding, alpha, intent and thread count: a typed status;
 *   the padding and (RGBA) the alpha channel untouched; the same result on one thread;
 * - the profile embedded by both encoders (JPEG APP2 chunks, PNG iCCP) comes back byte for
 *   byte from ic_jpeg_icc_profile / ic_png_icc_profile.
 * Choices come from the input's last bytes (fuzz_common.h). */
#include "fuzz_common.h"

static void same_rows(const guarded *a, const guarded *b) {
    for (int32_t y = 0; y < a->rows[0]; y++)
        if (memcmp(a->im.planes[0].data + (size_t)y * a->im.planes[0].stride,
                   b->im.planes[0].data + (size_t)y * b->im.planes[0].stride, a->row_bytes[0])) FUZZ_FAIL();
}

/* The profile embedded by each encoder in a 3 x 2 image comes back unchanged. */
static void embed_round_trip(const uint8_t *icc, size_t n) {
    uint8_t px[3 * 2 * 3] = {0};
    ic_image im = {IC_FORMAT_RGB8, IC_ALPHA_STRAIGHT, 3, 2, {{px, 9}}};
    uint8_t *out = NULL, *back = (uint8_t *)malloc(n);
    size_t m = 0, got = 0;
    ic_jpeg_encode_options jo;
    ic_jpeg_encode_options_init(&jo);
    jo.icc_profile = icc;
    jo.icc_size = n;
    if (ic_jpeg_encode_alloc(&im, &jo, &out, &m) != IC_OK) FUZZ_FAIL();
    if (ic_jpeg_icc_profile(out, m, back, n, &got) != IC_OK || got != n || memcmp(back, icc, n)) FUZZ_FAIL();
    ic_jpeg_free(out);
    ic_png_encode_options po;
    ic_png_encode_options_init(&po);
    po.compression_level = 1;
    po.icc_profile = icc;
    po.icc_size = n;
    if (ic_png_encode_alloc(&im, &po, &out, &m) != IC_OK) FUZZ_FAIL();
    if (ic_png_icc_profile(out, m, back, n, &got) != IC_OK || got != n || memcmp(back, icc, n)) FUZZ_FAIL();
    ic_png_free(out);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    const ic_format f = fuzz_u32(&in, 1) ? IC_FORMAT_RGBA8 : IC_FORMAT_RGB8;
    const ic_alpha alpha = f == IC_FORMAT_RGBA8 ? (ic_alpha)fuzz_u32(&in, 2) : IC_ALPHA_STRAIGHT;
    const int32_t w = fuzz_range(&in, 1, 48), h = fuzz_range(&in, 1, 48);
    const size_t pad = fuzz_u32(&in, 19);
    const ic_icc_intent intent = (ic_icc_intent)fuzz_u32(&in, 4); /* 4: invalid */
    const int embed = fuzz_u32(&in, 7) == 0;
    fuzz_threads(&in);
    const uint8_t *profile = data;
    size_t n = in.size;
    uint8_t *extracted = NULL;

    if (n >= 2 && data[0] == 0xFF && data[1] == 0xD8) { /* a JPEG: its profile */
        size_t need = 0, got = 0;
        ic_status st = ic_jpeg_icc_profile(data, n, NULL, 0, &need);
        if (st != IC_OK && st != IC_ERR_BUFFER_TOO_SMALL && st != IC_ERR_CORRUPT_DATA) FUZZ_FAIL();
        if (st != IC_ERR_BUFFER_TOO_SMALL) return 0; /* no profile, or bad chunks */
        if (need == 0 || need > n) FUZZ_FAIL();
        extracted = (uint8_t *)malloc(need);
        if (ic_jpeg_icc_profile(data, n, extracted, need - 1, &got) != IC_ERR_BUFFER_TOO_SMALL || got != need) FUZZ_FAIL();
        if (ic_jpeg_icc_profile(data, n, extracted, need, &got) != IC_OK || got != need) FUZZ_FAIL();
        profile = extracted;
        n = need;
    }
    if (n == 0) { free(extracted); return 0; }

    guarded a, b;
    memset(&b, 0, sizeof b);
    if (guarded_alloc(&a, f, alpha, w, h, pad, data, size) && guarded_alloc(&b, f, alpha, w, h, 0, data, size)) {
        const ic_status st = ic_icc_convert_to_srgb(profile, n, &a.im, intent);
        if (intent > IC_ICC_ABSOLUTE_COLORIMETRIC) { if (st != IC_ERR_INVALID_ARGUMENT) FUZZ_FAIL(); }
        else if (alpha == IC_ALPHA_PREMULTIPLIED) { if (st != IC_ERR_UNSUPPORTED) FUZZ_FAIL(); }
        else if (st != IC_OK && st != IC_ERR_CORRUPT_DATA && st != IC_ERR_UNSUPPORTED && st != IC_ERR_OUT_OF_MEMORY) FUZZ_FAIL();
        guarded_check(&a);
        if (st == IC_OK && f == IC_FORMAT_RGBA8) /* alpha is copied, never converted */
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++)
                    if (a.im.planes[0].data[(size_t)y * a.im.planes[0].stride + 4 * (size_t)x + 3] !=
                        b.im.planes[0].data[(size_t)y * b.im.planes[0].stride + 4 * (size_t)x + 3]) FUZZ_FAIL();
        if (st == IC_OK) { /* one thread gives the same pixels */
            ic_set_num_threads(1);
            if (ic_icc_convert_to_srgb(profile, n, &b.im, intent) != IC_OK) FUZZ_FAIL();
            same_rows(&a, &b);
        }
    }
    guarded_free(&a);
    guarded_free(&b);
    if (embed && n <= (1u << 16)) embed_round_trip(profile, n);
    free(extracted);
    return 0;
}
