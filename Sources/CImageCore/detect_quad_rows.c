/* Scalar reference row kernels of the quad search (detect_quad.c): the Hough votes.
 * AVX-512: detect_quad_avx512.c. */
#include "detect_quad_internal.h"

void ic__dq_votes_row_c(const float *row, int32_t w, int32_t j, float vote_p, const double *cs, const double *sn,
                        int32_t off, int32_t nrho, float *acc) {
    for (int32_t i = 0; i < w; i++) {
        const float p = row[i];
        if (!(p >= vote_p)) continue;
        const double u = i + 0.5, v = j + 0.5;
        for (int32_t t = 0; t < IC_DQ_THETA; t++) {
            const double r = u * cs[t] + v * sn[t] + off - 0.5; /* bin b is centred at rho = b - off + 0.5 */
            const int32_t b = (int32_t)floor(r);
            const float a = (float)(r - b);
            float *cell = acc + (size_t)t * nrho + b;
            cell[0] += p * (1 - a);
            cell[1] += p * a;
        }
    }
}
