/* AVX-512 row kernel of the quad search's Hough votes (scalar reference: detect_quad_rows.c).
 *
 * A voting cell's 180 angles 16 at a time: the offsets in double precision (two vectors of 8),
 * their floors and fractions, the two weights in single precision, then each weight added to
 * its bin by a gather, an add and a scatter (the 16 angles are 16 rows of the accumulator: no
 * two lanes touch one bin). Every operation is the scalar reference's in its order and
 * rounding; the multiplies and adds are the explicitly rounded forms (_round_), which a
 * compiler may not fuse into multiply-adds as it may plain vector arithmetic, so the sums are
 * the same bits. The last block (180 = 11 x 16 + 4) runs under a lane mask. Measured to pay:
 * the voting was a tenth of a 12 MP run's time (perf), bound by its arithmetic. */
#include "detect_quad_internal.h"

#if IC_X86
#include <immintrin.h>

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

IC_TARGET_AVX512
void ic__dq_votes_row_avx512(const float *row, int32_t w, int32_t j, float vote_p, const double *cs,
                             const double *sn, int32_t off, int32_t nrho, float *acc) {
    enum { BLOCKS = (IC_DQ_THETA + 15) / 16, LAST = IC_DQ_THETA - 16 * (BLOCKS - 1) };
    const double v = j + 0.5;
    const __m512d voff = _mm512_set1_pd((double)off), half = _mm512_set1_pd(0.5);
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512i lanes = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(nrho));
    for (int32_t i = 0; i < w; i++) {
        const float p = row[i];
        if (!(p >= vote_p)) continue;
        const __m512d vu = _mm512_set1_pd(i + 0.5), vv = _mm512_set1_pd(v);
        const __m512 vp = _mm512_set1_ps(p);
        for (int32_t k = 0; k < BLOCKS; k++) {
            const int32_t t = 16 * k;
            /* the last block's angles past IC_DQ_THETA are masked off: not loaded, not voted */
            const __mmask16 m = k + 1 < BLOCKS ? (__mmask16)0xFFFF : (__mmask16)((1u << LAST) - 1);
            __m256i b[2];
            __m256 a[2];
            for (int h = 0; h < 2; h++) {
                const __mmask8 mh = (__mmask8)(m >> (8 * h));
                /* u cs + v sn + off - 0.5, left to right */
                __m512d r = _mm512_add_round_pd(_mm512_mul_round_pd(vu, _mm512_maskz_loadu_pd(mh, cs + t + 8 * h), RN),
                                                _mm512_mul_round_pd(vv, _mm512_maskz_loadu_pd(mh, sn + t + 8 * h), RN), RN);
                r = _mm512_sub_round_pd(_mm512_add_round_pd(r, voff, RN), half, RN);
                const __m512d f = _mm512_roundscale_pd(r, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
                b[h] = _mm512_cvttpd_epi32(f); /* f is a whole number: exact */
                a[h] = _mm512_cvt_roundpd_ps(_mm512_sub_round_pd(r, f, RN), RN);
            }
            const __m512i idx = _mm512_add_epi32(
                _mm512_add_epi32(_mm512_inserti64x4(_mm512_castsi256_si512(b[0]), b[1], 1), lanes),
                _mm512_set1_epi32(t * nrho));
            const __m512 fa = _mm512_castpd_ps(
                _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(a[0])), _mm256_castps_pd(a[1]), 1));
            const __m512 w0 = _mm512_mul_round_ps(vp, _mm512_sub_round_ps(one, fa, RN), RN);
            const __m512 w1 = _mm512_mul_round_ps(vp, fa, RN);
            const __m512 c0 = _mm512_mask_i32gather_ps(one, m, idx, acc, 4);
            _mm512_mask_i32scatter_ps(acc, m, idx, _mm512_add_round_ps(c0, w0, RN), 4);
            const __m512i idx1 = _mm512_add_epi32(idx, _mm512_set1_epi32(1));
            const __m512 c1 = _mm512_mask_i32gather_ps(one, m, idx1, acc, 4);
            _mm512_mask_i32scatter_ps(acc, m, idx1, _mm512_add_round_ps(c1, w1, RN), 4);
        }
    }
}
#endif
