/* The YUV family's drivers: RGB8 / RGBA8 <-> I420 / NV12 (yuv_rows.c, yuv_avx2.c), NV12 <-> I420
 * (split / merge the chroma pairs; Y is a plane copy) and luma <-> GRAY8 (a copy in full range,
 * a 256-entry table built from the conversion formulas in video range, so the results are
 * exactly those of ic_yuv_to_rgb / ic_rgb_to_yuv). Each driver validates, picks a kernel once
 * and walks chroma rows (pairs of luma rows) in parallel bands. */
#include "planar.h"
#include "yuv_internal.h"

#include <string.h>

/* ---- RGB -> YUV ----------------------------------------------------------------- */

typedef struct rgb2yuv_job {
    ic_image src, dst;
    ic_rgb2yuv_row2_fn fn;
    ic_rgb2yuv_coeffs c;
} rgb2yuv_job;

static void rgb2yuv_rows(void *ctx, int64_t begin, int64_t end) {
    const rgb2yuv_job *j = (const rgb2yuv_job *)ctx;
    const ic_image *s = &j->src, *d = &j->dst;
    const int nv12 = d->format == IC_FORMAT_NV12;
    for (int64_t cy = begin; cy < end; cy++) {
        const size_t r0 = (size_t)(2 * cy);
        const size_t r1 = r0 + 1 < (size_t)s->height ? r0 + 1 : r0; /* odd height: replicate */
        uint8_t *u = d->planes[1].data + (size_t)cy * d->planes[1].stride;
        uint8_t *v = nv12 ? u + 1 : d->planes[2].data + (size_t)cy * d->planes[2].stride;
        j->fn(s->planes[0].data + r0 * s->planes[0].stride,
              s->planes[0].data + r1 * s->planes[0].stride,
              d->planes[0].data + r0 * d->planes[0].stride,
              d->planes[0].data + r1 * d->planes[0].stride, u, v, s->width, &j->c);
    }
}

ic_status ic_rgb_to_yuv(const ic_image *src, ic_image *dst, ic_yuv_matrix matrix,
                        ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    rgb2yuv_job j;
    if (!ic__rgb2yuv_coeffs(matrix, range, &j.c)) return IC_ERR_INVALID_ARGUMENT;
    const int rgba = src->format == IC_FORMAT_RGBA8;
    if (!rgba && src->format != IC_FORMAT_RGB8) return IC_ERR_UNSUPPORTED;
    const int nv12 = dst->format == IC_FORMAT_NV12;
    if (!nv12 && dst->format != IC_FORMAT_I420) return IC_ERR_UNSUPPORTED;
    j.src = *src;
    j.dst = *dst;
    j.fn = rgba ? (nv12 ? ic_rgba_to_nv12_row2_c : ic_rgba_to_i420_row2_c)
                : (nv12 ? ic_rgb_to_nv12_row2_c : ic_rgb_to_i420_row2_c);
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
#if IC_X86
    if (set.cpu & IC_CPU_AVX2)
        j.fn = rgba ? (nv12 ? ic_rgba_to_nv12_row2_avx2 : ic_rgba_to_i420_row2_avx2)
                    : (nv12 ? ic_rgb_to_nv12_row2_avx2 : ic_rgb_to_i420_row2_avx2);
#endif
    const int64_t pairs = ((int64_t)src->height + 1) / 2;
    const size_t pair_bytes = 2 * ic__row_bytes(src->format, src->width, 0);
    return ic__parallel_for(&set, pairs, ic__band_rows(pair_bytes, 128 * 1024), rgb2yuv_rows, &j);
}

/* ---- YUV -> RGB ----------------------------------------------------------------- */

/* RGBA output is 4 bytes per pixel against 1.5 read: once it cannot stay in the last-level
 * cache, ordinary stores also read every destination line (write-allocate), 70 % more
 * memory traffic than the conversion needs. From this size on the AVX2 kernels stream the
 * output instead (4032 x 3024: 2.4 -> 1.7 ms on one core here); below it the output stays
 * in cache for whatever reads it next. Measured here (one core, 32 MiB L3): streaming
 * loses at 4 and 8 MiB (0.12 vs 0.16 ms at 4 MiB), breaks even at 16, wins at 32 MiB
 * (1.15 vs 1.65 ms). A constant, not the cache size: sysconf's L3 figure is the host's in
 * a VM (384 MiB here). */
enum { IC_STREAM_MIN_BYTES = 16 << 20 };

typedef struct yuv2rgb_job {
    ic_image src, dst;
    ic_yuv2rgb_row2_fn fn;
    ic_yuv2rgb_coeffs c;
} yuv2rgb_job;

static void yuv2rgb_rows(void *ctx, int64_t begin, int64_t end) {
    const yuv2rgb_job *j = (const yuv2rgb_job *)ctx;
    const ic_image *s = &j->src, *d = &j->dst;
    const int nv12 = s->format == IC_FORMAT_NV12;
    for (int64_t cy = begin; cy < end; cy++) {
        const size_t r0 = (size_t)(2 * cy);
        const int two = r0 + 1 < (size_t)s->height;
        const uint8_t *u = s->planes[1].data + (size_t)cy * s->planes[1].stride;
        const uint8_t *v = nv12 ? u + 1 : s->planes[2].data + (size_t)cy * s->planes[2].stride;
        const uint8_t *y0 = s->planes[0].data + r0 * s->planes[0].stride;
        uint8_t *d0 = d->planes[0].data + r0 * d->planes[0].stride;
        j->fn(y0, two ? y0 + s->planes[0].stride : NULL, u, v, d0,
              two ? d0 + d->planes[0].stride : NULL, s->width, &j->c);
    }
}

ic_status ic_yuv_to_rgb(const ic_image *src, ic_image *dst, ic_yuv_matrix matrix,
                        ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    yuv2rgb_job j;
    if (!ic__yuv2rgb_coeffs(matrix, range, &j.c)) return IC_ERR_INVALID_ARGUMENT;
    const int nv12 = src->format == IC_FORMAT_NV12;
    if (!nv12 && src->format != IC_FORMAT_I420) return IC_ERR_UNSUPPORTED;
    const int rgba = dst->format == IC_FORMAT_RGBA8;
    if (!rgba && dst->format != IC_FORMAT_RGB8) return IC_ERR_UNSUPPORTED;
    j.src = *src;
    j.dst = *dst;
    j.fn = rgba ? (nv12 ? ic_nv12_to_rgba_row2_c : ic_i420_to_rgba_row2_c)
                : (nv12 ? ic_nv12_to_rgb_row2_c : ic_i420_to_rgb_row2_c);
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) {
        j.fn = rgba ? (nv12 ? ic_nv12_to_rgba_row2_avx2 : ic_i420_to_rgba_row2_avx2)
                    : (nv12 ? ic_nv12_to_rgb_row2_avx2 : ic_i420_to_rgb_row2_avx2);
        if (rgba && (uint64_t)dst->planes[0].stride * (uint64_t)dst->height >= IC_STREAM_MIN_BYTES)
            j.fn = nv12 ? ic_nv12_to_rgba_row2_avx2_nt : ic_i420_to_rgba_row2_avx2_nt;
    }
#endif
    const int64_t pairs = ((int64_t)src->height + 1) / 2;
    const size_t pair_bytes = 2 * ic__row_bytes(dst->format, dst->width, 0);
    return ic__parallel_for(&set, pairs, ic__band_rows(pair_bytes, 128 * 1024), yuv2rgb_rows, &j);
}

/* ---- NV12 <-> I420 ------------------------------------------------------------ */

ic_status ic_yuv_convert_layout(const ic_image *src, ic_image *dst) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    const ic_format sf = src->format, df = dst->format;
    if ((sf != IC_FORMAT_I420 && sf != IC_FORMAT_NV12) ||
        (df != IC_FORMAT_I420 && df != IC_FORMAT_NV12))
        return IC_ERR_UNSUPPORTED;
    if (sf == df) return ic_image_copy(src, dst);
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    st = ic__plane_copy(&set, src->planes[0].data, src->planes[0].stride, dst->planes[0].data,
                        dst->planes[0].stride, (size_t)src->width, src->height);
    if (st != IC_OK) return st;
    const size_t pairs = (size_t)((src->width + 1) / 2);
    const int32_t rows = (src->height + 1) / 2;
    if (sf == IC_FORMAT_NV12)
        return ic__plane_split_uv(&set, src->planes[1].data, src->planes[1].stride, dst->planes[1].data,
                                  dst->planes[1].stride, dst->planes[2].data, dst->planes[2].stride, pairs, rows);
    return ic__plane_merge_uv(&set, src->planes[1].data, src->planes[1].stride, src->planes[2].data,
                              src->planes[2].stride, dst->planes[1].data, dst->planes[1].stride, pairs, rows);
}

/* ---- luma <-> gray ---------------------------------------------------------- */

/* Copies (identity) or maps plane 0 of src into plane 0 of dst. */
static ic_status map_luma(const ic__settings *set, const ic_image *src, ic_image *dst, const uint8_t *lut) {
    if (!lut)
        return ic__plane_copy(set, src->planes[0].data, src->planes[0].stride, dst->planes[0].data,
                              dst->planes[0].stride, (size_t)src->width, src->height);
    return ic__plane_lut(set, src->planes[0].data, src->planes[0].stride, dst->planes[0].data,
                         dst->planes[0].stride, (size_t)src->width, src->height, lut);
}

static int valid_range(ic_yuv_range r) { return r == IC_YUV_RANGE_FULL || r == IC_YUV_RANGE_VIDEO; }

ic_status ic_yuv_to_gray(const ic_image *src, ic_image *dst, ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    if (!valid_range(range)) return IC_ERR_INVALID_ARGUMENT;
    if ((src->format != IC_FORMAT_I420 && src->format != IC_FORMAT_NV12) ||
        dst->format != IC_FORMAT_GRAY8)
        return IC_ERR_UNSUPPORTED;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    if (range == IC_YUV_RANGE_FULL) return map_luma(&set, src, dst, NULL);
    /* R = G = B of the YUV -> RGB formula at neutral chroma (the chroma terms are 0). */
    ic_yuv2rgb_coeffs c;
    ic__yuv2rgb_coeffs(IC_YUV_BT601, range, &c);
    uint8_t lut[256];
    for (int y = 0; y < 256; y++) {
        int32_t ty = ((y - c.yoff) * 128 * c.ky + (1 << 14)) >> 15;
        int32_t g = (ty + 32) >> 6;
        lut[y] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
    }
    return map_luma(&set, src, dst, lut);
}

ic_status ic_gray_to_yuv(const ic_image *src, ic_image *dst, ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    if (!valid_range(range)) return IC_ERR_INVALID_ARGUMENT;
    if (src->format != IC_FORMAT_GRAY8 ||
        (dst->format != IC_FORMAT_I420 && dst->format != IC_FORMAT_NV12))
        return IC_ERR_UNSUPPORTED;
    const int32_t cw = (src->width + 1) / 2, ch = (src->height + 1) / 2;
    const uint8_t neutral[2] = {128, 128};
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, ic__image_bytes(src) + ic__image_bytes(dst));
    for (int p = 1; p < ic_format_plane_count(dst->format); p++) {
        st = ic__plane_fill(&set, dst->planes[p].data, dst->planes[p].stride,
                           (size_t)cw * (dst->format == IC_FORMAT_NV12 ? 2u : 1u), ch, neutral,
                           dst->format == IC_FORMAT_NV12 ? 2 : 1);
        if (st != IC_OK) return st;
    }
    if (range == IC_YUV_RANGE_FULL) return map_luma(&set, src, dst, NULL);
    /* Y of ic_rgb_to_yuv for R = G = B = gray. The quantised weights sum to
     * round(219/255 * 2^15) for every matrix, so the matrix does not matter. */
    ic_rgb2yuv_coeffs c;
    ic__rgb2yuv_coeffs(IC_YUV_BT601, range, &c);
    uint8_t lut[256];
    for (int g = 0; g < 256; g++) {
        int32_t y = ((c.yr + c.yg + c.yb) * g + c.y_bias) >> 15;
        lut[g] = (uint8_t)(y > 255 ? 255 : y);
    }
    return map_luma(&set, src, dst, lut);
}
