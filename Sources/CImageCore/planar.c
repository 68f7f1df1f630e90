/* Plane helpers (planar.h) and the public plane and image copy and fill, the
 * memory-bandwidth reference kernels: each validates, then walks rows of the row layer's
 * kernels (row.h) in parallel bands of ~256 KiB. */
#include "planar.h"
#include "row.h"

#include <string.h>

enum { IC_BAND_BYTES = 256 * 1024 };

int64_t ic__band_rows(size_t row_bytes, int64_t target_bytes) {
    if (row_bytes == 0) return 1;
    int64_t r = target_bytes / (int64_t)row_bytes;
    return r < 1 ? 1 : r;
}

int ic__region_extent(size_t stride, size_t row_bytes, int32_t rows, uint64_t *extent) {
    if (rows <= 0 || row_bytes == 0) { *extent = 0; return 1; }
    if (rows > 1 && stride < row_bytes) return 0;
    if (rows > 1 && (uint64_t)stride > (uint64_t)PTRDIFF_MAX / (uint64_t)(rows - 1)) return 0;
    uint64_t e = (uint64_t)stride * (uint64_t)(rows - 1) + row_bytes;
    if (e > (uint64_t)PTRDIFF_MAX) return 0;
    *extent = e;
    return 1;
}

int ic__regions_overlap(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes) {
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + b_bytes && y < x + a_bytes;
}

uint64_t ic__plane_extent(const ic_image *im, int32_t p) {
    return (uint64_t)im->planes[p].stride * (uint64_t)(ic__plane_rows(im->format, im->height, p) - 1) +
           ic__row_bytes(im->format, im->width, p);
}

int ic__images_overlap(const ic_image *a, const ic_image *b) {
    for (int32_t p = 0; p < ic_format_plane_count(a->format); p++)
        for (int32_t q = 0; q < ic_format_plane_count(b->format); q++)
            if (ic__regions_overlap(a->planes[p].data, ic__plane_extent(a, p), b->planes[q].data,
                                    ic__plane_extent(b, q)))
                return 1;
    return 0;
}

ic_status ic__check_pair(const ic_image *src, const ic_image *dst) {
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    if (src->width != dst->width || src->height != dst->height)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "source %dx%d and destination %dx%d differ in size", (int)src->width,
                          (int)src->height, (int)dst->width, (int)dst->height);
    if (ic__images_overlap(src, dst))
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "source and destination share memory");
    return IC_OK;
}

/* ---- copy ---------------------------------------------------------------- */

typedef struct copy_job {
    const uint8_t *src;
    uint8_t *dst;
    size_t src_stride, dst_stride, row_bytes;
} copy_job;

static void copy_rows(void *ctx, int64_t begin, int64_t end) {
    const copy_job *j = (const copy_job *)ctx;
    for (int64_t y = begin; y < end; y++)
        ic_row_copy_c(j->src + (size_t)y * j->src_stride, j->dst + (size_t)y * j->dst_stride,
                      j->row_bytes);
}

ic_status ic_plane_copy(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                        size_t row_bytes, int32_t rows) {
    ic__settings s = ic__settings_read();
    if (rows > 0) ic__settings_limit_work(&s, 2 * (uint64_t)row_bytes * (uint64_t)rows);
    return ic__plane_copy(&s, src, src_stride, dst, dst_stride, row_bytes, rows);
}

ic_status ic__plane_copy(const ic__settings *set, const uint8_t *src, size_t src_stride, uint8_t *dst,
                         size_t dst_stride, size_t row_bytes, int32_t rows) {
    if (rows < 0) return IC_ERR_INVALID_ARGUMENT;
    if (rows == 0 || row_bytes == 0) return IC_OK;
    if (!src || !dst) return IC_ERR_INVALID_ARGUMENT;
    uint64_t se, de;
    if (!ic__region_extent(src_stride, row_bytes, rows, &se) ||
        !ic__region_extent(dst_stride, row_bytes, rows, &de))
        return IC_ERR_INVALID_ARGUMENT;
    uintptr_t s0 = (uintptr_t)src, d0 = (uintptr_t)dst;
    if (s0 + se < s0 || d0 + de < d0) return IC_ERR_INVALID_ARGUMENT;
    if (ic__regions_overlap(src, se, dst, de)) return IC_ERR_INVALID_ARGUMENT;

    copy_job j = {src, dst, src_stride, dst_stride, row_bytes};
    if ((src_stride == row_bytes && dst_stride == row_bytes) || rows == 1) {
        /* Contiguous: one long row, cut into 256 KiB pieces for the team. */
        j.row_bytes = IC_BAND_BYTES;
        j.src_stride = j.dst_stride = IC_BAND_BYTES;
        uint64_t total = se;
        int64_t whole = (int64_t)(total / IC_BAND_BYTES);
        size_t tail = (size_t)(total % IC_BAND_BYTES);
        ic_status st = ic__parallel_for(set, whole, 4, copy_rows, &j);
        if (tail) ic_row_copy_c(src + (size_t)whole * IC_BAND_BYTES,
                                dst + (size_t)whole * IC_BAND_BYTES, tail);
        return st;
    }
    return ic__parallel_for(set, rows, ic__band_rows(row_bytes, IC_BAND_BYTES), copy_rows, &j);
}

/* ---- fill ---------------------------------------------------------------- */

typedef struct fill_job {
    uint8_t *dst;
    size_t stride, row_bytes, size;
    uint8_t pattern[16];
} fill_job;

static void fill_rows(void *ctx, int64_t begin, int64_t end) {
    const fill_job *j = (const fill_job *)ctx;
    uint8_t *first = j->dst + (size_t)begin * j->stride;
    ic_row_fill_c(first, j->row_bytes, j->pattern, j->size);
    for (int64_t y = begin + 1; y < end; y++) /* later rows copy the band's first */
        memcpy(j->dst + (size_t)y * j->stride, first, j->row_bytes);
}

ic_status ic_plane_fill(uint8_t *dst, size_t stride, size_t row_bytes, int32_t rows,
                        const uint8_t *pattern, size_t pattern_size) {
    ic__settings s = ic__settings_read();
    if (rows > 0) ic__settings_limit_work(&s, (uint64_t)row_bytes * (uint64_t)rows);
    return ic__plane_fill(&s, dst, stride, row_bytes, rows, pattern, pattern_size);
}

ic_status ic__plane_fill(const ic__settings *set, uint8_t *dst, size_t stride, size_t row_bytes,
                         int32_t rows, const uint8_t *pattern, size_t pattern_size) {
    if (rows < 0 || !pattern || pattern_size < 1 || pattern_size > 16)
        return IC_ERR_INVALID_ARGUMENT;
    if (row_bytes % pattern_size != 0) return IC_ERR_INVALID_ARGUMENT;
    if (rows == 0 || row_bytes == 0) return IC_OK;
    if (!dst) return IC_ERR_INVALID_ARGUMENT;
    uint64_t e;
    if (!ic__region_extent(stride, row_bytes, rows, &e) || (uintptr_t)dst + e < (uintptr_t)dst)
        return IC_ERR_INVALID_ARGUMENT;
    fill_job j = {dst, stride, row_bytes, pattern_size, {0}};
    memcpy(j.pattern, pattern, pattern_size);
    if (rows == 1 || stride == row_bytes) {
        /* Contiguous: fill as one long row in 256 KiB pieces (a multiple of 16 and of
         * every pattern size up to 16 except 3, 5, ...: so cut at a multiple of size). */
        size_t piece = IC_BAND_BYTES - IC_BAND_BYTES % pattern_size;
        j.row_bytes = j.stride = piece;
        int64_t whole = (int64_t)(e / piece);
        size_t tail = (size_t)(e % piece);
        ic_status st = ic__parallel_for(set, whole, 1, fill_rows, &j);
        if (tail) ic_row_fill_c(dst + (size_t)whole * piece, tail, pattern, pattern_size);
        return st;
    }
    return ic__parallel_for(set, rows, ic__band_rows(row_bytes, IC_BAND_BYTES), fill_rows, &j);
}

/* ---- whole images --------------------------------------------------------- */

ic_status ic_image_copy(const ic_image *src, ic_image *dst) {
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    if (src->format != dst->format || src->width != dst->width || src->height != dst->height)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "copy: %dx%d format %d into %dx%d format %d", (int)src->width,
                          (int)src->height, (int)src->format, (int)dst->width, (int)dst->height, (int)dst->format);
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, 2 * ic__image_bytes(src));
    for (int32_t p = 0; p < ic_format_plane_count(src->format); p++) {
        st = ic__plane_copy(&set, src->planes[p].data, src->planes[p].stride, dst->planes[p].data,
                           dst->planes[p].stride, ic__row_bytes(src->format, src->width, p),
                           ic__plane_rows(src->format, src->height, p));
        if (st != IC_OK) return st;
    }
    return IC_OK;
}

ic_status ic_image_fill(ic_image *image, const uint8_t value[4]) {
    if (!value) return IC_ERR_INVALID_ARGUMENT;
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    const ic_format f = image->format;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(image));
    for (int32_t p = 0; p < ic_format_plane_count(f); p++) {
        uint8_t pattern[4];
        size_t size;
        switch (f) {
        case IC_FORMAT_GRAY8: size = 1; pattern[0] = value[0]; break;
        case IC_FORMAT_RGB8: size = 3; memcpy(pattern, value, 3); break;
        case IC_FORMAT_RGBA8: size = 4; memcpy(pattern, value, 4); break;
        case IC_FORMAT_I420: size = 1; pattern[0] = value[p]; break;
        case IC_FORMAT_NV12:
            if (p == 0) { size = 1; pattern[0] = value[0]; }
            else { size = 2; pattern[0] = value[1]; pattern[1] = value[2]; }
            break;
        default: return IC_ERR_INVALID_ARGUMENT;
        }
        st = ic__plane_fill(&set, image->planes[p].data, image->planes[p].stride,
                           ic__row_bytes(f, image->width, p), ic__plane_rows(f, image->height, p),
                           pattern, size);
        if (st != IC_OK) return st;
    }
    return IC_OK;
}

/* ---- UV planes and tables ------------------------------------------------------ */

typedef struct uv_job {
    const uint8_t *a, *b;   /* split: a = UV; merge: a = U, b = V */
    uint8_t *c, *d;         /* split: c = U, d = V; merge: c = UV */
    size_t as, bs, cs, ds, pairs;
    ic_row_split_uv_fn split;
    ic_row_merge_uv_fn merge;
} uv_job;

static void uv_rows(void *ctx, int64_t begin, int64_t end) {
    const uv_job *j = (const uv_job *)ctx;
    for (int64_t y = begin; y < end; y++) {
        const size_t r = (size_t)y;
        if (j->split) j->split(j->a + r * j->as, j->c + r * j->cs, j->d + r * j->ds, j->pairs);
        else j->merge(j->a + r * j->as, j->b + r * j->bs, j->c + r * j->cs, j->pairs);
    }
}

ic_status ic__plane_split_uv(const ic__settings *set, const uint8_t *uv, size_t uv_stride, uint8_t *u,
                             size_t u_stride, uint8_t *v, size_t v_stride, size_t pairs, int32_t rows) {
    uv_job j = {uv, NULL, u, v, uv_stride, 0, u_stride, v_stride, pairs, ic__row_pick_split_uv(set->cpu), NULL};
    return ic__parallel_for(set, rows, ic__band_rows(2 * pairs, IC_BAND_BYTES), uv_rows, &j);
}

ic_status ic__plane_merge_uv(const ic__settings *set, const uint8_t *u, size_t u_stride, const uint8_t *v,
                             size_t v_stride, uint8_t *uv, size_t uv_stride, size_t pairs, int32_t rows) {
    uv_job j = {u, v, uv, NULL, u_stride, v_stride, uv_stride, 0, pairs, NULL, ic__row_pick_merge_uv(set->cpu)};
    return ic__parallel_for(set, rows, ic__band_rows(2 * pairs, IC_BAND_BYTES), uv_rows, &j);
}

typedef struct lut_job {
    const uint8_t *src;
    uint8_t *dst;
    size_t src_stride, dst_stride, n;
    const uint8_t *lut;
} lut_job;

static void lut_rows(void *ctx, int64_t begin, int64_t end) {
    const lut_job *j = (const lut_job *)ctx;
    for (int64_t y = begin; y < end; y++)
        ic_row_lut_c(j->src + (size_t)y * j->src_stride, j->dst + (size_t)y * j->dst_stride, j->n, j->lut);
}

ic_status ic__plane_lut(const ic__settings *set, const uint8_t *src, size_t src_stride, uint8_t *dst,
                        size_t dst_stride, size_t n, int32_t rows, const uint8_t lut[256]) {
    lut_job j = {src, dst, src_stride, dst_stride, n, lut};
    return ic__parallel_for(set, rows, ic__band_rows(n, IC_BAND_BYTES), lut_rows, &j);
}
