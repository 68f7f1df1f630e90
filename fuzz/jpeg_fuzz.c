/* libFuzzer harness over the JPEG decode entry points: probe (and the EXIF parser), decode
 * size, full / scaled / cropped decode into exact-size heap planes (so ASan catches any write
 * past them), and streaming. The last input byte chooses scale, format, crop and flags, so
 * one corpus covers every path; the JPEG parser sees it as trailing data.
 *
 * Built by fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined against the C core
 * sources directly. The pixel limit is 2 MP so that each input stays fast. */
#include <imagecore.h>

#include <stdlib.h>
#include <string.h>

enum { MAX_PIXELS = 2000000 };

static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12};

/* Planes allocated separately and exactly (no padding, no spare rows). */
typedef struct planes {
    ic_image image;
    uint8_t *mem[IC_MAX_PLANES];
} planes;

static int alloc_planes(planes *p, ic_format f, int32_t w, int32_t h) {
    memset(p, 0, sizeof *p);
    p->image.format = f;
    p->image.width = w;
    p->image.height = h;
    for (int32_t i = 0; i < ic_format_plane_count(f); i++) {
        size_t row = 0;
        int32_t rows = 0;
        if (ic_plane_geometry(f, w, h, i, &row, &rows) != IC_OK) return 0;
        p->mem[i] = (uint8_t *)malloc(row * (size_t)rows);
        if (!p->mem[i]) return 0;
        p->image.planes[i].data = p->mem[i];
        p->image.planes[i].stride = row;
    }
    return 1;
}

static void free_planes(planes *p) {
    for (int i = 0; i < IC_MAX_PLANES; i++) free(p->mem[i]);
}

/* Reads every byte of every band (so a band pointing at unowned memory faults). */
static int consume_band(void *context, const ic_image *band, int32_t first_row) {
    unsigned *sum = (unsigned *)context;
    for (int32_t p = 0; p < ic_format_plane_count(band->format); p++) {
        size_t row = 0;
        int32_t rows = 0;
        ic_plane_geometry(band->format, band->width, band->height, p, &row, &rows);
        for (int32_t y = 0; y < rows; y++)
            for (size_t x = 0; x < row; x++) *sum += band->planes[p].data[(size_t)y * band->planes[p].stride + x];
    }
    *sum += (unsigned)first_row;
    return 0;
}

static void check(ic_status st) {
    /* Argument errors would mean the harness or the size logic is wrong; internal errors are
     * bugs. Either aborts, which libFuzzer reports as a crash. */
    if (st == IC_ERR_INVALID_ARGUMENT || st == IC_ERR_INTERNAL || st == IC_ERR_BUFFER_TOO_SMALL) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ic_jpeg_info info;
    (void)ic_jpeg_probe(data, size, &info);
    (void)ic_exif_orientation(data, size);

    const uint8_t sel = size ? data[size - 1] : 0;
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.max_pixels = MAX_PIXELS;
    o.scale_num = 1 + (sel & 7);
    o.format = formats[(sel >> 3) % 5];
    if (sel & 0x40) o.flags |= IC_JPEG_FAST_UPSAMPLE | IC_JPEG_FAST_DCT;
    if (sel & 0x80) o.flags |= IC_JPEG_STRICT;

    int32_t w = 0, h = 0;
    ic_status st = ic_jpeg_decode_size(data, size, &o, &w, &h, NULL);
    check(st);
    if (st != IC_OK) return 0;

    /* Full (scaled) decode into exact-size planes. */
    planes p;
    if (alloc_planes(&p, o.format, w, h)) {
        ic_jpeg_decode_result r;
        check(ic_jpeg_decode(data, size, &o, &p.image, &r));
    }
    free_planes(&p);

    /* A crop inside the output (even origin, as YUV needs), then the same as a stream. */
    if (w > 2 && h > 2) {
        o.crop_x = (w / 3) & ~1;
        o.crop_y = (h / 4) & ~1;
        o.crop_width = w - o.crop_x - (sel & 1);
        o.crop_height = h - o.crop_y - ((sel >> 1) & 1);
        if (alloc_planes(&p, o.format, o.crop_width, o.crop_height)) check(ic_jpeg_decode(data, size, &o, &p.image, NULL));
        free_planes(&p);
    }
    unsigned sum = 0;
    o.band_rows = 1 + (sel % 7);
    check(ic_jpeg_decode_stream(data, size, &o, consume_band, &sum, NULL));
    return 0;
}
