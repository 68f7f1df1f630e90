/* I420 / NV12 -> RGB8 / RGBA8: scalar row kernels (the reference) and the driver.
 *
 * Each call converts the two luma rows that share one chroma row, so every chroma
 * sample is unpacked and weighted once for four pixels. */
#include "yuv_internal.h"

static inline uint8_t clamp255(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* vpmulhrsw on one lane: (a * k + 2^14) >> 15, arithmetic shift. */
static inline int32_t mulhrs(int32_t a, int32_t k) { return (a * k + (1 << 14)) >> 15; }

static inline __attribute__((always_inline)) void
yuv_to_rgb_row2(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v,
                uint8_t *d0, uint8_t *d1, int32_t width, const ic_yuv2rgb_coeffs *c, int bpp,
                int step) {
    for (int32_t x = 0; x < width; x += 2) {
        const size_t ci = (size_t)(x >> 1) * (size_t)step;
        const int32_t cu = (u[ci] - 128) * 256, cv = (v[ci] - 128) * 256;
        /* The +32 that rounds the final >> 6 rides with the chroma terms, as in AVX2. */
        const int32_t rc = mulhrs(cv, c->krv) + 32;
        const int32_t gc = mulhrs(cu, c->kgu) + mulhrs(cv, c->kgv) + 32;
        const int32_t bc = mulhrs(cu, c->kbu) + 32;
        const int32_t n = x + 1 < width ? 2 : 1;
        for (int r = 0; r < 2; r++) {
            const uint8_t *ys = r ? y1 : y0;
            uint8_t *d = r ? d1 : d0;
            if (!ys) break;
            for (int32_t i = 0; i < n; i++) {
                const int32_t ty = mulhrs((ys[x + i] - c->yoff) * 128, c->ky);
                uint8_t *p = d + (size_t)(x + i) * (size_t)bpp;
                p[0] = clamp255((ty + rc) >> 6);
                p[1] = clamp255((ty + gc) >> 6);
                p[2] = clamp255((ty + bc) >> 6);
                if (bpp == 4) p[3] = 255;
            }
        }
    }
}

void ic_i420_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 4, 1);
}
void ic_nv12_to_rgba_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                            const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                            const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 4, 2);
}
void ic_i420_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 3, 1);
}
void ic_nv12_to_rgb_row2_c(const uint8_t *y0, const uint8_t *y1, const uint8_t *u,
                           const uint8_t *v, uint8_t *d0, uint8_t *d1, int32_t width,
                           const ic_yuv2rgb_coeffs *c) {
    yuv_to_rgb_row2(y0, y1, u, v, d0, d1, width, c, 3, 2);
}

/* ---- driver ----------------------------------------------------------------- */

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
    const ic__settings set = ic__settings_read();
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
