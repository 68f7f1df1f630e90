/* Image descriptors: plane geometry, layouts in one allocation, validation.
 * All size arithmetic is done in uint64_t and checked against ic_max_image_bytes(),
 * so nothing wraps on 32- or 64-bit hosts. */
#include "internal.h"

#define IC_MAX_IMAGE_BYTES ((uint64_t)1 << 32)

uint64_t ic_max_image_bytes(void) { return IC_MAX_IMAGE_BYTES; }

int32_t ic_format_plane_count(ic_format format) {
    switch (format) {
    case IC_FORMAT_GRAY8:
    case IC_FORMAT_RGB8:
    case IC_FORMAT_RGBA8: return 1;
    case IC_FORMAT_NV12: return 2;
    case IC_FORMAT_I420: return 3;
    default: return 0;
    }
}

size_t ic__row_bytes(ic_format format, int32_t width, int32_t plane) {
    size_t w = (size_t)width, cw = (w + 1) / 2;
    switch (format) {
    case IC_FORMAT_GRAY8: return w;
    case IC_FORMAT_RGB8: return 3 * w;
    case IC_FORMAT_RGBA8: return 4 * w;
    case IC_FORMAT_I420: return plane == 0 ? w : cw;
    case IC_FORMAT_NV12: return plane == 0 ? w : 2 * cw;
    default: return 0;
    }
}

int32_t ic__plane_rows(ic_format format, int32_t height, int32_t plane) {
    if (plane == 0 || format == IC_FORMAT_GRAY8 || format == IC_FORMAT_RGB8 ||
        format == IC_FORMAT_RGBA8)
        return height;
    return (int32_t)(((int64_t)height + 1) / 2);
}

ic_status ic__check_dimensions(int32_t width, int32_t height) {
    if (width < 1 || height < 1)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "size %dx%d: sides must be at least 1", (int)width, (int)height);
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION)
        return ic__refuse(IC_ERR_TOO_LARGE, "size %dx%d: sides are at most %d", (int)width, (int)height,
                          IC_MAX_DIMENSION);
    return IC_OK;
}

static ic_status check_size(ic_format format, int32_t width, int32_t height) {
    if (ic_format_plane_count(format) == 0)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "unknown format %d", (int)format);
    return ic__check_dimensions(width, height);
}

ic_status ic_plane_geometry(ic_format format, int32_t width, int32_t height, int32_t plane,
                            size_t *row_bytes, int32_t *rows) {
    ic_status st = check_size(format, width, height);
    if (st != IC_OK) return st;
    if (plane < 0 || plane >= ic_format_plane_count(format)) return IC_ERR_INVALID_ARGUMENT;
    if (row_bytes) *row_bytes = ic__row_bytes(format, width, plane);
    if (rows) *rows = ic__plane_rows(format, height, plane);
    return IC_OK;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

ic_status ic_layout_compute(ic_format format, int32_t width, int32_t height, size_t alignment,
                            ic_layout *out) {
    if (!out) return IC_ERR_INVALID_ARGUMENT;
    if (alignment == 0) alignment = 64;
    if (alignment > 4096 || (alignment & (alignment - 1)) != 0) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = check_size(format, width, height);
    if (st != IC_OK) return st;

    ic_layout l = {0};
    l.plane_count = ic_format_plane_count(format);
    l.alignment = alignment;
    /* Dimensions are <= 65535, so every product below fits in 64 bits; only the total
     * needs a limit check. */
    uint64_t offset = 0;
    for (int32_t p = 0; p < l.plane_count; p++) {
        uint64_t rb = ic__row_bytes(format, width, p);
        uint64_t stride = round_up(rb, alignment);
        uint64_t rows = (uint64_t)ic__plane_rows(format, height, p);
        uint64_t size = stride * rows;
        offset = round_up(offset, alignment);
        if (offset + size > IC_MAX_IMAGE_BYTES || offset + size > (uint64_t)SIZE_MAX)
            return IC_ERR_TOO_LARGE;
        l.row_bytes[p] = (size_t)rb;
        l.rows[p] = (int32_t)rows;
        l.stride[p] = (size_t)stride;
        l.offset[p] = (size_t)offset;
        l.plane_size[p] = (size_t)size;
        offset += size;
    }
    l.total_size = (size_t)offset;
    *out = l;
    return IC_OK;
}

ic_status ic_image_size(ic_format format, int32_t width, int32_t height, size_t alignment,
                        size_t *total_size) {
    ic_layout l;
    ic_status st = ic_layout_compute(format, width, height, alignment, &l);
    if (st == IC_OK && total_size) *total_size = l.total_size;
    return st;
}

ic_status ic_image_init(ic_image *image, ic_format format, ic_alpha alpha, int32_t width,
                        int32_t height, uint8_t *base, const ic_layout *layout) {
    if (!image || !base || !layout) return IC_ERR_INVALID_ARGUMENT;
    ic_layout check;
    ic_status st = ic_layout_compute(format, width, height, layout->alignment, &check);
    if (st != IC_OK) return st;
    if (check.total_size != layout->total_size || check.plane_count != layout->plane_count)
        return IC_ERR_INVALID_ARGUMENT; /* layout computed for another image */
    ic_image img = {0};
    img.format = format;
    img.alpha = alpha;
    img.width = width;
    img.height = height;
    for (int32_t p = 0; p < layout->plane_count; p++) {
        img.planes[p].data = base + layout->offset[p];
        img.planes[p].stride = layout->stride[p];
    }
    *image = img;
    return IC_OK;
}

uint64_t ic__image_bytes(const ic_image *im) {
    uint64_t n = 0;
    for (int32_t p = 0; p < ic_format_plane_count(im->format); p++)
        n += (uint64_t)ic__row_bytes(im->format, im->width, p) * (uint64_t)ic__plane_rows(im->format, im->height, p);
    return n;
}

ic_status ic_image_validate(const ic_image *image) {
    if (!image) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "no image (NULL descriptor)");
    ic_status st = check_size(image->format, image->width, image->height);
    if (st != IC_OK) return st;
    if (image->alpha != IC_ALPHA_STRAIGHT && image->alpha != IC_ALPHA_PREMULTIPLIED &&
        image->alpha != IC_ALPHA_OPAQUE)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "unknown alpha mode %d", (int)image->alpha);
    int32_t n = ic_format_plane_count(image->format);
    for (int32_t p = 0; p < n; p++) {
        const ic_plane *pl = &image->planes[p];
        size_t rb = ic__row_bytes(image->format, image->width, p);
        uint64_t rows = (uint64_t)ic__plane_rows(image->format, image->height, p);
        if (!pl->data) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "plane %d: no memory (NULL)", (int)p);
        if (pl->stride < rb)
            return ic__refuse(IC_ERR_INVALID_ARGUMENT, "plane %d: stride %zu < row bytes %zu", (int)p, pl->stride, rb);
        /* The extent must be addressable: stride * (rows - 1) + rb without overflow. */
        uint64_t extent = (uint64_t)pl->stride > (uint64_t)PTRDIFF_MAX / rows ? UINT64_MAX
                                                                           : (uint64_t)pl->stride * (rows - 1) + rb;
        uintptr_t start = (uintptr_t)pl->data;
        if (extent > (uint64_t)PTRDIFF_MAX || start + extent < start) /* or wraps the address space */
            return ic__refuse(IC_ERR_TOO_LARGE, "plane %d: stride %zu x %llu rows does not fit the address space",
                              (int)p, pl->stride, (unsigned long long)rows);
    }
    return IC_OK;
}

ic_status ic_image_crop(const ic_image *image, const ic_rect *rect, ic_image *view) {
    if (!rect || !view) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "crop: no rectangle or no view (NULL)");
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    const int64_t x = rect->x, y = rect->y, w = rect->width, h = rect->height;
    if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > image->width || y + h > image->height)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "crop %dx%d at (%d, %d) is not inside the %dx%d image", (int)w, (int)h,
                          (int)x, (int)y, (int)image->width, (int)image->height);
    const ic_format f = image->format;
    const int yuv = f == IC_FORMAT_I420 || f == IC_FORMAT_NV12;
    /* 4:2:0 chroma covers 2x2 blocks: an odd origin would split them. */
    if (yuv && ((x | y) & 1))
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "crop origin (%d, %d) of a 4:2:0 image must be even", (int)x, (int)y);
    ic_image v = *image;
    v.width = (int32_t)w;
    v.height = (int32_t)h;
    for (int32_t p = 0; p < ic_format_plane_count(f); p++) {
        const int chroma = yuv && p > 0;
        const size_t px = (size_t)(chroma ? x / 2 : x), py = (size_t)(chroma ? y / 2 : y);
        /* Bytes before column px: the row bytes of px pixels (px UV pairs for NV12). */
        const size_t col = px ? ic__row_bytes(f, chroma ? (int32_t)(2 * px) : (int32_t)px, p) : 0;
        v.planes[p].data = image->planes[p].data + py * image->planes[p].stride + col;
    }
    *view = v;
    return IC_OK;
}
