/* Page detection: lines from the boundary map and the best quadrilateral over them.
 *
 * Coordinates are the map's (u, v): cell (i, j) is centred at (i + 0.5, j + 0.5). A line is
 * {p : n . p = c} with a unit normal n; t is the position along it from the foot of the
 * normal, along d = (-n.y, n.x).
 *
 * 1. Hough transform of the map: every cell with p >= IC_DQ_VOTE_P votes p for each of 180
 *    normal angles (offset split linearly between two 1-cell bins); the IC_DQ_PEAKS strongest
 *    local maxima, each refitted by weighted least squares to the cells near it, are ranked
 *    by their strongest run of probability (not their votes) and the first IC_DQ_MAX_LINES
 *    that are not near-duplicates become lines. The next IC_DQ_MAX_REST that are not
 *    near-duplicates of a line either are kept apart as "other maxima": a side that is faint
 *    (a low-contrast page, a shadowed side) or short (a card, a receipt's end) ranks low.
 *    The four frame edges are lines too (flagged).
 * 2. Each line is profiled: the map sampled every half cell along it, as prefix sums, so the
 *    mean probability over any stretch of it costs two look-ups.
 * 3. Candidate quads: two pairs of roughly opposite lines, crossing at >= 25 degrees; convex,
 *    corners inside the frame, area >= min_area, at most one frame edge as a side. A quad
 *    scores its sides' mean probability (mean and weakest), the probability near its corners,
 *    less the probability that runs on past its corners (a page side ends at its corners; read
 *    from IC_DQ_RUN_SKIP past the corner, since a crossing of grid or checkerboard lines
 *    leaves a gap right at the junction, for up to IC_DQ_RUN_LEN cells).
 *    The frame edge, when a side, is not scored (it is the photo's edge, not the page's).
 * 4. The search: the line pairs that may meet at a corner (crossing inside the frame) or face
 *    each other are tabled first, as bit sets; a side's terms depend only on its line and its
 *    two crossings, so those of the lines crossing a given opposite pair are computed once per
 *    pair (and kept for the second pass), and a candidate is scored in full only if, with its
 *    unknown sides counted as perfect, it could still beat the IC_DQ_TOPK-th best so far (the
 *    same best IC_DQ_TOPK as scoring them all). A second pass, with the bar the first one left
 *    (higher than while the first pass ran, so it prunes more), tries each candidate of three
 *    lines with one of the other maxima as its fourth side (a quad with two such sides is not
 *    looked for: many more candidates, most of them texture). Such a
 *    side costs IC_DQ_REST_COST (a low-ranked line may be any texture's: without the cost
 *    page-less photos scored higher as often as pages were found) and is at least
 *    IC_DQ_REST_MIN_RATIO of its opposite side.
 * 5. Region candidates: the IC_DR_MAX_REGIONS largest regions of the inside map (cells at or
 *    above 0.5, 4-connected), each as the largest quad on its convex hull, its sides refitted
 *    to the boundary map (detect_region.c, region_candidates below): a small card on a
 *    keyboard or tiles is a clear region whose short sides rank below the texture's lines.
 * 6. Pass 2: each side of each of the IC_DQ_TOPK best is looked for again from the three
 *    others. Where its two neighbours may end (the map along them drops: far_ends), each pair
 *    of such ends makes a fourth side, profiled and scored like a line's, at a cost of
 *    IC_DQ_FOURTH_COST. A short side (a card's, a receipt's end) collects too few Hough votes to
 *    rank among the lines beside long texture lines, and a faint one runs above IC_DQ_RUN_P too
 *    little: the best candidates then hold the page's three other sides and a wrong fourth.
 * 7. The IC_DQ_TOPK best are ranked by a learned ranker (boosted trees, detect_rank.c) on 34
 *    inputs each (candidate_features): the score so far, the inside map's contrast between
 *    the quad's interior and just outside its sides (detect_region.c), the sides' terms,
 *    shape, where the sides came from and how busy the map is. Its score (log-odds that every
 *    corner is right) orders them; the first is the answer. The hand-weighted score orders
 *    the search; the ranker only reorders and scores the few it keeps. */
#include "detect_quad_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define DQ_PI 3.14159265358979323846

_Static_assert(IC_DQ_MAX_LINES + 4 <= 64, "the search keeps sets of lines in 64-bit masks");
static const float IC_DQ_VOTE_P = 0.25f;   /* cells below this do not vote */
static const double IC_DQ_MIN_VOTES = 3.0;  /* a line collects at least this much probability */
static const double IC_DQ_DUP_DEG = 5.0, IC_DQ_DUP_CELLS = 2.5; /* closer lines are one */
static const double IC_DQ_STEP = 0.5;       /* profile sampling step, cells */
static const double IC_DQ_RUN_P = 0.5;      /* lines rank by their run of probability above this */
static const double IC_DQ_FRAME_COST = 0.05; /* score cost of a frame edge as a side */
static const double IC_DQ_REST_COST = 0.06;  /* score cost of a maximum ranked past the lines as a side ... */
static const double IC_DQ_REST_MIN_RATIO = 0.5; /* ... which is at least this share of its opposite side */
static const double IC_DQ_FRAME_TOL = 0.75;  /* corners may lie this far (cells) outside the frame */
static const double IC_DQ_RUN_SKIP = 1.0;   /* run-on is read from this far past a corner (cells) */
static const double IC_DQ_RUN_LEN = 5.0;    /* ... over at most this many cells ... */
static const double IC_DQ_RUN_FRAC = 0.5;   /* ... and at most this share of the side's length */
static const double IC_DQ_INSIDE_W = 0.5;   /* IC_DQ_TOPK best are scored again, adding this times the inside map's contrast */
static const double IC_DQ_FOURTH_COST = 0.06; /* score cost of a fourth side found from three others (pass 2) */
static const double IC_DQ_END_MIN = 0.15; /* a far corner: where the map along a side drops by at least this */
enum { IC_DQ_FAR_ENDS = 3 };                /* far-corner candidates per side, at most */
static const double IC_DQ_END_LEN = 3.0, IC_DQ_END_FRAC = 0.2; /* a side's ends: its last cells before a corner, at most this share of it */
/* a candidate's score: these times its sides' mean support, its weakest side's, its weakest
 * end's, less its strongest run-on (scripts/detector/misses.py reads them from here) */
static const double IC_DQ_W_MEAN = 0.45, IC_DQ_W_WEAKEST = 0.35, IC_DQ_W_ENDS = 0.2, IC_DQ_W_RUNON = 0.4;

/* Two lines as neighbouring sides: their crossing, where it lies along the first line, and
 * the flags below. */
typedef struct dq_pair {
    ic_point x;
    double t;          /* along(first line, x) */
    int32_t corner;    /* they cross at >= 25 degrees, inside the frame (with its tolerance) */
    int32_t opposite;  /* roughly parallel (< 60 degrees), not both frame edges */
} dq_pair;

static inline float map_at(const ic_dq_map *m, double u, double v) { return ic__dq_sample(m, m->p, u, v); }

static void line_set(ic_dq_line *l, double theta, double c) {
    l->nx = cos(theta);
    l->ny = sin(theta);
    l->c = c;
}

/* Weighted least squares over the cells with p >= IC_DQ_VOTE_P within 1 cell of the line
 * (each row visited only over the columns that can be that close). */
static void refit(const ic_dq_map *m, ic_dq_line *l) {
    double sw = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int32_t j = 0; j < m->h; j++) {
        const float *row = m->p + (size_t)j * m->stride;
        const double v = j + 0.5;
        int32_t i0 = 0, i1 = m->w - 1;
        if (fabs(l->nx) > 1e-6) { /* |nx u + ny v - c| <= 1, widened by a cell */
            double ua = (l->c - l->ny * v - 1) / l->nx, ub = (l->c - l->ny * v + 1) / l->nx;
            if (ua > ub) { double t = ua; ua = ub; ub = t; }
            if (ua > i0 + 1) i0 = ua >= m->w ? m->w : (int32_t)ua - 1;
            if (ub < i1 - 1) i1 = ub < 0 ? -1 : (int32_t)ub + 1;
        }
        for (int32_t i = i0; i <= i1; i++) {
            float p = row[i];
            if (p < IC_DQ_VOTE_P) continue;
            double u = i + 0.5;
            if (fabs(l->nx * u + l->ny * v - l->c) > 1.0) continue;
            sw += p; sx += p * u; sy += p * v; sxx += p * u * u; syy += p * v * v; sxy += p * u * v;
        }
    }
    if (sw < IC_DQ_MIN_VOTES) return;
    double mx = sx / sw, my = sy / sw;
    double cxx = sxx / sw - mx * mx, cyy = syy / sw - my * my, cxy = sxy / sw - mx * my;
    double theta = 0.5 * atan2(2 * cxy, cxx - cyy) + DQ_PI / 2; /* normal: the minor axis */
    double nx = cos(theta), ny = sin(theta);
    if (nx * l->nx + ny * l->ny < 0) { nx = -nx; ny = -ny; }
    if (nx * l->nx + ny * l->ny < cos(4 * DQ_PI / 180)) return; /* keep the Hough angle */
    l->nx = nx;
    l->ny = ny;
    l->c = nx * mx + ny * my;
}

/* The strongest run along a line: the largest sum, over a stretch of it, of the map's
 * excess over IC_DQ_RUN_P (in cells). A page side is a stretch of high probability; a line
 * through scattered texture responses can collect as many votes with no such stretch. */
static double strongest_run(const ic_dq_map *m, const ic_dq_line *l, double diag) {
    const double dx = -l->ny, dy = l->nx, px = l->nx * l->c, py = l->ny * l->c;
    double run = 0, best = 0;
    for (double t = -diag; t <= diag; t += IC_DQ_STEP) {
        const double v = (map_at(m, px + t * dx, py + t * dy) - IC_DQ_RUN_P) * IC_DQ_STEP;
        run = run > 0 ? run + v : v;
        if (run > best) best = run;
    }
    return best;
}

/* Hough lines of the map (`diag`: the map's diagonal plus margin; `acc`: nrho offset bins per
 * angle, from -(nrho / 2 - 1) cells, as lay_out sized it); returns the number found
 * (<= IC_DQ_MAX_LINES). The next IC_DQ_MAX_REST maxima that are not near-duplicates of one go
 * to `rest`, their number to *nrest. */
static int32_t hough(const ic_dq_map *m, double diag, int32_t nrho, float *acc, ic_dq_line *lines, ic_dq_line *rest, int32_t *nrest) {
    const int32_t off = nrho / 2 - 1;
    memset(acc, 0, (size_t)IC_DQ_THETA * nrho * sizeof *acc);
    double cs[IC_DQ_THETA], sn[IC_DQ_THETA];
    for (int32_t t = 0; t < IC_DQ_THETA; t++) { cs[t] = cos(t * DQ_PI / IC_DQ_THETA); sn[t] = sin(t * DQ_PI / IC_DQ_THETA); }
    void (*votes)(const float *, int32_t, int32_t, float, const double *, const double *, int32_t, int32_t, float *) =
        ic__dq_votes_row_c;
#if IC_X86
    if (m->cpu & IC_CPU_AVX512) votes = ic__dq_votes_row_avx512;
#endif
    for (int32_t j = 0; j < m->h; j++) votes(m->p + (size_t)j * m->stride, m->w, j, IC_DQ_VOTE_P, cs, sn, off, nrho, acc);
    /* local maxima (8-neighbourhood; angles wrap with the offset mirrored) */
    struct peak { double v; int32_t t, b; } peaks[IC_DQ_PEAKS]; /* v: a float's votes, exactly */
    int32_t np = 0;
    for (int32_t t = 0; t < IC_DQ_THETA; t++) {
        for (int32_t b = 1; b < nrho - 1; b++) {
            float v = acc[(size_t)t * nrho + b];
            if (v < IC_DQ_MIN_VOTES) continue;
            int is_max = 1;
            for (int32_t dt = -1; dt <= 1 && is_max; dt++) {
                for (int32_t db = -1; db <= 1; db++) {
                    if (!dt && !db) continue;
                    int32_t tt = t + dt, bb = b + db;
                    if (tt < 0) { tt += IC_DQ_THETA; bb = nrho - 1 - bb; }
                    if (tt >= IC_DQ_THETA) { tt -= IC_DQ_THETA; bb = nrho - 1 - bb; }
                    if (bb < 0 || bb >= nrho) continue;
                    float o = acc[(size_t)tt * nrho + bb];
                    if (o > v || (o == v && (dt < 0 || (dt == 0 && db < 0)))) { is_max = 0; break; }
                }
            }
            if (!is_max) continue;
            /* keep the IC_DQ_PEAKS strongest, sorted descending */
            const int32_t at = ic__dq_sorted_slot(peaks, sizeof *peaks, offsetof(struct peak, v), &np, IC_DQ_PEAKS, v);
            if (at >= 0) peaks[at] = (struct peak){v, t, b};
        }
    }
    /* the peaks as refitted lines, ranked by their strongest run rather than their votes: a
     * short page side (a card, a receipt) is a strong run that collects fewer votes than a
     * long line through scattered texture responses */
    ic_dq_line cand[IC_DQ_PEAKS];
    double key[IC_DQ_PEAKS];
    int32_t ord[IC_DQ_PEAKS];
    for (int32_t i = 0; i < np; i++) {
        ic_dq_line *l = &cand[i];
        line_set(l, peaks[i].t * DQ_PI / IC_DQ_THETA, peaks[i].b - off + 0.5);
        l->votes = peaks[i].v;
        l->frame = 0;
        refit(m, l);
        key[i] = strongest_run(m, l, diag);
        ord[i] = i;
    }
    for (int32_t a = 1; a < np; a++) { /* stable: equal keys keep the votes' order */
        for (int32_t b = a; b > 0 && key[ord[b]] > key[ord[b - 1]]; b--) { int32_t t = ord[b]; ord[b] = ord[b - 1]; ord[b - 1] = t; }
    }
    /* a near-duplicate of a line is dropped, also from the other maxima: as a side in place
     * of the line it fits worse (measured: it won over right sides as often as it fixed one) */
    int32_t n = 0;
    *nrest = 0;
    for (int32_t i = 0; i < np; i++) {
        const ic_dq_line l = cand[ord[i]];
        int dup = 0;
        for (int32_t k = 0; k < n && !dup; k++) {
            double dot = l.nx * lines[k].nx + l.ny * lines[k].ny;
            double c = dot < 0 ? -l.c : l.c;
            if (fabs(dot) >= cos(IC_DQ_DUP_DEG * DQ_PI / 180) && fabs(c - lines[k].c) < IC_DQ_DUP_CELLS) dup = 1;
        }
        if (dup) continue;
        if (n < IC_DQ_MAX_LINES) lines[n++] = l;
        else if (*nrest < IC_DQ_MAX_REST) rest[(*nrest)++] = l;
    }
    return n;
}

/* Profile: prefix integrals of the map along the line from t = t0, nt - 1 steps of IC_DQ_STEP
 * (a line's: from -T to T; a side found in pass 2: its stretch and the run-on beyond it). */
static void profile(const ic_dq_map *m, ic_dq_line *l, float *prof, int32_t nt, double t0) {
    l->prof = prof;
    l->t0 = t0;
    l->nt = nt;
    const double dx = -l->ny, dy = l->nx, px = l->nx * l->c, py = l->ny * l->c;
    prof[0] = 0;
    double sum = 0;
    for (int32_t i = 0; i < nt - 1; i++) {
        double t = t0 + (i + 0.5) * IC_DQ_STEP;
        sum += l->frame ? 0.0 : map_at(m, px + t * dx, py + t * dy) * IC_DQ_STEP;
        prof[i + 1] = (float)sum;
    }
}

/* Integral of the profile from t = a to b (a <= b), clipped to the profile. */
static inline double integral(const ic_dq_line *l, double a, double b) {
    double fa = (a - l->t0) / IC_DQ_STEP, fb = (b - l->t0) / IC_DQ_STEP;
    double hi = l->nt - 1;
    fa = fa < 0 ? 0 : fa > hi ? hi : fa;
    fb = fb < 0 ? 0 : fb > hi ? hi : fb;
    int32_t ia = (int32_t)fa, ib = (int32_t)fb;
    if (ia >= l->nt - 1) ia = l->nt - 2;
    if (ib >= l->nt - 1) ib = l->nt - 2;
    double va = l->prof[ia] + (fa - ia) * (l->prof[ia + 1] - l->prof[ia]);
    double vb = l->prof[ib] + (fb - ib) * (l->prof[ib + 1] - l->prof[ib]);
    return vb - va;
}

static inline double along(const ic_dq_line *l, ic_point p) { return -l->ny * p.x + l->nx * p.y; }

static int intersect(const ic_dq_line *a, const ic_dq_line *b, ic_point *p) {
    double det = a->nx * b->ny - a->ny * b->nx;
    if (fabs(det) < 1e-9) return 0;
    p->x = (a->c * b->ny - a->ny * b->c) / det;
    p->y = (a->nx * b->c - a->c * b->nx) / det;
    return 1;
}

/* Corners may lie IC_DQ_FRAME_TOL cells outside the frame. */
static inline int in_frame(const ic_dq_map *m, ic_point p) {
    return p.x >= m->fx0 - IC_DQ_FRAME_TOL && p.x <= m->fx1 + IC_DQ_FRAME_TOL && p.y >= m->fy0 - IC_DQ_FRAME_TOL &&
           p.y <= m->fy1 + IC_DQ_FRAME_TOL;
}

/* |sin| of the angle between two lines. */
static inline double cross_sin(const ic_dq_line *a, const ic_dq_line *b) { return fabs(a->nx * b->ny - a->ny * b->nx); }

/* Whether two lines may be a quad's opposite sides: within 60 degrees of parallel (a page's
 * opposite sides, even in strong perspective). */
static inline int facing(const ic_dq_line *a, const ic_dq_line *b) { return cross_sin(a, b) <= sin(60 * DQ_PI / 180); }

/* What score_quad counts of one side (unscored for a frame edge). */
typedef struct dq_side {
    double side, ends, runon;
    int scored;
} dq_side;

/* The terms of the side of line l from ta to tb (either order); 0 if it is too short. */
static int side_terms(const ic_dq_line *l, double ta, double tb, dq_side *o) {
    if (ta > tb) { double t = ta; ta = tb; tb = t; }
    const double len = tb - ta;
    if (len < 2.0) return 0;
    o->scored = !l->frame;
    o->side = o->ends = 1;
    o->runon = 0;
    if (l->frame) return 1;
    /* a page side is supported along its length (one quarter may be hidden by a hand):
     * the side counts as its mean and its second-weakest quarter, so that a line
     * touching a curved contour for a stretch does not pass for a side */
    double qm[4];
    for (int j = 0; j < 4; j++) {
        qm[j] = integral(l, ta + j * len / 4, ta + (j + 1) * len / 4) / (len / 4);
    }
    for (int a = 1; a < 4; a++) {
        for (int b = a; b > 0 && qm[b] < qm[b - 1]; b--) { double t = qm[b]; qm[b] = qm[b - 1]; qm[b - 1] = t; }
    }
    o->side = 0.5 * integral(l, ta, tb) / len + 0.5 * qm[1];
    /* the last IC_DQ_END_LEN cells before each corner (also before a frame edge: a page cut by
     * the frame reaches it) */
    const double e = fmin(IC_DQ_END_LEN, IC_DQ_END_FRAC * len);
    o->ends = fmin(integral(l, ta, ta + e) / e, integral(l, tb - e, tb) / e);
    const double r = fmin(IC_DQ_RUN_LEN, IC_DQ_RUN_FRAC * len), k = IC_DQ_RUN_SKIP;
    o->runon = fmax(integral(l, ta - k - r, ta - k) / r, integral(l, tb + k, tb + k + r) / r);
    return 1;
}

/* An upper bound of side_terms' terms from ta to tb, from one look-up (a side counts its mean
 * and its second-weakest quarter, which is at most the mean of the three others: at most
 * 7/6 of the mean); 0 if side_terms would find it too short. */
static int side_bound(const ic_dq_line *l, double ta, double tb, dq_side *o) {
    if (ta > tb) { double t = ta; ta = tb; tb = t; }
    if (tb - ta < 2.0) return 0;
    o->scored = !l->frame;
    o->side = l->frame ? 1 : fmin(1.0, 7.0 / 6.0 * integral(l, ta, tb) / (tb - ta));
    o->ends = 1;
    o->runon = 0;
    return 1;
}

/* The score of four sides' terms; -HUGE_VAL when fewer than 3 are scored. A frame edge as a
 * side costs a little: a real fourth side about as well supported wins. */
static double combine(const dq_side t[4]) {
    double total = 0, weakest = 1, ends = 1, runon = 0;
    int scored = 0;
    for (int i = 0; i < 4; i++) {
        if (!t[i].scored) continue;
        total += t[i].side;
        weakest = fmin(weakest, t[i].side);
        ends = fmin(ends, t[i].ends);
        runon = fmax(runon, t[i].runon);
        scored++;
    }
    if (scored < 3) return -HUGE_VAL;
    return IC_DQ_W_MEAN * total / scored + IC_DQ_W_WEAKEST * weakest + IC_DQ_W_ENDS * ends - IC_DQ_W_RUNON * runon -
           (scored == 3 ? IC_DQ_FRAME_COST : 0);
}

/* Scores the quad with sides s[0..3] (in order around it); returns 0 if it is not a valid
 * page shape. */
static int score_quad(const ic_dq_map *m, const ic_dq_line *L, const int32_t s[4], double min_area, ic_dq_quad *q) {
    ic_point c[4];
    for (int i = 0; i < 4; i++) {
        if (!intersect(&L[s[i]], &L[s[(i + 1) & 3]], &c[i])) return 0; /* c[i] ends side i */
    }
    /* convex and simple: all turns of the same sign */
    double area2 = 0;
    int sign = 0;
    for (int i = 0; i < 4; i++) {
        ic_point a = c[i], b = c[(i + 1) & 3], d = c[(i + 2) & 3];
        double cr = (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x);
        int sg = cr > 0 ? 1 : cr < 0 ? -1 : 0;
        if (!sg || (sign && sg != sign)) return 0;
        sign = sg;
        area2 += a.x * b.y - b.x * a.y;
    }
    double area = fabs(area2) / 2;
    if (area < min_area * m->fw * m->fh) return 0;
    for (int i = 0; i < 4; i++) {
        if (!in_frame(m, c[i])) return 0;
    }
    dq_side t[4];
    for (int i = 0; i < 4; i++) {
        if (!side_terms(&L[s[i]], along(&L[s[i]], c[(i + 3) & 3]), along(&L[s[i]], c[i]), &t[i])) return 0;
    }
    q->score = combine(t);
    if (q->score == -HUGE_VAL) return 0;
    for (int i = 0; i < 4; i++) {
        q->corner[i] = c[i];
        q->side[i] = s[i];
    }
    return 1;
}


/* ---- the search ---------------------------------------------------------------------------- */

enum { IC_DQ_NL = IC_DQ_MAX_LINES + 4 }; /* lines and frame edges, at most */
/* Side terms kept from pass 0 for pass 1 (which needs the same ones): an opposite pair (a, b),
 * a < b, has room for those of the lines x in (a, total); at most the sum over a of
 * (NL - 1 - a)^2 = (NL - 1) NL (2 NL - 1) / 6 slots (4324, 135 KiB), after NL unused ones so
 * that a pair's table indexed by x never starts before the slots. */
enum { IC_DQ_SIDE_SLOTS = (IC_DQ_NL - 1) * IC_DQ_NL * (2 * IC_DQ_NL - 1) / 6 + IC_DQ_NL };

/* An opposite pair (a, b), a < b, and the lines that may complete it: each x in `sides`
 * (x > a, x != b) meets a and b at corners, and tx[x] holds the terms of its side between
 * them. */
typedef struct dq_opposite {
    uint64_t sides;
    dq_side *tx;
} dq_opposite;

/* An other maximum r as the fourth side of a pair's candidates: the terms of its side between
 * the pair's lines, a bound until first needed. */
typedef struct dq_rest {
    int32_t r;
    int32_t known; /* t is: 2 a bound, 1 the terms, -1 too short */
    dq_side t;
} dq_rest;

/* The scratch of the search, as offsets from its base (64-byte aligned, detect.c). */
typedef struct dq_layout {
    size_t acc, profs, pairs, rest_pairs, opposites, slots, regions, bytes;
    int32_t nt, nrho; /* profile samples per line; Hough offset bins per angle */
    double diag;
} dq_layout;

static void lay_out(int32_t mw, int32_t mh, dq_layout *o) {
    o->diag = sqrt((double)mw * mw + (double)mh * mh) + 4;
    o->nrho = 2 * (int32_t)ceil(o->diag) + 4;
    o->nt = (int32_t)(2 * o->diag / IC_DQ_STEP) + 4;
    o->acc = 0;
    o->profs = o->acc + IC_DQ_THETA * (size_t)o->nrho * sizeof(float);
    o->pairs = (o->profs + (size_t)IC_DQ_LINE_ROOM * (size_t)o->nt * sizeof(float) + 63) & ~(size_t)63;
    o->rest_pairs = o->pairs + IC_DQ_NL * IC_DQ_NL * sizeof(dq_pair);
    o->opposites = o->rest_pairs + IC_DQ_MAX_REST * IC_DQ_NL * sizeof(dq_pair);
    o->slots = o->opposites + IC_DQ_NL * IC_DQ_NL * sizeof(dq_opposite);
    o->regions = (o->slots + IC_DQ_SIDE_SLOTS * sizeof(dq_side) + 63) & ~(size_t)63;
    o->bytes = o->regions + ic__dq_region_scratch(mw, mh);
}

size_t ic__dq_scratch(int32_t mw, int32_t mh) {
    dq_layout o;
    lay_out(mw, mh, &o);
    return o.bytes;
}

/* The search's lines, their pair tables and the best candidates so far. */
typedef struct dq_search {
    const ic_dq_map *m;
    double min_area;
    ic_dq_line *L; /* the lines and frame edges (L[0 ..< total]), the other maxima after them */
    int32_t total, nrest;
    float *profs; /* room for the lines' profiles, nt floats each */
    int32_t nt, nrho; /* lay_out's */
    double diag;
    dq_pair *P;   /* P[i * total + j]: lines i and j (t along line i) */
    dq_pair *R;   /* R[r * total + i]: other maximum r and line i (t along line i) */
    uint64_t corner[IC_DQ_NL], opposite[IC_DQ_NL]; /* P's flags as bit sets (total <= 64) */
    dq_opposite *opp; /* opp[a * total + b]: pass 0's, for pass 1 */
    dq_side *slots;
    int32_t used; /* slots handed out */
    ic_dq_quad top[IC_DQ_TOPK]; /* the best candidates by this score, descending */
    int32_t ntop;
} dq_search;

static inline const dq_pair *pair(const dq_search *s, int32_t i, int32_t j) { return &s->P[i * s->total + j]; }
static inline const dq_pair *rest_pair(const dq_search *s, int32_t r, int32_t i) { return &s->R[r * s->total + i]; }
static inline int is_frame(const dq_search *s, int32_t i) { return s->L[i].frame != 0; }

/* The score a candidate must beat to be kept. */
static inline double search_bar(const dq_search *s) {
    return s->ntop == IC_DQ_TOPK ? s->top[IC_DQ_TOPK - 1].score : -HUGE_VAL;
}

/* Keeps q if it is among the IC_DQ_TOPK best so far (the earlier of equals first). */
static void keep_top(dq_search *s, const ic_dq_quad *q) {
    const int32_t at = ic__dq_sorted_slot(s->top, sizeof *s->top, offsetof(ic_dq_quad, score), &s->ntop, IC_DQ_TOPK, q->score);
    if (at >= 0) s->top[at] = *q;
}

static const dq_side IC_DQ_PERFECT = {1, 1, 0, 1}, IC_DQ_FRAME = {1, 1, 0, 0};

/* A side whose terms are not known yet, counted as perfect (unscored if a frame edge). */
static inline dq_side unknown_side(const ic_dq_line *l) { return (dq_side){1, 1, 0, !l->frame}; }

/* Whether sides a, c, b cannot beat `bar` whatever the fourth side: counted as perfect, or as
 * a frame edge (then unscored, which may score higher). */
static inline int cannot_beat(dq_side ta, dq_side tc, dq_side tb, double bar) {
    const dq_side t1[4] = {ta, tc, tb, IC_DQ_PERFECT}, t2[4] = {ta, tc, tb, IC_DQ_FRAME};
    return fmax(combine(t1), combine(t2)) <= bar;
}

/* The lines, the frame edges after them (L[0 ..< total], profiled) and the other maxima
 * after those (profiled when first needed). */
static void find_lines(dq_search *s, float *acc) {
    const ic_dq_map *m = s->m;
    ic_dq_line *L = s->L;
    const int32_t n = hough(m, s->diag, s->nrho, acc, L, L + IC_DQ_NL, &s->nrest);
    s->total = n + 4;
    memmove(L + s->total, L + IC_DQ_NL, (size_t)s->nrest * sizeof *L);
    /* the frame edges, as lines with normals pointing into the frame */
    const double fr[4][3] = {{0, 1, m->fy0}, {-1, 0, -m->fx1}, {0, -1, -m->fy1}, {1, 0, m->fx0}};
    for (int e = 0; e < 4; e++) {
        ic_dq_line *l = &L[n + e];
        l->nx = fr[e][0];
        l->ny = fr[e][1];
        l->c = fr[e][2];
        l->votes = 0;
        l->frame = 1 << e;
    }
    for (int32_t i = 0; i < s->total; i++) profile(m, &L[i], s->profs + (size_t)i * s->nt, s->nt, -s->diag);
    for (int32_t i = s->total; i < s->total + s->nrest; i++) L[i].prof = NULL;
}

/* The line pairs that may meet at a corner (crossing inside the frame) or face each other,
 * lines with lines and other maxima with lines; the former also as bit sets. */
static void table_pairs(dq_search *s) {
    const ic_dq_map *m = s->m;
    const ic_dq_line *L = s->L;
    const int32_t total = s->total;
    const double min_sin = sin(25 * DQ_PI / 180);
    for (int32_t i = 0; i < total; i++) {
        for (int32_t j = 0; j < total; j++) {
            dq_pair *p = &s->P[i * total + j];
            const double sn = cross_sin(&L[i], &L[j]);
            p->opposite = i != j && facing(&L[i], &L[j]) && !(L[i].frame && L[j].frame);
            p->corner = i != j && sn >= min_sin && intersect(&L[i], &L[j], &p->x) && in_frame(m, p->x);
            p->t = p->corner ? along(&L[i], p->x) : 0;
        }
    }
    for (int32_t r = 0; r < s->nrest; r++) {
        const ic_dq_line *lr = &L[total + r];
        for (int32_t i = 0; i < total; i++) {
            dq_pair *p = &s->R[r * total + i];
            const double sn = cross_sin(lr, &L[i]);
            p->opposite = facing(lr, &L[i]);
            p->corner = sn >= min_sin && intersect(lr, &L[i], &p->x) && in_frame(m, p->x);
            p->t = p->corner ? along(&L[i], p->x) : 0;
        }
    }
    for (int32_t i = 0; i < total; i++) {
        s->corner[i] = s->opposite[i] = 0;
        for (int32_t j = 0; j < total; j++) {
            s->corner[i] |= (uint64_t)pair(s, i, j)->corner << j;
            s->opposite[i] |= (uint64_t)pair(s, i, j)->opposite << j;
        }
    }
}

/* The lines x > a (x != b) meeting both lines of the opposite pair (a, b) at corners, with
 * the terms of their sides between those corners (a side's terms depend only on its line and
 * its two crossings), into slots kept for pass 1, which needs the same. */
static dq_opposite *pair_sides(dq_search *s, int32_t a, int32_t b) {
    dq_opposite *o = &s->opp[a * s->total + b];
    o->tx = s->slots + s->used - (a + 1); /* tx[x] for x in (a, total) */
    s->used += s->total - a - 1;
    uint64_t xs = s->corner[a] & s->corner[b] & ~((2ull << a) - 1) & ~(1ull << b);
    for (uint64_t xm = xs; xm; xm &= xm - 1) {
        const int32_t x = __builtin_ctzll(xm);
        if (!side_terms(&s->L[x], pair(s, x, a)->t, pair(s, x, b)->t, &o->tx[x])) xs &= ~(1ull << x);
    }
    o->sides = xs;
    return o;
}

/* Pass 0: the candidates a, c, b, d of four lines, c < d both completing the pair (a, b) and
 * facing each other, at most one of the four a frame edge. Sides are scored only while the
 * candidate, its unknown sides counted as perfect, could still beat the bar. */
static void four_line_candidates(dq_search *s, int32_t a, int32_t b, const dq_opposite *o) {
    const dq_side ta0 = unknown_side(&s->L[a]), tb0 = unknown_side(&s->L[b]);
    for (uint64_t cm = o->sides; cm; cm &= cm - 1) {
        const int32_t c = __builtin_ctzll(cm);
        const double bar = search_bar(s);
        if (cannot_beat(ta0, o->tx[c], tb0, bar)) continue;
        for (uint64_t dm = o->sides & s->opposite[c] & ~((2ull << c) - 1); dm; dm &= dm - 1) {
            const int32_t d = __builtin_ctzll(dm);
            if (is_frame(s, a) + is_frame(s, b) + is_frame(s, c) + is_frame(s, d) > 1) continue;
            dq_side t[4] = {ta0, o->tx[c], tb0, o->tx[d]};
            if (combine(t) <= bar) continue;
            if (!side_terms(&s->L[a], pair(s, a, d)->t, pair(s, a, c)->t, &t[0]) || combine(t) <= bar ||
                !side_terms(&s->L[b], pair(s, b, c)->t, pair(s, b, d)->t, &t[2]) || combine(t) <= bar) {
                continue;
            }
            const int32_t sides[4] = {a, c, b, d};
            ic_dq_quad q;
            if (score_quad(s->m, s->L, sides, s->min_area, &q)) keep_top(s, &q);
        }
    }
}

/* Pass 1: the other maxima meeting lines a and b at corners that, as the fourth side counted
 * by their bound, could beat the bar by their cost; their number. */
static int32_t rest_sides(dq_search *s, int32_t a, int32_t b, dq_rest *out) {
    const dq_side ta0 = unknown_side(&s->L[a]), tb0 = unknown_side(&s->L[b]);
    const double bar = search_bar(s) + IC_DQ_REST_COST;
    int32_t n = 0;
    for (int32_t r = 0; r < s->nrest; r++) {
        const dq_pair *ra = rest_pair(s, r, a), *rb = rest_pair(s, r, b);
        if (!ra->corner || !rb->corner) continue;
        ic_dq_line *lr = &s->L[s->total + r];
        if (!lr->prof) profile(s->m, lr, s->profs + (size_t)(s->total + r) * s->nt, s->nt, -s->diag);
        if (!side_bound(lr, along(lr, ra->x), along(lr, rb->x), &out[n].t)) continue;
        const dq_side t[4] = {ta0, IC_DQ_PERFECT, tb0, out[n].t};
        if (combine(t) <= bar) continue;
        out[n].r = r;
        out[n++].known = 2;
    }
    return n;
}

/* Pass 1: the candidates a, c, b, r of three lines and an other maximum r of `rest` facing c,
 * at most one frame edge among a, b, c; r's cost is paid. */
static void rest_candidates(dq_search *s, int32_t a, int32_t b, const dq_opposite *o, dq_rest *rest, int32_t nrest) {
    const ic_dq_line *L = s->L;
    const dq_side ta0 = unknown_side(&L[a]), tb0 = unknown_side(&L[b]);
    for (uint64_t cm = o->sides; cm; cm &= cm - 1) {
        const int32_t c = __builtin_ctzll(cm);
        const double bar = search_bar(s);
        if (cannot_beat(ta0, o->tx[c], tb0, bar)) continue;
        if (is_frame(s, a) + is_frame(s, b) + is_frame(s, c) > 1) continue;
        const double bar_r = bar + IC_DQ_REST_COST;
        for (int32_t j = 0; j < nrest; j++) {
            dq_rest *e = &rest[j];
            if (!rest_pair(s, e->r, c)->opposite) continue;
            const dq_pair *ra = rest_pair(s, e->r, a), *rb = rest_pair(s, e->r, b);
            const ic_dq_line *lr = &L[s->total + e->r];
            const double ta = along(lr, ra->x), tb = along(lr, rb->x);
            /* a page's opposite sides are of comparable length, even in strong perspective;
             * a short cut across a corner of a triangle or a polygon is not a side */
            if (fabs(ta - tb) < IC_DQ_REST_MIN_RATIO * fabs(pair(s, c, a)->t - pair(s, c, b)->t)) continue;
            dq_side t[4] = {ta0, o->tx[c], tb0, e->t};
            if (combine(t) <= bar_r) continue;
            if (e->known == 2) e->known = side_terms(lr, ta, tb, &e->t) ? 1 : -1;
            if (e->known < 0) continue;
            t[3] = e->t;
            if (combine(t) <= bar_r) continue;
            if (!side_bound(&L[a], ra->t, pair(s, a, c)->t, &t[0]) || combine(t) <= bar_r ||
                !side_bound(&L[b], pair(s, b, c)->t, rb->t, &t[2]) || combine(t) <= bar_r) {
                continue;
            }
            if (!side_terms(&L[a], ra->t, pair(s, a, c)->t, &t[0]) || combine(t) <= bar_r ||
                !side_terms(&L[b], pair(s, b, c)->t, rb->t, &t[2]) || combine(t) <= bar_r) {
                continue;
            }
            const int32_t sides[4] = {a, c, b, s->total + e->r};
            ic_dq_quad q;
            if (!score_quad(s->m, L, sides, s->min_area, &q)) continue;
            q.score -= IC_DQ_REST_COST;
            keep_top(s, &q);
        }
    }
}

/* ---- pass 2: a fourth side found from three others ------------------------------------------ */

/* The fourth sides the best candidates hold live in L from here (a pool of IC_DQ_TOPK + 1: one
 * is always free), their profiles in the profile area from the same index. */
enum { IC_DQ_POOL = IC_DQ_NL + IC_DQ_MAX_REST };

static inline ic_point point_at(const ic_dq_line *l, double t) {
    return (ic_point){l->nx * l->c - l->ny * t, l->ny * l->c + l->nx * t};
}

/* Where a page side along line l, starting at t0 and running in direction dir (+1 or -1), may
 * end: the places where the map's mean over the 3 cells before drops by at least IC_DQ_END_MIN
 * to its mean over the 4 cells from 1 cell after (local maxima of the drop, the largest
 * IC_DQ_FAR_ENDS), at least 2 cells from t0 and inside the frame; their number. */
static int32_t far_ends(const ic_dq_map *m, const ic_dq_line *l, double t0, double dir, double *out) {
    double drop[IC_DQ_FAR_ENDS];
    int32_t n = 0;
    double prev2 = -HUGE_VAL, prev = -HUGE_VAL, tprev = t0;
    const double dmax = 2 * (m->fw + m->fh) + 4; /* past the frame whatever t0 (a corner near it) */
    for (double d = 2.0; d <= dmax; d += IC_DQ_STEP) {
        const double t = t0 + dir * d;
        const int inside = in_frame(m, point_at(l, t));
        double e = -HUGE_VAL;
        if (inside) {
            const double before = dir > 0 ? integral(l, t - 3, t) : integral(l, t, t + 3);
            const double after = dir > 0 ? integral(l, t + 1, t + 5) : integral(l, t - 5, t - 1);
            e = before / 3 - after / 4;
        }
        if (prev >= IC_DQ_END_MIN && prev >= prev2 && prev > e) { /* a local maximum: keep the largest */
            int32_t at = n < IC_DQ_FAR_ENDS ? n++ : (prev > drop[n - 1] ? n - 1 : -1);
            for (; at > 0 && drop[at - 1] < prev; at--) { drop[at] = drop[at - 1]; out[at] = out[at - 1]; }
            if (at >= 0) { drop[at] = prev; out[at] = tprev; }
        }
        if (!inside) break;
        prev2 = prev;
        prev = e;
        tprev = t;
    }
    return n;
}

/* A free slot of the pool: one no kept candidate holds (a candidate of pass 2 holds one, so
 * of IC_DQ_TOPK + 1 one is free). */
static int32_t free_slot(const dq_search *s) {
    for (int32_t k = IC_DQ_POOL;; k++) {
        int used = 0;
        for (int32_t i = 0; i < s->ntop && !used; i++)
            for (int e = 0; e < 4; e++) used |= s->top[i].side[e] == k;
        if (!used) return k;
    }
}

/* The line through p and q (len: their distance, > 0), not a frame edge, not profiled. */
static ic_dq_line line_through(ic_point p, ic_point q, double len) {
    ic_dq_line l = {(p.y - q.y) / len, (q.x - p.x) / len, 0, 0, 0, NULL, 0, 0};
    l.c = l.nx * p.x + l.ny * p.y;
    return l;
}

/* Profiles pool line k over its stretch from p to q and the run-on beyond (all a side's terms
 * read); 0 if the stretch is too short for a side or the profile too long for its room. */
static int profile_stretch(dq_search *s, int32_t k, ic_point p, ic_point q) {
    ic_dq_line *l = &s->L[k];
    const double reach = IC_DQ_RUN_SKIP + IC_DQ_RUN_LEN + 1, t1 = along(l, p), t2 = along(l, q);
    const int32_t nt = (int32_t)((fabs(t2 - t1) + 2 * reach) / IC_DQ_STEP) + 2;
    if (fabs(t2 - t1) < 2.0 || nt > s->nt) return 0;
    profile(s->m, l, s->profs + (size_t)k * s->nt, nt, fmin(t1, t2) - reach);
    return 1;
}

/* Pass 2's candidate a, c, b, k: the fourth side (pool line k) profiled over its stretch from p
 * to q and the run-on beyond, scored, kept if among the best after its cost. */
static void try_fourth_side(dq_search *s, int32_t a, int32_t c, int32_t b, int32_t k, ic_point p, ic_point q) {
    if (!profile_stretch(s, k, p, q)) return;
    const int32_t sides[4] = {a, c, b, k};
    ic_dq_quad r;
    if (!score_quad(s->m, s->L, sides, s->min_area, &r)) return;
    r.score -= IC_DQ_FOURTH_COST;
    if (r.score > search_bar(s)) keep_top(s, &r);
}

/* Pass 2 when one neighbour of side i is a frame edge (the page is cut by the photo's edge):
 * the fourth side runs from each place where the other neighbour may end, parallel to the
 * opposite side c, to the frame edge. */
static void replace_side_by_frame(dq_search *s, const ic_dq_quad *q, int i) {
    const ic_dq_map *m = s->m;
    ic_dq_line *L = s->L;
    const int32_t a = q->side[(i + 1) & 3], c = q->side[(i + 2) & 3], b = q->side[(i + 3) & 3];
    /* the neighbour that is not the frame edge runs from its corner with c to its corner with side i */
    const int a_frame = L[a].frame != 0;
    const int32_t n = a_frame ? b : a;
    const ic_point at_c = q->corner[a_frame ? (i + 2) & 3 : (i + 1) & 3], at_i = q->corner[a_frame ? (i + 3) & 3 : i];
    const double t0 = along(&L[n], at_c), dir = along(&L[n], at_i) > t0 ? 1 : -1;
    double e[IC_DQ_FAR_ENDS];
    const int32_t ne = far_ends(m, &L[n], t0, dir, e);
    for (int32_t u = 0; u < ne; u++) {
        const int32_t k = free_slot(s);
        ic_dq_line *l = &L[k];
        const ic_point p = point_at(&L[n], e[u]);
        *l = (ic_dq_line){L[c].nx, L[c].ny, L[c].nx * p.x + L[c].ny * p.y, 0, 0, NULL, 0, 0};
        ic_point f;
        if (intersect(l, &L[a_frame ? a : b], &f)) try_fourth_side(s, a, c, b, k, p, f);
    }
}

/* Pass 2: side i of candidate q replaced by one found from the three others: its neighbours
 * a and b (not frame edges) may end elsewhere than where they meet it (far_ends, running away
 * from the opposite side c); each pair of such ends makes a fourth side, and a candidate that
 * pays IC_DQ_FOURTH_COST. A short side (a card's, a receipt's end) collects too few Hough votes
 * to rank among the lines, a faint one runs above IC_DQ_RUN_P too little: the best candidates
 * then hold the three other sides and a wrong fourth (a text line, the next texture line). */
static void replace_side(dq_search *s, const ic_dq_quad *q, int i) {
    const ic_dq_map *m = s->m;
    ic_dq_line *L = s->L;
    const int32_t a = q->side[(i + 1) & 3], c = q->side[(i + 2) & 3], b = q->side[(i + 3) & 3];
    if (L[a].frame && L[b].frame) return;
    if (L[a].frame || L[b].frame) {
        replace_side_by_frame(s, q, i);
        return;
    }
    /* a runs from corner i (where it meets side i) to corner i + 1 (where it meets c); b from
     * corner i + 2 (c) to corner i + 3 (side i) */
    const ic_point ac = q->corner[(i + 1) & 3], bc = q->corner[(i + 2) & 3];
    const double ta0 = along(&L[a], ac), tb0 = along(&L[b], bc);
    const double dir_a = along(&L[a], q->corner[i]) > ta0 ? 1 : -1;
    const double dir_b = along(&L[b], q->corner[(i + 3) & 3]) > tb0 ? 1 : -1;
    double ea[IC_DQ_FAR_ENDS], eb[IC_DQ_FAR_ENDS];
    const int32_t na = far_ends(m, &L[a], ta0, dir_a, ea);
    const int32_t nb = na ? far_ends(m, &L[b], tb0, dir_b, eb) : 0;
    const double clen = hypot(ac.x - bc.x, ac.y - bc.y);
    for (int32_t u = 0; u < na; u++) {
        for (int32_t v = 0; v < nb; v++) {
            const ic_point qa = point_at(&L[a], ea[u]), qb = point_at(&L[b], eb[v]);
            const double len = hypot(qb.x - qa.x, qb.y - qa.y);
            if (len < 2.0 || len < IC_DQ_REST_MIN_RATIO * clen) continue;
            const int32_t k = free_slot(s);
            L[k] = line_through(qa, qb, len);
            if (facing(&L[k], &L[c])) try_fourth_side(s, a, c, b, k, qa, qb);
        }
    }
}

/* ---- region candidates: pages as regions of the inside map ------------------------------------ */

/* The region candidates' sides live in L from here, 4 a region. */
enum { IC_DQ_REGION_LINES = IC_DQ_POOL + IC_DQ_TOPK + 1 };

/* The frame edge (0 top, 1 right, 2 bottom, 3 left) that both a and b lie within 1.5 cells of;
 * -1 if none. */
static int frame_edge_of(const ic_dq_map *m, ic_point a, ic_point b) {
    const double tol = 1.5;
    if (fabs(a.y - m->fy0) < tol && fabs(b.y - m->fy0) < tol) return 0;
    if (fabs(a.x - m->fx1) < tol && fabs(b.x - m->fx1) < tol) return 1;
    if (fabs(a.y - m->fy1) < tol && fabs(b.y - m->fy1) < tol) return 2;
    if (fabs(a.x - m->fx0) < tol && fabs(b.x - m->fx0) < tol) return 3;
    return -1;
}

/* The largest regions of the inside map as candidates (before pass 2, which may mend them). A
 * small card or receipt on a texture (a keyboard, tiles, a grid) is a clear region of the
 * inside map and a clear outline in the boundary map, yet its short sides collect too few
 * Hough votes to rank among the texture's long lines, and pass 2 needs three of its sides
 * among the best candidates. Each side of a region's quad is refitted to the boundary map near
 * it (a side along a frame edge is that edge) and the candidate scored like the others, at no
 * cost (on the design splits a cost of 0.03 found half the pages it did; a bonus of 0.03
 * found 9 and lost 6). */
static void region_candidates(dq_search *s, uint8_t *scratch) {
    const ic_dq_map *m = s->m;
    ic_point quads[IC_DR_MAX_REGIONS][4];
    const int32_t n = ic__dq_inside_regions(m, scratch, s->min_area * m->fw * m->fh, quads, IC_DR_MAX_REGIONS);
    for (int32_t r = 0; r < n; r++) {
        int32_t sides[4];
        int ok = 1;
        for (int i = 0; i < 4 && ok; i++) {
            const ic_point a = quads[r][i], b = quads[r][(i + 1) & 3];
            const int e = frame_edge_of(m, a, b);
            if (e >= 0) {
                sides[i] = s->total - 4 + e; /* find_lines puts the frame edges last, in this order */
                continue;
            }
            const double len = hypot(b.x - a.x, b.y - a.y);
            if (!(ok = len >= 2.0)) break;
            const int32_t k = IC_DQ_REGION_LINES + 4 * r + i;
            ic_dq_line *l = &s->L[k];
            *l = line_through(a, b, len);
            refit(m, l);
            refit(m, l); /* the region's edge may lie a cell from the ridge: a second step reaches it */
            profile(m, l, s->profs + (size_t)k * s->nt, s->nt, -s->diag);
            sides[i] = k;
        }
        ic_dq_quad q;
        if (!ok || !score_quad(m, s->L, sides, s->min_area, &q)) continue;
        if (q.score > search_bar(s)) keep_top(s, &q);
    }
}

/* ---- the ranking (step 7) --------------------------------------------------------------- */

/* The ranker's inputs for candidate q (its hand-weighted score in q->score), into f. Their
 * order is the trees' (scripts/detector/ranker.py trains on what ic_detect_candidates
 * reports): a new input goes last, and the trees are retrained. f[32] and f[33] are set by
 * the caller, relative to the other candidates. */
static void candidate_features(const dq_search *s, const ic_dq_quad *q, int32_t rank, const double stats[3],
                               double *f, int32_t *frame_sides_out) {
    const ic_dq_map *m = s->m;
    const ic_dq_line *L = s->L;
    const ic_point *c = q->corner;
    int32_t frame_sides = 0;
    for (int e = 0; e < 4; e++) frame_sides |= (L[q->side[e]].frame != 0) << e;
    *frame_sides_out = frame_sides;
    double in, out;
    const double contrast = ic__dq_inside_contrast(m, c, frame_sides, &in, &out);
    /* each side's terms (a frame edge's side counts 2 in the sorted list: above any map side),
     * its length, and where its line came from: a Hough line (how far down the ranking), an
     * other maximum, a fourth side of pass 2, a region's side */
    double sv[4], len[4], sum = 0, sum_ends = 0, sum_runon = 0, min_ends = 1, max_runon = 0;
    int32_t scored = 0, frames = 0, from[4] = {0, 0, 0, 0}, last_line = 0;
    for (int i = 0; i < 4; i++) {
        const int32_t k = q->side[i];
        const ic_dq_line *l = &L[k];
        const ic_point a = c[(i + 3) & 3], b = c[i];
        len[i] = hypot(b.x - a.x, b.y - a.y);
        if (l->frame) { frames++; sv[i] = 2.0; continue; }
        dq_side t;
        if (!side_terms(l, along(l, a), along(l, b), &t)) t = (dq_side){0, 0, 0, 1};
        sv[i] = t.side;
        sum += t.side;
        sum_ends += t.ends;
        sum_runon += t.runon;
        min_ends = fmin(min_ends, t.ends);
        max_runon = fmax(max_runon, t.runon);
        scored++;
        if (k < s->total) { from[0]++; if (k > last_line) last_line = k; }
        else if (k < s->total + s->nrest) from[1]++;
        else if (k < IC_DQ_REGION_LINES) from[2]++;
        else from[3]++;
    }
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && sv[j] < sv[j - 1]; j--) { const double t = sv[j]; sv[j] = sv[j - 1]; sv[j - 1] = t; }
    double area2 = 0, min_angle = 180, max_angle = 0, min_len = HUGE_VAL, max_len = 0;
    for (int i = 0; i < 4; i++) {
        const ic_point a = c[i], b = c[(i + 1) & 3], d = c[(i + 3) & 3];
        area2 += a.x * b.y - b.x * a.y;
        const double ux = b.x - a.x, uy = b.y - a.y, vx = d.x - a.x, vy = d.y - a.y;
        const double cosine = (ux * vx + uy * vy) / (hypot(ux, uy) * hypot(vx, vy) + 1e-12);
        const double angle = acos(fmax(-1.0, fmin(1.0, cosine))) * 180 / DQ_PI;
        min_angle = fmin(min_angle, angle);
        max_angle = fmax(max_angle, angle);
        min_len = fmin(min_len, len[i]);
        max_len = fmax(max_len, len[i]);
    }
    const double r02 = fmin(len[0], len[2]) / fmax(1e-9, fmax(len[0], len[2]));
    const double r13 = fmin(len[1], len[3]) / fmax(1e-9, fmax(len[1], len[3]));
    f[0] = q->score;                      /* the hand-weighted score (steps 3-6) */
    f[1] = contrast;                      /* the inside map's contrast, and its two means */
    f[2] = in;
    f[3] = out;
    f[4] = frames;                        /* frame edges among the sides */
    f[5] = fabs(area2) / 2 / (m->fw * m->fh); /* share of the frame */
    for (int i = 0; i < 4; i++) f[6 + i] = sv[i]; /* the sides' terms, ascending */
    f[10] = scored ? sum / scored : 0;
    f[11] = min_ends;
    f[12] = max_runon;
    f[13] = scored ? sum_ends / scored : 0;
    f[14] = scored ? sum_runon / scored : 0;
    f[15] = min_len / s->diag;            /* the shortest and longest side, in map diagonals */
    f[16] = max_len / s->diag;
    f[17] = fmin(r02, r13);               /* the least ratio of opposite sides */
    f[18] = min_angle;                    /* interior angles, degrees */
    f[19] = max_angle;
    f[20] = from[0];                      /* sides from Hough lines, other maxima, pass 2, regions */
    f[21] = from[1];
    f[22] = from[2];
    f[23] = from[3];
    f[24] = last_line;                    /* the lowest-ranked Hough line among the sides */
    f[25] = rank;                         /* by the hand-weighted score */
    f[26] = q->score - s->top[0].score;
    f[27] = q->score + IC_DQ_INSIDE_W * contrast; /* the score the detector ranked by before */
    f[28] = stats[0];                     /* the whole map (map_stats): mean boundary and inside */
    f[29] = stats[1];                     /* probability, share of boundary cells above 0.5 */
    f[30] = stats[2];
    f[31] = s->ntop;
}

/* The whole map's mean boundary probability, mean inside probability and share of boundary
 * cells above 0.5 (how busy the scene is): three of the ranker's inputs. */
static void map_stats(const ic_dq_map *m, double st[3]) {
    double p = 0, in = 0, high = 0;
    for (int32_t y = 0; y < m->h; y++) {
        const float *r = m->p + (size_t)y * m->stride, *ri = m->inside + (size_t)y * m->stride;
        for (int32_t x = 0; x < m->w; x++) {
            p += r[x];
            in += ri[x];
            high += r[x] > 0.5f;
        }
    }
    const double cells = (double)m->w * m->h;
    st[0] = p / cells;
    st[1] = in / cells;
    st[2] = high / cells;
}

int32_t ic__dq_search(const ic_dq_map *m, uint8_t *scratch, double min_area, ic_dq_line *L, ic_dq_cand out[IC_DQ_TOPK]) {
    dq_layout lay;
    lay_out(m->w, m->h, &lay);
    dq_search s = {.m = m, .min_area = min_area, .L = L, .nt = lay.nt, .nrho = lay.nrho, .diag = lay.diag, .used = IC_DQ_NL};
    s.profs = (float *)(void *)(scratch + lay.profs);
    s.P = (dq_pair *)(void *)(scratch + lay.pairs);
    s.R = (dq_pair *)(void *)(scratch + lay.rest_pairs);
    s.opp = (dq_opposite *)(void *)(scratch + lay.opposites);
    s.slots = (dq_side *)(void *)(scratch + lay.slots);
    find_lines(&s, (float *)(void *)(scratch + lay.acc));
    table_pairs(&s);
    /* pass 0: the candidates of four lines */
    for (int32_t a = 0; a < s.total; a++) {
        for (int32_t b = a + 1; b < s.total; b++) {
            if (pair(&s, a, b)->opposite) four_line_candidates(&s, a, b, pair_sides(&s, a, b));
        }
    }
    /* pass 1, with the bar pass 0 left (it prunes most): an other maximum as the fourth side */
    for (int32_t a = 0; a < s.total && s.nrest > 0; a++) {
        for (int32_t b = a + 1; b < s.total; b++) {
            if (!pair(&s, a, b)->opposite) continue;
            dq_rest rest[IC_DQ_MAX_REST];
            const int32_t n = rest_sides(&s, a, b, rest);
            if (n) rest_candidates(&s, a, b, &s.opp[a * s.total + b], rest, n);
        }
    }
    region_candidates(&s, scratch + lay.regions);
    /* pass 2: each side of the best candidates found again from the three others */
    ic_dq_quad seeds[IC_DQ_TOPK];
    const int32_t nseeds = s.ntop;
    memcpy(seeds, s.top, (size_t)nseeds * sizeof *seeds);
    for (int32_t q = 0; q < nseeds; q++) {
        for (int i = 0; i < 4; i++) replace_side(&s, &seeds[q], i);
    }
    /* the best few ranked by the learned ranker on their inputs (step 7) */
    double st[3];
    if (s.ntop) map_stats(m, st);
    double best_final = -HUGE_VAL, best_contrast = -HUGE_VAL;
    for (int32_t i = 0; i < s.ntop; i++) {
        out[i].q = s.top[i];
        candidate_features(&s, &s.top[i], i, st, out[i].f, &out[i].frame_sides);
        out[i].cut = 0;
        for (int e = 0; e < 4; e++) out[i].cut |= L[s.top[i].side[e]].frame;
        best_final = fmax(best_final, out[i].f[27]);
        best_contrast = fmax(best_contrast, out[i].f[1]);
    }
    for (int32_t i = 0; i < s.ntop; i++) {
        out[i].f[32] = out[i].f[27] - best_final;
        out[i].f[33] = out[i].f[1] - best_contrast;
        out[i].q.score = ic__dq_rank(out[i].f);
    }
    /* best first (the earlier of equals first: stable) */
    for (int32_t i = 1; i < s.ntop; i++)
        for (int32_t j = i; j > 0 && out[j].q.score > out[j - 1].q.score; j--) {
            const ic_dq_cand t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return s.ntop;
}
