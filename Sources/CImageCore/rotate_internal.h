/* Private to the rotate family: the row and tile kernels behind ic_image_orient.
 *
 * Every orientation is one of two plane operations (rotate.c):
 * - 1...4: each output row is a source row (in order or bottom-up), copied or reversed;
 * - 5...8: a plain transpose, dst(x, y) = src(y, x), where reading the source bottom-up
 *   (6, 7) or writing the output bottom-up (7, 8) is just a negative stride.
 * So the kernels take signed strides and element sizes 1 (GRAY8, Y, I420 chroma),
 * 2 (NV12 UV pairs), 3 (RGB8) or 4 (RGBA8). */
#ifndef IMAGECORE_ROTATE_INTERNAL_H
#define IMAGECORE_ROTATE_INTERNAL_H

#include "internal.h"

#include <stddef.h>

/* dst[i] = src[n - 1 - i] for n elements; src and dst do not overlap. */
typedef void (*ic_reverse_row_fn)(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row1_c(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row2_c(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row3_c(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row4_c(const uint8_t *src, uint8_t *dst, size_t n);

/* Reverses n elements of `size` bytes in place. */
typedef void (*ic_reverse_inplace_fn)(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace1_c(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace2_c(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace3_c(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace4_c(uint8_t *row, size_t n);

/* Two distinct rows a, b of n elements become reverse(b), reverse(a): rotating by 180
 * degrees in place, one pass over both rows. */
typedef void (*ic_reverse_swap_fn)(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap1_c(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap2_c(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap3_c(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap4_c(uint8_t *a, uint8_t *b, size_t n);

/* Transposes a block of w source columns by h source rows: dst row j (j < w) gets
 * src column j, h elements. Tiles walk down the source 16 rows at a time across the
 * whole block width, so a block as wide as a cache line reads each line once. */
typedef void (*ic_transpose_fn)(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst,
                                ptrdiff_t dst_stride, int32_t w, int32_t h);
IC_INTERNAL void ic_transpose1_c(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst, ptrdiff_t dst_stride,
                     int32_t w, int32_t h);
IC_INTERNAL void ic_transpose2_c(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst, ptrdiff_t dst_stride,
                     int32_t w, int32_t h);
IC_INTERNAL void ic_transpose3_c(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst, ptrdiff_t dst_stride,
                     int32_t w, int32_t h);
IC_INTERNAL void ic_transpose4_c(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst, ptrdiff_t dst_stride,
                     int32_t w, int32_t h);

#if IC_X86
/* AVX2: 32-byte reversals with vpshufb / vpermd; tile transposes of 16x32 bytes,
 * 8x16 16-bit pairs and 8x8 32-bit pixels with unpack networks. Edges fall back to the
 * scalar kernels above, so results are identical. */
IC_INTERNAL void ic_reverse_row1_avx2(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row2_avx2(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_row4_avx2(const uint8_t *src, uint8_t *dst, size_t n);
IC_INTERNAL void ic_reverse_inplace1_avx2(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace2_avx2(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_inplace4_avx2(uint8_t *row, size_t n);
IC_INTERNAL void ic_reverse_swap1_avx2(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap2_avx2(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_reverse_swap4_avx2(uint8_t *a, uint8_t *b, size_t n);
IC_INTERNAL void ic_transpose1_avx2(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int32_t w, int32_t h);
IC_INTERNAL void ic_transpose2_avx2(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int32_t w, int32_t h);
IC_INTERNAL void ic_transpose4_avx2(const uint8_t *src, ptrdiff_t src_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int32_t w, int32_t h);
#endif

#endif
