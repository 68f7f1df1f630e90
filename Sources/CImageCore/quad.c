/* Quadrilaterals: validation with a typed reason, corner ordering, rectified size. */
#include "internal.h"
#include "imagecore/geometry.h"

#include <math.h>

/* Coordinates beyond 2^24 lose sub-pixel precision in the float paths of the warp. */
#define IC_QUAD_ABS_LIMIT 16777216.0
/* |sin| of the angle at a corner below which its three corners count as collinear. */
#define IC_QUAD_MIN_SIN 1e-3

const char *ic_quad_problem_string(ic_quad_problem problem) {
    switch (problem) {
    case IC_QUAD_VALID: return "valid";
    case IC_QUAD_NOT_FINITE: return "not finite";
    case IC_QUAD_OUT_OF_BOUNDS: return "out of bounds";
    case IC_QUAD_DEGENERATE: return "degenerate";
    case IC_QUAD_SELF_INTERSECTING: return "self-intersecting";
    case IC_QUAD_NOT_CONVEX: return "not convex";
    }
    return "unknown quad problem";
}

static double cross3(ic_point o, ic_point a, ic_point b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Whether segments p0p1 and q0q1 cross at a point interior to both (the quad is already
 * known to have no collinear triples, so touching cases cannot occur). */
static int segments_cross(ic_point p0, ic_point p1, ic_point q0, ic_point q1) {
    double d1 = cross3(p0, p1, q0), d2 = cross3(p0, p1, q1);
    double d3 = cross3(q0, q1, p0), d4 = cross3(q0, q1, p1);
    return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0));
}

static ic_status classify(const ic_quad *q, int32_t width, int32_t height, ic_quad_problem *pr) {
    const ic_point *c = q->corners;
    for (int i = 0; i < 4; i++)
        if (!isfinite(c[i].x) || !isfinite(c[i].y)) { *pr = IC_QUAD_NOT_FINITE; return IC_ERR_INVALID_ARGUMENT; }
    for (int i = 0; i < 4; i++) {
        if (fabs(c[i].x) > IC_QUAD_ABS_LIMIT || fabs(c[i].y) > IC_QUAD_ABS_LIMIT) {
            *pr = IC_QUAD_OUT_OF_BOUNDS;
            return IC_ERR_INVALID_ARGUMENT;
        }
        if (width > 0 && height > 0 &&
            (c[i].x < -(double)width || c[i].x > 2.0 * width || c[i].y < -(double)height ||
             c[i].y > 2.0 * height)) {
            *pr = IC_QUAD_OUT_OF_BOUNDS;
            return IC_ERR_INVALID_ARGUMENT;
        }
    }
    /* Turn at every corner: cross product of the incoming and outgoing side, and its
     * relative size |sin(angle)|. */
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        ic_point a = c[(i + 3) & 3], b = c[i], d = c[(i + 1) & 3];
        double l1 = hypot(b.x - a.x, b.y - a.y), l2 = hypot(d.x - b.x, d.y - b.y);
        double cr = cross3(a, b, d);
        if (!(l1 > 0) || !(l2 > 0) || !(fabs(cr) >= IC_QUAD_MIN_SIN * l1 * l2)) {
            *pr = IC_QUAD_DEGENERATE;
            return IC_ERR_INVALID_ARGUMENT;
        }
        if (cr > 0) pos++; else neg++;
    }
    if (segments_cross(c[0], c[1], c[2], c[3]) || segments_cross(c[1], c[2], c[3], c[0])) {
        *pr = IC_QUAD_SELF_INTERSECTING;
        return IC_ERR_INVALID_ARGUMENT;
    }
    if (pos != 4 && neg != 4) {
        *pr = IC_QUAD_NOT_CONVEX;
        return IC_ERR_INVALID_ARGUMENT;
    }
    double area = 0;
    for (int i = 0; i < 4; i++) area += c[i].x * c[(i + 1) & 3].y - c[(i + 1) & 3].x * c[i].y;
    if (!(fabs(area) / 2 >= 1.0)) {
        *pr = IC_QUAD_DEGENERATE;
        return IC_ERR_INVALID_ARGUMENT;
    }
    *pr = IC_QUAD_VALID;
    return IC_OK;
}

ic_status ic_quad_validate(const ic_quad *quad, int32_t width, int32_t height,
                           ic_quad_problem *problem) {
    ic_quad_problem p = IC_QUAD_NOT_FINITE;
    ic_status st = IC_ERR_INVALID_ARGUMENT;
    if (quad && width >= 0 && height >= 0) st = classify(quad, width, height, &p);
    if (problem) *problem = p;
    return st;
}

ic_status ic_quad_order(const ic_point points[4], ic_quad *out) {
    if (!points || !out) return IC_ERR_INVALID_ARGUMENT;
    ic_point p[4];
    double cx = 0, cy = 0;
    for (int i = 0; i < 4; i++) {
        p[i] = points[i];
        if (!isfinite(p[i].x) || !isfinite(p[i].y)) return IC_ERR_INVALID_ARGUMENT;
        cx += p[i].x / 4;
        cy += p[i].y / 4;
    }
    /* Sort by angle around the centroid; with y down, increasing atan2 is clockwise on
     * screen. Insertion sort of four. */
    double ang[4];
    for (int i = 0; i < 4; i++) ang[i] = atan2(p[i].y - cy, p[i].x - cx);
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
            double ta = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = ta;
            ic_point tp = p[j]; p[j] = p[j - 1]; p[j - 1] = tp;
        }
    int first = 0;
    for (int i = 1; i < 4; i++)
        if (p[i].x + p[i].y < p[first].x + p[first].y) first = i;
    for (int i = 0; i < 4; i++) out->corners[i] = p[(first + i) & 3];
    return IC_OK;
}

/* ---- rectified size ------------------------------------------------------------ */

static double dist(ic_point a, ic_point b) { return hypot(a.x - b.x, a.y - b.y); }

static ic_status to_pixels(double v, int32_t *out) {
    if (!isfinite(v)) return IC_ERR_INVALID_ARGUMENT;
    double r = floor(v + 0.5);
    if (r < 1) r = 1;
    if (r > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    *out = (int32_t)r;
    return IC_OK;
}

/* Paper `request->paper` at `request->dpi` in pixels (unrounded), landscape when qw > qh. */
static ic_status paper_pixels(const ic_size_request *request, double qw, double qh, double *w, double *h) {
    double pw, ph; /* portrait, mm */
    switch (request->paper) {
    case IC_PAPER_A4: pw = 210; ph = 297; break;
    case IC_PAPER_A5: pw = 148; ph = 210; break;
    case IC_PAPER_LETTER: pw = 215.9; ph = 279.4; break;
    case IC_PAPER_LEGAL: pw = 215.9; ph = 355.6; break;
    default: return IC_ERR_INVALID_ARGUMENT;
    }
    if (!(request->dpi > 0) || !isfinite(request->dpi)) return IC_ERR_INVALID_ARGUMENT;
    pw = pw / 25.4 * request->dpi;
    ph = ph / 25.4 * request->dpi;
    if (qw > qh) { *w = ph; *h = pw; } /* landscape */
    else { *w = pw; *h = ph; }
    return IC_OK;
}

ic_status ic_rectified_size(const ic_quad *quad, const ic_size_request *request,
                            int32_t *width, int32_t *height) {
    if (!quad || !request || !width || !height) return IC_ERR_INVALID_ARGUMENT;
    const ic_point *c = quad->corners;
    for (int i = 0; i < 4; i++)
        if (!isfinite(c[i].x) || !isfinite(c[i].y)) return IC_ERR_INVALID_ARGUMENT;
    double qw = (dist(c[0], c[1]) + dist(c[3], c[2])) / 2;
    double qh = (dist(c[0], c[3]) + dist(c[1], c[2])) / 2;
    double w, h;
    ic_status st;
    switch (request->kind) {
    case IC_SIZE_NATURAL:
        w = qw;
        h = qh;
        break;
    case IC_SIZE_PIXELS:
        if (request->width < 1 || request->height < 1) return IC_ERR_INVALID_ARGUMENT;
        if (request->width > IC_MAX_DIMENSION || request->height > IC_MAX_DIMENSION)
            return IC_ERR_TOO_LARGE;
        *width = request->width;
        *height = request->height;
        return IC_OK;
    case IC_SIZE_LONG_SIDE:
        if (request->long_side < 1) return IC_ERR_INVALID_ARGUMENT;
        if (!(qw > 0) || !(qh > 0)) return IC_ERR_INVALID_ARGUMENT;
        if (qw >= qh) { w = request->long_side; h = request->long_side * qh / qw; }
        else { h = request->long_side; w = request->long_side * qw / qh; }
        break;
    case IC_SIZE_PAPER:
        if ((st = paper_pixels(request, qw, qh, &w, &h)) != IC_OK) return st;
        break;
    case IC_SIZE_PAPER_FIT: {
        /* the paper and the quad's own size, each in whole pixels as their kinds give them,
         * then the own size scaled to the largest that fits */
        int32_t pw, ph, ow, oh;
        if ((st = paper_pixels(request, qw, qh, &w, &h)) != IC_OK) return st;
        if ((st = to_pixels(w, &pw)) != IC_OK || (st = to_pixels(h, &ph)) != IC_OK) return st;
        if ((st = to_pixels(qw, &ow)) != IC_OK || (st = to_pixels(qh, &oh)) != IC_OK) return st;
        const double s = fmin((double)pw / ow, (double)ph / oh);
        w = fmin(pw, floor(ow * s + 0.5));
        h = fmin(ph, floor(oh * s + 0.5));
        break;
    }
    default: return IC_ERR_INVALID_ARGUMENT;
    }
    st = to_pixels(w, width);
    if (st == IC_OK) st = to_pixels(h, height);
    return st;
}
