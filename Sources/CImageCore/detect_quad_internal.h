/* Private interface of the quad search over the boundary map (detect_quad.c) and of the
 * sub-pixel refinement in the source image (detect_refine.c). */
#ifndef IMAGECORE_DETECT_QUAD_INTERNAL_H
#define IMAGECORE_DETECT_QUAD_INTERNAL_H

#include "internal.h"
#include "imagecore/detect.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { IC_DQ_MAX_LINES = 20 }; /* Hough lines kept (the four frame edges come on top; at most 60) */
enum { IC_DQ_MAX_REST = 40 };  /* the maxima ranked next, tried as one side in a second pass */
enum { IC_DQ_PEAKS = 128 };    /* Hough maxima looked at: the lines and the others come from them */
enum { IC_DQ_TOPK = 8 };       /* candidates kept for the inside map's rescoring */
enum { IC_DR_MAX_REGIONS = 4 }; /* regions of the inside map made candidates (the largest) */
/* lines the search returns, at most: the lines, the frame edges, the other maxima, room for
 * the fourth sides found from three others that the best candidates hold (pass 2) and the
 * sides of the regions' quads */
enum { IC_DQ_LINE_ROOM = IC_DQ_MAX_LINES + 4 + IC_DQ_MAX_REST + IC_DQ_TOPK + 1 + 4 * IC_DR_MAX_REGIONS };

/* The boundary map and the inside map (same geometry and stride) in map coordinates, and
 * the frame (the source image's edges) in them. */
typedef struct ic_dq_map {
    const float *p;
    const float *inside;
    int32_t w, h;
    size_t stride;
    double fx0, fy0, fx1, fy1; /* frame edges */
    double fw, fh;             /* frame size */
    uint32_t cpu;              /* the CPU features its kernels may use (ic__settings_read) */
} ic_dq_map;

enum { IC_DQ_THETA = 180 }; /* Hough angles */

/* Hough kernel: the votes of map row `row` (w cells, row j of the map): every cell i with
 * p >= vote_p votes p into each of the IC_DQ_THETA angle rows of `acc` (nrho offset bins
 * each) at rho = (i + 0.5) cs[t] + (j + 0.5) sn[t], linearly between the two bins around it
 * (bin b centred at rho = b - off + 0.5). Cell by cell, angle by angle: the order of every
 * bin's additions is the scalar reference's, so the AVX-512 kernel's sums are the same bits. */
IC_INTERNAL void ic__dq_votes_row_c(const float *row, int32_t w, int32_t j, float vote_p, const double *cs,
                                    const double *sn, int32_t off, int32_t nrho, float *acc);
#if IC_X86
IC_INTERNAL void ic__dq_votes_row_avx512(const float *row, int32_t w, int32_t j, float vote_p, const double *cs,
                                         const double *sn, int32_t off, int32_t nrho, float *acc);
#endif

/* Bilinear sample of plane `p` (the map's geometry) at map point (u, v); 0 outside. */
static inline float ic__dq_sample(const ic_dq_map *m, const float *p, double u, double v) {
    double fx = u - 0.5, fy = v - 0.5;
    if (!(fx > -1 && fy > -1 && fx < m->w && fy < m->h)) return 0.0f;
    int32_t x0 = (int32_t)floor(fx), y0 = (int32_t)floor(fy);
    double ax = fx - x0, ay = fy - y0;
    int32_t x1 = x0 + 1, y1 = y0 + 1;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > m->w - 1) x1 = m->w - 1;
    if (y1 > m->h - 1) y1 = m->h - 1;
    const float *r0 = p + (size_t)y0 * m->stride, *r1 = p + (size_t)y1 * m->stride;
    return (float)((1 - ay) * ((1 - ax) * r0[x0] + ax * r0[x1]) + ay * ((1 - ax) * r1[x0] + ax * r1[x1]));
}

/* Bounded sorted insert into `*n` elements of `size` bytes, sorted descending by the double
 * at byte `key_at` of each, at most `cap`: makes room for an element of key `key` (the
 * earlier of equals first) and returns its slot, or -1 if it does not enter (full, and not
 * above the last). The Hough peaks, the best candidates and the inside map's largest regions
 * keep their best this way. */
static inline int32_t ic__dq_sorted_slot(void *base, size_t size, size_t key_at, int32_t *n, int32_t cap, double key) {
    uint8_t *e = base;
    double last;
    int32_t at;
    if (*n < cap) {
        at = (*n)++;
    } else {
        memcpy(&last, e + (size_t)(cap - 1) * size + key_at, sizeof last);
        if (!(key > last)) return -1; /* (full: only a greater one enters; never read an unset slot) */
        at = cap - 1;
    }
    for (; at > 0; at--) {
        double prev;
        memcpy(&prev, e + (size_t)(at - 1) * size + key_at, sizeof prev);
        if (!(prev < key)) break;
        memcpy(e + (size_t)at * size, e + (size_t)(at - 1) * size, size);
    }
    return at;
}

/* A line {p : nx * u + ny * v = c}, its Hough votes, its profile (see detect_quad.c) and,
 * for a frame edge, its bit (1 top, 2 right, 4 bottom, 8 left). */
typedef struct ic_dq_line {
    double nx, ny, c, votes;
    int32_t frame;
    float *prof;
    double t0;
    int32_t nt;
} ic_dq_line;

/* A candidate: corner i ends side i (on line side[i]) and starts side i + 1. */
typedef struct ic_dq_quad {
    ic_point corner[4];
    int32_t side[4];
    double score;
} ic_dq_quad;

/* A candidate as the search returns it: its quad (q.score: the ranker's score, the log-odds
 * that every corner is right), the ranker's inputs (candidate_features in detect_quad.c) and
 * which of its sides are frame edges. */
enum { IC_DQ_NF = 34 };
typedef struct ic_dq_cand {
    ic_dq_quad q;
    double f[IC_DQ_NF];
    int32_t frame_sides; /* bit i: side i is a frame edge */
    int32_t cut;         /* their frame bits (1 top, 2 right, 4 bottom, 8 left) */
} ic_dq_cand;

/* Scratch bytes of the search for a mw x mh map. */
IC_INTERNAL size_t ic__dq_scratch(int32_t mw, int32_t mh);

/* Lines of the map into L (room for IC_DQ_LINE_ROOM) and the best candidates over them into
 * `out`, ranked (best first); returns their number (0: no valid page shape). */
IC_INTERNAL int32_t ic__dq_search(const ic_dq_map *m, uint8_t *scratch, double min_area, ic_dq_line *L,
                                  ic_dq_cand out[IC_DQ_TOPK]);

/* The ranker: boosted regression trees over a candidate's inputs f (detect_rank.c; the trees
 * are generated into detect_rank_model.c by scripts/detector/ranker.py). A node sends f to
 * `left` when f[feature] <= threshold, else to `right`; a child >= 0 is a node, < 0 the leaf
 * ~child. The score is the sum of one leaf's value per tree (LightGBM's raw score). */
typedef struct ic_dq_rank_node {
    int32_t feature, left, right;
    double threshold;
} ic_dq_rank_node;
IC_INTERNAL extern const int32_t ic__dq_rank_trees;
IC_INTERNAL extern const int32_t ic__dq_rank_root[];
IC_INTERNAL extern const ic_dq_rank_node ic__dq_rank_nodes[];
IC_INTERNAL extern const double ic__dq_rank_leaves[];
IC_INTERNAL double ic__dq_rank(const double f[IC_DQ_NF]);

/* Refines the sides of `quad` (source coordinates; side i ends at corner i) against the
 * source image's luma at a finer step than the working image's pixel (k / 4 source px):
 * edge positions across each side, a robust line fit, intersections. Sides flagged in
 * `frame_sides` (bit i: side i is the frame edge) are kept. `k` is the working box size. */
IC_INTERNAL void ic__dq_refine(const ic_image *image, int32_t k, int32_t frame_sides, ic_point quad[4]);

/* The inside map's contrast for the quad with corners c (corner i ends side i; bit i of
 * `frame_sides`: side i is a frame edge): its mean over the quad's interior less its mean
 * in a band just outside the sides that are not frame edges, in [-1, 1] (detect_region.c).
 * The two means into *in and *out when not NULL (out: 0 when every side is a frame edge). */
IC_INTERNAL double ic__dq_inside_contrast(const ic_dq_map *m, const ic_point c[4], int32_t frame_sides, double *in,
                                          double *out);

/* Scratch bytes of ic__dq_inside_regions for a mw x mh map. */
IC_INTERNAL size_t ic__dq_region_scratch(int32_t mw, int32_t mh);

/* The largest `max` (<= IC_DR_MAX_REGIONS) regions of the inside map (4-connected cells at or
 * above IC_DR_INSIDE_P) of at least `min_cells` cells, largest first, each as the largest
 * quadrilateral with its corners on the region's convex hull, corners in order around it (map
 * coordinates); their number (detect_region.c). */
IC_INTERNAL int32_t ic__dq_inside_regions(const ic_dq_map *m, uint8_t *scratch, double min_cells, ic_point quads[][4],
                                          int32_t max);

#endif
