/* AVX2 kernels of the rotate family (target attribute + run-time dispatch in rotate.c).
 *
 * Transposes are unpack networks: with n = log2(rows) stages of "pair register k with
 * register k + rows/2, unpack lo/hi", and the rows loaded in bit-reversed order, every
 * register ends up holding one column in row order (for bytes: 4 stages of 8/16/32/64-
 * bit unpacks transpose a 16x16 block inside each 128-bit lane, so one pass over 16
 * registers transposes two 16x16 blocks). 32-bit pixels need a lane swap as the last
 * stage (vperm2i128), which permutes the column order; the table below undoes it.
 * Edges that do not fill a tile go to the scalar kernels, so results are identical. */
#include "rotate_internal.h"

#if IC_X86
#include <immintrin.h>

/* ---- reversal --------------------------------------------------------------- */

static inline IC_TARGET_AVX2 __m256i rev8(__m256i v) {
    const __m256i m = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                       15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, m), 0x4e);
}
static inline IC_TARGET_AVX2 __m256i rev16(__m256i v) {
    const __m256i m = _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
                                       14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, m), 0x4e);
}
static inline IC_TARGET_AVX2 __m256i rev32(__m256i v) {
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}
static inline IC_TARGET_AVX2 __m256i rev_e(__m256i v, size_t e) {
    return e == 1 ? rev8(v) : e == 2 ? rev16(v) : rev32(v);
}

/* Output chunk i (32 bytes) is the reversed source chunk ending 32 * i bytes before the
 * source row's end; the last n % (32 / e) elements are left to the scalar kernel. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
reverse_row(const uint8_t *src, uint8_t *dst, size_t n, size_t e) {
    const size_t bytes = n * e;
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32)
        _mm256_storeu_si256((__m256i *)(dst + i),
                            rev_e(_mm256_loadu_si256((const __m256i *)(src + bytes - i - 32)), e));
    const size_t done = i / e;
    if (e == 1) ic_reverse_row1_c(src, dst + i, n - done);
    if (e == 2) ic_reverse_row2_c(src, dst + i, n - done);
    if (e == 4) ic_reverse_row4_c(src, dst + i, n - done);
}

IC_TARGET_AVX2 void ic_reverse_row1_avx2(const uint8_t *s, uint8_t *d, size_t n) { reverse_row(s, d, n, 1); }
IC_TARGET_AVX2 void ic_reverse_row2_avx2(const uint8_t *s, uint8_t *d, size_t n) { reverse_row(s, d, n, 2); }
IC_TARGET_AVX2 void ic_reverse_row4_avx2(const uint8_t *s, uint8_t *d, size_t n) { reverse_row(s, d, n, 4); }

/* Swaps reversed 32-byte chunks from both ends while they do not meet; the middle
 * (under 64 bytes) is reversed by the scalar kernel. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
reverse_inplace(uint8_t *row, size_t n, size_t e) {
    size_t lo = 0, hi = n * e; /* bytes [lo, hi) are still to be reversed */
    while (hi - lo >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(row + lo));
        __m256i b = _mm256_loadu_si256((const __m256i *)(row + hi - 32));
        _mm256_storeu_si256((__m256i *)(row + lo), rev_e(b, e));
        _mm256_storeu_si256((__m256i *)(row + hi - 32), rev_e(a, e));
        lo += 32;
        hi -= 32;
    }
    if (e == 1) ic_reverse_inplace1_c(row + lo, (hi - lo));
    if (e == 2) ic_reverse_inplace2_c(row + lo, (hi - lo) / 2);
    if (e == 4) ic_reverse_inplace4_c(row + lo, (hi - lo) / 4);
}

IC_TARGET_AVX2 void ic_reverse_inplace1_avx2(uint8_t *r, size_t n) { reverse_inplace(r, n, 1); }
IC_TARGET_AVX2 void ic_reverse_inplace2_avx2(uint8_t *r, size_t n) { reverse_inplace(r, n, 2); }
IC_TARGET_AVX2 void ic_reverse_inplace4_avx2(uint8_t *r, size_t n) { reverse_inplace(r, n, 4); }

/* a[i] <-> b[n-1-i] in 32-byte chunks from a's start and b's end. The chunks done cover
 * a[0, k) and b[n-k, n); the rest, a[k, n) against b[0, n-k), is disjoint from them and
 * goes to the scalar kernel. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
reverse_swap(uint8_t *a, uint8_t *b, size_t n, size_t e) {
    const size_t bytes = n * e;
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + i));
        __m256i y = _mm256_loadu_si256((const __m256i *)(b + bytes - i - 32));
        _mm256_storeu_si256((__m256i *)(a + i), rev_e(y, e));
        _mm256_storeu_si256((__m256i *)(b + bytes - i - 32), rev_e(x, e));
    }
    const size_t k = i / e;
    if (e == 1) ic_reverse_swap1_c(a + i, b, n - k);
    if (e == 2) ic_reverse_swap2_c(a + i, b, n - k);
    if (e == 4) ic_reverse_swap4_c(a + i, b, n - k);
}

IC_TARGET_AVX2 void ic_reverse_swap1_avx2(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 1); }
IC_TARGET_AVX2 void ic_reverse_swap2_avx2(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 2); }
IC_TARGET_AVX2 void ic_reverse_swap4_avx2(uint8_t *a, uint8_t *b, size_t n) { reverse_swap(a, b, n, 4); }

/* ---- transpose tiles -------------------------------------------------------- */

/* One network stage, written out so that gcc -O2 keeps every vector in a register (it
 * neither unrolls nor scalar-replaces the equivalent loop): out[2k], out[2k+1] =
 * lo/hi(in[k], in[k + n/2]). */
#define IC_STAGE8(LO, HI, o, i)                                                                     \
    o[0] = LO(i[0], i[4]); o[1] = HI(i[0], i[4]); o[2] = LO(i[1], i[5]); o[3] = HI(i[1], i[5]);     \
    o[4] = LO(i[2], i[6]); o[5] = HI(i[2], i[6]); o[6] = LO(i[3], i[7]); o[7] = HI(i[3], i[7]);
#define IC_STAGE16(LO, HI, o, i)                                                                    \
    o[0] = LO(i[0], i[8]);   o[1] = HI(i[0], i[8]);   o[2] = LO(i[1], i[9]);   o[3] = HI(i[1], i[9]);   \
    o[4] = LO(i[2], i[10]);  o[5] = HI(i[2], i[10]);  o[6] = LO(i[3], i[11]);  o[7] = HI(i[3], i[11]);  \
    o[8] = LO(i[4], i[12]);  o[9] = HI(i[4], i[12]);  o[10] = LO(i[5], i[13]); o[11] = HI(i[5], i[13]); \
    o[12] = LO(i[6], i[14]); o[13] = HI(i[6], i[14]); o[14] = LO(i[7], i[15]); o[15] = HI(i[7], i[15]);
#define IC_LANES_LO(a, b) _mm256_permute2x128_si256(a, b, 0x20)
#define IC_LANES_HI(a, b) _mm256_permute2x128_si256(a, b, 0x31)
#define IC_LOAD(r) _mm256_loadu_si256((const __m256i *)(s + (r) * ss))

/* 16 source rows x 32 bytes -> 32 output rows x 16 bytes (two 16x16 byte blocks, one
 * per 128-bit lane). Rows are loaded in bit-reversed order (see the file comment). */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
tile_16x32_u8(const uint8_t *s, ptrdiff_t ss, uint8_t *d, ptrdiff_t ds) {
    __m256i x[16], y[16];
    x[0] = IC_LOAD(0);  x[1] = IC_LOAD(8);  x[2] = IC_LOAD(4);   x[3] = IC_LOAD(12);
    x[4] = IC_LOAD(2);  x[5] = IC_LOAD(10); x[6] = IC_LOAD(6);   x[7] = IC_LOAD(14);
    x[8] = IC_LOAD(1);  x[9] = IC_LOAD(9);  x[10] = IC_LOAD(5);  x[11] = IC_LOAD(13);
    x[12] = IC_LOAD(3); x[13] = IC_LOAD(11); x[14] = IC_LOAD(7); x[15] = IC_LOAD(15);
    IC_STAGE16(_mm256_unpacklo_epi8, _mm256_unpackhi_epi8, y, x)
    IC_STAGE16(_mm256_unpacklo_epi16, _mm256_unpackhi_epi16, x, y)
    IC_STAGE16(_mm256_unpacklo_epi32, _mm256_unpackhi_epi32, y, x)
    IC_STAGE16(_mm256_unpacklo_epi64, _mm256_unpackhi_epi64, x, y)
    for (int c = 0; c < 16; c++) { /* constant indices after unrolling; stores only */
        _mm_storeu_si128((__m128i *)(d + c * ds), _mm256_castsi256_si128(x[c]));
        _mm_storeu_si128((__m128i *)(d + (c + 16) * ds), _mm256_extracti128_si256(x[c], 1));
    }
}

/* 8 source rows x 16 pairs (32 bytes) -> 16 output rows x 8 pairs. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
tile_8x16_u16(const uint8_t *s, ptrdiff_t ss, uint8_t *d, ptrdiff_t ds) {
    __m256i x[8], y[8];
    x[0] = IC_LOAD(0); x[1] = IC_LOAD(4); x[2] = IC_LOAD(2); x[3] = IC_LOAD(6);
    x[4] = IC_LOAD(1); x[5] = IC_LOAD(5); x[6] = IC_LOAD(3); x[7] = IC_LOAD(7);
    IC_STAGE8(_mm256_unpacklo_epi16, _mm256_unpackhi_epi16, y, x)
    IC_STAGE8(_mm256_unpacklo_epi32, _mm256_unpackhi_epi32, x, y)
    IC_STAGE8(_mm256_unpacklo_epi64, _mm256_unpackhi_epi64, y, x)
    for (int c = 0; c < 8; c++) {
        _mm_storeu_si128((__m128i *)(d + c * ds), _mm256_castsi256_si128(y[c]));
        _mm_storeu_si128((__m128i *)(d + (c + 8) * ds), _mm256_extracti128_si256(y[c], 1));
    }
}

/* 8 source rows x 8 pixels (32 bytes) -> 8 output rows x 8 pixels. The lane-swap stage
 * leaves column c in register 0,2,4,6,1,3,5,7 for c = 0..7. */
static inline IC_TARGET_AVX2 __attribute__((always_inline)) void
tile_8x8_u32(const uint8_t *s, ptrdiff_t ss, uint8_t *d, ptrdiff_t ds) {
    __m256i x[8], y[8];
    x[0] = IC_LOAD(0); x[1] = IC_LOAD(4); x[2] = IC_LOAD(2); x[3] = IC_LOAD(6);
    x[4] = IC_LOAD(1); x[5] = IC_LOAD(5); x[6] = IC_LOAD(3); x[7] = IC_LOAD(7);
    IC_STAGE8(_mm256_unpacklo_epi32, _mm256_unpackhi_epi32, y, x)
    IC_STAGE8(_mm256_unpacklo_epi64, _mm256_unpackhi_epi64, x, y)
    IC_STAGE8(IC_LANES_LO, IC_LANES_HI, y, x)
    _mm256_storeu_si256((__m256i *)(d + 0 * ds), y[0]);
    _mm256_storeu_si256((__m256i *)(d + 1 * ds), y[2]);
    _mm256_storeu_si256((__m256i *)(d + 2 * ds), y[4]);
    _mm256_storeu_si256((__m256i *)(d + 3 * ds), y[6]);
    _mm256_storeu_si256((__m256i *)(d + 4 * ds), y[1]);
    _mm256_storeu_si256((__m256i *)(d + 5 * ds), y[3]);
    _mm256_storeu_si256((__m256i *)(d + 6 * ds), y[5]);
    _mm256_storeu_si256((__m256i *)(d + 7 * ds), y[7]);
}
#undef IC_LOAD

/* The block walk shared by the three element sizes, the same as the scalar kernel's:
 * column tiles (TW source columns) across the block, and down each one the block's rows
 * (a stripe of at most a few hundred rows, whose lines stay in L1 while the tiles to
 * their right reuse them), so each output row gets one contiguous segment per stripe. */
#define IC_TRANSPOSE_WALK(TILE, TH, TW, E, SCALAR)                                                 \
    int32_t x = 0;                                                                                 \
    for (; x + (TW) <= w; x += (TW)) {                                                             \
        int32_t y = 0;                                                                             \
        for (; y + (TH) <= h; y += (TH))                                                           \
            TILE(src + y * ss + (ptrdiff_t)x * (E), ss, dst + (ptrdiff_t)x * ds + (ptrdiff_t)y * (E), ds); \
        if (y < h)                                                                                 \
            SCALAR(src + y * ss + (ptrdiff_t)x * (E), ss, dst + (ptrdiff_t)x * ds + (ptrdiff_t)y * (E), \
                   ds, (TW), h - y);                                                               \
    }                                                                                              \
    if (x < w) SCALAR(src + (ptrdiff_t)x * (E), ss, dst + (ptrdiff_t)x * ds, ds, w - x, h);

IC_TARGET_AVX2 void ic_transpose1_avx2(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds,
                                       int32_t w, int32_t h) {
    IC_TRANSPOSE_WALK(tile_16x32_u8, 16, 32, 1, ic_transpose1_c)
}
IC_TARGET_AVX2 void ic_transpose2_avx2(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds,
                                       int32_t w, int32_t h) {
    IC_TRANSPOSE_WALK(tile_8x16_u16, 8, 16, 2, ic_transpose2_c)
}
IC_TARGET_AVX2 void ic_transpose4_avx2(const uint8_t *src, ptrdiff_t ss, uint8_t *dst, ptrdiff_t ds,
                                       int32_t w, int32_t h) {
    IC_TRANSPOSE_WALK(tile_8x8_u32, 8, 8, 4, ic_transpose4_c)
}
#undef IC_TRANSPOSE_WALK
#undef IC_STAGE8
#undef IC_STAGE16
#undef IC_LANES_LO
#undef IC_LANES_HI

#endif /* IC_X86 */
