/* C99 host of the installed library: copies a padded RGBA image with ic_plane_copy and
 * ic_image_copy and checks every byte, padding included; makes a thumbnail (checked against
 * decode + resize + orient) and a scan (encoded through a write callback) of a JPEG it
 * encodes itself, and a streamed thumbnail of a PNG it encodes itself (checked the same way).
 * Exit 0 on success. */
#include <imagecore.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 333, H = 77, PAD = 19, SENT = 0xA5 };

/* Rows equal to src, padding still the sentinel. */
static int check(const uint8_t *src, const uint8_t *dst, size_t row_bytes, size_t stride) {
    size_t y, x;
    for (y = 0; y < H; y++)
        for (x = 0; x < stride; x++) {
            uint8_t want = x < row_bytes ? src[y * stride + x] : (uint8_t)SENT;
            if (dst[y * stride + x] != want) {
                fprintf(stderr, "mismatch at row %zu byte %zu\n", y, x);
                return 0;
            }
        }
    return 1;
}


/* ---- the systems: a thumbnail and a scan from the installed header ---------------- */

/* 64-byte aligned view into a malloc'd block (C99: no aligned_alloc). */
static uint8_t *aligned64(void *block) { return (uint8_t *)(((uintptr_t)block + 63) & ~(uintptr_t)63); }

typedef struct sink { uint8_t *bytes; size_t size, capacity; } sink;
static ic_status collect(void *context, const uint8_t *data, size_t size) {
    sink *s = (sink *)context;
    if (s->size + size > s->capacity) return IC_ERR_BUFFER_TOO_SMALL;
    memcpy(s->bytes + s->size, data, size);
    s->size += size;
    return IC_OK;
}

/* A 640 x 480 RGB gradient with a darker 'page', encoded with EXIF orientation 6. */
static uint8_t *make_jpeg(size_t *size) {
    enum { JW = 640, JH = 480 };
    uint8_t *rgb = (uint8_t *)malloc((size_t)JW * JH * 3), *jpeg = NULL;
    ic_image img;
    ic_jpeg_encode_options eo;
    int32_t x, y;
    if (!rgb) return NULL;
    for (y = 0; y < JH; y++)
        for (x = 0; x < JW; x++) {
            uint8_t *p = rgb + ((size_t)y * JW + (size_t)x) * 3;
            int page = x > 150 && x < 500 && y > 80 && y < 420;
            p[0] = (uint8_t)(page ? 230 : x * 255 / JW);
            p[1] = (uint8_t)(page ? 225 - (y % 40 < 3 ? 150 : 0) : y * 255 / JH);
            p[2] = (uint8_t)(page ? 215 : 90);
        }
    memset(&img, 0, sizeof img);
    img.format = IC_FORMAT_RGB8;
    img.width = JW;
    img.height = JH;
    img.planes[0].data = rgb;
    img.planes[0].stride = (size_t)JW * 3;
    ic_jpeg_encode_options_init(&eo);
    eo.quality = 90;
    eo.orientation = 6;
    if (ic_jpeg_encode_alloc(&img, &eo, &jpeg, size) != IC_OK) jpeg = NULL;
    free(rgb);
    return jpeg;
}

static int systems(void) {
    size_t size = 0;
    uint8_t *jpeg = make_jpeg(&size);
    int ok = jpeg != NULL;
    ic_thumbnail_options to;
    ic_thumbnail_plan tp;
    ic_image thumb, ref, decoded, resized;
    void *block = NULL, *tb = NULL, *rb = NULL, *db = NULL, *sb = NULL;
    ic_jpeg_decode_options d;
    ic_scan_options so;
    ic_scan_plan sp;
    sink out;
    size_t encoded = 0;
    int32_t w = 0, h = 0;
    if (!ok) return 0;

    /* Thumbnail: 128 x 128 box; orientation 6 turns the 640 x 480 file to 480 x 640. */
    memset(&to, 0, sizeof to);
    to.max_width = 128;
    to.max_height = 128;
    to.format = IC_FORMAT_RGBA8;
    ok &= ic_thumbnail_plan_jpeg(jpeg, size, &to, &tp) == IC_OK;
    ok &= tp.width == 96 && tp.height == 128 && tp.orientation == 6 && tp.scale_num >= 1 && tp.scale_num <= 8;
    block = malloc(tp.scratch_size + 64);
    tb = malloc((size_t)tp.width * tp.height * 4);
    memset(&thumb, 0, sizeof thumb);
    thumb.format = IC_FORMAT_RGBA8;
    thumb.alpha = IC_ALPHA_OPAQUE;
    thumb.width = tp.width;
    thumb.height = tp.height;
    thumb.planes[0].data = (uint8_t *)tb;
    thumb.planes[0].stride = (size_t)tp.width * 4;
    ok &= block && tb && ic_thumbnail_jpeg(jpeg, size, &tp, aligned64(block), tp.scratch_size, &thumb, NULL) == IC_OK;
    ok &= ic_thumbnail_jpeg(jpeg, size, &tp, aligned64(block), tp.scratch_size - 1, &thumb, NULL) ==
          IC_ERR_BUFFER_TOO_SMALL;

    /* The same from the pieces: decode at the plan's scale, resize, orient. */
    ic_jpeg_decode_options_init(&d);
    d.format = IC_FORMAT_RGBA8;
    d.scale_num = tp.scale_num;
    ok &= ic_jpeg_decode_size(jpeg, size, &d, &w, &h, NULL) == IC_OK && w == tp.decoded_width && h == tp.decoded_height;
    db = malloc((size_t)w * h * 4);
    rb = malloc((size_t)tp.resized_width * tp.resized_height * 4);
    sb = malloc((size_t)tp.width * tp.height * 4);
    if (!db || !rb || !sb) return 0;
    decoded = thumb;
    decoded.width = w;
    decoded.height = h;
    decoded.planes[0].data = (uint8_t *)db;
    decoded.planes[0].stride = (size_t)w * 4;
    resized = thumb;
    resized.width = tp.resized_width;
    resized.height = tp.resized_height;
    resized.planes[0].data = (uint8_t *)rb;
    resized.planes[0].stride = (size_t)tp.resized_width * 4;
    ref = thumb;
    ref.planes[0].data = (uint8_t *)sb;
    ok &= ic_jpeg_decode(jpeg, size, &d, &decoded, NULL) == IC_OK;
    ok &= ic_resize(&decoded, &resized, IC_RESIZE_LANCZOS3) == IC_OK;
    ok &= ic_image_orient(&resized, &ref, IC_ORIENTATION_RIGHT) == IC_OK;
    ok &= memcmp(tb, sb, (size_t)tp.width * tp.height * 4) == 0;
    printf("host_c: thumbnail %dx%d at %d/8 from %dx%d: %s\n", (int)tp.width, (int)tp.height, (int)tp.scale_num,
           (int)tp.source_width, (int)tp.source_height, ok ? "equals decode + resize + orient" : "FAILED");
    free(block);
    free(tb);
    free(db);
    free(rb);
    free(sb);

    /* Scan: the page's corners in file pixels, 200 x 300 gray, encoded through a sink. */
    memset(&so, 0, sizeof so);
    so.corners.corners[0].x = 150; so.corners.corners[0].y = 80;
    so.corners.corners[1].x = 500; so.corners.corners[1].y = 80;
    so.corners.corners[2].x = 500; so.corners.corners[2].y = 420;
    so.corners.corners[3].x = 150; so.corners.corners[3].y = 420;
    so.size.kind = IC_SIZE_PIXELS;
    so.size.width = 300;
    so.size.height = 200;
    so.mode = IC_ENHANCE_GRAY;
    ok &= ic_scan_plan_jpeg(jpeg, size, &so, &sp) == IC_OK;
    ok &= sp.page_width == 300 && sp.page_height == 200 && sp.width == 200 && sp.height == 300 &&
          sp.format == IC_FORMAT_GRAY8 && sp.orientation == 6;
    block = malloc(sp.scratch_size + 64);
    tb = malloc((size_t)sp.width * sp.height);
    out.capacity = 1 << 20;
    out.size = 0;
    out.bytes = (uint8_t *)malloc(out.capacity);
    if (!block || !tb || !out.bytes) return 0;
    memset(&thumb, 0, sizeof thumb);
    thumb.format = IC_FORMAT_GRAY8;
    thumb.width = sp.width;
    thumb.height = sp.height;
    thumb.planes[0].data = (uint8_t *)tb;
    thumb.planes[0].stride = (size_t)sp.width;
    ok &= ic_scan_jpeg(jpeg, size, &sp, aligned64(block), sp.scratch_size, &thumb, collect, &out, &encoded) == IC_OK;
    ok &= encoded == out.size && encoded > 0;
    ic_jpeg_decode_options_init(&d);
    d.format = IC_FORMAT_GRAY8;
    ok &= ic_jpeg_decode_size(out.bytes, out.size, &d, &w, &h, NULL) == IC_OK && w == 200 && h == 300;
    printf("host_c: scan %dx%d from crop %dx%d at %d/8, %zu bytes: %s\n", (int)sp.width, (int)sp.height,
           (int)sp.crop.width, (int)sp.crop.height, (int)sp.scale_num, encoded, ok ? "ok" : "FAILED");
    /* The same corners as a page cut by the photo's edge (ic_page_detection.cut_edges), sized
     * to A4 at 150 dpi: its own aspect (350 x 340) as large as fits, not the whole sheet. */
    ic_scan_plan fit;
    so.size.kind = IC_SIZE_PAPER_FIT;
    so.size.paper = IC_PAPER_A4;
    so.size.dpi = 150;
    ok &= ic_scan_plan_jpeg(jpeg, size, &so, &fit) == IC_OK && fit.page_width == 1276 && fit.page_height == 1240;
    printf("host_c: a cut page fitted in A4 at 150 dpi: %dx%d: %s\n", (int)fit.page_width, (int)fit.page_height,
           ok ? "ok" : "FAILED");
    free(block);
    free(tb);
    free(out.bytes);
    ic_jpeg_free(jpeg);
    return ok;
}

/* PNG thumbnail: a 500 x 300 RGB gradient PNG tagged orientation 8 into a 100 x 100 box
 * (turned: 60 x 100), against ic_png_decode + ic_resize (Lanczos-3) + ic_image_orient. */
static int png_thumbnail(void) {
    enum { PW = 500, PH = 300 };
    uint8_t *rgb = (uint8_t *)malloc((size_t)PW * PH * 3), *png = NULL;
    size_t size = 0;
    ic_image img, thumb, decoded, resized, ref;
    ic_png_encode_options eo;
    ic_thumbnail_options to;
    ic_thumbnail_plan tp;
    void *block = NULL, *tb = NULL, *db = NULL, *rb = NULL, *sb = NULL;
    int32_t x, y;
    int ok = rgb != NULL;
    if (!ok) return 0;
    for (y = 0; y < PH; y++)
        for (x = 0; x < PW; x++) {
            uint8_t *p = rgb + ((size_t)y * PW + (size_t)x) * 3;
            p[0] = (uint8_t)(x * 255 / PW);
            p[1] = (uint8_t)(y * 255 / PH);
            p[2] = (uint8_t)((x / 25 + y / 25) % 2 ? 200 : 40);
        }
    memset(&img, 0, sizeof img);
    img.format = IC_FORMAT_RGB8;
    img.width = PW;
    img.height = PH;
    img.planes[0].data = rgb;
    img.planes[0].stride = (size_t)PW * 3;
    ic_png_encode_options_init(&eo);
    eo.orientation = 8;
    ok &= ic_png_encode_alloc(&img, &eo, &png, &size) == IC_OK;
    free(rgb);
    if (!ok) return 0;
    memset(&to, 0, sizeof to);
    to.max_width = 100;
    to.max_height = 100;
    to.format = IC_FORMAT_RGB8;
    ok &= ic_thumbnail_plan_png(png, size, &to, &tp) == IC_OK;
    ok &= tp.source == IC_THUMBNAIL_SOURCE_PNG && tp.width == 60 && tp.height == 100 && tp.orientation == 8 &&
          tp.whole_bytes == 0;
    block = malloc(tp.scratch_size + 64);
    tb = malloc((size_t)tp.width * tp.height * 3);
    db = malloc((size_t)PW * PH * 3);
    rb = malloc((size_t)tp.resized_width * tp.resized_height * 3);
    sb = malloc((size_t)tp.width * tp.height * 3);
    if (!block || !tb || !db || !rb || !sb) return 0;
    memset(&thumb, 0, sizeof thumb);
    thumb.format = IC_FORMAT_RGB8;
    thumb.width = tp.width;
    thumb.height = tp.height;
    thumb.planes[0].data = (uint8_t *)tb;
    thumb.planes[0].stride = (size_t)tp.width * 3;
    ok &= ic_thumbnail_png(png, size, &tp, aligned64(block), tp.scratch_size, &thumb, NULL) == IC_OK;
    ok &= ic_thumbnail_png(png, size, &tp, aligned64(block), tp.scratch_size - 1, &thumb, NULL) == IC_ERR_BUFFER_TOO_SMALL;
    decoded = thumb;
    decoded.width = PW;
    decoded.height = PH;
    decoded.planes[0].data = (uint8_t *)db;
    decoded.planes[0].stride = (size_t)PW * 3;
    resized = thumb;
    resized.width = tp.resized_width;
    resized.height = tp.resized_height;
    resized.planes[0].data = (uint8_t *)rb;
    resized.planes[0].stride = (size_t)tp.resized_width * 3;
    ref = thumb;
    ref.planes[0].data = (uint8_t *)sb;
    ok &= ic_png_decode(png, size, NULL, &decoded, NULL) == IC_OK;
    ok &= ic_resize(&decoded, &resized, IC_RESIZE_LANCZOS3) == IC_OK;
    ok &= ic_image_orient(&resized, &ref, IC_ORIENTATION_LEFT) == IC_OK;
    ok &= memcmp(tb, sb, (size_t)tp.width * tp.height * 3) == 0;
    printf("host_c: PNG thumbnail %dx%d from %dx%d, scratch %zu bytes: %s\n", (int)tp.width, (int)tp.height,
           (int)tp.source_width, (int)tp.source_height, tp.scratch_size, ok ? "equals decode + resize + orient" : "FAILED");
    free(block);
    free(tb);
    free(db);
    free(rb);
    free(sb);
    ic_png_free(png);
    return ok;
}

int main(void) {
    size_t row_bytes = 0, stride, size, i;
    int32_t rows = 0;
    uint8_t *src, *dst;
    ic_image s, d;
    int ok = 1;

    if (ic_plane_geometry(IC_FORMAT_RGBA8, W, H, 0, &row_bytes, &rows) != IC_OK ||
        row_bytes != 4 * W || rows != H)
        return 1;
    stride = row_bytes + PAD;
    size = stride * H;
    src = (uint8_t *)malloc(size);
    dst = (uint8_t *)malloc(size);
    if (!src || !dst) return 1;
    for (i = 0; i < size; i++) src[i] = (uint8_t)(i * 31u + 7u);

    memset(dst, SENT, size);
    ok &= ic_plane_copy(src, stride, dst, stride, row_bytes, H) == IC_OK;
    ok &= check(src, dst, row_bytes, stride);

    memset(&s, 0, sizeof s);
    s.format = IC_FORMAT_RGBA8;
    s.alpha = IC_ALPHA_STRAIGHT;
    s.width = W;
    s.height = H;
    s.planes[0].data = src;
    s.planes[0].stride = stride;
    d = s;
    d.planes[0].data = dst;
    memset(dst, SENT, size);
    ok &= ic_image_copy(&s, &d) == IC_OK;
    ok &= check(src, dst, row_bytes, stride);

    ok &= systems();
    ok &= png_thumbnail();
    printf("host_c: %s (imagecore %s, backend %s)\n", ok ? "ok" : "FAILED", ic_version_string(),
           ic_parallel_backend());
    free(src);
    free(dst);
    return ok ? 0 : 1;
}
