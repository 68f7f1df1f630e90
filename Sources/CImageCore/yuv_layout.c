/* NV12 <-> I420 (split / merge the chroma pairs; Y is a plane copy) and luma <-> GRAY8
 * (a copy in full range, a 256-entry table built from the conversion formulas in video
 * range, so the results are exactly those of ic_yuv_to_rgb / ic_rgb_to_yuv). */
#include "yuv_internal.h"

#include <string.h>

#if IC_X86
#include <immintrin.h>
#endif

/* ---- row kernels ------------------------------------------------------------ */

void ic_uv_split_row_c(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        u[i] = uv[2 * i];
        v[i] = uv[2 * i + 1];
    }
}

void ic_uv_merge_row_c(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uv[2 * i] = u[i];
        uv[2 * i + 1] = v[i];
    }
}

void ic_lut_row_c(const uint8_t *src, uint8_t *dst, size_t n, const uint8_t lut[256]) {
    for (size_t i = 0; i < n; i++) dst[i] = lut[src[i]];
}

#if IC_X86
/* 32 pairs per step: mask / shift the 16-bit pairs apart, pack, fix the lane order. */
IC_TARGET_AVX2 void ic_uv_split_row_avx2(const uint8_t *uv, uint8_t *u, uint8_t *v, size_t n) {
    const __m256i lo = _mm256_set1_epi16(0x00ff);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(uv + 2 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(uv + 2 * i + 32));
        __m256i us = _mm256_packus_epi16(_mm256_and_si256(a, lo), _mm256_and_si256(b, lo));
        __m256i vs = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
        _mm256_storeu_si256((__m256i *)(u + i), _mm256_permute4x64_epi64(us, 0xd8));
        _mm256_storeu_si256((__m256i *)(v + i), _mm256_permute4x64_epi64(vs, 0xd8));
    }
    ic_uv_split_row_c(uv + 2 * i, u + i, v + i, n - i);
}

IC_TARGET_AVX2 void ic_uv_merge_row_avx2(const uint8_t *u, const uint8_t *v, uint8_t *uv, size_t n) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(u + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(v + i));
        __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
        _mm256_storeu_si256((__m256i *)(uv + 2 * i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(uv + 2 * i + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    ic_uv_merge_row_c(u + i, v + i, uv + 2 * i, n - i);
}
#endif

/* ---- drivers ---------------------------------------------------------------- */

typedef struct layout_job {
    ic_image src, dst;
    int split; /* NV12 -> I420 */
    void (*split_fn)(const uint8_t *, uint8_t *, uint8_t *, size_t);
    void (*merge_fn)(const uint8_t *, const uint8_t *, uint8_t *, size_t);
} layout_job;

static void layout_rows(void *ctx, int64_t begin, int64_t end) {
    const layout_job *j = (const layout_job *)ctx;
    const ic_image *s = &j->src, *d = &j->dst;
    const size_t n = (size_t)((s->width + 1) / 2);
    for (int64_t y = begin; y < end; y++) {
        if (j->split)
            j->split_fn(s->planes[1].data + (size_t)y * s->planes[1].stride,
                        d->planes[1].data + (size_t)y * d->planes[1].stride,
                        d->planes[2].data + (size_t)y * d->planes[2].stride, n);
        else
            j->merge_fn(s->planes[1].data + (size_t)y * s->planes[1].stride,
                        s->planes[2].data + (size_t)y * s->planes[2].stride,
                        d->planes[1].data + (size_t)y * d->planes[1].stride, n);
    }
}

ic_status ic_yuv_convert_layout(const ic_image *src, ic_image *dst) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    const ic_format sf = src->format, df = dst->format;
    if ((sf != IC_FORMAT_I420 && sf != IC_FORMAT_NV12) ||
        (df != IC_FORMAT_I420 && df != IC_FORMAT_NV12))
        return IC_ERR_UNSUPPORTED;
    if (sf == df) return ic_image_copy(src, dst);
    const ic__settings set = ic__settings_read();
    st = ic__plane_copy(&set, src->planes[0].data, src->planes[0].stride, dst->planes[0].data,
                        dst->planes[0].stride, (size_t)src->width, src->height);
    if (st != IC_OK) return st;
    layout_job j = {*src, *dst, sf == IC_FORMAT_NV12, ic_uv_split_row_c, ic_uv_merge_row_c};
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) {
        j.split_fn = ic_uv_split_row_avx2;
        j.merge_fn = ic_uv_merge_row_avx2;
    }
#endif
    const int32_t rows = (src->height + 1) / 2;
    return ic__parallel_for(&set, rows, ic__band_rows((size_t)src->width + 1, 256 * 1024), layout_rows, &j);
}

/* ---- luma <-> gray ---------------------------------------------------------- */

typedef struct lut_job {
    const uint8_t *src;
    uint8_t *dst;
    size_t src_stride, dst_stride, n;
    uint8_t lut[256];
} lut_job;

static void lut_rows(void *ctx, int64_t begin, int64_t end) {
    const lut_job *j = (const lut_job *)ctx;
    for (int64_t y = begin; y < end; y++)
        ic_lut_row_c(j->src + (size_t)y * j->src_stride, j->dst + (size_t)y * j->dst_stride, j->n,
                     j->lut);
}

/* Copies (identity) or maps plane 0 of src into plane 0 of dst. */
static ic_status map_luma(const ic__settings *set, const ic_image *src, ic_image *dst, const uint8_t *lut) {
    if (!lut)
        return ic__plane_copy(set, src->planes[0].data, src->planes[0].stride, dst->planes[0].data,
                             dst->planes[0].stride, (size_t)src->width, src->height);
    lut_job j = {src->planes[0].data, dst->planes[0].data, src->planes[0].stride,
                 dst->planes[0].stride, (size_t)src->width, {0}};
    memcpy(j.lut, lut, 256);
    return ic__parallel_for(set, src->height, ic__band_rows((size_t)src->width, 256 * 1024), lut_rows, &j);
}

static int valid_range(ic_yuv_range r) { return r == IC_YUV_RANGE_FULL || r == IC_YUV_RANGE_VIDEO; }

ic_status ic_yuv_to_gray(const ic_image *src, ic_image *dst, ic_yuv_range range) {
    ic_status st = ic__check_pair(src, dst);
    if (st != IC_OK) return st;
    if (!valid_range(range)) return IC_ERR_INVALID_ARGUMENT;
    if ((src->format != IC_FORMAT_I420 && src->format != IC_FORMAT_NV12) ||
        dst->format != IC_FORMAT_GRAY8)
        return IC_ERR_UNSUPPORTED;
    const ic__settings set = ic__settings_read();
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
    const ic__settings set = ic__settings_read();
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
