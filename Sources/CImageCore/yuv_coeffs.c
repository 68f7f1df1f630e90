/* Fixed-point coefficients of the YUV conversions, derived from the matrix definition in
 * double precision at each call (a few dozen flops), so there is no table to keep in step
 * with the formulas. See yuv_internal.h for how they are used. */
#include "yuv_internal.h"

/* No libm: the C core links nothing beyond libc and the OpenMP runtime. */
static long lround_(double x) { return x >= 0 ? (long)(x + 0.5) : -(long)(-x + 0.5); }

static void weights(ic_yuv_matrix m, double *kr, double *kb) {
    if (m == IC_YUV_BT709) { *kr = 0.2126; *kb = 0.0722; }
    else { *kr = 0.299; *kb = 0.114; }
}

/* Rounds three real coefficients to integers whose sum is exactly `sum`, moving the one
 * with the largest rounding error if the rounded sum is off (by at most 1 here). This
 * keeps white at 255 and gray at exactly neutral chroma. */
static void quantize3(const double k[3], long sum, int16_t out[3]) {
    long q[3];
    long s = 0;
    for (int i = 0; i < 3; i++) { q[i] = lround_(k[i]); s += q[i]; }
    while (s != sum) {
        int dir = s < sum ? 1 : -1, best = 0;
        double best_err = -1e9;
        for (int i = 0; i < 3; i++) { /* the coefficient rounded furthest against `dir` */
            double err = (k[i] - (double)q[i]) * dir;
            if (err > best_err) { best_err = err; best = i; }
        }
        q[best] += dir;
        s += dir;
    }
    for (int i = 0; i < 3; i++) out[i] = (int16_t)q[i];
}

/* The matrix's Kr, Kg, Kb and whether the range is video; 0 for a bad matrix or range. */
static int matrix_of(ic_yuv_matrix m, ic_yuv_range r, double *kr, double *kg, double *kb, int *video) {
    if ((m != IC_YUV_BT601 && m != IC_YUV_BT709) || (r != IC_YUV_RANGE_FULL && r != IC_YUV_RANGE_VIDEO))
        return 0;
    weights(m, kr, kb);
    *kg = 1.0 - *kr - *kb;
    *video = r == IC_YUV_RANGE_VIDEO;
    return 1;
}

int ic__rgb2yuv_coeffs(ic_yuv_matrix m, ic_yuv_range r, ic_rgb2yuv_coeffs *c) {
    double kr, kg, kb;
    int video;
    if (!matrix_of(m, r, &kr, &kg, &kb, &video)) return 0;
    const double sy = video ? 219.0 / 255.0 : 1.0, sc = video ? 224.0 / 255.0 : 1.0;
    const double q = 32768.0;
    int16_t t[3];
    const double ky[3] = {kr * sy * q, kg * sy * q, kb * sy * q};
    quantize3(ky, lround_(sy * q), t);
    c->yr = t[0]; c->yg = t[1]; c->yb = t[2];
    /* Cb = (B - Y) / (2 (1 - Kb)), Cr = (R - Y) / (2 (1 - Kr)); weights on 2x2 sums are
     * the per-pixel weights (the / 4 is in the final shift). */
    const double du = 2.0 * (1.0 - kb), dv = 2.0 * (1.0 - kr);
    const double ku[3] = {-kr / du * sc * q, -kg / du * sc * q, (1.0 - kb) / du * sc * q};
    const double kv[3] = {(1.0 - kr) / dv * sc * q, -kg / dv * sc * q, -kb / dv * sc * q};
    quantize3(ku, 0, t);
    c->ur = t[0]; c->ug = t[1]; c->ub = t[2];
    quantize3(kv, 0, t);
    c->vr = t[0]; c->vg = t[1]; c->vb = t[2];
    c->y_bias = ((video ? 16 : 0) << 15) + (1 << 14);
    c->uv_bias = (128 << 17) + (1 << 16);
    return 1;
}

int ic__yuv2rgb_coeffs(ic_yuv_matrix m, ic_yuv_range r, ic_yuv2rgb_coeffs *c) {
    double kr, kg, kb;
    int video;
    if (!matrix_of(m, r, &kr, &kg, &kb, &video)) return 0;
    const double sy = video ? 255.0 / 219.0 : 1.0, sc = video ? 255.0 / 224.0 : 1.0;
    /* ty = ((Y - yoff) << 7) * ky >> 15 = (Y - yoff) * ky / 256, in 1/64 units. */
    c->yoff = (int16_t)(video ? 16 : 0);
    c->ky = (int16_t)lround_(sy * 64.0 * 256.0); /* 16384 exactly in full range */
    /* term = ((C - 128) << 8) * k >> 15 = (C - 128) * k / 128, in 1/64 units. */
    const double s = sc * 64.0 * 128.0;
    c->krv = (int16_t)lround_(2.0 * (1.0 - kr) * s);
    c->kbu = (int16_t)lround_(2.0 * (1.0 - kb) * s);
    c->kgu = (int16_t)lround_(-2.0 * (1.0 - kb) * kb / kg * s);
    c->kgv = (int16_t)lround_(-2.0 * (1.0 - kr) * kr / kg * s);
    return 1;
}
