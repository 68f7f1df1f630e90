/* Differential libFuzzer harness of the reduced progressive decoder (jpeg_lowfreq*.c): every
 * input is decoded at 1/8 or 1/4 twice, by default (the reduced decoder where it applies) and
 * with IC_JPEG_LIBJPEG_ONLY, and the two must agree: the same status, the same pixels, and,
 * when the default decode went to libjpeg, the same warnings and valid rows. The stream must
 * deliver the same rows once each. Any disagreement aborts (a crash to libFuzzer), as do
 * sanitizer reports.
 *
 * libjpeg-turbo's SIMD reduced IDCTs saturate where its C code wraps, on coefficient values
 * no encoder writes; the reduced decoder follows the C code, so libjpeg runs without SIMD here
 * (JSIMD_FORCENONE, read once at its first use). The last input byte picks scale, format and
 * band height; the JPEG parser sees it as trailing data. Pixel limit 2 MP. */
#include <imagecore.h>

#include <stdlib.h>
#include <string.h>

enum { MAX_PIXELS = 2000000 };

static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8};
static const int channels[] = {4, 3, 1};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("JSIMD_FORCENONE", "1", 1);
    return 0;
}

typedef struct decoded {
    ic_status st;
    ic_jpeg_decode_result r;
    uint8_t *pixels;
} decoded;

static void decode(const uint8_t *data, size_t size, const ic_jpeg_decode_options *o, int32_t w, int32_t h, int ch,
                   decoded *out) {
    out->pixels = (uint8_t *)malloc((size_t)w * (size_t)h * (size_t)ch);
    if (!out->pixels) abort();
    ic_image im;
    memset(&im, 0, sizeof im);
    im.format = o->format;
    im.width = w;
    im.height = h;
    im.planes[0].data = out->pixels;
    im.planes[0].stride = (size_t)w * (size_t)ch;
    out->st = ic_jpeg_decode(data, size, o, &im, &out->r);
}

typedef struct rows {
    const uint8_t *want; /* the full decode's pixels */
    size_t row_bytes;
    int32_t next;
    int bad;
} rows;

static int check_band(void *context, const ic_image *band, int32_t first_row) {
    rows *r = (rows *)context;
    if (first_row != r->next) r->bad = 1;
    for (int32_t y = 0; y < band->height; y++)
        if (memcmp(band->planes[0].data + (size_t)y * band->planes[0].stride, r->want + (size_t)(first_row + y) * r->row_bytes,
                   r->row_bytes) != 0)
            r->bad = 1;
    r->next = first_row + band->height;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t sel = size ? data[size - 1] : 0;
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.max_pixels = MAX_PIXELS;
    o.scale_num = 1 + (sel & 1);
    const int f = (sel >> 1) % 3;
    o.format = formats[f];
    int32_t w = 0, h = 0;
    if (ic_jpeg_decode_size(data, size, &o, &w, &h, NULL) != IC_OK) return 0;

    decoded a, b;
    decode(data, size, &o, w, h, channels[f], &a);
    o.flags = IC_JPEG_LIBJPEG_ONLY;
    decode(data, size, &o, w, h, channels[f], &b);
    if (a.st != b.st) abort();
    if (b.r.decoder != IC_JPEG_DECODER_LIBJPEG) abort();
    const size_t bytes = (size_t)w * (size_t)h * (size_t)channels[f];
    if (a.st == IC_OK && memcmp(a.pixels, b.pixels, bytes) != 0) abort();
    if (a.r.decoder == IC_JPEG_DECODER_LIBJPEG && (a.r.warnings != b.r.warnings || a.r.valid_rows != b.r.valid_rows))
        abort();

    /* The stream: the same status, every row once, in order, equal to the full decode. */
    o.flags = 0;
    o.band_rows = 1 + ((sel >> 3) % 9);
    rows r = {a.pixels, (size_t)w * (size_t)channels[f], 0, 0};
    ic_jpeg_decode_result sr;
    ic_status st = ic_jpeg_decode_stream(data, size, &o, check_band, &r, &sr);
    if (st != a.st || sr.decoder != a.r.decoder) abort();
    if (st == IC_OK && (r.bad || r.next != h)) abort();
    free(a.pixels);
    free(b.pixels);
    return 0;
}
