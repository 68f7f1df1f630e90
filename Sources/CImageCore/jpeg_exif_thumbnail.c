/* The EXIF thumbnail as a source of small thumbnails: is the embedded JPEG a smaller copy of
 * the main image, and which part of it is the picture?
 *
 * Cameras write a ~160x120 JPEG into IFD1. It has the main image's shape, or (some cameras, for
 * 16:9 or 3:2 photos) the main image's shape letterboxed into 4:3 with black bars. A thumbnail
 * of another shape without bars is a crop and is refused. Its data is checked by one strict
 * decode of its luma in bands (no image-sized buffer), which also measures the bars. */
#include "jpeg_internal.h"

#include <string.h>

enum { BAR_MAX = 48, BAR_MEAN = 16, MAX_THUMBNAIL_PIXELS = 16000000, BAND_ROWS = 16 };

/* Two bars: row ranges (letterbox) or column ranges (pillarbox), [lo[i], hi[i]). */
typedef struct bars {
    int rows;
    int32_t lo[2], hi[2];
    uint64_t sum[2], count[2];
    int max[2];
} bars;

static void add(bars *b, int i, const uint8_t *p, int32_t n) {
    for (int32_t x = 0; x < n; x++) {
        b->sum[i] += p[x];
        if (p[x] > b->max[i]) b->max[i] = p[x];
    }
    b->count[i] += (uint64_t)n;
}

static int on_band(void *context, const ic_image *band, int32_t first_row) {
    bars *b = (bars *)context;
    for (int32_t y = 0; y < band->height; y++) {
        const int32_t r = first_row + y;
        const uint8_t *row = band->planes[0].data + (size_t)y * band->planes[0].stride;
        for (int i = 0; i < 2; i++) {
            if (b->rows) {
                if (r >= b->lo[i] && r < b->hi[i]) add(b, i, row, band->width);
            } else {
                add(b, i, row + b->lo[i], b->hi[i] - b->lo[i]);
            }
        }
    }
    return 0;
}

ic_status ic_jpeg_find_exif_thumbnail(const uint8_t *data, size_t size, ic_jpeg_exif_thumbnail *out) {
    if (!out) return IC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    if (st != IC_OK) return st;
    const int32_t w = info.width, h = info.height, tw = info.thumbnail_width, th = info.thumbnail_height;
    if (info.thumbnail_length == 0 || tw < 1 || th < 1) return IC_ERR_UNSUPPORTED;
    if ((int64_t)tw * th > MAX_THUMBNAIL_PIXELS) return IC_ERR_UNSUPPORTED;
    const uint8_t *thumb = data + info.thumbnail_offset;
    const size_t thumb_size = info.thumbnail_length;
    /* libjpeg must read its header as our walk did. */
    ic_jpeg_info t;
    if (ic_jpeg_probe(thumb, thumb_size, &t) != IC_OK || t.width != tw || t.height != th) return IC_ERR_UNSUPPORTED;
    out->offset = info.thumbnail_offset;
    out->length = info.thumbnail_length;
    out->width = tw;
    out->height = th;
    out->content_width = tw;
    out->content_height = th;

    /* The main image's shape fitted into the thumbnail, centred; bars on the other two sides. */
    bars b;
    memset(&b, 0, sizeof b);
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.format = IC_FORMAT_GRAY8;
    o.band_rows = BAND_ROWS;
    o.flags = IC_JPEG_STRICT | IC_JPEG_LIBJPEG_ONLY; /* every scan read; any warning refuses it */
    o.min_valid_permille = 1000;
    if (info.thumbnail_same_shape) {
        b.rows = 1; /* no bars: empty ranges; the decode only checks the data */
        if (ic_jpeg_decode_stream(thumb, thumb_size, &o, on_band, &b, NULL) != IC_OK) goto refused;
        return IC_OK;
    }
    int32_t extent, inner, start;
    if ((int64_t)tw * h > (int64_t)th * w) { /* wider than the picture: bars left and right */
        extent = tw;
        inner = (int32_t)(((int64_t)th * w * 2 + h) / (2 * (int64_t)h));
        b.rows = 0;
    } else { /* taller: bars above and below */
        extent = th;
        inner = (int32_t)(((int64_t)tw * h * 2 + w) / (2 * (int64_t)w));
        b.rows = 1;
    }
    start = (extent - inner) / 2;
    if (inner < 1 || start < 1 || extent - start - inner < 1) goto refused;
    b.lo[0] = 0;
    b.hi[0] = start;
    b.lo[1] = start + inner;
    b.hi[1] = extent;
    /* The line next to the picture shares DCT blocks with it: leave it out of wider bars. */
    if (b.hi[0] - b.lo[0] >= 3) b.hi[0]--;
    if (b.hi[1] - b.lo[1] >= 3) b.lo[1]++;

    if (ic_jpeg_decode_stream(thumb, thumb_size, &o, on_band, &b, NULL) != IC_OK) goto refused;
    for (int i = 0; i < 2; i++)
        if (b.count[i] == 0 || b.max[i] > BAR_MAX || b.sum[i] > (uint64_t)BAR_MEAN * b.count[i]) goto refused;
    out->letterboxed = 1;
    if (b.rows) {
        out->content_y = start;
        out->content_height = inner;
    } else {
        out->content_x = start;
        out->content_width = inner;
    }
    return IC_OK;
refused:
    memset(out, 0, sizeof *out);
    return IC_ERR_UNSUPPORTED;
}
