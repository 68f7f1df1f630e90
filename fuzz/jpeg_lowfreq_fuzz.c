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
 * band height; the JPEG parser sees it as trailing data. Pixel limit 2 MP.
 *
 * Streamed mode: the same input decoded again with only its headers (through the first SOS)
 * in memory and the rest through the read callbacks (ic_jpeg_decode_options::read and
 * read_at) in chunks of a fuzzer-chosen size (the second-to-last byte: 1 byte to 64 KiB),
 * once into an image and once as a stream; both must equal the in-memory decode in status,
 * pixels, warnings, valid rows and decoder. And a stream with IC_JPEG_STREAM_RESTART, whose
 * last pass from row 0 must be the decode. */
#include <imagecore.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A disagreement: says which, then aborts (a crash to libFuzzer). */
static void fail(const char *what) {
    fprintf(stderr, "jpeg_lowfreq_fuzz: %s\n", what);
    abort();
}

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
    int restart;         /* IC_JPEG_STREAM_RESTART: row 0 may come again (the last pass counts) */
    int starts;
    int repeated;        /* row 0 came again without IC_JPEG_STREAM_RESTART */
} rows;

static int check_band(void *context, const ic_image *band, int32_t first_row) {
    rows *r = (rows *)context;
    if (first_row == 0) {
        if (r->starts++ > 0 && !r->restart) r->repeated = 1;
        r->next = 0;
        r->bad = 0; /* the rows of an earlier pass do not count */
    }
    if (first_row != r->next) r->bad = 1;
    for (int32_t y = 0; y < band->height; y++)
        if (memcmp(band->planes[0].data + (size_t)y * band->planes[0].stride, r->want + (size_t)(first_row + y) * r->row_bytes,
                   r->row_bytes) != 0)
            r->bad = 1;
    r->next = first_row + band->height;
    return 0;
}

/* ---- streamed input ---- */

typedef struct source {
    const uint8_t *data;
    size_t size, pos, chunk;
} source;

static size_t read_next(void *context, uint8_t *buffer, size_t capacity) {
    source *s = (source *)context;
    size_t n = s->size - s->pos;
    if (n > capacity) n = capacity;
    if (n > s->chunk) n = s->chunk;
    memcpy(buffer, s->data + s->pos, n);
    s->pos += n;
    return n;
}

static size_t read_at(void *context, uint64_t offset, uint8_t *buffer, size_t capacity) {
    source *s = (source *)context;
    if (offset >= s->size) return 0;
    size_t n = s->size - (size_t)offset;
    if (n > capacity) n = capacity;
    if (n > s->chunk) n = s->chunk;
    memcpy(buffer, s->data + offset, n);
    return n;
}

/* Bytes through the first SOS segment, 0 if the segments do not lead to one. */
static size_t header_bytes(const uint8_t *d, size_t size) {
    size_t p = 2;
    while (p + 4 <= size && d[p] == 0xFF) {
        const size_t len = (size_t)d[p + 2] << 8 | d[p + 3];
        const int m = d[p + 1];
        p += 2 + len;
        if (m == 0xDA) return p <= size ? p : 0;
    }
    return 0;
}

static const size_t chunk_sizes[8] = {1, 2, 3, 7, 61, 509, 4096, 65536};

static void check_streamed(const uint8_t *data, size_t size, ic_jpeg_decode_options o, int32_t w, int32_t h, int ch,
                           const decoded *want, uint8_t sel2) {
    const size_t headers = header_bytes(data, size);
    if (headers == 0) return;
    source src = {data, size, headers, chunk_sizes[sel2 & 7] + (sel2 >> 3)};
    o.read = read_next;
    o.read_at = read_at;
    o.read_context = &src;
    decoded c;
    decode(data, headers, &o, w, h, ch, &c);
    if (c.st != want->st) fail("streamed: another status");
    if (c.r.decoder != want->r.decoder) fail("streamed: another decoder");
    if (c.r.warnings != want->r.warnings || c.r.valid_rows != want->r.valid_rows) {
        fprintf(stderr, "warnings %d vs %d, valid rows %d vs %d (chunks of %zu)\n", (int)c.r.warnings,
                (int)want->r.warnings, (int)c.r.valid_rows, (int)want->r.valid_rows, src.chunk);
        fail("streamed: another report");
    }
    const size_t bytes = (size_t)w * (size_t)h * (size_t)ch;
    if (c.st == IC_OK && memcmp(c.pixels, want->pixels, bytes) != 0) fail("streamed: other pixels");
    free(c.pixels);

    src.pos = headers;
    rows r = {want->pixels, (size_t)w * (size_t)ch, 0, 0, 0, 0, 0};
    ic_jpeg_decode_result sr;
    const ic_status st = ic_jpeg_decode_stream(data, headers, &o, check_band, &r, &sr);
    if (st != want->st || sr.decoder != want->r.decoder) fail("streamed stream: another status or decoder");
    if (st == IC_OK && (r.bad || r.next != h)) fail("streamed stream: other rows");
    if (r.repeated) fail("streamed stream: a band delivered twice");
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
    rows r = {a.pixels, (size_t)w * (size_t)channels[f], 0, 0, 0, 0, 0};
    ic_jpeg_decode_result sr;
    ic_status st = ic_jpeg_decode_stream(data, size, &o, check_band, &r, &sr);
    if (st != a.st || sr.decoder != a.r.decoder) abort();
    if (st == IC_OK && (r.bad || r.next != h)) abort();
    if (r.repeated) fail("stream: a band delivered twice");

    /* Bands as decoded (IC_JPEG_STREAM_RESTART): the last pass from row 0 is the decode; a
     * reduced decode that finished never started over. */
    o.flags = IC_JPEG_STREAM_RESTART;
    rows rr = {a.pixels, (size_t)w * (size_t)channels[f], 0, 0, 1, 0, 0};
    st = ic_jpeg_decode_stream(data, size, &o, check_band, &rr, &sr);
    if (st != a.st || sr.decoder != a.r.decoder) fail("restart stream: another status or decoder");
    if (st == IC_OK && (rr.bad || rr.next != h)) fail("restart stream: other rows");
    if (sr.decoder == IC_JPEG_DECODER_LOWFREQ && rr.starts != 1) fail("restart stream: a finished reduced decode started over");
    if (sr.decoder == IC_JPEG_DECODER_LIBJPEG && (sr.warnings != a.r.warnings || sr.valid_rows != a.r.valid_rows))
        fail("restart stream: another report");
    o.flags = 0;

    check_streamed(data, size, o, w, h, channels[f], &a, size > 1 ? data[size - 2] : 0);
    free(a.pixels);
    free(b.pixels);
    return 0;
}
