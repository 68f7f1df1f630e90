/* Plain-C tests of the C core (built by CMake, run by ctest, also under ASan/UBSan).
 * Every CHECK counts; the last line is "N passed, M failed" and the exit code is non-zero
 * when M > 0. Expected values come from small reference functions written from the header's
 * documentation, not from the library's own helpers. */
#include <imagecore.h>
#include <turbojpeg.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef IC_EXPECT_BACKEND
#define IC_EXPECT_BACKEND "openmp"
#endif
#ifndef IC_EXPECT_VERSION
#define IC_EXPECT_VERSION "0.1.0"
#endif

/* ---- harness ------------------------------------------------------------------ */

static long g_pass, g_fail;
static char g_ctx[160]; /* what the current loop iteration is, printed with failures */

static int check_(int ok, const char *expr, const char *file, int line) {
    if (ok) { g_pass++; return 1; }
    if (++g_fail <= 40) fprintf(stderr, "%s:%d: FAILED: %s [%s]\n", file, line, expr, g_ctx);
    return 0;
}
#define CHECK(c) check_((c) != 0, #c, __FILE__, __LINE__)
#define CHECK_ST(call, want)                                                              \
    do {                                                                                  \
        ic_status st_ = (call);                                                           \
        if (!check_(st_ == (want), #call " == " #want, __FILE__, __LINE__))               \
            fprintf(stderr, "    got %d (%s)\n", (int)st_, ic_status_string(st_));        \
    } while (0)
#define CTX(...) snprintf(g_ctx, sizeof g_ctx, __VA_ARGS__)

static uint64_t g_rng = 0x9E3779B97F4A7C15ull; /* xorshift64, fixed seed */
static uint8_t rnd8(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint8_t)(g_rng >> 29);
}
static void fill_random(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = rnd8();
}
static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "out of memory (%zu bytes)\n", n); exit(2); }
    return p;
}
static int all_bytes(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

enum { SENT = 0xA5, TAIL = 32 };

static const ic_format k_formats[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8,
                                      IC_FORMAT_I420, IC_FORMAT_NV12};
enum { NFORMATS = sizeof k_formats / sizeof k_formats[0] };

/* Reference geometry, straight from the header's comments. */
static int ref_planes(ic_format f) {
    return f == IC_FORMAT_I420 ? 3 : f == IC_FORMAT_NV12 ? 2 : 1;
}
static int is_yuv(ic_format f) { return f == IC_FORMAT_I420 || f == IC_FORMAT_NV12; }
static size_t ref_row_bytes(ic_format f, int32_t w, int p) {
    size_t cw = ((size_t)w + 1) / 2;
    switch (f) {
    case IC_FORMAT_GRAY8: return (size_t)w;
    case IC_FORMAT_RGB8: return 3 * (size_t)w;
    case IC_FORMAT_RGBA8: return 4 * (size_t)w;
    case IC_FORMAT_I420: return p ? cw : (size_t)w;
    case IC_FORMAT_NV12: return p ? 2 * cw : (size_t)w;
    default: return 0;
    }
}
static int32_t ref_rows(ic_format f, int32_t h, int p) {
    return p && is_yuv(f) ? (int32_t)(((int64_t)h + 1) / 2) : h;
}

/* ---- status and version --------------------------------------------------------- */

static void test_status(void) {
    static const ic_status all[] = {IC_OK, IC_ERR_INVALID_ARGUMENT, IC_ERR_UNSUPPORTED,
                                    IC_ERR_CORRUPT_DATA, IC_ERR_TOO_LARGE,
                                    IC_ERR_OUT_OF_MEMORY, IC_ERR_CANCELLED,
                                    IC_ERR_BUFFER_TOO_SMALL, IC_ERR_IO, IC_ERR_INTERNAL};
    enum { N = sizeof all / sizeof all[0] };
    const char *unknown = ic_status_string((ic_status)42);
    CHECK(unknown != NULL && strcmp(unknown, "unknown status") == 0);
    CHECK(ic_status_string((ic_status)-100) != NULL);
    CHECK(strcmp(ic_status_string(IC_OK), "ok") == 0);
    for (int i = 0; i < N; i++) {
        CTX("status %d", (int)all[i]);
        const char *s = ic_status_string(all[i]);
        CHECK(s != NULL && s[0] != '\0' && strcmp(s, unknown) != 0);
        for (int j = 0; j < i; j++) CHECK(s && strcmp(s, ic_status_string(all[j])) != 0);
    }
    char buf[32];
    uint32_t v = ic_version();
    snprintf(buf, sizeof buf, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    CTX("version %u / %s", v, ic_version_string());
    CHECK(strcmp(buf, ic_version_string()) == 0);
    CHECK(strcmp(ic_version_string(), IC_EXPECT_VERSION) == 0); /* CMake project() agrees */
}

/* ---- layout / geometry ---------------------------------------------------------- */

static void test_layout(void) {
    static const int32_t sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {17, 9}, {4031, 3023}};
    static const size_t aligns[] = {0, 1, 16, 64, 4096};
    for (int fi = 0; fi < NFORMATS; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t ai = 0; ai < sizeof aligns / sizeof aligns[0]; ai++) {
                ic_format f = k_formats[fi];
                int32_t w = sizes[si][0], h = sizes[si][1];
                size_t a = aligns[ai], ea = a ? a : 64;
                CTX("format %d %dx%d align %zu", (int)f, w, h, a);
                ic_layout l;
                memset(&l, 0xAB, sizeof l);
                CHECK_ST(ic_layout_compute(f, w, h, a, &l), IC_OK);
                CHECK(ic_format_plane_count(f) == ref_planes(f));
                CHECK(l.plane_count == ref_planes(f) && l.alignment == ea);
                size_t end = 0;
                for (int p = 0; p < ref_planes(f); p++) {
                    size_t rb = ref_row_bytes(f, w, p);
                    int32_t rows = ref_rows(f, h, p);
                    CHECK(l.row_bytes[p] == rb && l.rows[p] == rows);
                    CHECK(l.stride[p] % ea == 0 && l.stride[p] >= rb && l.stride[p] - rb < ea);
                    CHECK(l.offset[p] % ea == 0 && l.offset[p] >= end); /* aligned, no overlap */
                    CHECK(l.plane_size[p] == l.stride[p] * (size_t)rows);
                    end = l.offset[p] + l.plane_size[p];
                    size_t grb = 0;
                    int32_t grows = 0;
                    CHECK_ST(ic_plane_geometry(f, w, h, p, &grb, &grows), IC_OK);
                    CHECK(grb == rb && grows == rows);
                }
                CHECK(l.total_size >= end && l.total_size - end < ea);
                size_t total = 0;
                CHECK_ST(ic_image_size(f, w, h, a, &total), IC_OK);
                CHECK(total == l.total_size);
                size_t rb;
                int32_t rows;
                CHECK_ST(ic_plane_geometry(f, w, h, -1, &rb, &rows), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_plane_geometry(f, w, h, ref_planes(f), &rb, &rows),
                         IC_ERR_INVALID_ARGUMENT);
            }

    ic_layout l;
    size_t total;
    for (int fi = 0; fi < NFORMATS; fi++) {
        ic_format f = k_formats[fi];
        CTX("invalid sizes, format %d", (int)f);
        static const int32_t bad[][2] = {{0, 1}, {1, 0}, {-1, 1}, {1, -1}, {INT32_MIN, 5}};
        for (int i = 0; i < 5; i++) {
            CHECK_ST(ic_layout_compute(f, bad[i][0], bad[i][1], 0, &l), IC_ERR_INVALID_ARGUMENT);
            CHECK_ST(ic_image_size(f, bad[i][0], bad[i][1], 0, &total), IC_ERR_INVALID_ARGUMENT);
            CHECK_ST(ic_plane_geometry(f, bad[i][0], bad[i][1], 0, NULL, NULL),
                     IC_ERR_INVALID_ARGUMENT);
        }
        CHECK_ST(ic_layout_compute(f, 65536, 1, 0, &l), IC_ERR_TOO_LARGE);
        CHECK_ST(ic_layout_compute(f, 1, 65536, 0, &l), IC_ERR_TOO_LARGE);
        CHECK_ST(ic_plane_geometry(f, 65536, 1, 0, NULL, NULL), IC_ERR_TOO_LARGE);
        CHECK_ST(ic_layout_compute(f, 65535, 1, 0, &l), IC_OK);
        CHECK_ST(ic_layout_compute(f, 1, 1, 0, NULL), IC_ERR_INVALID_ARGUMENT);
        static const size_t bad_align[] = {3, 5, 48, 8192, (size_t)1 << 20};
        for (int i = 0; i < 5; i++)
            CHECK_ST(ic_layout_compute(f, 4, 4, bad_align[i], &l), IC_ERR_INVALID_ARGUMENT);
    }
    static const ic_format bad_formats[] = {IC_FORMAT_INVALID, (ic_format)6, (ic_format)-1,
                                            (ic_format)99};
    for (int i = 0; i < 4; i++) {
        CTX("bad format %d", (int)bad_formats[i]);
        CHECK(ic_format_plane_count(bad_formats[i]) == 0);
        CHECK_ST(ic_layout_compute(bad_formats[i], 4, 4, 0, &l), IC_ERR_INVALID_ARGUMENT);
        CHECK_ST(ic_plane_geometry(bad_formats[i], 4, 4, 0, NULL, NULL), IC_ERR_INVALID_ARGUMENT);
    }
    CTX("4 GiB limit");
    CHECK(ic_max_image_bytes() == (uint64_t)1 << 32);
    CHECK_ST(ic_layout_compute(IC_FORMAT_RGBA8, 65500, 65500, 0, &l), IC_ERR_TOO_LARGE);
    CHECK_ST(ic_image_size(IC_FORMAT_RGBA8, 65500, 65500, 1, &total), IC_ERR_TOO_LARGE);
    CHECK_ST(ic_layout_compute(IC_FORMAT_RGB8, 65535, 65535, 0, &l), IC_ERR_TOO_LARGE);
    CHECK_ST(ic_layout_compute(IC_FORMAT_I420, 65500, 65500, 0, &l), IC_ERR_TOO_LARGE);
    CHECK_ST(ic_layout_compute(IC_FORMAT_GRAY8, 65500, 65500, 0, &l), IC_OK);
    CHECK(l.total_size >= (size_t)65500 * 65500 && l.total_size <= ic_max_image_bytes());
    CHECK_ST(ic_layout_compute(IC_FORMAT_GRAY8, 65500, 65500, 4096, &l), IC_OK);
}

static void test_image_init(void) {
    ic_layout l;
    uint8_t base[256];
    ic_image img;
    CTX("ic_image_init");
    CHECK_ST(ic_layout_compute(IC_FORMAT_I420, 5, 3, 16, &l), IC_OK);
    CHECK(l.total_size <= sizeof base);
    CHECK_ST(ic_image_init(&img, IC_FORMAT_I420, IC_ALPHA_OPAQUE, 5, 3, base, &l), IC_OK);
    CHECK(img.format == IC_FORMAT_I420 && img.width == 5 && img.height == 3);
    for (int p = 0; p < 3; p++)
        CHECK(img.planes[p].data == base + l.offset[p] && img.planes[p].stride == l.stride[p]);
    CHECK_ST(ic_image_validate(&img), IC_OK);
    CHECK_ST(ic_image_init(&img, IC_FORMAT_I420, IC_ALPHA_OPAQUE, 50, 30, base, &l),
             IC_ERR_INVALID_ARGUMENT); /* layout of another size */
    CHECK_ST(ic_image_init(NULL, IC_FORMAT_I420, IC_ALPHA_OPAQUE, 5, 3, base, &l),
             IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_image_init(&img, IC_FORMAT_I420, IC_ALPHA_OPAQUE, 5, 3, NULL, &l),
             IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_image_init(&img, IC_FORMAT_I420, IC_ALPHA_OPAQUE, 5, 3, base, NULL),
             IC_ERR_INVALID_ARGUMENT);
}

/* ---- validation ----------------------------------------------------------------- */

/* A descriptor with minimal strides; validation never dereferences the planes. */
static ic_image make_desc(ic_format f, int32_t w, int32_t h, uint8_t *mem) {
    ic_image img;
    memset(&img, 0, sizeof img);
    img.format = f;
    img.alpha = IC_ALPHA_STRAIGHT;
    img.width = w;
    img.height = h;
    for (int p = 0; p < ref_planes(f); p++) {
        img.planes[p].data = mem + p;
        img.planes[p].stride = ref_row_bytes(f, w, p);
    }
    return img;
}

static void test_validate(void) {
    static uint8_t mem[64];
    static const int32_t sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {17, 9}, {65535, 65535}};
    CHECK_ST(ic_image_validate(NULL), IC_ERR_INVALID_ARGUMENT);
    for (int fi = 0; fi < NFORMATS; fi++) {
        ic_format f = k_formats[fi];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int32_t w = sizes[si][0], h = sizes[si][1];
            CTX("validate format %d %dx%d", (int)f, w, h);
            ic_image img = make_desc(f, w, h, mem);
            CHECK_ST(ic_image_validate(&img), IC_OK);
            img.alpha = IC_ALPHA_PREMULTIPLIED;
            CHECK_ST(ic_image_validate(&img), IC_OK);
            img.alpha = IC_ALPHA_OPAQUE;
            CHECK_ST(ic_image_validate(&img), IC_OK);
            for (int p = 0; p < ref_planes(f); p++) {
                ic_image bad = img;
                bad.planes[p].data = NULL;
                CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
                bad = img;
                bad.planes[p].stride = ref_row_bytes(f, w, p) - 1;
                CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
                bad = img;
                bad.planes[p].stride += 100; /* padding is fine */
                CHECK_ST(ic_image_validate(&bad), IC_OK);
            }
            ic_image bad = img;
            bad.alpha = (ic_alpha)3;
            CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
            bad.alpha = (ic_alpha)-1;
            CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
            bad = img;
            bad.format = IC_FORMAT_INVALID;
            CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
            bad.format = (ic_format)77;
            CHECK_ST(ic_image_validate(&bad), IC_ERR_INVALID_ARGUMENT);
        }
        CTX("validate sizes, format %d", (int)f);
        static const int32_t bad_sizes[][2] = {{0, 4}, {4, 0}, {-3, 4}, {4, -3}, {0, 0}};
        for (int i = 0; i < 5; i++) {
            ic_image img = make_desc(f, 4, 4, mem);
            img.width = bad_sizes[i][0];
            img.height = bad_sizes[i][1];
            CHECK_ST(ic_image_validate(&img), IC_ERR_INVALID_ARGUMENT);
        }
        ic_image img = make_desc(f, 65536, 4, mem);
        CHECK_ST(ic_image_validate(&img), IC_ERR_TOO_LARGE);
        img = make_desc(f, 4, 65536, mem);
        CHECK_ST(ic_image_validate(&img), IC_ERR_TOO_LARGE);
    }
    /* Extents that cannot be addressed. */
    CTX("validate extents");
    ic_image img = make_desc(IC_FORMAT_GRAY8, 1, 3, mem);
    img.planes[0].stride = SIZE_MAX / 2;
    CHECK_ST(ic_image_validate(&img), IC_ERR_TOO_LARGE);
    img.planes[0].stride = SIZE_MAX;
    CHECK_ST(ic_image_validate(&img), IC_ERR_TOO_LARGE);
    img = make_desc(IC_FORMAT_GRAY8, 4, 2, mem);
    img.planes[0].stride = 100;
    img.planes[0].data = (uint8_t *)(UINTPTR_MAX - 10); /* wraps the address space */
    CHECK_ST(ic_image_validate(&img), IC_ERR_TOO_LARGE);

    /* Odd YUV sizes: chroma is ceil(w/2) x ceil(h/2) (NV12 rows 2*ceil(w/2) bytes). */
    CTX("validate odd yuv");
    img = make_desc(IC_FORMAT_I420, 17, 9, mem);
    CHECK(img.planes[1].stride == 9 && img.planes[2].stride == 9);
    CHECK_ST(ic_image_validate(&img), IC_OK);
    img.planes[1].stride = 8;
    CHECK_ST(ic_image_validate(&img), IC_ERR_INVALID_ARGUMENT);
    img = make_desc(IC_FORMAT_I420, 17, 9, mem);
    img.planes[2].stride = 8;
    CHECK_ST(ic_image_validate(&img), IC_ERR_INVALID_ARGUMENT);
    img = make_desc(IC_FORMAT_NV12, 17, 9, mem);
    CHECK(img.planes[1].stride == 18);
    CHECK_ST(ic_image_validate(&img), IC_OK);
    img.planes[2].data = NULL; /* beyond the plane count: ignored */
    img.planes[2].stride = 0;
    CHECK_ST(ic_image_validate(&img), IC_OK);
    img.planes[1].stride = 17;
    CHECK_ST(ic_image_validate(&img), IC_ERR_INVALID_ARGUMENT);
    img = make_desc(IC_FORMAT_GRAY8, 5, 5, mem);
    img.planes[1].data = NULL;
    img.planes[2].data = NULL;
    CHECK_ST(ic_image_validate(&img), IC_OK);
}

/* ---- parallel for --------------------------------------------------------------- */

typedef struct pf_ctx {
    int32_t *hits;
    int64_t count, grain;
    int32_t bad; /* chunks out of range or shorter than the grain (except the last) */
    int32_t calls;
} pf_ctx;

static void pf_fn(void *c, int64_t b, int64_t e) {
    pf_ctx *x = (pf_ctx *)c;
    __atomic_fetch_add(&x->calls, 1, __ATOMIC_RELAXED);
    int64_t g = x->grain < 1 ? 1 : x->grain;
    if (b < 0 || e > x->count || b >= e || (e - b < g && e != x->count)) {
        __atomic_fetch_add(&x->bad, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t i = b; i < e; i++) __atomic_fetch_add(&x->hits[i], 1, __ATOMIC_RELAXED);
}

enum { NEST_OUTER = 50, NEST_INNER = 200 };
static void nested_outer(void *c, int64_t b, int64_t e) {
    pf_ctx *x = (pf_ctx *)c;
    for (int64_t o = b; o < e; o++) {
        pf_ctx in = {x->hits + o * NEST_INNER, NEST_INNER, 7, 0, 0};
        if (ic_parallel_for(NEST_INNER, 7, pf_fn, &in) != IC_OK || in.bad)
            __atomic_fetch_add(&x->bad, 1, __ATOMIC_RELAXED);
    }
}

/* Chunk 0 waits (up to 10 s) until another thread has entered: proof of a real team. */
typedef struct team_ctx { int32_t entered; int32_t met; } team_ctx;
static void team_fn(void *c, int64_t b, int64_t e) {
    team_ctx *t = (team_ctx *)c;
    (void)e;
    __atomic_fetch_add(&t->entered, 1, __ATOMIC_SEQ_CST);
    if (b != 0) return;
    struct timespec ts = {0, 1000000};
    for (int i = 0; i < 10000; i++) {
        if (__atomic_load_n(&t->entered, __ATOMIC_SEQ_CST) >= 2) {
            t->met = 1;
            return;
        }
        nanosleep(&ts, NULL);
    }
}

static long expected_default_threads(void) {
    const char *env = getenv("IC_NUM_THREADS");
    if (env && *env) {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 1024) return v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

static void test_parallel(void) {
    static const int32_t threads[] = {1, 2, 7};
    static const int64_t counts[] = {0, 1, 7, 1000, 100003};
    static const int64_t grains[] = {1, 3, 1000, 0, -5};
    int32_t *hits = (int32_t *)xmalloc(100003 * sizeof *hits);
    CTX("backend");
    CHECK(strcmp(ic_parallel_backend(), IC_EXPECT_BACKEND) == 0);
    for (int ti = 0; ti < 3; ti++) {
        ic_set_num_threads(threads[ti]);
        CHECK(ic_get_num_threads() == threads[ti]);
        for (int ci = 0; ci < 5; ci++)
            for (int gi = 0; gi < 5; gi++) {
                int64_t n = counts[ci];
                CTX("parallel threads %d count %lld grain %lld", threads[ti], (long long)n,
                    (long long)grains[gi]);
                memset(hits, 0, 100003 * sizeof *hits);
                pf_ctx x = {hits, n, grains[gi], 0, 0};
                CHECK_ST(ic_parallel_for(n, grains[gi], pf_fn, &x), IC_OK);
                int once = 1;
                for (int64_t i = 0; i < n; i++) once &= hits[i] == 1;
                CHECK(once && x.bad == 0);
                CHECK(n > 0 ? x.calls >= 1 : x.calls == 0);
            }
        CTX("nested, threads %d", threads[ti]);
        memset(hits, 0, NEST_OUTER * NEST_INNER * sizeof *hits);
        pf_ctx outer = {hits, NEST_OUTER, 1, 0, 0};
        CHECK_ST(ic_parallel_for(NEST_OUTER, 1, nested_outer, &outer), IC_OK);
        int once = 1;
        for (int i = 0; i < NEST_OUTER * NEST_INNER; i++) once &= hits[i] == 1;
        CHECK(once && outer.bad == 0);
    }
    /* (Skipped where the OpenMP environment may shrink the team.) */
    if (strcmp(ic_parallel_backend(), "serial") != 0 && !getenv("OMP_THREAD_LIMIT") &&
        !getenv("OMP_DYNAMIC")) {
        CTX("two threads really run at once");
        ic_set_num_threads(2);
        team_ctx t = {0, 0};
        CHECK_ST(ic_parallel_for(2, 1, team_fn, &t), IC_OK);
        CHECK(t.met == 1);
    }
    CTX("parallel invalid");
    pf_ctx x = {hits, 10, 1, 0, 0};
    CHECK_ST(ic_parallel_for(10, 1, NULL, &x), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_parallel_for(-1, 1, pf_fn, &x), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_parallel_for(INT64_MIN, 1, pf_fn, &x), IC_ERR_INVALID_ARGUMENT);
    CHECK(x.calls == 0);
    ic_set_num_threads(0);
    CTX("default threads %d", ic_get_num_threads());
    CHECK(ic_get_num_threads() >= 1);
    CHECK(ic_get_num_threads() == expected_default_threads());
    ic_set_num_threads(-4);
    CHECK(ic_get_num_threads() == expected_default_threads());
    free(hits);
}

/* ---- cpu features --------------------------------------------------------------- */

static void test_cpu(void) {
    uint32_t det = ic_cpu_features_detected(), initial = ic_get_cpu_mask();
    CTX("cpu detected 0x%x mask 0x%x", det, initial);
    const char *env = getenv("IC_CPU_MASK");
    CHECK(initial == (env && *env ? (uint32_t)strtoul(env, NULL, 0) : 0xffffffffu));
    CHECK((ic_cpu_features() & ~det) == 0);
    CHECK(ic_cpu_features() == (det & initial));
#if defined(__x86_64__)
    CHECK(det & IC_CPU_SSE2);
#elif defined(__aarch64__)
    CHECK(det & IC_CPU_NEON);
#endif
    CHECK(ic_set_cpu_mask(0) == initial);
    CHECK(ic_cpu_features() == 0 && ic_get_cpu_mask() == 0);
    CHECK(ic_set_cpu_mask(IC_CPU_SSE2) == 0);
    CHECK(ic_cpu_features() == (det & IC_CPU_SSE2));
    CHECK(ic_set_cpu_mask(0xffffffffu) == IC_CPU_SSE2);
    CHECK(ic_cpu_features() == det);
    ic_set_cpu_mask(initial);
}

/* ---- plane copy / fill ---------------------------------------------------------- */

/* dst rows equal src rows; every other dst byte (padding, tail) still the sentinel. */
static int dst_ok(const uint8_t *src, size_t ss, const uint8_t *dst, size_t ds, size_t rb,
                  int32_t rows, size_t dst_alloc) {
    for (int32_t y = 0; y < rows; y++) {
        const uint8_t *d = dst + (size_t)y * ds;
        if (memcmp(d, src + (size_t)y * ss, rb) != 0) return 0;
        size_t pad_end = y + 1 < rows ? ds : (dst_alloc - (size_t)y * ds);
        if (!all_bytes(d + rb, pad_end - rb, SENT)) return 0;
    }
    return 1;
}

static void one_copy(size_t rb, int32_t rows, size_t spad, size_t dpad) {
    size_t ss = rb + spad, ds = rb + dpad;
    size_t sext = ss * (size_t)(rows - 1) + rb, dext = ds * (size_t)(rows - 1) + rb;
    uint8_t *src = (uint8_t *)xmalloc(sext); /* exact: ASan catches over-reads */
    uint8_t *dst = (uint8_t *)xmalloc(dext + TAIL);
    fill_random(src, sext);
    memset(dst, SENT, dext + TAIL);
    CTX("copy rb %zu rows %d spad %zu dpad %zu", rb, rows, spad, dpad);
    CHECK_ST(ic_plane_copy(src, ss, dst, ds, rb, rows), IC_OK);
    CHECK(dst_ok(src, ss, dst, ds, rb, rows, dext + TAIL));
    free(src);
    free(dst);
}

/* A source image of the pattern, to compare fills with dst_ok. */
static uint8_t *pattern_rows(size_t rb, const uint8_t *pat, size_t ps) {
    uint8_t *r = (uint8_t *)xmalloc(rb);
    for (size_t i = 0; i < rb; i++) r[i] = pat[i % ps];
    return r;
}

static void one_fill(size_t rb, int32_t rows, size_t dpad, size_t ps) {
    uint8_t pat[16];
    fill_random(pat, ps);
    size_t ds = rb + dpad, dext = ds * (size_t)(rows - 1) + rb;
    uint8_t *dst = (uint8_t *)xmalloc(dext + TAIL), *ref = pattern_rows(rb, pat, ps);
    memset(dst, SENT, dext + TAIL);
    CTX("fill rb %zu rows %d dpad %zu pattern %zu", rb, rows, dpad, ps);
    CHECK_ST(ic_plane_fill(dst, ds, rb, rows, pat, ps), IC_OK);
    CHECK(dst_ok(ref, 0, dst, ds, rb, rows, dext + TAIL));
    free(dst);
    free(ref);
}

static void test_plane_copy_fill(void) {
    static const size_t pads[] = {0, 1, 13, 64};
    static const size_t psizes[] = {1, 2, 3, 4, 16};
    const size_t wide = 4031 * 4;
    ic_set_num_threads(2);
    for (size_t sp = 0; sp < 4; sp++)
        for (size_t dp = 0; dp < 4; dp++) {
            for (int32_t rows = 1; rows <= 9; rows++) {
                for (size_t rb = 1; rb <= 67; rb++) one_copy(rb, rows, pads[sp], pads[dp]);
                one_copy(wide, rows, pads[sp], pads[dp]);
            }
            for (size_t rb = 1; rb <= 67; rb += 11) one_copy(rb, 3023, pads[sp], pads[dp]);
        }
    static const size_t big_pads[][2] = {{0, 0}, {1, 13}, {64, 0}, {13, 64}};
    for (int i = 0; i < 4; i++) one_copy(wide, 3023, big_pads[i][0], big_pads[i][1]);

    for (size_t pi = 0; pi < 5; pi++)
        for (size_t dp = 0; dp < 4; dp++) {
            size_t ps = psizes[pi];
            for (int32_t rows = 1; rows <= 9; rows++) {
                for (size_t rb = ps; rb <= 67 + ps; rb += ps) one_fill(rb, rows, pads[dp], ps);
                one_fill(wide - wide % ps, rows, pads[dp], ps);
            }
            one_fill(ps * 5, 3023, pads[dp], ps);
            one_fill(wide - wide % ps, 3023, pads[dp], ps);
        }

    /* Arguments. */
    uint8_t buf[1000], pat[16] = {1, 2, 3};
    CTX("copy/fill invalid");
    memset(buf, SENT, sizeof buf);
    CHECK_ST(ic_plane_copy(buf, 100, buf + 10, 100, 20, 2), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_copy(buf + 10, 100, buf, 100, 20, 2), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_copy(buf, 20, buf, 20, 20, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK(all_bytes(buf, sizeof buf, SENT)); /* refused calls write nothing */
    CHECK_ST(ic_plane_copy(buf, 20, buf + 20, 20, 20, 1), IC_OK); /* adjacent, no overlap */
    CHECK_ST(ic_plane_copy(buf, 10, buf + 500, 10, 20, 2), IC_ERR_INVALID_ARGUMENT); /* stride<rb */
    CHECK_ST(ic_plane_copy(NULL, 0, NULL, 0, 20, 0), IC_OK);
    CHECK_ST(ic_plane_copy(buf, 20, buf + 500, 20, 20, 0), IC_OK);
    CHECK_ST(ic_plane_copy(NULL, 20, buf, 20, 20, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_copy(buf, 20, NULL, 20, 20, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_copy(buf, 20, buf + 500, 20, 20, -1), IC_ERR_INVALID_ARGUMENT);
    memset(buf, SENT, sizeof buf);
    CHECK_ST(ic_plane_fill(buf, 10, 5, 2, pat, 2), IC_ERR_INVALID_ARGUMENT); /* 5 % 2 */
    CHECK_ST(ic_plane_fill(buf, 12, 8, 2, pat, 3), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_fill(buf, 10, 8, 2, pat, 0), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_fill(buf, 34, 34, 2, pat, 17), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_fill(buf, 10, 8, 2, NULL, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_fill(buf, 10, 8, -1, pat, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_plane_fill(buf, 4, 8, 2, pat, 1), IC_ERR_INVALID_ARGUMENT); /* stride < rb */
    CHECK_ST(ic_plane_fill(NULL, 10, 8, 2, pat, 1), IC_ERR_INVALID_ARGUMENT);
    CHECK(all_bytes(buf, sizeof buf, SENT));
    CHECK_ST(ic_plane_fill(buf, 10, 8, 0, pat, 1), IC_OK);
    CHECK_ST(ic_plane_fill(NULL, 10, 8, 0, pat, 1), IC_OK);
    CHECK(all_bytes(buf, sizeof buf, SENT));

    /* Contiguous (stride == row_bytes): cut into bands internally, with a ragged tail. */
    const size_t big = (size_t)16 << 20;
    uint8_t *src = (uint8_t *)xmalloc(big + 12345), *dst = (uint8_t *)xmalloc(big + 12345 + TAIL);
    fill_random(src, big + 12345);
    for (int32_t t = 1; t <= 2; t++) {
        ic_set_num_threads(t);
        static const size_t shapes[][2] = {{(16 << 20) + 12345, 1}, {4096, 4096}, {4095, 4099}};
        for (int s = 0; s < 3; s++) {
            size_t rb = shapes[s][0];
            int32_t rows = (int32_t)shapes[s][1];
            size_t n = rb * (size_t)rows;
            CTX("contiguous copy %zu x %d threads %d", rb, rows, t);
            memset(dst, SENT, n + TAIL);
            CHECK_ST(ic_plane_copy(src, rb, dst, rb, rb, rows), IC_OK);
            CHECK(memcmp(src, dst, n) == 0 && all_bytes(dst + n, TAIL, SENT));
            for (size_t pi = 0; pi < 5; pi++) {
                size_t ps = psizes[pi], frb = rb - rb % ps, fn = frb * (size_t)rows;
                fill_random(pat, ps);
                CTX("contiguous fill %zu x %d pattern %zu threads %d", frb, rows, ps, t);
                memset(dst, SENT, fn + TAIL);
                CHECK_ST(ic_plane_fill(dst, frb, frb, rows, pat, ps), IC_OK);
                int ok = all_bytes(dst + fn, TAIL, SENT);
                for (size_t i = 0; i < fn && ok; i++) ok = dst[i] == pat[i % ps];
                CHECK(ok);
            }
        }
    }
    free(src);
    free(dst);
    ic_set_num_threads(0);
}

/* libyuv's trick: planes whose last byte is the last byte before a PROT_NONE page. */
static void test_guard_pages(void) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *ms = (uint8_t *)mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *md = (uint8_t *)mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CTX("guard mmap");
    if (!CHECK(ms != MAP_FAILED && md != MAP_FAILED)) return;
    CHECK(mprotect(ms + 2 * pg, pg, PROT_NONE) == 0 && mprotect(md + 2 * pg, pg, PROT_NONE) == 0);
    uint8_t *gs = ms + 2 * pg, *gd = md + 2 * pg;
    uint8_t pat[16];
    for (size_t rb = 1; rb <= 67; rb++)
        for (int32_t rows = 1; rows <= 9; rows++)
            for (size_t pad = 0; pad <= 13; pad += 13) {
                size_t stride = rb + pad, ext = stride * (size_t)(rows - 1) + rb;
                uint8_t *src = gs - ext, *dst = gd - ext;
                fill_random(src, ext);
                memset(dst, SENT, ext);
                CTX("guard copy rb %zu rows %d pad %zu", rb, rows, pad);
                CHECK_ST(ic_plane_copy(src, stride, dst, stride, rb, rows), IC_OK);
                CHECK(dst_ok(src, stride, dst, stride, rb, rows, ext));
                size_t ps = rb % 3 == 0 ? 3 : rb % 2 == 0 ? 2 : 1;
                fill_random(pat, ps);
                CHECK_ST(ic_plane_fill(src, stride, rb, rows, pat, ps), IC_OK);
                int ok = 1;
                for (int32_t y = 0; y < rows; y++)
                    for (size_t x = 0; x < rb; x++) ok &= src[y * stride + x] == pat[x % ps];
                CHECK(ok);
            }
    /* Whole YUV images whose last plane ends at the guard page. */
    for (int fi = 3; fi < NFORMATS; fi++) {
        ic_format f = k_formats[fi];
        ic_layout l;
        ic_image s, d;
        CTX("guard image format %d", (int)f);
        CHECK_ST(ic_layout_compute(f, 17, 9, 1, &l), IC_OK);
        CHECK_ST(ic_image_init(&s, f, IC_ALPHA_OPAQUE, 17, 9, gs - l.total_size, &l), IC_OK);
        CHECK_ST(ic_image_init(&d, f, IC_ALPHA_OPAQUE, 17, 9, gd - l.total_size, &l), IC_OK);
        fill_random(gs - l.total_size, l.total_size);
        CHECK_ST(ic_image_copy(&s, &d), IC_OK);
        CHECK(memcmp(gs - l.total_size, gd - l.total_size, l.total_size) == 0);
        static const uint8_t v[4] = {16, 128, 200, 0};
        CHECK_ST(ic_image_fill(&d, v), IC_OK);
        /* Y first; the last bytes are V (I420) or the final U,V pair (NV12). */
        CHECK(gd[-(ptrdiff_t)l.total_size] == 16 && gd[-1] == 200);
        CHECK(gd[-2] == (f == IC_FORMAT_I420 ? 200 : 128));
    }
    munmap(ms, 3 * pg);
    munmap(md, 3 * pg);
}

/* ---- whole images --------------------------------------------------------------- */

typedef struct test_img {
    ic_image img;
    size_t alloc[IC_MAX_PLANES];
} test_img;

/* Each plane its own exact allocation (full last-row padding), strides padded per plane. */
static test_img alloc_img(ic_format f, int32_t w, int32_t h, size_t pad, int random) {
    test_img t;
    memset(&t, 0, sizeof t);
    t.img.format = f;
    t.img.alpha = IC_ALPHA_STRAIGHT;
    t.img.width = w;
    t.img.height = h;
    for (int p = 0; p < ref_planes(f); p++) {
        size_t stride = ref_row_bytes(f, w, p) + pad + (pad ? (size_t)p : 0);
        t.alloc[p] = stride * (size_t)ref_rows(f, h, p);
        t.img.planes[p].stride = stride;
        t.img.planes[p].data = (uint8_t *)xmalloc(t.alloc[p]);
        if (random) fill_random(t.img.planes[p].data, t.alloc[p]);
        else memset(t.img.planes[p].data, SENT, t.alloc[p]);
    }
    return t;
}
static void free_img(test_img *t) {
    for (int p = 0; p < IC_MAX_PLANES; p++) free(t->img.planes[p].data);
}
static int img_untouched(const test_img *t) {
    for (int p = 0; p < ref_planes(t->img.format); p++)
        if (!all_bytes(t->img.planes[p].data, t->alloc[p], SENT)) return 0;
    return 1;
}

static void test_image_copy_fill(void) {
    static const int32_t sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {17, 9}, {33, 7}, {64, 5}};
    static const size_t pads[] = {0, 5, 64};
    static const uint8_t value[4] = {11, 22, 33, 44};
    for (int fi = 0; fi < NFORMATS; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int pi = 0; pi < 3; pi++) {
                ic_format f = k_formats[fi];
                int32_t w = sizes[si][0], h = sizes[si][1];
                CTX("image format %d %dx%d pad %zu", (int)f, w, h, pads[pi]);
                test_img s = alloc_img(f, w, h, 3, 1), d = alloc_img(f, w, h, pads[pi], 0);
                d.img.alpha = IC_ALPHA_OPAQUE; /* not checked by copy */
                CHECK_ST(ic_image_copy(&s.img, &d.img), IC_OK);
                int ok = 1;
                for (int p = 0; p < ref_planes(f); p++)
                    ok &= dst_ok(s.img.planes[p].data, s.img.planes[p].stride,
                                 d.img.planes[p].data, d.img.planes[p].stride,
                                 ref_row_bytes(f, w, p), ref_rows(f, h, p), d.alloc[p]);
                CHECK(ok);

                free_img(&d);
                d = alloc_img(f, w, h, pads[pi], 0);
                CHECK_ST(ic_image_fill(&d.img, value), IC_OK);
                ok = 1;
                for (int p = 0; p < ref_planes(f); p++) {
                    uint8_t pat[4];
                    size_t ps = 1;
                    switch (f) {
                    case IC_FORMAT_RGB8: ps = 3; memcpy(pat, value, 3); break;
                    case IC_FORMAT_RGBA8: ps = 4; memcpy(pat, value, 4); break;
                    case IC_FORMAT_NV12:
                        if (p) { ps = 2; pat[0] = value[1]; pat[1] = value[2]; }
                        else pat[0] = value[0];
                        break;
                    default: pat[0] = value[p]; break; /* GRAY8: p == 0; I420: y, u, v */
                    }
                    size_t rb = ref_row_bytes(f, w, p);
                    uint8_t *ref = pattern_rows(rb, pat, ps);
                    ok &= dst_ok(ref, 0, d.img.planes[p].data, d.img.planes[p].stride, rb,
                                 ref_rows(f, h, p), d.alloc[p]);
                    free(ref);
                }
                CHECK(ok);

                /* Refusals leave the destination alone. */
                free_img(&d);
                d = alloc_img(f, w, h, pads[pi], 0);
                ic_image bad = d.img;
                bad.width = w + 1;
                CHECK_ST(ic_image_copy(&s.img, &bad), IC_ERR_INVALID_ARGUMENT);
                bad = d.img;
                bad.height = h + 1;
                CHECK_ST(ic_image_copy(&s.img, &bad), IC_ERR_INVALID_ARGUMENT);
                bad = d.img;
                bad.format = f == IC_FORMAT_GRAY8 ? IC_FORMAT_RGB8 : IC_FORMAT_GRAY8;
                CHECK_ST(ic_image_copy(&s.img, &bad), IC_ERR_INVALID_ARGUMENT);
                bad = s.img;
                bad.planes[ref_planes(f) - 1].data = NULL;
                CHECK_ST(ic_image_copy(&bad, &d.img), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_copy(NULL, &d.img), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_copy(&s.img, NULL), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_fill(&d.img, NULL), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_fill(NULL, value), IC_ERR_INVALID_ARGUMENT);
                CHECK(img_untouched(&d));
                free_img(&s);
                free_img(&d);
            }
}

/* ---- JPEG header ---------------------------------------------------------------- */

static unsigned char *make_jpeg(int w, int h, int pf, int samp, unsigned long *size) {
    tjhandle t = tjInitCompress();
    uint8_t *px = (uint8_t *)xmalloc((size_t)w * (size_t)h * (size_t)tjPixelSize[pf]);
    fill_random(px, (size_t)w * (size_t)h * (size_t)tjPixelSize[pf]);
    unsigned char *jpg = NULL;
    *size = 0;
    int rc = t ? tjCompress2(t, px, w, 0, h, pf, &jpg, size, samp, 90, 0) : -1;
    if (t) tjDestroy(t);
    free(px);
    if (rc != 0) { tjFree(jpg); return NULL; }
    return jpg;
}

static void test_jpeg(void) {
    ic_jpeg_info hd;
    static const uint8_t three[3] = {0xFF, 0xD8, 0xFF};
    static const uint8_t soi_eoi[4] = {0xFF, 0xD8, 0xFF, 0xD9};
    static const uint8_t gif[] = "GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    static const uint8_t png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    CTX("jpeg garbage");
    CHECK_ST(ic_jpeg_probe(three, 0, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(NULL, 0, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(three, 3, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(soi_eoi, 4, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(gif, sizeof gif - 1, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(png, sizeof png - 1, &hd), IC_ERR_CORRUPT_DATA);
    CHECK_ST(ic_jpeg_probe(three, 3, NULL), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_jpeg_probe(NULL, 10, &hd), IC_ERR_INVALID_ARGUMENT);
    uint8_t noise[1000];
    fill_random(noise, sizeof noise);
    noise[0] = 0xFF;
    noise[1] = 0xD8;
    ic_status st = ic_jpeg_probe(noise, sizeof noise, &hd);
    CHECK(st == IC_OK || st == IC_ERR_CORRUPT_DATA); /* no crash, no over-read */

    static const struct { int pf, samp, w, h; ic_jpeg_subsampling ss; ic_jpeg_colorspace cs; } cases[] = {
        {TJPF_RGB, TJSAMP_420, 17, 9, IC_JPEG_SUBSAMP_420, IC_JPEG_CS_YCBCR},
        {TJPF_RGB, TJSAMP_444, 5, 3, IC_JPEG_SUBSAMP_444, IC_JPEG_CS_YCBCR},
        {TJPF_RGB, TJSAMP_422, 33, 1, IC_JPEG_SUBSAMP_422, IC_JPEG_CS_YCBCR},
        {TJPF_GRAY, TJSAMP_GRAY, 17, 9, IC_JPEG_SUBSAMP_GRAY, IC_JPEG_CS_GRAY},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned long size = 0;
        unsigned char *jpg = make_jpeg(cases[i].w, cases[i].h, cases[i].pf, cases[i].samp, &size);
        CTX("jpeg case %zu", i);
        if (!CHECK(jpg != NULL && size > 4)) continue;
        memset(&hd, 0, sizeof hd);
        CHECK_ST(ic_jpeg_probe(jpg, size, &hd), IC_OK);
        CHECK(hd.width == cases[i].w && hd.height == cases[i].h);
        CHECK(hd.subsampling == cases[i].ss && hd.colorspace == cases[i].cs);
        /* Every truncation: an error or the right header, never a crash (ASan: no over-read). */
        int ok = 1;
        for (unsigned long n = 0; n < size; n++) {
            uint8_t *cut = (uint8_t *)xmalloc(n);
            memcpy(cut, jpg, n);
            ic_jpeg_info h2;
            st = ic_jpeg_probe(cut, n, &h2);
            if (st == IC_OK) ok &= h2.width == cases[i].w && h2.height == cases[i].h;
            else ok &= st == IC_ERR_CORRUPT_DATA;
            if (n < 4) ok &= st == IC_ERR_CORRUPT_DATA;
            free(cut);
        }
        CHECK(ok);
        tjFree(jpg);
    }
}

/* ---- streaming resize ----------------------------------------------------------- */

/* The row-push resize against the one-shot ic_resize (the reference here: the stream's
 * contract is the same bytes), row by row and in bands, in exact-size heap memory (ASan
 * catches a write past the reported size), plus its error paths. */
static void *xmemalign64(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n) != 0 || !p) { fprintf(stderr, "out of memory (%zu bytes)\n", n); exit(2); }
    return p;
}

static void test_resize_stream(void) {
    static const int32_t cases[][4] = {{61, 47, 13, 9}, {13, 9, 61, 47}, {1, 1, 1, 1}, {200, 61, 33, 10},
                                       {40, 257, 13, 25}, {504, 378, 256, 192}, {3, 600, 2, 2}};
    static const ic_format formats[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8};
    static const ic_alpha alphas[] = {IC_ALPHA_STRAIGHT, IC_ALPHA_PREMULTIPLIED, IC_ALPHA_OPAQUE};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int fi = 0; fi < 5; fi++) {
            const ic_format f = formats[fi < 2 ? fi : 2];
            const ic_alpha a = fi < 2 ? IC_ALPHA_STRAIGHT : alphas[fi - 2];
            const int32_t w = cases[ci][0], h = cases[ci][1], ow = cases[ci][2], oh = cases[ci][3];
            const ic_resize_filter filter = (ic_resize_filter)((ci + (size_t)fi) % 5);
            CTX("stream format %d alpha %d %dx%d -> %dx%d filter %d", (int)f, (int)a, w, h, ow, oh, (int)filter);
            test_img s = alloc_img(f, w, h, 3, 1), ref = alloc_img(f, ow, oh, 0, 0), d = alloc_img(f, ow, oh, 7, 0);
            s.img.alpha = ref.img.alpha = d.img.alpha = a;
            CHECK_ST(ic_resize(&s.img, &ref.img, filter), IC_OK);
            ic_resize_params p;
            memset(&p, 0, sizeof p);
            p.format = f; p.alpha = a; p.filter = filter;
            p.src_width = w; p.src_height = h; p.dst_width = ow; p.dst_height = oh;
            size_t size = 0;
            CHECK_ST(ic_resize_stream_size(&p, &size), IC_OK);
            void *mem = xmemalign64(size);
            ic_resize_stream *st = NULL;
            CHECK_ST(ic_resize_stream_init(mem, size, &p, &st), IC_OK);
            const size_t rb = (size_t)w * (size_t)(f == IC_FORMAT_GRAY8 ? 1 : f == IC_FORMAT_RGB8 ? 3 : 4);
            for (int pass = 0; pass < 2 && st; pass++) {
                int32_t written = -1, pushed = -1, y = 0, ok = 1;
                while (y < h) {
                    const int32_t n = pass == 0 ? 1 : (h - y < 5 ? h - y : 5);
                    if (pass == 0) {
                        uint8_t *row = (uint8_t *)xmalloc(rb); /* exact size: ASan sees an over-read */
                        memcpy(row, s.img.planes[0].data + (size_t)y * s.img.planes[0].stride, rb);
                        ok &= ic_resize_stream_push(st, row, w, &d.img, &written) == IC_OK;
                        free(row);
                    } else {
                        ok &= ic_resize_stream_push_rows(st, s.img.planes[0].data + (size_t)y * s.img.planes[0].stride,
                                                         s.img.planes[0].stride, n, w, &d.img, &written) == IC_OK;
                    }
                    y += n;
                }
                CHECK(ok);
                CHECK(written == oh);
                CHECK_ST(ic_resize_stream_progress(st, &pushed, &written), IC_OK);
                CHECK(pushed == h && written == oh);
                int same = 1;
                for (int32_t r = 0; r < oh; r++)
                    same &= memcmp(d.img.planes[0].data + (size_t)r * d.img.planes[0].stride,
                                   ref.img.planes[0].data + (size_t)r * ref.img.planes[0].stride,
                                   (size_t)ow * (rb / (size_t)w)) == 0;
                CHECK(same);
                /* complete: one more row is refused */
                CHECK_ST(ic_resize_stream_push(st, s.img.planes[0].data, w, &d.img, NULL), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_resize_stream_reset(st), IC_OK);
                memset(d.img.planes[0].data, SENT, d.alloc[0]);
            }
            free(mem);
            free_img(&s); free_img(&ref); free_img(&d);
        }

    CTX("stream errors");
    ic_resize_params p;
    memset(&p, 0, sizeof p);
    p.format = IC_FORMAT_GRAY8; p.filter = IC_RESIZE_LANCZOS3;
    p.src_width = 20; p.src_height = 6; p.dst_width = 7; p.dst_height = 3;
    size_t size = 0;
    ic_resize_params q = p;
    q.format = IC_FORMAT_NV12;
    CHECK_ST(ic_resize_stream_size(&q, &size), IC_ERR_UNSUPPORTED);
    q = p; q.src_height = 0;
    CHECK_ST(ic_resize_stream_size(&q, &size), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_resize_stream_size(&p, &size), IC_OK);
    void *mem = xmemalign64(size);
    ic_resize_stream *st = NULL;
    CHECK_ST(ic_resize_stream_init(mem, size - 1, &p, &st), IC_ERR_BUFFER_TOO_SMALL);
    CHECK_ST(ic_resize_stream_init((uint8_t *)mem + 1, size, &p, &st), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_resize_stream_init(mem, size, &p, &st), IC_OK);
    test_img s = alloc_img(IC_FORMAT_GRAY8, 20, 6, 0, 1), d = alloc_img(IC_FORMAT_GRAY8, 7, 3, 0, 0);
    test_img other = alloc_img(IC_FORMAT_GRAY8, 8, 3, 0, 0);
    CHECK_ST(ic_resize_stream_push(st, s.img.planes[0].data, 19, &d.img, NULL), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_resize_stream_push(st, s.img.planes[0].data, 20, &other.img, NULL), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_resize_stream_push_rows(st, s.img.planes[0].data, 20, 7, 20, &d.img, NULL), IC_ERR_INVALID_ARGUMENT);
    CHECK_ST(ic_resize_stream_push_rows(st, s.img.planes[0].data, 19, 2, 20, &d.img, NULL), IC_ERR_INVALID_ARGUMENT);
    int32_t pushed = -1;
    CHECK_ST(ic_resize_stream_progress(st, &pushed, NULL), IC_OK);
    CHECK(pushed == 0 && img_untouched(&d));
    CHECK_ST(ic_resize_stream_push_rows(st, s.img.planes[0].data, 20, 6, 20, &d.img, NULL), IC_OK);
    CHECK_ST(ic_resize_stream_push(st, s.img.planes[0].data, 20, &d.img, NULL), IC_ERR_INVALID_ARGUMENT);
    free(mem);
    free_img(&s); free_img(&d); free_img(&other);
}


/* ---- undefined behaviour found by fuzzing (issue #12, defect 5) ------------------------
 * Under `make sanitize` (UBSan with float-cast-overflow) the conversions themselves abort;
 * everywhere the outputs are checked. */

static void test_ub_regressions(void) {
    /* enhance: an all-zero page had white point = black point, scale = inf, and 0 * inf = NaN
     * converted to uint8_t. Black stays black; a constant page stays constant per mode. */
    static const ic_enhance_mode modes[] = {IC_ENHANCE_COLOR, IC_ENHANCE_GRAY, IC_ENHANCE_BW};
    const uint32_t mask = ic_get_cpu_mask();
    for (int scalar = 0; scalar < 2; scalar++) {
        ic_set_cpu_mask(scalar ? 0 : mask);
        for (int mi = 0; mi < 3; mi++) {
            CTX("enhance all-zero page, mode %d, scalar %d", (int)modes[mi], scalar);
            uint8_t *page = (uint8_t *)xmalloc(100 * 100);
            memset(page, 0, 100 * 100);
            ic_image im = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, 100, 100, {{page, 100}}};
            ic_enhance_options o;
            memset(&o, 0, sizeof o);
            o.mode = modes[mi];
            size_t scratch_size = 0;
            CHECK_ST(ic_enhance_scratch_size(100, 100, &o, &scratch_size), IC_OK);
            void *scratch = xmalloc(scratch_size);
            CHECK_ST(ic_enhance_page(&im, &o, scratch, scratch_size), IC_OK);
            CHECK(all_bytes(page, 100 * 100, 0));
            free(scratch);
            free(page);
        }
    }
    ic_set_cpu_mask(mask);

    /* warp: H = {1e300,0,0, 0,1,0, 0,0,1} sent x to 1e302 and converted it to int. Every
     * position is beyond the source: fill. And 1e308 * I (u overflowed to inf before) maps
     * like I: bilinear at pixel centres copies the source exactly. */
    enum { S = 64, D = 32 };
    uint8_t *src = (uint8_t *)xmalloc(S * S), *dst = (uint8_t *)xmalloc(S * S);
    fill_random(src, S * S);
    ic_image si = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, S, S, {{src, S}}};
    static const double far[][9] = {{1e300, 0, 0, 0, 1, 0, 0, 0, 1},
                                    {1, 0, 0, 0, 1e300, 0, 0, 0, 1},
                                    {1, 0, 0, 0, 1, 0, 0, 0, 1e-300},
                                    {1, 0, 1e300, 0, 1, 0, 0, 0, 1},
                                    {1, 0, 0, 0, 1, 0, 1e-300, 0, 1e-300},
                                    {1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308, 0, 0, 1}};
    for (int scalar = 0; scalar < 2; scalar++) {
        ic_set_cpu_mask(scalar ? 0 : mask);
        for (size_t k = 0; k < sizeof far / sizeof far[0]; k++)
            for (int cubic = 0; cubic < 2; cubic++) {
                CTX("warp extreme matrix %zu, scalar %d, bicubic %d", k, scalar, cubic);
                ic_homography h;
                memcpy(h.m, far[k], sizeof h.m);
                ic_image di = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, D, D, {{dst, D}}};
                ic_warp_options o = ic_warp_options_default(IC_FORMAT_GRAY8);
                o.interpolation = cubic ? IC_INTERPOLATION_BICUBIC : IC_INTERPOLATION_BILINEAR;
                o.fill[0] = 77;
                memset(dst, 0, D * D);
                CHECK_ST(ic_warp_perspective(&si, &di, &h, &o), IC_OK);
                CHECK(all_bytes(dst, D * D, 77));
            }
        for (int cubic = 0; cubic < 2; cubic++) {
            CTX("warp 1e308 * identity, scalar %d, bicubic %d", scalar, cubic);
            ic_homography h = {{1e308, 0, 0, 0, 1e308, 0, 0, 0, 1e308}};
            ic_image di = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, S, S, {{dst, S}}};
            ic_warp_options o = ic_warp_options_default(IC_FORMAT_GRAY8);
            o.interpolation = cubic ? IC_INTERPOLATION_BICUBIC : IC_INTERPOLATION_BILINEAR;
            memset(dst, 0, S * S);
            CHECK_ST(ic_warp_perspective(&si, &di, &h, &o), IC_OK);
            CHECK(memcmp(dst, src, S * S) == 0);
        }
    }
    ic_set_cpu_mask(mask);
    free(src);
    free(dst);
}

/* ---- crop views ------------------------------------------------------------------ */

static void test_crop(void) {
    static const int32_t sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {33, 17}};
    static const size_t pads[] = {0, 5};
    for (int fi = 0; fi < NFORMATS; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int pi = 0; pi < 2; pi++) {
                const ic_format f = k_formats[fi];
                const int32_t W = sizes[si][0], H = sizes[si][1];
                test_img t = alloc_img(f, W, H, pads[pi], 1);
                int ok = 1, refused_ok = 1, copies_ok = 1;
                for (int32_t y = 0; y < H; y++)
                    for (int32_t x = 0; x < W; x++)
                        for (int32_t h = 1; y + h <= H; h += (H > 5 ? 3 : 1))
                            for (int32_t w = 1; x + w <= W; w += (W > 5 ? 5 : 1)) {
                                CTX("crop format %d %dx%d pad %zu rect %d,%d %dx%d", (int)f, W, H, pads[pi], x, y, w, h);
                                ic_rect r = {x, y, w, h};
                                ic_image v;
                                memset(&v, 0x5A, sizeof v);
                                ic_status st = ic_image_crop(&t.img, &r, &v);
                                if (is_yuv(f) && ((x | y) & 1)) {
                                    refused_ok &= st == IC_ERR_INVALID_ARGUMENT;
                                    continue;
                                }
                                if (!CHECK(st == IC_OK)) continue;
                                ok &= v.format == f && v.alpha == t.img.alpha && v.width == w && v.height == h;
                                for (int p = 0; p < ref_planes(f); p++) {
                                    const int c = is_yuv(f) && p > 0;
                                    const size_t px = (size_t)(c ? x / 2 : x), py = (size_t)(c ? y / 2 : y);
                                    const size_t bpp = ref_row_bytes(f, 2, p) / (c ? 1 : 2); /* bytes per sample */
                                    const uint8_t *want = t.img.planes[p].data + py * t.img.planes[p].stride + px * bpp;
                                    ok &= v.planes[p].data == want && v.planes[p].stride == t.img.planes[p].stride;
                                }
                                ok &= ic_image_validate(&v) == IC_OK;
                                /* The view's pixels, copied out, are the rectangle's. */
                                if (w <= 8 && h <= 8) {
                                    test_img d = alloc_img(f, w, h, 0, 0);
                                    copies_ok &= ic_image_copy(&v, &d.img) == IC_OK;
                                    for (int p = 0; p < ref_planes(f); p++) {
                                        const int c = is_yuv(f) && p > 0;
                                        const int32_t sy0 = c ? y / 2 : y, rows = ref_rows(f, h, p);
                                        const size_t rb = ref_row_bytes(f, w, p);
                                        const size_t off = c ? (f == IC_FORMAT_NV12 ? (size_t)x : (size_t)x / 2)
                                                             : ref_row_bytes(f, 1, p) * (size_t)x;
                                        for (int32_t row = 0; row < rows; row++)
                                            copies_ok &= memcmp(d.img.planes[p].data + (size_t)row * d.img.planes[p].stride,
                                                                t.img.planes[p].data + (size_t)(sy0 + row) * t.img.planes[p].stride + off,
                                                                rb) == 0;
                                    }
                                    free_img(&d);
                                }
                            }
                CTX("crop format %d %dx%d pad %zu", (int)f, W, H, pads[pi]);
                CHECK(ok);
                CHECK(refused_ok);
                CHECK(copies_ok);
                /* Outside, empty, negative, null. */
                const ic_rect bad[] = {{0, 0, W + 1, H}, {0, 0, W, H + 1}, {W, 0, 1, 1}, {0, 0, 0, 1},
                                       {0, 0, 1, 0}, {-2, 0, 1, 1}, {0, -2, 1, 1}, {0, 0, -1, 1}};
                ic_image v = t.img;
                for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
                    CHECK_ST(ic_image_crop(&t.img, &bad[b], &v), IC_ERR_INVALID_ARGUMENT);
                CHECK(memcmp(&v, &t.img, sizeof v) == 0); /* untouched on failure */
                const ic_rect all = {0, 0, W, H};
                CHECK_ST(ic_image_crop(NULL, &all, &v), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_crop(&t.img, NULL, &v), IC_ERR_INVALID_ARGUMENT);
                CHECK_ST(ic_image_crop(&t.img, &all, NULL), IC_ERR_INVALID_ARGUMENT);
                /* In place, and the whole image is the image itself. */
                CHECK_ST(ic_image_crop(&v, &all, &v), IC_OK);
                CHECK(memcmp(&v, &t.img, sizeof v) == 0);
                free_img(&t);
            }
}

/* ---- the library's one luma ---------------------------------------------------------- */

/* Every 24-bit colour once: GRAY8 from ic_convert_channels (RGB8 and RGBA8 sources, scalar
 * and vector paths) equals the Y plane of ic_rgb_to_yuv (BT.601 full range), and is within
 * 0.5 + 0.01 of the float64 luma 0.299 R + 0.587 G + 0.114 B. */
static void test_luma(void) {
    enum { N = 4096 };
    uint8_t *rgb = (uint8_t *)xmalloc((size_t)N * N * 3), *rgba = (uint8_t *)xmalloc((size_t)N * N * 4);
    uint8_t *g3 = (uint8_t *)xmalloc((size_t)N * N), *g4 = (uint8_t *)xmalloc((size_t)N * N);
    uint8_t *y = (uint8_t *)xmalloc((size_t)N * N), *u = (uint8_t *)xmalloc((size_t)N * N / 4);
    uint8_t *v = (uint8_t *)xmalloc((size_t)N * N / 4);
    for (uint32_t i = 0; i < (uint32_t)N * N; i++) {
        rgb[3 * i] = rgba[4 * i] = (uint8_t)(i >> 16);
        rgb[3 * i + 1] = rgba[4 * i + 1] = (uint8_t)(i >> 8);
        rgb[3 * i + 2] = rgba[4 * i + 2] = (uint8_t)i;
        rgba[4 * i + 3] = rnd8();
    }
    ic_image s3 = {IC_FORMAT_RGB8, IC_ALPHA_STRAIGHT, N, N, {{rgb, 3 * N}}};
    ic_image s4 = {IC_FORMAT_RGBA8, IC_ALPHA_STRAIGHT, N, N, {{rgba, 4 * N}}};
    ic_image d3 = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, N, N, {{g3, N}}};
    ic_image d4 = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, N, N, {{g4, N}}};
    ic_image yuv = {IC_FORMAT_I420, IC_ALPHA_STRAIGHT, N, N, {{y, N}, {u, N / 2}, {v, N / 2}}};
    const uint32_t saved = ic_get_cpu_mask();
    for (int scalar = 0; scalar < 2; scalar++) {
        ic_set_cpu_mask(scalar ? 0 : saved);
        CTX("luma, %s", scalar ? "scalar" : "default kernels");
        CHECK_ST(ic_convert_channels(&s3, &d3), IC_OK);
        CHECK_ST(ic_convert_channels(&s4, &d4), IC_OK);
        CHECK_ST(ic_rgb_to_yuv(&s3, &yuv, IC_YUV_BT601, IC_YUV_RANGE_FULL), IC_OK);
        CHECK(memcmp(g3, y, (size_t)N * N) == 0);
        CHECK(memcmp(g4, y, (size_t)N * N) == 0);
        double worst = 0;
        for (uint32_t i = 0; i < (uint32_t)N * N; i++) {
            const double exact = 0.299 * (i >> 16) + 0.587 * ((i >> 8) & 255) + 0.114 * (i & 255);
            const double e = g3[i] > exact ? g3[i] - exact : exact - g3[i];
            if (e > worst) worst = e;
        }
        CHECK(worst <= 0.51);
        if (scalar) printf("luma: worst |gray - float64| %.4f over all 2^24 colours\n", worst);
    }
    ic_set_cpu_mask(saved);
    free(rgb); free(rgba); free(g3); free(g4); free(y); free(u); free(v);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_status();
    test_layout();
    test_image_init();
    test_validate();
    test_parallel();
    test_cpu();
    test_plane_copy_fill();
    test_guard_pages();
    test_image_copy_fill();
    test_jpeg();
    test_resize_stream();
    test_ub_regressions();
    test_crop();
    test_luma();
    printf("backend %s, %d threads by default, cpu features 0x%x\n", ic_parallel_backend(),
           ic_get_num_threads(), ic_cpu_features());
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
