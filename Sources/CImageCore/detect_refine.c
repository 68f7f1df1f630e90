/* Page detection, last step: sub-pixel refinement of the quad's sides in the source image.
 *
 * The map locates a side to a fraction of a map cell (2k source pixels). Each side is then
 * looked for in the source luma itself: at 24 places along its inner 80 %, a profile across
 * it (+-1.25 map cells, step k/4 source px, each sample the mean of 3 bilinear taps along
 * the side), the steepest step of the side's dominant polarity (parabola-interpolated),
 * nearest the map's line when two are alike; a least-squares line through those points,
 * refitted twice without the points far off it. A refined side replaces the map's only if
 * enough points agree and it stays within a map cell and 3 degrees of it; corners move only
 * by less than a map cell. */
#include "detect_quad_internal.h"

#include <math.h>

enum { RF_SAMPLES = 24, RF_MAX_STEPS = 64 };

/* Bilinear luma at (x, y), pixel centres at +0.5, clamped to the image. */
static double luma(const ic_image *im, double x, double y) {
    double fx = x - 0.5, fy = y - 0.5;
    if (fx < 0) fx = 0;
    if (fy < 0) fy = 0;
    if (fx > im->width - 1) fx = im->width - 1;
    if (fy > im->height - 1) fy = im->height - 1;
    int32_t x0 = (int32_t)fx, y0 = (int32_t)fy;
    int32_t x1 = x0 + 1 < im->width ? x0 + 1 : x0, y1 = y0 + 1 < im->height ? y0 + 1 : y0;
    double ax = fx - x0, ay = fy - y0;
    const ic_plane *pl = &im->planes[0];
    const int32_t ch = im->format == IC_FORMAT_RGBA8 ? 4 : im->format == IC_FORMAT_RGB8 ? 3 : 1;
    double v[4];
    const int32_t xs[2] = {x0, x1}, ys[2] = {y0, y1};
    for (int i = 0; i < 4; i++) {
        const uint8_t *p = pl->data + (size_t)ys[i >> 1] * pl->stride + (size_t)xs[i & 1] * ch;
        v[i] = ch == 1 ? p[0] : (77.0 * p[0] + 150.0 * p[1] + 29.0 * p[2]) / 256.0;
    }
    return (1 - ay) * ((1 - ax) * v[0] + ax * v[1]) + ay * ((1 - ax) * v[2] + ax * v[3]);
}

/* Fits a line (unit normal n, offset c) to points by least squares; returns 0 if degenerate. */
static int fit(const double *px, const double *py, const int *use, int n, double *nx, double *ny, double *c) {
    double s = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        if (use[i]) { s++; sx += px[i]; sy += py[i]; sxx += px[i] * px[i]; syy += py[i] * py[i]; sxy += px[i] * py[i]; }
    if (s < 2) return 0;
    double mx = sx / s, my = sy / s, cxx = sxx / s - mx * mx, cyy = syy / s - my * my, cxy = sxy / s - mx * my;
    double th = 0.5 * atan2(2 * cxy, cxx - cyy) + 1.5707963267948966;
    *nx = cos(th);
    *ny = sin(th);
    *c = *nx * mx + *ny * my;
    return 1;
}

/* Refines the line through a and b; returns 1 with (nx, ny, c) when it holds. */
static int refine_side(const ic_image *im, int32_t k, ic_point a, ic_point b, double *onx, double *ony, double *oc) {
    double dx = b.x - a.x, dy = b.y - a.y, len = sqrt(dx * dx + dy * dy);
    if (len < 4) return 0;
    dx /= len;
    dy /= len;
    const double nx = -dy, ny = dx; /* a normal of the side */
    double step = k / 4.0;
    if (step < 0.5) step = 0.5;
    double R = 2.5 * k; /* 1.25 map cells */
    if (R < 3) R = 3;
    int32_t ns = (int32_t)(R / step);
    if (ns > RF_MAX_STEPS / 2 - 2) ns = RF_MAX_STEPS / 2 - 2;
    const double tap = k / 2.0 > 0.5 ? k / 2.0 : 0.5;
    double px[RF_SAMPLES], py[RF_SAMPLES], dsgn[RF_SAMPLES];
    int use[RF_SAMPLES];
    double prof[RF_MAX_STEPS], der[RF_MAX_STEPS];
    int pos = 0, neg = 0;
    for (int s = 0; s < RF_SAMPLES; s++) {
        double t = len * (0.1 + 0.8 * (s + 0.5) / RF_SAMPLES);
        double cx = a.x + t * dx, cy = a.y + t * dy;
        for (int32_t i = -ns - 1; i <= ns + 1; i++) {
            double ox = cx + i * step * nx, oy = cy + i * step * ny;
            prof[i + ns + 1] = luma(im, ox - tap * dx, oy - tap * dy) + luma(im, ox, oy) + luma(im, ox + tap * dx, oy + tap * dy);
        }
        /* central differences; the steepest, preferring the middle when near a tie */
        int32_t bi = -1;
        double bv = 0;
        for (int32_t i = -ns; i <= ns; i++) {
            double d = prof[i + ns + 2] - prof[i + ns];
            der[i + ns] = d;
            double w = fabs(d) * (1.0 - 0.3 * ((double)i / ns) * ((double)i / ns));
            if (w > bv) { bv = w; bi = i; }
        }
        use[s] = 0;
        if (bi < 0 || bv < 6.0) continue; /* no step of 2 gray levels in the 3-tap sums */
        double off = bi;
        if (bi > -ns && bi < ns) { /* parabola through the three derivative magnitudes */
            double l = fabs(der[bi + ns - 1]), c = fabs(der[bi + ns]), r = fabs(der[bi + ns + 1]);
            double den = l - 2 * c + r;
            if (den < 0) off += 0.5 * (l - r) / den;
        }
        px[s] = cx + off * step * nx;
        py[s] = cy + off * step * ny;
        dsgn[s] = der[bi + ns];
        use[s] = 1;
        if (dsgn[s] > 0) pos++; else neg++;
    }
    /* the dominant polarity only */
    int n = 0;
    for (int s = 0; s < RF_SAMPLES; s++) {
        if (use[s] && ((pos >= neg) != (dsgn[s] > 0))) use[s] = 0;
        n += use[s];
    }
    if (n < 8) return 0;
    double fnx, fny, fc;
    for (int iter = 0; iter < 3; iter++) {
        if (!fit(px, py, use, RF_SAMPLES, &fnx, &fny, &fc)) return 0;
        if (iter == 2) break;
        double tol = step * (iter == 0 ? 2.0 : 1.0);
        n = 0;
        for (int s = 0; s < RF_SAMPLES; s++)
            if (use[s]) {
                if (fabs(fnx * px[s] + fny * py[s] - fc) > tol) use[s] = 0;
                n += use[s];
            }
        if (n < 8) return 0;
    }
    /* stays close to the map's line: within 3 degrees and a map cell at the side's middle */
    if (fabs(fnx * nx + fny * ny) < cos(3 * 3.14159265358979323846 / 180)) return 0;
    double mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
    if (fabs(fnx * mx + fny * my - fc) > 2.0 * k) return 0;
    *onx = fnx;
    *ony = fny;
    *oc = fc;
    return 1;
}

void ic__dq_refine(const ic_image *image, int32_t k, int32_t frame_sides, ic_point quad[4]) {
    double L[4][3];
    int refined[4];
    for (int i = 0; i < 4; i++) {
        ic_point a = quad[(i + 3) & 3], b = quad[i];
        double dx = b.x - a.x, dy = b.y - a.y, len = sqrt(dx * dx + dy * dy);
        refined[i] = 0;
        if (len > 0) { /* the unrefined side, for corners next to a side that does not refine */
            L[i][0] = -dy / len;
            L[i][1] = dx / len;
            L[i][2] = L[i][0] * a.x + L[i][1] * a.y;
        }
        if (!(frame_sides & (1 << i)) && len > 0)
            refined[i] = refine_side(image, k, a, b, &L[i][0], &L[i][1], &L[i][2]);
    }
    for (int i = 0; i < 4; i++) {
        const int j = (i + 1) & 3;
        if (!refined[i] && !refined[j]) continue;
        double det = L[i][0] * L[j][1] - L[i][1] * L[j][0];
        if (fabs(det) < 1e-9) continue;
        ic_point p = {(L[i][2] * L[j][1] - L[i][1] * L[j][2]) / det, (L[i][0] * L[j][2] - L[i][2] * L[j][0]) / det};
        if (fabs(p.x - quad[i].x) < 2.0 * k && fabs(p.y - quad[i].y) < 2.0 * k) quad[i] = p;
    }
}
