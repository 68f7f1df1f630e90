/* 3x3 Laplacian (-1 around, 8 in the centre) of a GRAY8 image or a Y plane: the drivers. The
 * scalar reference row kernels are in laplacian_rows.c, the AVX2 ones in laplacian_avx2.c;
 * the drivers pick one set once per call and walk the ROI's rows in parallel bands. Everything is
 * integer arithmetic, so every path gives the same bits. */
#include "laplacian_internal.h"
#include "planar.h"

#include <math.h>
#include <string.h>

const uint8_t ic__laplacian_gamma[256] = {
      0,  21,  28,  34,  39,  43,  46,  50,  53,  56,  59,  61,  64,  66,  68,  70,
     72,  74,  76,  78,  80,  82,  84,  85,  87,  89,  90,  92,  93,  95,  96,  98,
     99, 101, 102, 103, 105, 106, 107, 109, 110, 111, 112, 114, 115, 116, 117, 118,
    119, 120, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135,
    136, 137, 138, 139, 140, 141, 142, 143, 144, 144, 145, 146, 147, 148, 149, 150,
    151, 151, 152, 153, 154, 155, 156, 156, 157, 158, 159, 160, 160, 161, 162, 163,
    164, 164, 165, 166, 167, 167, 168, 169, 170, 170, 171, 172, 173, 173, 174, 175,
    175, 176, 177, 178, 178, 179, 180, 180, 181, 182, 182, 183, 184, 184, 185, 186,
    186, 187, 188, 188, 189, 190, 190, 191, 192, 192, 193, 194, 194, 195, 195, 196,
    197, 197, 198, 199, 199, 200, 200, 201, 202, 202, 203, 203, 204, 205, 205, 206,
    206, 207, 207, 208, 209, 209, 210, 210, 211, 212, 212, 213, 213, 214, 214, 215,
    215, 216, 217, 217, 218, 218, 219, 219, 220, 220, 221, 221, 222, 223, 223, 224,
    224, 225, 225, 226, 226, 227, 227, 228, 228, 229, 229, 230, 230, 231, 231, 232,
    232, 233, 233, 234, 234, 235, 235, 236, 236, 237, 237, 238, 238, 239, 239, 240,
    240, 241, 241, 242, 242, 243, 243, 244, 244, 245, 245, 246, 246, 247, 247, 248,
    248, 249, 249, 249, 250, 250, 251, 251, 252, 252, 253, 253, 254, 254, 255, 255,
};

/* ---- statistics ------------------------------------------------------------ */

/* 64 x 64 -> 128-bit unsigned product as (hi, lo), portable C99. */
static void mul_u64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

ic_status ic_laplacian_stats_finish(ic_laplacian_stats *s) {
    if (!s || s->count < 1) return IC_ERR_INVALID_ARGUMENT;
    const uint64_t n = (uint64_t)s->count;
    const uint64_t abs_sum = s->sum < 0 ? (uint64_t)0 - (uint64_t)s->sum : (uint64_t)s->sum;
    uint64_t ah, al, bh, bl;
    mul_u64(n, s->sum_squares, &ah, &al);  /* n * sum(r^2) */
    mul_u64(abs_sum, abs_sum, &bh, &bl);   /* sum(r)^2 */
    /* By Cauchy-Schwarz a >= b for sums of real data; a corrupted struct could break it. */
    if (ah < bh || (ah == bh && al < bl)) return IC_ERR_INVALID_ARGUMENT;
    uint64_t lo = al - bl, hi = ah - bh - (al < bl ? 1 : 0);
    const double numerator = (double)hi * 18446744073709551616.0 + (double)lo;
    const double dn = (double)n;
    s->mean = (double)s->sum / dn;
    s->variance = numerator / (dn * dn);
    s->std_dev = sqrt(s->variance);
    return IC_OK;
}

/* ---- drivers --------------------------------------------------------------- */

typedef void (*row16_fn)(const uint8_t *, const uint8_t *, const uint8_t *, int32_t, int32_t,
                         int32_t, int16_t *);
typedef void (*row8_fn)(const uint8_t *, const uint8_t *, const uint8_t *, int32_t, int32_t,
                        int32_t, const uint8_t *, uint8_t *);
typedef void (*score_fn)(const uint8_t *, const uint8_t *, const uint8_t *, int32_t, int32_t,
                         int32_t, int64_t *, uint64_t *);

/* Validates the source (GRAY8 or the Y plane of I420/NV12) and the ROI. */
static ic_status check_source(const ic_image *src, const ic_rect *roi, ic_rect *r) {
    ic_status st = ic_image_validate(src);
    if (st != IC_OK) return st;
    if (src->format != IC_FORMAT_GRAY8 && src->format != IC_FORMAT_I420 &&
        src->format != IC_FORMAT_NV12)
        return IC_ERR_UNSUPPORTED;
    if (roi) {
        if (roi->width < 1 || roi->height < 1 || roi->x < 0 || roi->y < 0 ||
            roi->x > src->width - roi->width || roi->y > src->height - roi->height)
            return IC_ERR_INVALID_ARGUMENT;
        *r = *roi;
    } else {
        r->x = 0; r->y = 0; r->width = src->width; r->height = src->height;
    }
    return IC_OK;
}

/* The three source rows of response row y (reflect-101 at the top and bottom). */
typedef struct lap_rows {
    const uint8_t *up, *mid, *down;
} lap_rows;

static inline lap_rows rows_for(const ic_image *src, int32_t y) {
    const uint8_t *base = src->planes[0].data;
    const size_t stride = src->planes[0].stride;
    lap_rows r;
    r.up = base + (size_t)ic__reflect101(y - 1, src->height) * stride;
    r.mid = base + (size_t)y * stride;
    r.down = base + (size_t)ic__reflect101(y + 1, src->height) * stride;
    return r;
}

/* Rows per band: about 64 K pixels, so a band is worth a dispatch. */
static int64_t band_rows_for(int32_t width) {
    int64_t rows = 65536 / (width > 0 ? width : 1);
    return rows < 1 ? 1 : rows;
}

/* -- fused score -- */

enum { LAP_MAX_BANDS = 64 };

typedef struct score_job {
    const ic_image *src;
    ic_rect roi;
    int32_t band_rows;
    score_fn row;
    int64_t sum[LAP_MAX_BANDS];
    uint64_t sum_squares[LAP_MAX_BANDS];
} score_job;

static void score_bands(void *ctx, int64_t begin, int64_t end) {
    score_job *j = (score_job *)ctx;
    for (int64_t b = begin; b < end; b++) {
        int32_t y0 = j->roi.y + (int32_t)b * j->band_rows;
        int32_t y1 = y0 + j->band_rows;
        if (y1 > j->roi.y + j->roi.height) y1 = j->roi.y + j->roi.height;
        int64_t s = 0;
        uint64_t q = 0;
        for (int32_t y = y0; y < y1; y++) {
            lap_rows r = rows_for(j->src, y);
            j->row(r.up, r.mid, r.down, j->src->width, j->roi.x, j->roi.width, &s, &q);
        }
        j->sum[b] = s;
        j->sum_squares[b] = q;
    }
}

ic_status ic_laplacian_score(const ic_image *src, const ic_rect *roi, ic_laplacian_stats *out) {
    if (!out) return IC_ERR_INVALID_ARGUMENT;
    score_job j;
    ic_status st = check_source(src, roi, &j.roi);
    if (st != IC_OK) return st;
    j.src = src;
    j.row = ic_laplacian_score_row_c;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, (uint64_t)j.roi.width * (uint64_t)j.roi.height * 2);
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) j.row = ic_laplacian_score_row_avx2;
#endif
    /* Bands of >= ~64 K pixels, at most LAP_MAX_BANDS of them; each band's integer sums
     * land in its own slot and are added below in band order. */
    int64_t rows = band_rows_for(j.roi.width);
    int64_t bands = (j.roi.height + rows - 1) / rows;
    if (bands > LAP_MAX_BANDS) bands = LAP_MAX_BANDS;
    j.band_rows = (int32_t)((j.roi.height + bands - 1) / bands);
    bands = (j.roi.height + j.band_rows - 1) / j.band_rows;
    st = ic__parallel_for(&set, bands, 1, score_bands, &j);
    if (st != IC_OK) return st;
    ic_laplacian_stats s;
    memset(&s, 0, sizeof s);
    s.count = (int64_t)j.roi.width * j.roi.height;
    for (int64_t b = 0; b < bands; b++) {
        s.sum += j.sum[b];
        s.sum_squares += j.sum_squares[b];
    }
    st = ic_laplacian_stats_finish(&s);
    if (st != IC_OK) return IC_ERR_INTERNAL;
    *out = s;
    return IC_OK;
}

/* -- response images -- */

typedef struct image_job {
    const ic_image *src;
    ic_rect roi;
    uint8_t *dst;
    size_t dst_stride;
    row16_fn row16;
    row8_fn row8;
    const uint8_t *lut;
} image_job;

static void s16_rows(void *ctx, int64_t begin, int64_t end) {
    const image_job *j = (const image_job *)ctx;
    for (int64_t i = begin; i < end; i++) {
        lap_rows r = rows_for(j->src, j->roi.y + (int32_t)i);
        j->row16(r.up, r.mid, r.down, j->src->width, j->roi.x, j->roi.width,
                 (int16_t *)(void *)(j->dst + (size_t)i * j->dst_stride));
    }
}

static void u8_rows(void *ctx, int64_t begin, int64_t end) {
    const image_job *j = (const image_job *)ctx;
    for (int64_t i = begin; i < end; i++) {
        lap_rows r = rows_for(j->src, j->roi.y + (int32_t)i);
        j->row8(r.up, r.mid, r.down, j->src->width, j->roi.x, j->roi.width, j->lut,
                j->dst + (size_t)i * j->dst_stride);
    }
}

ic_status ic_laplacian_s16(const ic_image *src, const ic_rect *roi, const ic_plane_s16 *dst) {
    image_job j;
    ic_status st = check_source(src, roi, &j.roi);
    if (st != IC_OK) return st;
    if (!dst || !dst->data || dst->width != j.roi.width || dst->height != j.roi.height)
        return IC_ERR_INVALID_ARGUMENT;
    const size_t row_bytes = (size_t)dst->width * 2;
    if (dst->stride < row_bytes || (dst->stride & 1) || ((uintptr_t)dst->data & 1))
        return IC_ERR_INVALID_ARGUMENT;
    uint64_t dst_extent;
    if (!ic__region_extent(dst->stride, row_bytes, dst->height, &dst_extent)) return IC_ERR_TOO_LARGE;
    if ((uintptr_t)dst->data + dst_extent < (uintptr_t)dst->data) return IC_ERR_INVALID_ARGUMENT;
    if (ic__regions_overlap(dst->data, dst_extent, src->planes[0].data, ic__plane_extent(src, 0)))
        return IC_ERR_INVALID_ARGUMENT;
    j.src = src;
    j.dst = (uint8_t *)(void *)dst->data;
    j.dst_stride = dst->stride;
    j.row16 = ic_laplacian_row_c;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, (uint64_t)j.roi.width * (uint64_t)j.roi.height * 2);
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) j.row16 = ic_laplacian_row_avx2;
#endif
    return ic__parallel_for(&set, j.roi.height, band_rows_for(j.roi.width), s16_rows, &j);
}

ic_status ic_laplacian_u8(const ic_image *src, const ic_rect *roi, ic_image *dst,
                          ic_laplacian_display display) {
    image_job j;
    ic_status st = check_source(src, roi, &j.roi);
    if (st != IC_OK) return st;
    if ((st = ic_image_validate(dst)) != IC_OK) return st;
    if (dst->format != IC_FORMAT_GRAY8 || dst->width != j.roi.width ||
        dst->height != j.roi.height)
        return IC_ERR_INVALID_ARGUMENT;
    if (display != IC_LAPLACIAN_CLAMP && display != IC_LAPLACIAN_CLAMP_GAMMA)
        return IC_ERR_INVALID_ARGUMENT;
    if (ic__regions_overlap(dst->planes[0].data, ic__plane_extent(dst, 0), src->planes[0].data,
                            ic__plane_extent(src, 0)))
        return IC_ERR_INVALID_ARGUMENT;
    j.src = src;
    j.dst = dst->planes[0].data;
    j.dst_stride = dst->planes[0].stride;
    j.lut = display == IC_LAPLACIAN_CLAMP_GAMMA ? ic__laplacian_gamma : NULL;
    j.row8 = ic_laplacian_u8_row_c;
    ic__settings set = ic__settings_read();
    ic__settings_limit_work(&set, (uint64_t)j.roi.width * (uint64_t)j.roi.height * 2);
#if IC_X86
    if (set.cpu & IC_CPU_AVX2) j.row8 = ic_laplacian_u8_row_avx2;
#endif
    return ic__parallel_for(&set, j.roi.height, band_rows_for(j.roi.width), u8_rows, &j);
}
