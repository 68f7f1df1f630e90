/* Homographies in double precision: solve from four point pairs, invert, compose, map.
 *
 * The four-point solve is the normalised DLT (Hartley): both point sets are translated to
 * their centroid and scaled to a mean distance of sqrt(2), which makes the 8x9 system well
 * conditioned whatever the pixel coordinates; its one-dimensional null space is found by
 * Gaussian elimination with full pivoting (so no entry is assumed non-zero, unlike fixing
 * h33 = 1), then one step of iterative refinement removes most of the rounding left. */
#include "internal.h"
#include "imagecore/geometry.h"

#include <math.h>
#include <string.h>

static int finite2(ic_point p) { return isfinite(p.x) && isfinite(p.y); }

ic_homography ic_homography_identity(void) {
    ic_homography h = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    return h;
}

/* Scales m so that m[8] == 1 when that is well conditioned, else to unit Frobenius norm.
 * Returns 0 if m is zero or not finite. */
static int normalise(double m[9]) {
    double n = 0;
    for (int i = 0; i < 9; i++) {
        if (!isfinite(m[i])) return 0;
        n += m[i] * m[i];
    }
    n = sqrt(n);
    if (!(n > 0) || !isfinite(n)) return 0;
    double s = fabs(m[8]) > 1e-8 * n ? 1.0 / m[8] : 1.0 / n;
    for (int i = 0; i < 9; i++) m[i] *= s;
    if (fabs(m[8]) > 1e-8 * n) m[8] = 1.0; /* exact */
    for (int i = 0; i < 9; i++)
        if (!isfinite(m[i])) return 0;
    return 1;
}

/* Similarity T with T p = (p - centroid) * s, mean distance sqrt(2) afterwards. */
static int normalising_transform(const ic_point p[4], double t[9]) {
    double cx = (p[0].x + p[1].x + p[2].x + p[3].x) / 4;
    double cy = (p[0].y + p[1].y + p[2].y + p[3].y) / 4;
    double d = 0;
    for (int i = 0; i < 4; i++) d += hypot(p[i].x - cx, p[i].y - cy);
    d /= 4;
    if (!(d > 0) || !isfinite(d)) return 0;
    double s = sqrt(2.0) / d;
    double m[9] = {s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1};
    memcpy(t, m, sizeof m);
    return 1;
}

static void mat_mul(const double a[9], const double b[9], double out[9]) {
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(out, r, sizeof r);
}

/* Inverse by the adjugate, and the Frobenius condition number |M| |M^-1| (scale invariant:
 * a large translation alone does not make a matrix "singular"). Returns 0 when the
 * determinant is 0 or the result is not finite. */
static int invert3(const double m[9], double out[9], double *cond) {
    double c[9] = {
        m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
        m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
        m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
    double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
    if (det == 0 || !isfinite(det)) return 0;
    double na = 0, nb = 0;
    for (int i = 0; i < 9; i++) {
        c[i] /= det;
        if (!isfinite(c[i])) return 0;
        na += m[i] * m[i];
        nb += c[i] * c[i];
    }
    *cond = sqrt(na) * sqrt(nb);
    memcpy(out, c, sizeof c);
    return isfinite(*cond);
}

/* Beyond this condition number an inverse has too few correct digits to be useful. */
#define IC_MAX_CONDITION 1e15

static void apply(const double m[9], ic_point p, ic_point *q) {
    double w = m[6] * p.x + m[7] * p.y + m[8];
    q->x = (m[0] * p.x + m[1] * p.y + m[2]) / w;
    q->y = (m[3] * p.x + m[4] * p.y + m[5]) / w;
}

/* Builds the 8x9 DLT matrix of x -> x' (rows: two equations per pair). */
static void dlt_rows(const ic_point a[4], const ic_point b[4], double A[8][9]) {
    for (int i = 0; i < 4; i++) {
        double x = a[i].x, y = a[i].y, u = b[i].x, v = b[i].y;
        double r0[9] = {x, y, 1, 0, 0, 0, -u * x, -u * y, -u};
        double r1[9] = {0, 0, 0, x, y, 1, -v * x, -v * y, -v};
        memcpy(A[2 * i], r0, sizeof r0);
        memcpy(A[2 * i + 1], r1, sizeof r1);
    }
}

/* Null vector of an 8x9 matrix of rank 8 by Gaussian elimination with full pivoting.
 * Returns 0 when the rank is below 8 (smallest pivot tiny against the largest). */
static int null_vector(double A[8][9], double h[9]) {
    int col[9];
    for (int j = 0; j < 9; j++) col[j] = j;
    double first = 0;
    for (int k = 0; k < 8; k++) {
        int pr = k, pc = k;
        double best = -1;
        for (int i = k; i < 8; i++)
            for (int j = k; j < 9; j++)
                if (fabs(A[i][col[j]]) > best) { best = fabs(A[i][col[j]]); pr = i; pc = j; }
        if (k == 0) first = best;
        if (!(best > 1e-12 * first) || !(first > 0)) return 0;
        if (pr != k)
            for (int j = 0; j < 9; j++) { double t = A[k][j]; A[k][j] = A[pr][j]; A[pr][j] = t; }
        int t = col[k]; col[k] = col[pc]; col[pc] = t;
        double piv = A[k][col[k]];
        for (int i = k + 1; i < 8; i++) {
            double f = A[i][col[k]] / piv;
            if (f == 0) continue;
            for (int j = k; j < 9; j++) A[i][col[j]] -= f * A[k][col[j]];
        }
    }
    /* The free unknown is col[8]; set it to 1 and back-substitute. */
    double x[9] = {0};
    x[col[8]] = 1.0;
    for (int k = 7; k >= 0; k--) {
        double s = 0;
        for (int j = k + 1; j < 9; j++) s += A[k][col[j]] * x[col[j]];
        x[col[k]] = -s / A[k][col[k]];
    }
    memcpy(h, x, sizeof x);
    return 1;
}

/* Solves the normalised problem: Hn with Hn a[i] ~ b[i]. */
static int solve_normalised(const ic_point a[4], const ic_point b[4], double h[9]) {
    double A[8][9];
    dlt_rows(a, b, A);
    if (!null_vector(A, h)) return 0;
    /* One step of iterative refinement of the null vector: the residual r = A h (which
     * should be 0) is removed by solving A d = r restricted to the complement of h. We do
     * it by fixing the largest component of h and solving the 8x8 system for the rest. */
    int big = 0;
    for (int j = 1; j < 9; j++)
        if (fabs(h[j]) > fabs(h[big])) big = j;
    double hs[9];
    for (int j = 0; j < 9; j++) hs[j] = h[j] / h[big];
    dlt_rows(a, b, A);
    double M[8][9];
    for (int i = 0; i < 8; i++) {
        double r = 0;
        for (int j = 0; j < 9; j++) r += A[i][j] * hs[j];
        int c = 0;
        for (int j = 0; j < 9; j++)
            if (j != big) M[i][c++] = A[i][j];
        M[i][8] = -r; /* A' d = -r over the 8 free components */
    }
    /* 8x8 solve with partial pivoting on the augmented matrix. */
    for (int k = 0; k < 8; k++) {
        int p = k;
        for (int i = k + 1; i < 8; i++)
            if (fabs(M[i][k]) > fabs(M[p][k])) p = i;
        if (!(fabs(M[p][k]) > 0)) { memcpy(h, hs, sizeof hs); return 1; } /* keep unrefined */
        if (p != k)
            for (int j = 0; j < 9; j++) { double t = M[k][j]; M[k][j] = M[p][j]; M[p][j] = t; }
        for (int i = k + 1; i < 8; i++) {
            double f = M[i][k] / M[k][k];
            for (int j = k; j < 9; j++) M[i][j] -= f * M[k][j];
        }
    }
    double d[8];
    for (int k = 7; k >= 0; k--) {
        double s = M[k][8];
        for (int j = k + 1; j < 8; j++) s -= M[k][j] * d[j];
        d[k] = s / M[k][k];
    }
    int c = 0;
    for (int j = 0; j < 9; j++) {
        if (j == big) h[j] = 1.0;
        else h[j] = hs[j] + d[c++];
        if (!isfinite(h[j])) { memcpy(h, hs, sizeof hs); return 1; }
    }
    return 1;
}

ic_status ic_homography_from_points(const ic_point from[4], const ic_point to[4],
                                    ic_homography *out) {
    if (!from || !to || !out) return IC_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < 4; i++)
        if (!finite2(from[i]) || !finite2(to[i])) return IC_ERR_INVALID_ARGUMENT;
    double ta[9], tb[9];
    if (!normalising_transform(from, ta) || !normalising_transform(to, tb))
        return IC_ERR_INVALID_ARGUMENT;
    ic_point a[4], b[4];
    for (int i = 0; i < 4; i++) {
        a[i].x = ta[0] * from[i].x + ta[2];
        a[i].y = ta[4] * from[i].y + ta[5];
        b[i].x = tb[0] * to[i].x + tb[2];
        b[i].y = tb[4] * to[i].y + tb[5];
    }
    double hn[9], hinv[9], cond;
    if (!solve_normalised(a, b, hn)) return IC_ERR_INVALID_ARGUMENT;
    /* In normalised coordinates a proper solution is well conditioned; a rank-deficient one
     * (e.g. three collinear points sent onto a proper triangle) is not. */
    if (!invert3(hn, hinv, &cond) || !(cond < 1e10)) return IC_ERR_INVALID_ARGUMENT;
    /* H = Tb^-1 Hn Ta; Tb^-1 of a similarity is explicit. */
    double sb = tb[0];
    double tbi[9] = {1 / sb, 0, -tb[2] / sb, 0, 1 / sb, -tb[5] / sb, 0, 0, 1};
    double h[9];
    mat_mul(hn, ta, h);
    mat_mul(tbi, h, h);
    if (!normalise(h)) return IC_ERR_INVALID_ARGUMENT;
    /* Every pair must actually map (no point sent to infinity). */
    for (int i = 0; i < 4; i++) {
        ic_point q;
        apply(h, from[i], &q);
        if (!finite2(q)) return IC_ERR_INVALID_ARGUMENT;
        double scale = 1 + fabs(to[i].x) + fabs(to[i].y);
        if (fabs(q.x - to[i].x) > 1e-6 * scale || fabs(q.y - to[i].y) > 1e-6 * scale)
            return IC_ERR_INVALID_ARGUMENT;
    }
    memcpy(out->m, h, sizeof h);
    return IC_OK;
}

ic_status ic_homography_invert(const ic_homography *hp, ic_homography *out) {
    if (!hp || !out) return IC_ERR_INVALID_ARGUMENT;
    double c[9], cond;
    for (int i = 0; i < 9; i++)
        if (!isfinite(hp->m[i])) return IC_ERR_INVALID_ARGUMENT;
    if (!invert3(hp->m, c, &cond) || !(cond < IC_MAX_CONDITION)) return IC_ERR_INVALID_ARGUMENT;
    if (!normalise(c)) return IC_ERR_INVALID_ARGUMENT;
    memcpy(out->m, c, sizeof c);
    return IC_OK;
}

ic_status ic_homography_multiply(const ic_homography *a, const ic_homography *b,
                                 ic_homography *out) {
    if (!a || !b || !out) return IC_ERR_INVALID_ARGUMENT;
    double r[9];
    mat_mul(a->m, b->m, r);
    if (!normalise(r)) return IC_ERR_INVALID_ARGUMENT;
    memcpy(out->m, r, sizeof r);
    return IC_OK;
}

ic_status ic_homography_map(const ic_homography *h, ic_point p, ic_point *out) {
    if (!h || !out) return IC_ERR_INVALID_ARGUMENT;
    const double *m = h->m;
    double w = m[6] * p.x + m[7] * p.y + m[8];
    ic_point q = {NAN, NAN};
    if (w != 0 && isfinite(w)) {
        q.x = (m[0] * p.x + m[1] * p.y + m[2]) / w;
        q.y = (m[3] * p.x + m[4] * p.y + m[5]) / w;
    }
    if (!finite2(q)) {
        out->x = out->y = NAN;
        return IC_ERR_INVALID_ARGUMENT;
    }
    *out = q;
    return IC_OK;
}

/* ---- orientation ------------------------------------------------------------- */

ic_status ic_orientation_homography(int32_t orientation, int32_t width, int32_t height,
                                    ic_homography *out) {
    if (!out || orientation < 1 || orientation > 8 || width < 1 || height < 1)
        return IC_ERR_INVALID_ARGUMENT;
    const double W = width, H = height;
    /* Displayed (x, y) -> stored (x', y'), rows of the affine part. */
    double m[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    switch (orientation) {
    case 1: m[0] = 1; m[4] = 1; break;                          /* (x, y) */
    case 2: m[0] = -1; m[2] = W; m[4] = 1; break;               /* (W - x, y) */
    case 3: m[0] = -1; m[2] = W; m[4] = -1; m[5] = H; break;    /* (W - x, H - y) */
    case 4: m[0] = 1; m[4] = -1; m[5] = H; break;               /* (x, H - y) */
    case 5: m[1] = 1; m[3] = 1; break;                          /* (y, x) */
    case 6: m[1] = 1; m[3] = -1; m[5] = H; break;               /* (y, H - x) */
    case 7: m[1] = -1; m[2] = W; m[3] = -1; m[5] = H; break;    /* (W - y, H - x) */
    default: m[1] = -1; m[2] = W; m[3] = 1; break;              /* 8: (W - y, x) */
    }
    memcpy(out->m, m, sizeof m);
    return IC_OK;
}
