/* Page detection, the driver: validation, the scratch layout, and the three stages (the
 * learned boundary map, detect_map.c; the quad search over it, detect_quad.c; the sub-pixel
 * refinement in the source image, detect_refine.c). See imagecore/detect.h. */
#include "detect_map_internal.h"
#include "detect_quad_internal.h"

#include <math.h>
#include <string.h>

typedef struct opts {
    int32_t work, work2; /* work2: the second working size, 0 = none */
    double min_area, min_confidence;
} opts;

static ic_status check_options(const ic_detect_options *o, opts *r) {
    r->work = IC_DM_WORK;
    r->work2 = 0;
    r->min_area = 0.005;
    r->min_confidence = ic__dm_min_confidence; /* chosen on the validation split, see detect_model.c */
    if (!o) return IC_OK;
    if (o->min_confidence != 0) {
        if (!(o->min_confidence <= 1) || isnan(o->min_confidence))
            return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: min_confidence %g: at most 1 (0: the default)",
                              o->min_confidence);
        r->min_confidence = o->min_confidence;
    }
    if (o->work_size != 0) {
        if (o->work_size < 64 || o->work_size > 1024)
            return ic__refuse(IC_ERR_INVALID_ARGUMENT,
                              "page detection: work_size %d is not in [64, 1024] (0: the default)", (int)o->work_size);
        r->work = o->work_size;
    }
    if (o->second_work_size != 0) {
        if (o->second_work_size < 64 || o->second_work_size > 1024)
            return ic__refuse(IC_ERR_INVALID_ARGUMENT,
                              "page detection: second_work_size %d is not in [64, 1024] (0: none)",
                              (int)o->second_work_size);
        r->work2 = o->second_work_size;
    }
    if (o->min_area != 0) {
        if (!(o->min_area > 0 && o->min_area < 1))
            return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: min_area %g is not in (0, 1) (0: the default)",
                              o->min_area);
        r->min_area = o->min_area;
    }
    return IC_OK;
}

double ic_detect_default_min_confidence(void) { return ic__dm_min_confidence; }

/* Bytes of one map (boundary or inside), rounded up to a cache line. */
static size_t map_bytes(const ic_dm_geometry *g) {
    return (((size_t)g->mw * (size_t)g->mh * sizeof(float)) + 63) & ~(size_t)63;
}

/* Scratch: the boundary map, the inside map, then one area shared by the map stage and the
 * quad search. */
static size_t scratch_bytes(const ic_dm_geometry *g, int32_t src_width) {
    size_t dm = ic__dm_scratch(g, src_width), dq = ic__dq_scratch(g->mw, g->mh);
    return 2 * map_bytes(g) + (dm > dq ? dm : dq) + 64; /* + 64: room to align the base */
}

/* The scratch both runs need: the larger run's, then, with a second working size, its working
 * image, which the first run's pass over the image writes (ic__dm_run) at `*input2` bytes
 * from the aligned base (input2 may be NULL). */
static size_t scratch_need(int32_t width, int32_t height, const opts *o, size_t *input2) {
    ic_dm_geometry g;
    ic__dm_geometry(width, height, o->work, &g);
    size_t need = scratch_bytes(&g, width), at = 0;
    if (o->work2) {
        ic__dm_geometry(width, height, o->work2, &g);
        const size_t need2 = scratch_bytes(&g, width);
        if (need2 > need) need = need2;
        at = (need - 64 + 63) & ~(size_t)63; /* scratch_bytes' + 64 is the base's alignment */
        need = at + ic__dm_input_bytes(&g) + 64;
    }
    if (input2) *input2 = at;
    return need;
}

/* The working geometry of a width x height image under `options`, both checked. */
static ic_status geometry(int32_t width, int32_t height, const ic_detect_options *options, ic_dm_geometry *g,
                          opts *o) {
    ic_status st = ic__check_dimensions(width, height);
    if (st != IC_OK || (st = check_options(options, o)) != IC_OK) return st;
    ic__dm_geometry(width, height, o->work, g);
    return IC_OK;
}

ic_status ic_detect_scratch_size(int32_t width, int32_t height, const ic_detect_options *options, size_t *bytes) {
    if (!bytes) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no place for the scratch size (NULL)");
    ic_dm_geometry g;
    opts o;
    const ic_status st = geometry(width, height, options, &g, &o);
    if (st != IC_OK) return st;
    *bytes = scratch_need(width, height, &o, NULL);
    return IC_OK;
}

ic_status ic_detect_map_size(int32_t width, int32_t height, const ic_detect_options *options, int32_t *map_width,
                             int32_t *map_height) {
    if (!map_width || !map_height)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no place for the map size (NULL)");
    ic_dm_geometry g;
    opts o;
    const ic_status st = geometry(width, height, options, &g, &o);
    if (st != IC_OK) return st;
    *map_width = g.mw;
    *map_height = g.mh;
    return IC_OK;
}

/* Validation shared by the entry points; lays out the scratch (the two maps, then `base`; with a
 * second working size, its working image at `input2`). */
static ic_status prepare(const ic_image *image, const ic_detect_options *options, int second, void *scratch,
                         size_t scratch_size, ic_dm_geometry *g, opts *o, uint8_t **base, float **map,
                         float **inside, uint8_t **input2) {
    if (!image || !scratch)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no %s (NULL)", image ? "scratch memory" : "image");
    ic_status st = ic_image_validate(image);
    if (st != IC_OK) return st;
    switch (image->format) {
    case IC_FORMAT_GRAY8: case IC_FORMAT_RGB8: case IC_FORMAT_RGBA8: case IC_FORMAT_I420: case IC_FORMAT_NV12: break;
    default:
        return ic__refuse(IC_ERR_UNSUPPORTED, "page detection reads GRAY8, RGB8, RGBA8, I420 and NV12 (format %d)",
                          (int)image->format);
    }
    if ((st = check_options(options, o)) != IC_OK) return st;
    size_t at2;
    const size_t need = scratch_need(image->width, image->height, o, &at2); /* both runs', checked before the first */
    if (second) o->work = o->work2;
    ic__dm_geometry(image->width, image->height, o->work, g);
    if (scratch_size < need)
        return ic__refuse(IC_ERR_BUFFER_TOO_SMALL,
                          "page detection: scratch of %zu bytes, %zu needed (ic_detect_scratch_size)", scratch_size, need);
    uint8_t *b = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    const size_t one = map_bytes(g);
    *map = (float *)(void *)b;
    *inside = (float *)(void *)(b + one);
    *base = b + 2 * one;
    *input2 = o->work2 ? b + at2 : NULL;
    return IC_OK;
}

ic_status ic_detect_maps(const ic_image *image, const ic_detect_options *options, void *scratch, size_t scratch_size,
                         float *boundary, float *inside, size_t map_stride) {
    if (!boundary && !inside)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no map to write (both NULL)");
    ic_dm_geometry g;
    opts o;
    uint8_t *base;
    float *own, *own_inside;
    uint8_t *unused;
    ic_status st = prepare(image, options, 0, scratch, scratch_size, &g, &o, &base, &own, &own_inside, &unused);
    if (st != IC_OK) return st;
    if (map_stride < (size_t)g.mw)
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: map stride %zu < map width %d", map_stride,
                          (int)g.mw);
    if (image->width < g.k || image->height < g.k) {
        /* thinner than one working pixel (k x k source pixels): no page boundary fits, and the
         * reduction's box would reach past the image (the working size is at least 1) */
        float *outs[2] = {boundary, inside};
        for (int c = 0; c < 2; c++)
            for (int32_t y = 0; outs[c] && y < g.mh; y++) memset(outs[c] + (size_t)y * map_stride, 0, (size_t)g.mw * sizeof(float));
        return IC_OK;
    }
    const ic__settings set = ic__settings_read();
    ic__dm_run(image, &g, set.cpu, base, boundary, inside, map_stride, NULL, NULL, 0);
    return IC_OK;
}

ic_status ic_detect_boundary_map(const ic_image *image, const ic_detect_options *options, void *scratch,
                                 size_t scratch_size, float *map, size_t map_stride) {
    if (!map) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no map to write (NULL)");
    return ic_detect_maps(image, options, scratch, scratch_size, map, NULL, map_stride);
}

/* What the detection found before the answer is chosen: the working geometry, the options read,
 * the ranked candidates (map coordinates, best first; n of them, 0: none); whether the run also
 * wrote the second working size's working image (reduced2). */
typedef struct {
    ic_dm_geometry g;
    opts o;
    ic_dq_cand cands[IC_DQ_TOPK];
    int32_t n;
    int reduced2;
} found;

/* The second working size's geometry after a first run of geometry f->g, or none (w = 0): no
 * second size, or one with the first's box (the same working image would give the same run). */
static ic_dm_geometry second_geometry(const ic_image *image, const found *f) {
    ic_dm_geometry g2 = {0, 0, 0, 0, 0};
    if (f->o.work2) ic__dm_geometry(image->width, image->height, f->o.work2, &g2);
    if (g2.k == f->g.k) g2.w = 0;
    return g2;
}

/* The detection up to the ranked candidates, at the working size (second: the second one;
 * reduced: its working image is in the scratch already). */
static ic_status run(const ic_image *image, const ic_detect_options *options, int second, int reduced, void *scratch,
                     size_t scratch_size, found *f) {
    uint8_t *base, *input2;
    float *map, *inside;
    const ic_dm_geometry *g = &f->g;
    f->n = 0;
    f->reduced2 = 0;
    ic_status st = prepare(image, options, second, scratch, scratch_size, &f->g, &f->o, &base, &map, &inside, &input2);
    if (st != IC_OK) return st;
    if (g->w < 16 || g->h < 16) return IC_OK; /* too small to hold a page: not found */
    const ic__settings set = ic__settings_read();
    /* the first run of a two-size detection writes the second size's working image in the
     * same pass over the image (the second run, if there is one, starts from it) */
    ic_dm_geometry g2 = {0, 0, 0, 0, 0};
    if (!second) g2 = second_geometry(image, f);
    if (second && reduced) {
        ic__dm_run(image, g, set.cpu, base, map, inside, (size_t)g->mw, NULL, input2, 1);
    } else if (g2.w >= 16 && g2.h >= 16) {
        ic__dm_run(image, g, set.cpu, base, map, inside, (size_t)g->mw, &g2, input2, 0);
        f->reduced2 = 1;
    } else {
        ic__dm_run(image, g, set.cpu, base, map, inside, (size_t)g->mw, NULL, NULL, 0);
    }
    const double k = g->k;
    ic_dq_map m = {map, inside, g->mw, g->mh, (size_t)g->mw, 0.25, 0.25, (image->width / k + 0.5) / 2,
                   (image->height / k + 0.5) / 2, 0, 0, set.cpu};
    m.fw = m.fx1 - m.fx0;
    m.fh = m.fy1 - m.fy0;
    ic_dq_line lines[IC_DQ_LINE_ROOM];
    f->n = ic__dq_search(&m, base, f->o.min_area, lines, f->cands);
    return IC_OK;
}

static double confidence_of(double score) {
    const double z = ic__dm_calibration[0] * score + ic__dm_calibration[1];
    return 1.0 / (1.0 + exp(-z));
}

/* The detection up to the ranked candidates: one run, or with a second working size, when the
 * first has candidates but is not sure of them (IC_DETECT_SECOND_RUN_BELOW), the run whose best
 * candidate scores higher (f2: room for the second run). A first run without any candidate
 * ends the detection: its map holds no quad-like structure, and on the design splits the second
 * run found a page after 1 of 301 such runs (README, "Page detection", step 6). */
static ic_status candidates(const ic_image *image, const ic_detect_options *options, void *scratch,
                            size_t scratch_size, found *f, found *f2) {
    ic_status st = run(image, options, 0, 0, scratch, scratch_size, f);
    if (st != IC_OK || !f->o.work2) return st;
    if (f->n == 0 || confidence_of(f->cands[0].q.score) >= IC_DETECT_SECOND_RUN_BELOW) return IC_OK;
    if (second_geometry(image, f).w == 0) return IC_OK;
    if ((st = run(image, options, 1, f->reduced2, scratch, scratch_size, f2)) != IC_OK) return st;
    if (f2->n > 0 && f2->cands[0].q.score > f->cands[0].q.score) *f = *f2;
    return IC_OK;
}

/* Candidate c's corners in source pixels, refined and ordered; 0 if they make no quad. */
static int source_quad(const ic_image *image, const ic_dm_geometry *g, const ic_dq_cand *c, ic_quad *q) {
    const double k = g->k;
    ic_point p[4];
    for (int i = 0; i < 4; i++) {
        p[i].x = k * (2 * c->q.corner[i].x - 0.5);
        p[i].y = k * (2 * c->q.corner[i].y - 0.5);
        /* corners on a frame edge sit exactly on it */
        p[i].x = p[i].x < 0 ? 0 : p[i].x > image->width ? image->width : p[i].x;
        p[i].y = p[i].y < 0 ? 0 : p[i].y > image->height ? image->height : p[i].y;
    }
    ic__dq_refine(image, g->k, c->frame_sides, p);
    return ic_quad_order(p, q) == IC_OK;
}

ic_status ic_detect_page(const ic_image *image, const ic_detect_options *options, void *scratch, size_t scratch_size,
                         ic_page_detection *out) {
    if (!out) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no place for the result (NULL)");
    memset(out, 0, sizeof *out);
    found f, f2;
    const ic_status st = candidates(image, options, scratch, scratch_size, &f, &f2);
    if (st != IC_OK) return st;
    out->work_width = f.g.w;
    out->work_height = f.g.h;
    if (f.n == 0) return IC_OK;
    const double confidence = confidence_of(f.cands[0].q.score);
    out->score = f.cands[0].q.score;
    if (f.o.min_confidence >= 0 && !(confidence >= f.o.min_confidence)) return IC_OK;
    ic_quad q;
    if (!source_quad(image, &f.g, &f.cands[0], &q)) return IC_OK;
    out->found = 1;
    out->quad = q;
    out->confidence = confidence;
    out->cut_edges = f.cands[0].cut;
    return IC_OK;
}

_Static_assert(IC_DETECT_FEATURES == IC_DQ_NF, "the public feature count is the ranker's");
_Static_assert(IC_DETECT_MAX_CANDIDATES == IC_DQ_TOPK, "the public candidate count is the search's");

ic_status ic_detect_candidates(const ic_image *image, const ic_detect_options *options, void *scratch,
                               size_t scratch_size, ic_detect_candidate *out, int32_t capacity, int32_t *count) {
    if (!count) return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: no place for the count (NULL)");
    *count = 0;
    if (capacity < 0 || (capacity > 0 && !out))
        return ic__refuse(IC_ERR_INVALID_ARGUMENT, "page detection: %d candidates asked for into %s", (int)capacity,
                          out ? "an array" : "NULL");
    found f, f2;
    const ic_status st = candidates(image, options, scratch, scratch_size, &f, &f2);
    if (st != IC_OK) return st;
    for (int32_t i = 0; i < f.n && *count < capacity; i++) {
        ic_detect_candidate *c = &out[*count];
        memset(c, 0, sizeof *c);
        if (!source_quad(image, &f.g, &f.cands[i], &c->quad)) continue;
        c->score = f.cands[i].q.score;
        c->confidence = confidence_of(c->score);
        c->cut_edges = f.cands[i].cut;
        memcpy(c->features, f.cands[i].f, sizeof c->features);
        (*count)++;
    }
    return IC_OK;
}
