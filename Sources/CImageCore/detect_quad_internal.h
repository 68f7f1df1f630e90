/* Private interface of the quad search over the boundary map (detect_quad.c) and of the
 * sub-pixel refinement in the source image (detect_refine.c). */
#ifndef IMAGECORE_DETECT_QUAD_INTERNAL_H
#define IMAGECORE_DETECT_QUAD_INTERNAL_H

#include "internal.h"
#include "imagecore/detect.h"

enum { IC_DQ_MAX_LINES = 28 }; /* Hough lines kept (the four frame edges come on top; at most 60) */

/* The boundary map in map coordinates, and the frame (the source image's edges) in them. */
typedef struct ic_dq_map {
    const float *p;
    int32_t w, h;
    size_t stride;
    double fx0, fy0, fx1, fy1; /* frame edges */
    double fw, fh;             /* frame size */
} ic_dq_map;

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

/* Scratch bytes of the search for a mw x mh map. */
IC_INTERNAL size_t ic__dq_scratch(int32_t mw, int32_t mh);

/* Lines of the map into L (room for IC_DQ_MAX_LINES + 4) and the best quad over them;
 * returns 0 when no candidate is a valid page shape. */
IC_INTERNAL int ic__dq_search(const ic_dq_map *m, uint8_t *scratch, double min_area, ic_dq_line *L,
                              ic_dq_quad *best);

/* Refines the sides of `quad` (source coordinates; side i ends at corner i) against the
 * source image's luma at a finer step than the working image's pixel (k / 4 source px):
 * edge positions across each side, a robust line fit, intersections. Sides flagged in
 * `frame_sides` (bit i: side i is the frame edge) are kept. `k` is the working box size. */
IC_INTERNAL void ic__dq_refine(const ic_image *image, int32_t k, int32_t frame_sides, ic_point quad[4]);

#endif
