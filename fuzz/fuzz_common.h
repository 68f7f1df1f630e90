/* Shared pieces of the libFuzzer harnesses (fuzz/run.sh builds each with clang
 * -fsanitize=fuzzer,address,undefined against the C core sources).
 *
 * - A byte reader that takes the fuzzer's choices (sizes, strides, options) from the input,
 *   as LLVM's FuzzedDataProvider does: from the END of the data, so the front can stay a
 *   file for the parsers.
 * - Guarded images: every plane is its own mapping whose last byte sits right before a
 *   PROT_NONE page (a read or write past the plane faults at once, ASan or not), with a
 *   fuzzer-chosen padding at the end of every row filled with a canary that must survive the
 *   call (kernels may not write the padding). */
#ifndef IC_FUZZ_COMMON_H
#define IC_FUZZ_COMMON_H

#include <imagecore.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { FUZZ_CANARY = 0xA5 };

/* A broken invariant: say which, then abort (libFuzzer keeps the input as a crash). */
#define FUZZ_FAIL() (fprintf(stderr, "fuzz invariant failed at %s:%d\n", __FILE__, __LINE__), abort())

typedef struct fuzz_in {
    const uint8_t *data;
    size_t size; /* bytes not yet taken from the end */
} fuzz_in;

static inline uint32_t fuzz_u32(fuzz_in *in, uint32_t max) { /* 0..max */
    uint32_t v = 0;
    for (int i = 0; i < 4 && in->size > 0; i++) v = v << 8 | in->data[--in->size];
    return max == UINT32_MAX ? v : v % (max + 1);
}
static inline int32_t fuzz_range(fuzz_in *in, int32_t lo, int32_t hi) {
    return lo + (int32_t)fuzz_u32(in, (uint32_t)(hi - lo));
}
static inline uint8_t fuzz_u8(fuzz_in *in) { return in->size ? in->data[--in->size] : 0; }
static inline double fuzz_double(fuzz_in *in, double lo, double hi) {
    return lo + (hi - lo) * ((double)fuzz_u32(in, UINT32_MAX) / 4294967295.0);
}
/* Any double bit pattern: NaN, infinities, subnormals, 1e300. */
static inline double fuzz_raw_double(fuzz_in *in) {
    uint64_t b = (uint64_t)fuzz_u32(in, UINT32_MAX) << 32 | fuzz_u32(in, UINT32_MAX);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

typedef struct guarded {
    ic_image im;
    uint8_t *map[IC_MAX_PLANES];
    size_t map_size[IC_MAX_PLANES];
    size_t row_bytes[IC_MAX_PLANES];
    int32_t rows[IC_MAX_PLANES];
} guarded;

static inline size_t fuzz_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* A `w` x `h` image of format `f` whose rows carry `pad` extra bytes (the canary) and whose
 * every plane ends at a guard page. Pixels are filled from `seed` bytes (cycled). Returns 0
 * when the size is not a valid image (the caller skips the case). */
static inline int guarded_alloc(guarded *g, ic_format f, ic_alpha alpha, int32_t w, int32_t h, size_t pad,
                                const uint8_t *seed, size_t seed_size) {
    memset(g, 0, sizeof *g);
    g->im.format = f;
    g->im.alpha = alpha;
    g->im.width = w;
    g->im.height = h;
    const size_t page = fuzz_page();
    for (int32_t p = 0; p < ic_format_plane_count(f); p++) {
        size_t rb;
        int32_t rows;
        if (ic_plane_geometry(f, w, h, p, &rb, &rows) != IC_OK) return 0;
        const size_t stride = rb + pad;
        const size_t bytes = stride * (size_t)(rows - 1) + rb; /* the last row ends the plane */
        const size_t data_pages = (bytes + page - 1) / page;
        g->map_size[p] = (data_pages + 1) * page;
        void *m = mmap(NULL, g->map_size[p], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return 0;
        g->map[p] = (uint8_t *)m;
        mprotect(g->map[p] + data_pages * page, page, PROT_NONE);
        uint8_t *start = g->map[p] + data_pages * page - bytes;
        memset(start, FUZZ_CANARY, bytes);
        for (int32_t y = 0; y < rows; y++) {
            uint8_t *row = start + (size_t)y * stride;
            if (!seed_size) { memset(row, (int)(y * 29), rb); continue; }
            for (size_t x = 0; x < rb;) { /* the seed bytes, cycled, by whole copies */
                const size_t at = ((size_t)y * rb + x) % seed_size, k = seed_size - at < rb - x ? seed_size - at : rb - x;
                memcpy(row + x, seed + at, k);
                x += k;
            }
        }
        g->im.planes[p].data = start;
        g->im.planes[p].stride = stride;
        g->row_bytes[p] = rb;
        g->rows[p] = rows;
    }
    return 1;
}

/* The padding of every row still holds the canary. */
static inline void guarded_check(const guarded *g) {
    for (int32_t p = 0; p < ic_format_plane_count(g->im.format); p++) {
        const size_t stride = g->im.planes[p].stride, rb = g->row_bytes[p];
        for (int32_t y = 0; y + 1 < g->rows[p]; y++) {
            const uint8_t *pad = g->im.planes[p].data + (size_t)y * stride + rb;
            if (stride > rb && (pad[0] != FUZZ_CANARY || memcmp(pad, pad + 1, stride - rb - 1) != 0))
                FUZZ_FAIL(); /* padding written */
        }
    }
}

static inline void guarded_free(guarded *g) {
    for (int i = 0; i < IC_MAX_PLANES; i++)
        if (g->map[i]) munmap(g->map[i], g->map_size[i]);
    memset(g, 0, sizeof *g);
}

/* Statuses a harness accepts from hostile input; anything else (an internal error, or an
 * argument error where the harness built valid arguments) is a finding. */
static inline void fuzz_expect_(ic_status st, int arguments_valid, const char *file, int line) {
    if (st == IC_ERR_INTERNAL || (arguments_valid && (st == IC_ERR_INVALID_ARGUMENT || st == IC_ERR_BUFFER_TOO_SMALL))) {
        fprintf(stderr, "fuzz: unexpected status %d (%s) at %s:%d\n", (int)st, ic_status_string(st), file, line);
        abort();
    }
}
#define fuzz_expect(st, valid) fuzz_expect_((st), (valid), __FILE__, __LINE__)

/* One of the parallel backends per run: with IC_OMP_RUNTIME the OpenMP runtime is used
 * whenever the fuzzer picks more than one thread. */
static inline void fuzz_threads(fuzz_in *in) { ic_set_num_threads(1 + (int32_t)fuzz_u32(in, 3)); }

#endif
