/* Private interface of page detection (detect.c, detect_reduce.c, detect_edges.c). */
#ifndef IMAGECORE_DETECT_INTERNAL_H
#define IMAGECORE_DETECT_INTERNAL_H

#include "internal.h"
#include "imagecore/detect.h"

enum {
    IC_DET_DEFAULT_WORK = 512,
    /* A weak page side (8-13 gray levels against a textured surface) collects as few as
     * 20-40 votes, below hundreds of texture lines: the limits below are set so that it
     * still becomes a line (measured on the bench's detect-eval). */
    IC_DET_MAX_PROFILED = 320, /* Hough lines profiled (the crossing sides come from these) */
    IC_DET_MAX_LINES = 64,     /* the best of them by long-run support: opposite-side pairs */
    IC_DET_THETA = 180,        /* Hough angle bins of 1 degree */
    IC_DET_MAX_PEAKS = 1024,   /* local maxima considered before suppression */
    IC_DET_VOTE_HIST = 4096    /* histogram bins of peak votes (more votes share the last bin) */
};

/* An edge pixel of the working image: position and gradient direction in degrees 0..359
 * (the direction of increasing brightness). */
typedef struct ic_det_edge {
    int16_t x, y, dir, pad;
} ic_det_edge;

/* Where a line crosses one of the strong lines (quad search): the position along it and
 * its support prefix sums there. */
typedef struct ic_det_crossing {
    float t;
    uint16_t pos, neg, both, ok;
} ic_det_crossing;

/* The working state, all inside the caller's scratch memory. */
typedef struct ic_det_work {
    int32_t w, h;          /* working image size */
    uint8_t *gray;         /* w * h, the reduced luma */
    uint8_t *blur;         /* w * h */
    uint16_t *mag;         /* w * h, |gx| + |gy| of the Sobel gradient (also blur scratch) */
    int16_t *dir;          /* w * h, gradient direction 0..359 at edge pixels, -1 elsewhere */
    int16_t *gx, *gy;      /* w * h, the Sobel gradient (0 on the 1-pixel border) */
    ic_det_edge *edges;    /* at most max_edges */
    int32_t nedges, max_edges;
    uint16_t *acc;         /* IC_DET_THETA * nrho Hough votes */
    int32_t nrho, rho_off;
    uint16_t *profiles;    /* IC_DET_MAX_PROFILED * 4 * (max(w, h) + 1) prefix sums */
    uint8_t *luma_row;     /* source width bytes (reduction of RGB(A) rows) */
    ic_det_crossing *cross; /* IC_DET_MAX_LINES * IC_DET_MAX_PROFILED crossings (quad search) */
    uint64_t *peaks;       /* the Hough accumulator's local maxima, as sort keys */
    int32_t peak_cap;      /* room in peaks */
    int32_t *cols;         /* 4 * w: reduction column spans and edge weights */
} ic_det_work;

/* Working size for a source size and option: never larger than the source. */
IC_INTERNAL void ic__det_work_size(int32_t width, int32_t height, int32_t work, int32_t *w, int32_t *h);

/* Lays the work areas out in `base` (NULL: only computes the size) and returns the bytes
 * needed; `src_width` sizes the luma row buffer. */
IC_INTERNAL size_t ic__det_layout(ic_det_work *wk, uint8_t *base, int32_t w, int32_t h,
                                  int32_t src_width);

/* Area-average reduction of the source's luma into wk->gray (wk->w x wk->h). */
IC_INTERNAL void ic__det_reduce(const ic_image *src, ic_det_work *wk);

/* Blur, Sobel, adaptive threshold and non-maximum suppression: fills dir and edges. */
IC_INTERNAL void ic__det_edges(ic_det_work *wk);

#endif
