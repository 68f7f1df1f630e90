/* The inside map's say on a candidate quad: the quad search (detect_quad.c) scores its best
 * few candidates again with it. A page's interior is "inside" and the scene just beyond its
 * sides is not; a text block or a picture on the page has page just beyond its sides, a tile,
 * a window or the outline of an object has no page on either side. */
#include "detect_quad_internal.h"

enum { IC_DR_GRID = 8 };             /* samples per direction inside, per side outside */
static const double IC_DR_OUT = 2.0; /* the outside band's distance from a side (cells) */

double ic__dq_inside_contrast(const ic_dq_map *m, const ic_point c[4], int32_t frame_sides) {
    /* interior: a G x G grid of the bilinear patch over the corners */
    double in = 0;
    for (int j = 0; j < IC_DR_GRID; j++)
        for (int i = 0; i < IC_DR_GRID; i++) {
            const double u = (i + 0.5) / IC_DR_GRID, v = (j + 0.5) / IC_DR_GRID;
            const double w0 = (1 - u) * (1 - v), w1 = u * (1 - v), w2 = u * v, w3 = (1 - u) * v;
            in += ic__dq_sample(m, m->inside, w0 * c[0].x + w1 * c[1].x + w2 * c[2].x + w3 * c[3].x,
                                w0 * c[0].y + w1 * c[1].y + w2 * c[2].y + w3 * c[3].y);
        }
    in /= IC_DR_GRID * IC_DR_GRID;
    /* outside: G points along each side that is not a frame edge, IC_DR_OUT cells out,
     * those within the frame */
    const double gx = (c[0].x + c[1].x + c[2].x + c[3].x) / 4, gy = (c[0].y + c[1].y + c[2].y + c[3].y) / 4;
    double out = 0;
    int32_t n = 0;
    for (int s = 0; s < 4; s++) {
        if (frame_sides & (1 << s)) continue;
        const ic_point a = c[(s + 3) & 3], b = c[s]; /* side s ends at corner s */
        const double dx = b.x - a.x, dy = b.y - a.y, len = sqrt(dx * dx + dy * dy);
        if (!(len > 0)) continue;
        double nx = dy / len, ny = -dx / len;
        if (nx * ((a.x + b.x) / 2 - gx) + ny * ((a.y + b.y) / 2 - gy) < 0) { nx = -nx; ny = -ny; }
        for (int i = 0; i < IC_DR_GRID; i++) {
            const double t = (i + 0.5) / IC_DR_GRID;
            const double x = a.x + t * dx + IC_DR_OUT * nx, y = a.y + t * dy + IC_DR_OUT * ny;
            if (x < m->fx0 || x > m->fx1 || y < m->fy0 || y > m->fy1) continue;
            out += ic__dq_sample(m, m->inside, x, y);
            n++;
        }
    }
    return n ? in - out / n : in;
}
