/* Page detection, steps 3-5: Hough lines, quadrilateral search, refinement; the driver.
 * See imagecore/detect.h for the method. Coordinates here are those of the working image
 * (continuous, pixel centres at +0.5); a line is {x : x cos(phi) + y sin(phi) = c} with its
 * normal angle phi in [0, pi). */
#include "detect_internal.h"

#include <math.h>
#include <string.h>

#define IC_PI 3.14159265358979323846

/* Quad scoring (see score_quad), measured on the bench's detect-eval and on 240 composites
 * of other seeds: the score is lowered by this much per supported pixel run on past a
 * corner and per unsupported pixel at a side's ends; opposite sides differ in length by at
 * most this factor; no side is shorter than this share of the longest. */
static const double IC_DET_RUNON_W = 2.0, IC_DET_CORNER_W = 2.0, IC_DET_OPP_RATIO = 0.4,
                    IC_DET_SIDE_RATIO = 0.15;

/* ---- scratch layout ------------------------------------------------------------------- */

static size_t take(uint8_t *base, size_t *off, size_t bytes, void **out) {
    size_t at = (*off + 15) & ~(size_t)15;
    if (out) *out = base ? base + at : NULL;
    *off = at + bytes;
    return *off;
}

size_t ic__det_layout(ic_det_work *wk, uint8_t *base, int32_t w, int32_t h, int32_t src_width) {
    ic_det_work tmp;
    if (!wk) wk = &tmp;
    memset(wk, 0, sizeof *wk);
    wk->w = w;
    wk->h = h;
    size_t n = (size_t)w * (size_t)h, off = 0;
    size_t nmag = n > 2 * (size_t)w ? n : 2 * (size_t)w; /* also the reduction's row accumulator */
    double diag = sqrt((double)w * w + (double)h * h);
    wk->rho_off = (int32_t)ceil(diag / 2) + 2;
    wk->nrho = 2 * wk->rho_off + 1;
    wk->max_edges = (int32_t)(n / 5 + 16);
    if (wk->max_edges > 65535) wk->max_edges = 65535; /* keeps 16-bit Hough cells exact */
    int32_t longest = w > h ? w : h;
    void *p;
    take(base, &off, n, &p); wk->gray = p;
    take(base, &off, n, &p); wk->blur = p;
    take(base, &off, nmag * sizeof(uint16_t), &p); wk->mag = p;
    take(base, &off, n * sizeof(int16_t), &p); wk->dir = p;
    take(base, &off, (size_t)wk->max_edges * sizeof(ic_det_edge), &p); wk->edges = p;
    take(base, &off, (size_t)IC_DET_THETA * (size_t)wk->nrho * sizeof(uint16_t), &p); wk->acc = p;
    take(base, &off, (size_t)IC_DET_MAX_PROFILED * 4 * ((size_t)longest + 1) * sizeof(uint16_t), &p); wk->profiles = p;
    take(base, &off, (size_t)src_width, &p); wk->luma_row = p;
    /* One area for what is never live at the same time: the gradients (edge stage), the
     * accumulator's local maxima (line stage; never 8-neighbours, so at most one per
     * 2 x 2 block) and the crossing table (quad search). */
    size_t grad = 2 * n * sizeof(int16_t);
    size_t peaks = (size_t)(IC_DET_THETA / 2 + 1) * (size_t)(wk->nrho / 2 + 1) * sizeof(uint64_t);
    size_t cross = (size_t)IC_DET_MAX_LINES * IC_DET_MAX_PROFILED * sizeof(ic_det_crossing);
    size_t shared = grad > peaks ? grad : peaks;
    if (cross > shared) shared = cross;
    take(base, &off, shared, &p);
    wk->gx = p;
    wk->gy = p ? (int16_t *)p + n : NULL;
    wk->peaks = p;
    wk->peak_cap = (int32_t)(peaks / sizeof(uint64_t));
    wk->cross = p;
    take(base, &off, 4 * (size_t)w * sizeof(int32_t), &p); wk->cols = p;
    return off + 16; /* room to align the base */
}

static ic_status check_options(const ic_detect_options *o, int32_t *work, double *min_area) {
    *work = IC_DET_DEFAULT_WORK;
    *min_area = 0.08;
    if (!o) return IC_OK;
    if (o->work_size != 0) {
        if (o->work_size < 64 || o->work_size > 1024) return IC_ERR_INVALID_ARGUMENT;
        *work = o->work_size;
    }
    if (o->min_area != 0) {
        if (!(o->min_area > 0 && o->min_area < 1)) return IC_ERR_INVALID_ARGUMENT;
        *min_area = o->min_area;
    }
    return IC_OK;
}

ic_status ic_detect_scratch_size(int32_t width, int32_t height, const ic_detect_options *options,
                                 size_t *bytes) {
    if (!bytes || width < 1 || height < 1) return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    int32_t work, w, h;
    double min_area;
    ic_status st = check_options(options, &work, &min_area);
    if (st != IC_OK) return st;
    ic__det_work_size(width, height, work, &w, &h);
    *bytes = ic__det_layout(NULL, NULL, w, h, width);
    return IC_OK;
}

/* ---- lines ------------------------------------------------------------------------------ */

/* Prefix sums along a line of the pixels supported by edges whose gradient points along
 * +n (pos), along -n (neg), and both; interleaved so that one range query touches two
 * cache lines, not six. */
typedef struct prof_entry {
    uint16_t pos, neg, both, pad;
} prof_entry;

typedef struct line {
    double phi, c;       /* normal angle in [0, pi) and offset */
    double cs, sn;       /* cos(phi), sin(phi) */
    int32_t horizontal;  /* walks over x (the line is closer to horizontal) */
    int32_t start, len;  /* profile covers major-axis pixels start .. start + len - 1 */
    prof_entry *prof;    /* len + 1 prefix sums of supported pixels (see profile) */
    int32_t votes;
    int32_t runs;        /* length in long single-polarity runs of support (see run_score) */
} line;

static void line_set(line *l, double phi, double c) {
    while (phi >= IC_PI) { phi -= IC_PI; c = -c; }
    while (phi < 0) { phi += IC_PI; c = -c; }
    l->phi = phi;
    l->c = c;
    l->cs = cos(phi);
    l->sn = sin(phi);
    l->horizontal = fabs(l->sn) >= fabs(l->cs);
}

/* Position across the line's major axis at major-axis pixel centre `t + 0.5`. */
static inline double line_cross(const line *l, double t) {
    return l->horizontal ? (l->c - t * l->cs) / l->sn : (l->c - t * l->sn) / l->cs;
}

/* floor() for the coordinates here (|v| < 2^30): a plain conversion, not a libm call on
 * targets without SSE4.1's rounding instruction. */
static inline int32_t ifloor(double v) {
    int32_t i = (int32_t)v;
    return i - (v < i);
}

/* Angular distance between a gradient direction (degrees 0..359) and a normal angle
 * (radians, [0, pi)) modulo 180 degrees, and the polarity: +1 when the gradient points
 * along +n. */
static inline double dir_diff(int32_t dir, double phi_deg, int32_t *polarity) {
    double d = dir - phi_deg; /* dir in [0, 360), phi in [0, 180): d in (-180, 360) */
    if (d < 0) d += 360;
    *polarity = (d < 90 || d > 270) ? 1 : -1;
    double m = d >= 180 ? d - 180 : d;
    return m > 90 ? 180 - m : m;
}

/* Tolerances (at the working size): the angle between an edge's gradient and a line's
 * normal for the edge to support the line; the band across a line in which support is
 * looked for; the spread of a Hough vote around the edge's own direction, in degrees;
 * near-duplicate lines (closer than this in angle and offset) are dropped. */
#ifndef IC_DET_TUNING /* overridable for experiments */
enum { IC_DET_DIR_TOL = 20, IC_DET_BAND = 1, IC_DET_VOTE_SPREAD = 6, IC_DET_DUP_DEG = 4, IC_DET_DUP_PX = 8,
       IC_DET_RUN = 16, IC_DET_MIN_CROSS = 40 };
#endif

/* For a line of normal angle phi (degrees), what an edge pixel of each direction says
 * about it: tab[dir + 1] is 1 when the direction agrees within IC_DET_DIR_TOL with the
 * gradient along +n, 2 along -n, 0 otherwise (tab[0]: no edge pixel, dir -1). Built once
 * per line, it replaces the angle arithmetic in the per-pixel loops. */
static void dir_table(double phi_deg, uint8_t tab[361]) {
    tab[0] = 0;
    for (int32_t d = 0; d < 360; d++) {
        int32_t pol;
        tab[d + 1] = dir_diff(d, phi_deg, &pol) > IC_DET_DIR_TOL ? 0 : pol > 0 ? 1 : 2;
    }
}

/* Least-squares refit of a line to the edge pixels within `band` px of it whose direction
 * agrees, optionally restricted to major-axis range [t0, t1] and one polarity (0: any).
 * Returns the number of pixels used (the line is unchanged below 8). */
static int32_t refit(const ic_det_work *wk, line *l, int32_t band, double t0, double t1, int32_t polarity) {
    const int32_t w = wk->w, h = wk->h;
    uint8_t tab[361];
    dir_table(l->phi * 180 / IC_PI, tab);
    const uint8_t want = polarity > 0 ? 1 : polarity < 0 ? 2 : 0;
    int32_t lo = (int32_t)ceil(t0), hi = (int32_t)floor(t1);
    int32_t extent = l->horizontal ? w : h, other = l->horizontal ? h : w;
    if (lo < 0) lo = 0;
    if (hi > extent - 1) hi = extent - 1;
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int32_t n = 0;
    /* the cross position steps linearly along the major axis */
    const double q0 = line_cross(l, lo + 0.5) - 0.5, dq = line_cross(l, lo + 1.5) - 0.5 - q0;
    for (int32_t t = lo; t <= hi; t++) {
        double q = q0 + (t - lo) * dq;
        if (!(q > -band - 1 && q < other + band)) continue;
        int32_t qi = ifloor(q + 0.5);
        for (int32_t k = qi - band; k <= qi + band; k++) {
            if (k < 0 || k >= other) continue;
            int32_t x = l->horizontal ? t : k, y = l->horizontal ? k : t;
            uint8_t code = tab[wk->dir[(size_t)y * w + x] + 1];
            if (!code || (want && code != want)) continue;
            double px = x + 0.5, py = y + 0.5;
            sx += px; sy += py; sxx += px * px; syy += py * py; sxy += px * py;
            n++;
        }
    }
    if (n < 8) return n;
    double mx = sx / n, my = sy / n;
    double cxx = sxx / n - mx * mx, cyy = syy / n - my * my, cxy = sxy / n - mx * my;
    /* The normal is the eigenvector of the smaller eigenvalue of the scatter matrix. */
    double phi = 0.5 * atan2(2 * cxy, cxx - cyy) + IC_PI / 2;
    double c = mx * cos(phi) + my * sin(phi);
    /* keep the orientation close to the old one */
    line old = *l;
    line_set(l, phi, c);
    if (fabs(l->phi - old.phi) > 0.2 && fabs(fabs(l->phi - old.phi) - IC_PI) > 0.2) *l = old;
    return n;
}

/* Support profile along the line: for each major-axis pixel, whether an edge pixel with an
 * agreeing direction lies within 1 px across, by polarity, as prefix sums. */
static void profile(const ic_det_work *wk, line *l) {
    const int32_t w = wk->w, h = wk->h;
    uint8_t tab[361];
    dir_table(l->phi * 180 / IC_PI, tab);
    int32_t extent = l->horizontal ? w : h, other = l->horizontal ? h : w;
    l->start = 0;
    l->len = extent;
    const double q0 = line_cross(l, 0.5) - 0.5, dq = line_cross(l, 1.5) - 0.5 - q0;
    for (int32_t t = 0; t < extent; t++) {
        int32_t p = 0, m = 0;
        double q = q0 + t * dq;
        if (q > -IC_DET_BAND - 1 && q < other + IC_DET_BAND) {
            int32_t qi = ifloor(q + 0.5);
            for (int32_t k = qi - IC_DET_BAND; k <= qi + IC_DET_BAND; k++) {
                if (k < 0 || k >= other) continue;
                int32_t x = l->horizontal ? t : k, y = l->horizontal ? k : t;
                uint8_t code = tab[wk->dir[(size_t)y * w + x] + 1];
                p |= code == 1;
                m |= code == 2;
            }
        }
        /* indicators first, prefix sums below */
        prof_entry e = {(uint16_t)p, (uint16_t)m, (uint16_t)(p & m), 0};
        l->prof[t + 1] = e;
    }
    /* prefix sums */
    memset(&l->prof[0], 0, sizeof l->prof[0]);
    for (int32_t v = 1; v <= extent; v++) {
        l->prof[v].pos = (uint16_t)(l->prof[v - 1].pos + l->prof[v].pos);
        l->prof[v].neg = (uint16_t)(l->prof[v - 1].neg + l->prof[v].neg);
        l->prof[v].both = (uint16_t)(l->prof[v - 1].both + l->prof[v].both);
    }
}

/* The support a side is credited with from its pixel counts by polarity (p, m) and with
 * both (bo): the better polarity, or, when more, the pixels supported by exactly one
 * polarity (*mixed = 1). A page side keeps one polarity unless the surface behind it
 * alternates between darker and brighter than the paper (striped blinds, foliage): then
 * its support alternates in polarity, segment by segment, but is never of both polarities
 * at once, as along a line drawn on the page. */
static inline int32_t side_credit(int32_t p, int32_t m, int32_t bo, int32_t *mixed) {
    int32_t best = p > m ? p : m;
    *mixed = p + m - 2 * bo > best;
    return *mixed ? p + m - 2 * bo : best;
}

/* Supported pixels on major-axis range [a, b) (clipped to the profile): by polarity, and
 * (when `both` is not NULL) with both. */
static inline void support(const line *l, double a, double b, int32_t *pos, int32_t *neg, int32_t *both) {
    int32_t ia = ifloor(a + 0.5), ib = ifloor(b + 0.5);
    if (ia < 0) ia = 0;
    if (ib > l->len) ib = l->len;
    if (ib <= ia) {
        *pos = *neg = 0;
        if (both) *both = 0;
        return;
    }
    const prof_entry *x = &l->prof[ia], *y = &l->prof[ib];
    *pos = y->pos - x->pos;
    *neg = y->neg - x->neg;
    if (both) *both = y->both - x->both;
}

/* The length of the line covered by long runs of support of one polarity (runs of at
 * least 16 px, gaps up to 3 px bridged), the better polarity. A page side is one long run
 * (broken only where its contrast fades); a row of text breaks at every word, so this
 * tells page sides from the text rows parallel to them, which collect as many votes. */
static int32_t run_score(const line *l) {
    int32_t best = 0;
    for (int pol = 0; pol < 2; pol++) {
        int32_t total = 0, run = 0, gap = 0;
        for (int32_t t = 0; t < l->len; t++) {
            int on = pol ? l->prof[t + 1].neg != l->prof[t].neg : l->prof[t + 1].pos != l->prof[t].pos;
            if (on) {
                run += gap + 1;
                gap = 0;
            } else if (run > 0 && ++gap > 3) {
                if (run >= IC_DET_RUN) total += run;
                run = gap = 0;
            }
        }
        if (run >= IC_DET_RUN) total += run;
        if (total > best) best = total;
    }
    return best;
}

/* Ascending in-place heap sort of distinct keys (libc's qsort may allocate). */
static void sort_keys(uint64_t *k, int32_t n) {
    for (int32_t end = n, start = n / 2; end > 1;) {
        if (start > 0) start--;
        else { uint64_t t = k[0]; k[0] = k[--end]; k[end] = t; }
        for (int32_t i = start;;) { /* sift down within [0, end) */
            int32_t c = 2 * i + 1;
            if (c >= end) break;
            if (c + 1 < end && k[c + 1] > k[c]) c++;
            if (k[i] >= k[c]) break;
            uint64_t t = k[i]; k[i] = k[c]; k[c] = t;
            i = c;
        }
    }
}

/* Hough transform with orientation voting, then the strongest separated peaks. */
static int32_t find_lines(ic_det_work *wk, line *lines) {
    const int32_t w = wk->w, h = wk->h, nrho = wk->nrho, off = wk->rho_off;
    double cs[IC_DET_THETA], sn[IC_DET_THETA];
    for (int32_t b = 0; b < IC_DET_THETA; b++) { cs[b] = cos(b * IC_PI / 180); sn[b] = sin(b * IC_PI / 180); }
    memset(wk->acc, 0, (size_t)IC_DET_THETA * nrho * sizeof *wk->acc);
    const double cx = w / 2.0, cy = h / 2.0;
    for (int32_t i = 0; i < wk->nedges; i++) {
        const ic_det_edge *e = &wk->edges[i];
        double x = e->x + 0.5 - cx, y = e->y + 0.5 - cy;
        int32_t b0 = e->dir % 180;
        for (int32_t db = -IC_DET_VOTE_SPREAD; db <= IC_DET_VOTE_SPREAD; db++) {
            int32_t b = b0 + db;
            b += b < 0 ? IC_DET_THETA : b >= IC_DET_THETA ? -IC_DET_THETA : 0;
            /* the neighbouring offsets too: positions are whole pixels, so a straight edge
             * spreads over about 3 offset bins */
            int32_t r = ifloor(x * cs[b] + y * sn[b] + 0.5) + off;
            uint16_t *a = &wk->acc[(size_t)b * nrho + r];
            /* no overflow: a cell gets at most one vote per edge pixel, and there are at
             * most 65535 of those (ic__det_layout) */
            a[-1]++;
            a[0]++;
            a[1]++;
        }
    }
    /* Local maxima (3 x 3, the angle wrapping with the offset mirrored). */
    /* low on purpose: weak lines are only ever used as the crossing sides of a pair of
     * strong ones (see search) */
    int32_t minv = (w < h ? w : h) / 24;
    if (minv < 12) minv = 12;
    /* Every local maximum goes into wk->peaks as a sort key: votes descending, then scan
     * order (angle, offset); a histogram of the votes gives the threshold above which the
     * IC_DET_MAX_PEAKS strongest lie, and only those are sorted. */
    uint64_t *keys = wk->peaks;
    int32_t nmax = 0;
    uint32_t vh[IC_DET_VOTE_HIST];
    memset(vh, 0, sizeof vh);
    for (int32_t b = 0; b < IC_DET_THETA; b++) {
        const uint16_t *row = wk->acc + (size_t)b * nrho;
        for (int32_t r = 1; r < nrho - 1; r++) {
            int32_t v = row[r];
            if (v < minv) continue;
            int is_max = 1;
            for (int32_t db = -1; db <= 1 && is_max; db++) {
                int32_t bb = b + db, rr0 = r;
                if (bb < 0) { bb += IC_DET_THETA; rr0 = 2 * off - r; }
                if (bb >= IC_DET_THETA) { bb -= IC_DET_THETA; rr0 = 2 * off - r; }
                const uint16_t *nr = wk->acc + (size_t)bb * nrho;
                for (int32_t dr = -1; dr <= 1; dr++) {
                    if (db == 0 && dr == 0) continue;
                    int32_t rr = rr0 + dr;
                    if (rr < 0 || rr >= nrho) continue;
                    int32_t u = nr[rr];
                    /* strict on one side so plateaus give one peak */
                    if (u > v || (u == v && (db < 0 || (db == 0 && dr < 0)))) { is_max = 0; break; }
                }
            }
            if (!is_max) continue;
            /* maxima are never 8-neighbours, so they fit the bound of ic__det_layout (the
             * test is a guard, never taken) */
            if (nmax == wk->peak_cap) continue;
            keys[nmax++] = ((uint64_t)(65535 - v) << 32) | (uint32_t)(b * nrho + r);
            vh[v < IC_DET_VOTE_HIST ? v : IC_DET_VOTE_HIST - 1]++;
        }
    }
    int32_t cut = IC_DET_VOTE_HIST - 1;
    for (uint32_t above = 0; cut > 0 && above + vh[cut] < IC_DET_MAX_PEAKS; cut--) above += vh[cut];
    int32_t np = 0;
    for (int32_t i = 0; i < nmax; i++)
        if (65535 - (int32_t)(keys[i] >> 32) >= cut) keys[np++] = keys[i];
    sort_keys(keys, np);
    if (np > IC_DET_MAX_PEAKS) np = IC_DET_MAX_PEAKS;
    int32_t pb[IC_DET_MAX_PEAKS], pr[IC_DET_MAX_PEAKS], pv[IC_DET_MAX_PEAKS];
    for (int32_t i = 0; i < np; i++) {
        uint32_t cell = (uint32_t)keys[i];
        pb[i] = (int32_t)(cell / (uint32_t)nrho);
        pr[i] = (int32_t)(cell % (uint32_t)nrho);
        pv[i] = 65535 - (int32_t)(keys[i] >> 32);
    }
    /* Greedy selection with suppression of near-duplicates: up to IC_DET_MAX_PROFILED
     * lines, refitted and profiled; then the IC_DET_MAX_LINES with the most long-run
     * support go on to the quad search. */
    int32_t n = 0;
    const int32_t longest = w > h ? w : h;
    for (int32_t i = 0; i < np && n < IC_DET_MAX_PROFILED; i++) {
        double phi = pb[i] * IC_PI / 180, rho = pr[i] - off;
        int dup = 0;
        for (int32_t j = 0; j < n && !dup; j++) {
            double dphi = fabs(phi - lines[j].phi), rj = lines[j].c - (cx * lines[j].cs + cy * lines[j].sn);
            double dr = fabs(rho - rj);
            if (dphi > IC_PI / 2) { dphi = IC_PI - dphi; dr = fabs(rho + rj); }
            if (dphi < IC_DET_DUP_DEG * IC_PI / 180 && dr < IC_DET_DUP_PX) dup = 1;
        }
        if (dup) continue;
        line *l = &lines[n];
        line_set(l, phi, rho + cx * cos(phi) + cy * sin(phi));
        l->votes = pv[i];
        l->prof = (prof_entry *)(void *)(wk->profiles + (size_t)n * 4 * ((size_t)longest + 1));
        refit(wk, l, 2, -1e9, 1e9, 0);
        profile(wk, l);
        l->runs = run_score(l);
        n++;
    }
    /* best runs first (stable: ties keep the vote order) */
    for (int32_t i = 1; i < n; i++)
        for (int32_t j = i; j > 0 && lines[j].runs > lines[j - 1].runs; j--) {
            line t = lines[j]; lines[j] = lines[j - 1]; lines[j - 1] = t;
        }
    return n;
}


/* ---- quadrilaterals ------------------------------------------------------------------------ */

static int intersect(const line *a, const line *b, ic_point *p) {
    double det = a->cs * b->sn - a->sn * b->cs;
    if (fabs(det) < 1e-9) return 0;
    p->x = (a->c * b->sn - b->c * a->sn) / det;
    p->y = (a->cs * b->c - b->cs * a->c) / det;
    return isfinite(p->x) && isfinite(p->y);
}

static inline double major(const line *l, ic_point p) { return l->horizontal ? p.x : p.y; }

static double angle_between(const line *a, const line *b) {
    double d = fabs(a->phi - b->phi);
    return d > IC_PI / 2 ? IC_PI - d : d;
}

typedef struct candidate {
    double score, confidence;
    int32_t side[4];   /* line indices, cyclic: corner i is side[i] x side[i + 1] ... */
    ic_point corner[4];
    int32_t polarity[4]; /* per side, +1: brighter inside */
} candidate;

/* Scores the quad with sides a, b, c, d in cyclic order (corners a∩b, b∩c, c∩d, d∩a). */
/* Quads whose score could not exceed `bound` are refused early (-INFINITY: none). */
static int score_quad(const ic_det_work *wk, const line *L, const int32_t s[4], double min_area, double bound,
                      candidate *out) {
    const double w = wk->w, h = wk->h;
    ic_point c[4];
    for (int i = 0; i < 4; i++)
        if (!intersect(&L[s[i]], &L[s[(i + 1) & 3]], &c[i])) return 0;
    const double mx = 0.03 * w, my = 0.03 * h;
    for (int i = 0; i < 4; i++)
        if (c[i].x < -mx || c[i].x > w + mx || c[i].y < -my || c[i].y > h + my) return 0;
    /* convex with a non-trivial area */
    double area2 = 0;
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        ic_point a = c[i], b = c[(i + 1) & 3], d = c[(i + 2) & 3];
        double cr = (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x);
        if (cr > 0) pos++; else neg++;
        area2 += a.x * b.y - b.x * a.y;
    }
    if (pos != 4 && neg != 4) return 0;
    /* A page seen in perspective keeps its interior angles within 45..135 degrees (a
     * rectangle photographed at up to ~45 degrees of tilt); skewer shapes are line clutter. */
    for (int i = 0; i < 4; i++) {
        ic_point a = c[(i + 3) & 3], b = c[i], d = c[(i + 1) & 3];
        double ux = a.x - b.x, uy = a.y - b.y, vx = d.x - b.x, vy = d.y - b.y;
        double cosang = (ux * vx + uy * vy) / (sqrt(ux * ux + uy * uy) * sqrt(vx * vx + vy * vy));
        if (!(fabs(cosang) <= 0.7071)) return 0;
    }
    if (fabs(area2) / 2 < min_area * w * h) return 0;
    ic_point g = {(c[0].x + c[1].x + c[2].x + c[3].x) / 4, (c[0].y + c[1].y + c[2].y + c[3].y) / 4};
    /* Side i lies on line s[i] between corners c[i - 1] and c[i], from ta[i] to tb[i]. */
    double len[4], in[4], outc[4], ext[4], extlen[4], credit[4], bare[4], ta[4], tb[4];
    int32_t mixed[4];
    double total_len = 0;
    for (int i = 0; i < 4; i++) {
        const line *l = &L[s[i]];
        ta[i] = major(l, c[(i + 3) & 3]);
        tb[i] = major(l, c[i]);
        if (ta[i] > tb[i]) { double t = ta[i]; ta[i] = tb[i]; tb[i] = t; }
        len[i] = tb[i] - ta[i];
        if (len[i] < 8) return 0;
        total_len += len[i];
    }
    /* A page seen in perspective has opposite sides of comparable length and no side much
     * shorter than the longest: a near-triangle (a side of a few pixels where two lines
     * meet) is line clutter, typically a page side, a line drawn on the page and a surface
     * edge beyond it. */
    for (int i = 0; i < 2; i++) {
        double a = len[i], b = len[i + 2];
        if (a < IC_DET_OPP_RATIO * b || b < IC_DET_OPP_RATIO * a) return 0;
    }
    double lmax = len[0];
    for (int i = 1; i < 4; i++) if (len[i] > lmax) lmax = len[i];
    for (int i = 0; i < 4; i++) if (len[i] < IC_DET_SIDE_RATIO * lmax) return 0;
    /* the score is at most the perimeter (every side fully supported, nothing run on) */
    if (total_len <= bound) return 0;
    for (int i = 0; i < 4; i++) {
        const line *l = &L[s[i]];
        int32_t p, m, bo;
        support(l, ta[i], tb[i], &p, &m, &bo);
        /* inward: the side of the line the centroid is on */
        int inward_plus = l->cs * g.x + l->sn * g.y - l->c > 0;
        in[i] = inward_plus ? p : m;   /* gradient pointing inward: brighter inside */
        outc[i] = inward_plus ? m : p;
        credit[i] = side_credit(p, m, bo, &mixed[i]);
        if (credit[i] < 0.3 * len[i]) return 0;
        /* runs past the corners: support just beyond each end */
        double e = 0.12 * len[i];
        if (e < 4) e = 4;
        int32_t p1, m1, p2, m2;
        support(l, ta[i] - e, ta[i], &p1, &m1, NULL);
        support(l, tb[i], tb[i] + e, &p2, &m2, NULL);
        ext[i] = p1 + m1 + p2 + m2;
        extlen[i] = 2 * e;
        /* the ends of the side: a page side is supported up to its corners */
        double d = 0.1 * len[i];
        if (d < 6) d = 6;
        int32_t q1, n1, b1, q2, n2, b2;
        support(l, ta[i], ta[i] + d, &q1, &n1, &b1);
        support(l, tb[i] - d, tb[i], &q2, &n2, &b2);
        int32_t any1 = q1 + n1 - b1, any2 = q2 + n2 - b2;
        bare[i] = 2 * d - any1 - any2;
    }
    double score = 0, supported = 0, runon = 0, runlen = 0;
    /* Each side by its better polarity: under a lighting gradient or a shadow the page can
     * be brighter than the surface along one side and darker along another. */
    for (int i = 0; i < 4; i++) {
        double sup = credit[i] / len[i];
        if (sup > 1) sup = 1;
        if (sup < 0.3) return 0;
        score += len[i] * (1.5 * sup - 0.5);
        supported += sup * len[i];
        runon += ext[i];
        runlen += extlen[i];
    }
    score -= IC_DET_RUNON_W * runon;
    for (int i = 0; i < 4; i++) score -= IC_DET_CORNER_W * bare[i];
    out->score = score;
    double conf = supported / total_len - 0.5 * (runlen > 0 ? runon / runlen : 0);
    out->confidence = conf < 0 ? 0 : conf > 1 ? 1 : conf;
    memcpy(out->side, s, sizeof out->side);
    memcpy(out->corner, c, sizeof c);
    for (int i = 0; i < 4; i++) out->polarity[i] = mixed[i] ? 0 : in[i] >= outc[i] ? 1 : -1;
    return 1;
}

/* Whether lines i and j can be opposite sides: within 50 degrees of parallel (a wide page
 * seen at a slant has its short sides that far apart; the interior-angle limit in
 * score_quad keeps the shapes plausible) and far enough apart (measured at the point of j
 * nearest the image centre). */
enum { IC_DET_OPPOSITE_DEG = 50 };
static int opposite(const ic_det_work *wk, const line *a, const line *b) {
    if (angle_between(a, b) > IC_DET_OPPOSITE_DEG * IC_PI / 180) return 0;
    const double cx = wk->w / 2.0, cy = wk->h / 2.0;
    double d = b->cs * cx + b->sn * cy - b->c;
    double px = cx - d * b->cs, py = cy - d * b->sn;
    return fabs(a->cs * px + a->sn * py - a->c) >= 0.1 * (wk->w < wk->h ? wk->w : wk->h);
}

enum { IC_DET_CROSS_KEEP = 12 };

/* The quad search. For every pair (i, j) of opposite lines, the lines crossing both are
 * ranked by their own support between i and j, and only the best IC_DET_CROSS_KEEP of them
 * are paired into full quads (i, k, j, l) and scored: a true page's other two sides are
 * well supported between its first two, so they survive the cut, and the work grows with
 * the cube of the line count instead of its fourth power. */
static int search(const ic_det_work *wk, const line *L, int32_t n, double min_area, candidate *best) {
    const int32_t strong = n < IC_DET_MAX_LINES ? n : IC_DET_MAX_LINES;
    const double mx = 0.03 * wk->w, my = 0.03 * wk->h;
    const double min_cross = IC_DET_MIN_CROSS * IC_PI / 180;
    /* Where each line k crosses each strong line i: the position along k and k's support
     * prefix sums there (not ok: they cross at under IC_DET_MIN_CROSS degrees or outside
     * the image's margin), computed once for all the pairs below, so that ranking the
     * crossing lines of a pair reads two small tables in order instead of two profiles
     * at random. */
    ic_det_crossing *cross = wk->cross;
    for (int32_t i = 0; i < strong; i++)
        for (int32_t k = 0; k < n; k++) {
            ic_det_crossing c = {0, 0, 0, 0, 0};
            ic_point a;
            if (k != i && angle_between(&L[i], &L[k]) >= min_cross && intersect(&L[k], &L[i], &a) &&
                !(a.x < -mx || a.x > wk->w + mx || a.y < -my || a.y > wk->h + my)) {
                c.t = (float)major(&L[k], a);
                int32_t at = ifloor(major(&L[k], a) + 0.5);
                at = at < 0 ? 0 : at > L[k].len ? L[k].len : at;
                c.pos = L[k].prof[at].pos;
                c.neg = L[k].prof[at].neg;
                c.both = L[k].prof[at].both;
                c.ok = 1;
            }
            cross[(size_t)i * n + k] = c;
        }
    int found = 0;
    for (int32_t i = 0; i < strong; i++)
        for (int32_t j = i + 1; j < strong; j++) {
            if (!opposite(wk, &L[i], &L[j])) continue;
            int32_t keep[IC_DET_CROSS_KEEP];
            double keep_score[IC_DET_CROSS_KEEP];
            int32_t nk = 0;
            const ic_det_crossing *ci = cross + (size_t)i * n, *cj = cross + (size_t)j * n;
            for (int32_t k = 0; k < n; k++) {
                if (!ci[k].ok || !cj[k].ok || k == j) continue;
                const ic_det_crossing *a = &ci[k], *b = &cj[k];
                if (a->t > b->t) { const ic_det_crossing *t = a; a = b; b = t; }
                double len = (double)b->t - a->t;
                if (len < 8) continue;
                int32_t mixed;
                int32_t credit = side_credit(b->pos - a->pos, b->neg - a->neg, b->both - a->both, &mixed);
                double sup = credit / len;
                if (sup < 0.3) continue;
                double sc = len * (1.5 * sup - 0.5);
                int32_t at = nk < IC_DET_CROSS_KEEP ? nk++ : IC_DET_CROSS_KEEP;
                if (at == IC_DET_CROSS_KEEP) {
                    if (sc <= keep_score[IC_DET_CROSS_KEEP - 1]) continue;
                    at = IC_DET_CROSS_KEEP - 1;
                }
                while (at > 0 && keep_score[at - 1] < sc) { keep[at] = keep[at - 1]; keep_score[at] = keep_score[at - 1]; at--; }
                keep[at] = k;
                keep_score[at] = sc;
            }
            for (int32_t a = 0; a < nk; a++)
                for (int32_t b = a + 1; b < nk; b++) {
                    int32_t k = keep[a], l = keep[b];
                    if (!opposite(wk, &L[k], &L[l])) continue;
                    const int32_t sides[4] = {i, k, j, l};
                    candidate c;
                    if (!score_quad(wk, L, sides, min_area, found ? best->score : -INFINITY, &c)) continue;
                    if (!found || c.score > best->score) { *best = c; found = 1; }
                }
        }
    return found;
}

/* Refits each side of the winner to the edge pixels along its inner 84 % and intersects. */
static void refine(const ic_det_work *wk, const line *L, const candidate *cand, ic_point out[4]) {
    line side[4];
    for (int i = 0; i < 4; i++) {
        side[i] = L[cand->side[i]];
        ic_point a = cand->corner[(i + 3) & 3], b = cand->corner[i];
        double ta = major(&side[i], a), tb = major(&side[i], b);
        if (ta > tb) { double t = ta; ta = tb; tb = t; }
        double m = 0.08 * (tb - ta);
        /* polarity relative to the line's normal: inward side is where the centroid is */
        ic_point g = {(cand->corner[0].x + cand->corner[1].x + cand->corner[2].x + cand->corner[3].x) / 4,
                      (cand->corner[0].y + cand->corner[1].y + cand->corner[2].y + cand->corner[3].y) / 4};
        int inward_plus = side[i].cs * g.x + side[i].sn * g.y - side[i].c > 0;
        int32_t pol = (inward_plus ? 1 : -1) * cand->polarity[i];
        refit(wk, &side[i], 2, ta + m, tb - m, pol);
    }
    for (int i = 0; i < 4; i++) {
        ic_point p;
        if (!intersect(&side[i], &side[(i + 1) & 3], &p)) { memcpy(out, cand->corner, 4 * sizeof *out); return; }
        out[i] = p;
    }
    /* keep the refinement only if it stays close (a bad fit must not throw the quad away) */
    for (int i = 0; i < 4; i++)
        if (fabs(out[i].x - cand->corner[i].x) > 4 || fabs(out[i].y - cand->corner[i].y) > 4) {
            memcpy(out, cand->corner, 4 * sizeof *out);
            return;
        }
}

/* ---- driver ------------------------------------------------------------------------------- */

ic_status ic_detect_page(const ic_image *image, const ic_detect_options *options, void *scratch,
                         size_t scratch_size, ic_page_detection *out) {
    if (!image || !out || !scratch) return IC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    switch (image->format) {
    case IC_FORMAT_GRAY8: case IC_FORMAT_RGB8: case IC_FORMAT_RGBA8: case IC_FORMAT_I420: case IC_FORMAT_NV12: break;
    default: return IC_ERR_UNSUPPORTED;
    }
    int32_t work, w, h;
    double min_area;
    if ((st = check_options(options, &work, &min_area)) != IC_OK) return st;
    ic__det_work_size(image->width, image->height, work, &w, &h);
    size_t need = ic__det_layout(NULL, NULL, w, h, image->width);
    if (scratch_size < need) return IC_ERR_BUFFER_TOO_SMALL;
    uint8_t *base = (uint8_t *)(((uintptr_t)scratch + 15) & ~(uintptr_t)15);
    ic_det_work wk;
    ic__det_layout(&wk, base, w, h, image->width);
    out->work_width = w;
    out->work_height = h;
    if (w < 16 || h < 16) return IC_OK; /* too small to hold a page: not found */

    ic__det_reduce(image, &wk);
    ic__det_edges(&wk);
    line lines[IC_DET_MAX_PROFILED];
    int32_t n = find_lines(&wk, lines);
    candidate best;
    if (n < 4 || !search(&wk, lines, n, min_area, &best) || best.confidence < 0.5) return IC_OK;

    ic_point c[4];
    refine(&wk, lines, &best, c);
    const double sx = (double)image->width / w, sy = (double)image->height / h;
    ic_point pts[4];
    for (int i = 0; i < 4; i++) { pts[i].x = c[i].x * sx; pts[i].y = c[i].y * sy; }
    ic_quad q;
    if (ic_quad_order(pts, &q) != IC_OK) return IC_OK;
    out->found = 1;
    out->quad = q;
    out->confidence = best.confidence;
    return IC_OK;
}
