/* Plane helpers: what the family drivers do to whole planes and image pairs, built on the
 * row layer (libyuv's planar_functions is the model). Not installed. */
#ifndef IMAGECORE_PLANAR_H
#define IMAGECORE_PLANAR_H

#include "internal.h"

/* ic_plane_copy / ic_plane_fill with the call's settings snapshot. */
IC_INTERNAL ic_status ic__plane_copy(const ic__settings *s, const uint8_t *src, size_t src_stride, uint8_t *dst,
                                     size_t dst_stride, size_t row_bytes, int32_t rows);
IC_INTERNAL ic_status ic__plane_fill(const ic__settings *s, uint8_t *dst, size_t stride, size_t row_bytes,
                                     int32_t rows, const uint8_t *pattern, size_t pattern_size);

/* Rows per parallel band so that one band moves about `target_bytes` bytes (at least 1). */
IC_INTERNAL int64_t ic__band_rows(size_t row_bytes, int64_t target_bytes);

/* The bytes a strided region spans, stride * (rows - 1) + row_bytes (0 for no rows).
 * Returns 0 when the stride is shorter than a row (with more than one row) or the span
 * does not fit in ptrdiff_t. */
IC_INTERNAL int ic__region_extent(size_t stride, size_t row_bytes, int32_t rows, uint64_t *extent);

/* 1 if [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
IC_INTERNAL int ic__regions_overlap(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes);

/* The bytes plane `p` of a validated image spans, from its first pixel to past its last. */
IC_INTERNAL uint64_t ic__plane_extent(const ic_image *image, int32_t p);

/* 1 if any plane of `a` shares a byte with any plane of `b` (both validated). The drivers
 * that read one image and write another refuse such pairs: the result would depend on the
 * order of the writes. */
IC_INTERNAL int ic__images_overlap(const ic_image *a, const ic_image *b);

/* Validates a converter's pair (any formats): both descriptors valid, the same size, no
 * shared bytes; the refusal's reason goes to ic_last_error. */
IC_INTERNAL ic_status ic__check_pair(const ic_image *src, const ic_image *dst);

/* NV12 chroma <-> I420 chroma: `rows` rows of `pairs` UV pairs, in parallel bands, with the
 * kernel the call's settings allow. No validation: the caller checked the planes. */
IC_INTERNAL ic_status ic__plane_split_uv(const ic__settings *s, const uint8_t *uv, size_t uv_stride, uint8_t *u,
                                         size_t u_stride, uint8_t *v, size_t v_stride, size_t pairs, int32_t rows);
IC_INTERNAL ic_status ic__plane_merge_uv(const ic__settings *s, const uint8_t *u, size_t u_stride, const uint8_t *v,
                                         size_t v_stride, uint8_t *uv, size_t uv_stride, size_t pairs, int32_t rows);

/* dst = lut[src] over `rows` rows of n bytes, in parallel bands. */
IC_INTERNAL ic_status ic__plane_lut(const ic__settings *s, const uint8_t *src, size_t src_stride, uint8_t *dst,
                                    size_t dst_stride, size_t n, int32_t rows, const uint8_t lut[256]);

#endif
