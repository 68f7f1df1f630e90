/* Concurrency tests of the C core: entry points called from many threads while another thread
 * changes the process-wide settings (thread count, CPU mask). Built by CMake and run by ctest
 * (OpenMP pragmas), in `make sanitize` under ASan + UBSan, and by scripts/stress.sh with the
 * OpenMP runtime backend under ASan and the serial backend under TSan.
 *
 * The header promises that settings are read atomically at the start of each call. Issue #12,
 * defect 1: ic_resize_plan_create read the thread count once to size the plan and again to lay
 * it out; a change from 1 to 64 in between wrote past the allocation (ASan within 0.1 s). */
#include <imagecore.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long g_pass, g_fail;

static int check_(int ok, const char *expr, const char *file, int line) {
    if (ok) { g_pass++; return 1; }
    if (++g_fail <= 40) fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, expr);
    return 0;
}
#define CHECK(c) check_((c) != 0, #c, __FILE__, __LINE__)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the settings changer --------------------------------------------------------- */

typedef struct toggler {
    volatile int stop;
    long flips;
} toggler;

/* Flips the thread count between 1 and 64 as fast as it can (the extremes make a size read
 * with one and a layout written with the other differ the most). */
static void *toggle_threads(void *arg) {
    toggler *t = (toggler *)arg;
    while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
        ic_set_num_threads((t->flips & 1) ? 64 : 1);
        t->flips++;
    }
    return NULL;
}

/* ---- defect 1: resize plans made while the thread count changes ---------------------- */

typedef struct plan_worker {
    double until;
    long plans, resizes, failures;
} plan_worker;

static void *make_plans(void *arg) {
    plan_worker *w = (plan_worker *)arg;
    uint8_t src[32 * 24], dst[8 * 6];
    memset(src, 77, sizeof src);
    ic_image s = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, 32, 24, {{src, 32}}};
    ic_image d = {IC_FORMAT_GRAY8, IC_ALPHA_STRAIGHT, 8, 6, {{dst, 8}}};
    while (now_s() < w->until) {
        ic_resize_params p;
        memset(&p, 0, sizeof p);
        p.format = IC_FORMAT_RGBA8;
        p.alpha = IC_ALPHA_STRAIGHT;
        p.src_width = 4000;
        p.src_height = 3000;
        p.dst_width = 1000;
        p.dst_height = 750;
        p.filter = IC_RESIZE_LANCZOS3;
        p.max_threads = 0; /* resolve from the (changing) setting */
        ic_resize_plan *plan = NULL;
        if (ic_resize_plan_create(&p, &plan) != IC_OK) { w->failures++; continue; }
        ic_resize_params got;
        if (ic_resize_plan_params(plan, &got) != IC_OK || got.max_threads < 1 || got.max_threads > 64)
            w->failures++;
        ic_resize_plan_destroy(plan);
        w->plans++;
        /* The one-shot resize makes a temporary plan the same way; its output must not
         * depend on the thread count. */
        memset(dst, 0, sizeof dst);
        if (ic_resize(&s, &d, IC_RESIZE_TRIANGLE) != IC_OK) w->failures++;
        for (size_t i = 0; i < sizeof dst; i++)
            if (dst[i] != 77) { w->failures++; break; }
        w->resizes++;
    }
    return NULL;
}

static void test_plan_create_race(double seconds) {
    enum { WORKERS = 3 };
    toggler t = {0, 0};
    plan_worker w[WORKERS];
    pthread_t tt, wt[WORKERS];
    const double until = now_s() + seconds;
    pthread_create(&tt, NULL, toggle_threads, &t);
    for (int i = 0; i < WORKERS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].until = until;
        pthread_create(&wt[i], NULL, make_plans, &w[i]);
    }
    long plans = 0, resizes = 0, failures = 0;
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(wt[i], NULL);
        plans += w[i].plans;
        resizes += w[i].resizes;
        failures += w[i].failures;
    }
    __atomic_store_n(&t.stop, 1, __ATOMIC_RELAXED);
    pthread_join(tt, NULL);
    ic_set_num_threads(0);
    printf("plan race: %ld plans, %ld resizes, %ld thread-count flips, %ld failures\n", plans,
           resizes, t.flips, failures);
    CHECK(plans > 0 && resizes > 0 && t.flips > 0);
    CHECK(failures == 0);
}


/* ---- every entry point reads the settings once -------------------------------------------
 * The C core counts, per thread, its reads of the thread count and CPU mask (the snapshot
 * and the public getters alike). An entry point that read them twice could act on two
 * different values. Linked statically, so the internal counter is visible. */
uint64_t ic__settings_reads(void);

static uint8_t *zalloc(size_t n) { uint8_t *p = (uint8_t *)calloc(n ? n : 1, 1); if (!p) abort(); return p; }

typedef struct img { ic_image im; uint8_t *mem; } img;
static img make(ic_format f, int32_t w, int32_t h) {
    img m;
    ic_layout l;
    memset(&m, 0, sizeof m);
    if (ic_layout_compute(f, w, h, 64, &l) != IC_OK) abort();
    m.mem = zalloc(l.total_size);
    for (size_t i = 0; i < l.total_size; i++) m.mem[i] = (uint8_t)(i * 7 + i / 131);
    ic_image_init(&m.im, f, IC_ALPHA_STRAIGHT, w, h, m.mem, &l);
    return m;
}

static int band_sink(void *ctx, const ic_image *band, int32_t first) { (void)ctx; (void)band; (void)first; return 0; }

#define ONCE(what, call)                                                                        \
    do {                                                                                        \
        const uint64_t before_ = ic__settings_reads();                                          \
        ic_status st_ = (call);                                                                 \
        const uint64_t reads_ = ic__settings_reads() - before_;                                 \
        if (!check_(st_ == IC_OK && reads_ == 1, what, __FILE__, __LINE__))                     \
            fprintf(stderr, "    %s: status %d, %llu settings reads\n", what, (int)st_,          \
                    (unsigned long long)reads_);                                                \
    } while (0)

static void test_settings_read_once(void) {
    const int32_t W = 300, H = 200;
    img rgba = make(IC_FORMAT_RGBA8, W, H), rgba2 = make(IC_FORMAT_RGBA8, W, H), rgb = make(IC_FORMAT_RGB8, W, H);
    img gray = make(IC_FORMAT_GRAY8, W, H), gray2 = make(IC_FORMAT_GRAY8, W, H);
    img i420 = make(IC_FORMAT_I420, W, H), nv12 = make(IC_FORMAT_NV12, W, H), i420b = make(IC_FORMAT_I420, W, H);
    img rot = make(IC_FORMAT_I420, H, W), small = make(IC_FORMAT_I420, 120, 80), smallg = make(IC_FORMAT_GRAY8, 120, 80);
    const uint8_t v[4] = {1, 2, 3, 4};
    ONCE("ic_plane_copy", ic_plane_copy(gray.im.planes[0].data, gray.im.planes[0].stride, gray2.im.planes[0].data,
                                        gray2.im.planes[0].stride, (size_t)W, H));
    ONCE("ic_plane_fill", ic_plane_fill(gray2.im.planes[0].data, gray2.im.planes[0].stride, (size_t)W, H, v, 1));
    ONCE("ic_image_copy (3 planes)", ic_image_copy(&i420.im, &i420b.im));
    ONCE("ic_image_fill (3 planes)", ic_image_fill(&i420b.im, v));
    ONCE("ic_convert_channels", ic_convert_channels(&rgba.im, &rgb.im));
    ONCE("ic_rgb_to_yuv", ic_rgb_to_yuv(&rgba.im, &nv12.im, IC_YUV_BT601, IC_YUV_RANGE_FULL));
    ONCE("ic_yuv_to_rgb", ic_yuv_to_rgb(&nv12.im, &rgba2.im, IC_YUV_BT709, IC_YUV_RANGE_VIDEO));
    ONCE("ic_yuv_convert_layout", ic_yuv_convert_layout(&nv12.im, &i420.im));
    ONCE("ic_yuv_convert_layout (same)", ic_yuv_convert_layout(&i420.im, &i420b.im));
    ONCE("ic_yuv_to_gray", ic_yuv_to_gray(&nv12.im, &gray.im, IC_YUV_RANGE_VIDEO));
    ONCE("ic_gray_to_yuv", ic_gray_to_yuv(&gray.im, &i420.im, IC_YUV_RANGE_FULL));
    ONCE("ic_image_orient 6", ic_image_orient(&i420.im, &rot.im, IC_ORIENTATION_RIGHT));
    ONCE("ic_image_orient 3", ic_image_orient(&i420.im, &i420b.im, IC_ORIENTATION_DOWN));
    ONCE("ic_image_orient_in_place", ic_image_orient_in_place(&i420b.im, IC_ORIENTATION_DOWN));
    ic_laplacian_stats ls;
    ONCE("ic_laplacian_score", ic_laplacian_score(&gray.im, NULL, &ls));
    int16_t *s16 = (int16_t *)zalloc((size_t)W * H * 2);
    ic_plane_s16 ps = {s16, (size_t)W * 2, W, H};
    ONCE("ic_laplacian_s16", ic_laplacian_s16(&nv12.im, NULL, &ps));
    ONCE("ic_laplacian_u8", ic_laplacian_u8(&gray.im, NULL, &gray2.im, IC_LAPLACIAN_CLAMP_GAMMA));
    ONCE("ic_resize (I420, 2 planes' kernels)", ic_resize(&i420.im, &small.im, IC_RESIZE_LANCZOS3));
    ic_resize_params rp;
    memset(&rp, 0, sizeof rp);
    rp.format = IC_FORMAT_I420; rp.src_width = W; rp.src_height = H; rp.dst_width = 120; rp.dst_height = 80;
    rp.filter = IC_RESIZE_TRIANGLE;
    ic_resize_plan *plan = NULL;
    size_t plan_size = 0;
    ONCE("ic_resize_plan_size", ic_resize_plan_size(&rp, &plan_size));
    ONCE("ic_resize_plan_create", ic_resize_plan_create(&rp, &plan));
    ONCE("ic_resize_plan_execute", ic_resize_plan_execute(plan, &i420.im, &small.im));
    ic_resize_plan_destroy(plan);
    void *pm = NULL;
    if (posix_memalign(&pm, 64, plan_size)) abort();
    ONCE("ic_resize_plan_init", ic_resize_plan_init(pm, plan_size, &rp, &plan));
    free(pm);
    rp.format = IC_FORMAT_GRAY8;
    size_t ss = 0;
    ic_resize_stream *stream = NULL;
    if (ic_resize_stream_size(&rp, &ss) != IC_OK || posix_memalign(&pm, 64, ss)) abort();
    if (ic_resize_stream_init(pm, ss, &rp, &stream) != IC_OK) abort();
    ONCE("ic_resize_stream_push_rows", ic_resize_stream_push_rows(stream, gray.im.planes[0].data, gray.im.planes[0].stride,
                                                                   H, W, &smallg.im, NULL));
    free(pm);
    ic_homography h = {{2.5, 0.1, 3, 0.05, 2.4, 1, 0.0001, 0.0002, 1}};
    ONCE("ic_warp_perspective (I420)", ic_warp_perspective(&i420.im, &small.im, &h, NULL));
    ic_quad q = {{{10, 12}, {280, 20}, {270, 190}, {15, 180}}};
    ONCE("ic_rectify (NV12 -> I420? same format)", ic_rectify(&i420.im, &q, 6, &rot.im, NULL));
    ic_enhance_options eo;
    memset(&eo, 0, sizeof eo);
    eo.mode = IC_ENHANCE_GRAY;
    eo.neutral_chroma = 1;
    size_t es = 0;
    if (ic_enhance_scratch_size(W, H, &eo, &es) != IC_OK) abort();
    void *scratch = zalloc(es);
    ONCE("ic_enhance_page (NV12, neutral chroma)", ic_enhance_page(&nv12.im, &eo, scratch, es));
    free(scratch);
    /* JPEG: encode from NV12 (raw input: one kernel pick), decode to NV12 and in a stream. */
    uint8_t *jpg = NULL;
    size_t jn = 0;
    ONCE("ic_jpeg_encode_alloc (NV12)", ic_jpeg_encode_alloc(&nv12.im, NULL, &jpg, &jn));
    ONCE("ic_jpeg_decode (NV12)", ic_jpeg_decode(jpg, jn, NULL, &nv12.im, NULL));
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.format = IC_FORMAT_NV12;
    ONCE("ic_jpeg_decode_stream (NV12)", ic_jpeg_decode_stream(jpg, jn, &o, band_sink, NULL, NULL));
    ic_jpeg_free(jpg);
    free(s16);
    img all[] = {rgba, rgba2, rgb, gray, gray2, i420, nv12, i420b, rot, small, smallg};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i].mem);
}


/* ---- stress: many callers at once while the settings change ------------------------------
 * Worker threads each run a mix of real work (JPEG decode to NV12 and RGBA, resize, warp,
 * Laplacian ranking, YUV to RGB) again and again, while a changer thread flips the thread
 * count (1..8) and the CPU mask (scalar / all). Every result must equal the one computed
 * single-threaded at the start: the kernels are bit-exact for any thread count and with or
 * without SIMD, so any difference is a race. */

enum { SW = 333, SH = 250, DW = 120, DH = 97 };

typedef struct stress_ref {
    uint8_t *jpeg;
    size_t jpeg_size;
    img src, nv12, rgba, small, warped, back;
    uint64_t score_sum, score_sq;
} stress_ref;

static uint64_t fnv(const ic_image *im) {
    uint64_t h = 1469598103934665603ull;
    for (int32_t p = 0; p < ic_format_plane_count(im->format); p++) {
        size_t rb;
        int32_t rows;
        ic_plane_geometry(im->format, im->width, im->height, p, &rb, &rows);
        for (int32_t y = 0; y < rows; y++)
            for (size_t x = 0; x < rb; x++) h = (h ^ im->planes[p].data[(size_t)y * im->planes[p].stride + x]) * 1099511628211ull;
    }
    return h;
}

typedef struct stress_hashes { uint64_t nv12, rgba, small, warped, back, sum, sq; } stress_hashes;

/* One round of the mix into the caller's buffers; returns the results' hashes. */
static int stress_round(const stress_ref *r, img *nv12, img *rgba, img *small, img *warped, img *back,
                        stress_hashes *h) {
    if (ic_jpeg_decode(r->jpeg, r->jpeg_size, NULL, &nv12->im, NULL) != IC_OK) return 0;
    if (ic_jpeg_decode(r->jpeg, r->jpeg_size, NULL, &rgba->im, NULL) != IC_OK) return 0;
    rgba->im.alpha = IC_ALPHA_OPAQUE;
    small->im.alpha = IC_ALPHA_OPAQUE;
    if (ic_resize(&rgba->im, &small->im, IC_RESIZE_LANCZOS3) != IC_OK) return 0;
    ic_quad q = {{{20.5, 14}, {300, 30.25}, {310, 240}, {12, 220}}};
    if (ic_rectify(&nv12->im, &q, 6, &warped->im, NULL) != IC_OK) return 0;
    if (ic_yuv_to_rgb(&nv12->im, &back->im, IC_YUV_BT601, IC_YUV_RANGE_FULL) != IC_OK) return 0;
    ic_laplacian_stats ls;
    if (ic_laplacian_score(&nv12->im, NULL, &ls) != IC_OK) return 0;
    h->nv12 = fnv(&nv12->im); h->rgba = fnv(&rgba->im); h->small = fnv(&small->im);
    h->warped = fnv(&warped->im); h->back = fnv(&back->im);
    h->sum = (uint64_t)ls.sum; h->sq = ls.sum_squares;
    return 1;
}

typedef struct stress_worker {
    const stress_ref *ref;
    const stress_hashes *want, *scalar;
    double until;
    long rounds, mismatches, failures;
} stress_worker;

static void *stress_work(void *arg) {
    stress_worker *w = (stress_worker *)arg;
    img nv12 = make(IC_FORMAT_NV12, SW, SH), rgba = make(IC_FORMAT_RGBA8, SW, SH), small = make(IC_FORMAT_RGBA8, DW, DH);
    img warped = make(IC_FORMAT_NV12, 140, 100), back = make(IC_FORMAT_RGBA8, SW, SH);
    while (now_s() < w->until) {
        stress_hashes h;
        if (!stress_round(w->ref, &nv12, &rgba, &small, &warped, &back, &h)) { w->failures++; continue; }
        const stress_hashes *a = w->want, *b = w->scalar;
        if (h.nv12 != a->nv12 || h.rgba != a->rgba || h.small != a->small || h.back != a->back ||
            h.sum != a->sum || h.sq != a->sq || (h.warped != a->warped && h.warped != b->warped))
            w->mismatches++;
        w->rounds++;
    }
    img all[] = {nv12, rgba, small, warped, back};
    for (size_t i = 0; i < 5; i++) free(all[i].mem);
    return NULL;
}

typedef struct changer { volatile int stop; long changes; uint32_t mask; } changer;
static void *change_settings(void *arg) {
    changer *c = (changer *)arg;
    uint32_t x = 12345;
    while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
        x = x * 1103515245u + 12345u;
        ic_set_num_threads(1 + (int32_t)((x >> 16) % 8));
        ic_set_cpu_mask((x >> 8) & 1 ? c->mask : 0);
        c->changes++;
        struct timespec t = {0, 200000}; /* 0.2 ms: many changes per round */
        nanosleep(&t, NULL);
    }
    return NULL;
}

static void test_stress(double seconds, int workers) {
    stress_ref r;
    memset(&r, 0, sizeof r);
    r.src = make(IC_FORMAT_RGBA8, SW, SH);
    for (int32_t y = 0; y < SH; y++) /* a smooth picture with edges, so the JPEG is photo-like */
        for (int32_t x = 0; x < SW; x++) {
            uint8_t *p = r.src.im.planes[0].data + (size_t)y * r.src.im.planes[0].stride + (size_t)x * 4;
            p[0] = (uint8_t)(x * 255 / SW); p[1] = (uint8_t)((x / 16 + y / 16) % 2 ? 200 : 40); p[2] = (uint8_t)(y * 255 / SH); p[3] = 255;
        }
    r.src.im.alpha = IC_ALPHA_OPAQUE;
    if (ic_jpeg_encode_alloc(&r.src.im, NULL, &r.jpeg, &r.jpeg_size) != IC_OK) { CHECK(0); return; }
    /* The reference: one thread, default CPU mask. */
    const uint32_t mask = ic_get_cpu_mask();
    ic_set_num_threads(1);
    stress_hashes want;
    img nv12 = make(IC_FORMAT_NV12, SW, SH), rgba = make(IC_FORMAT_RGBA8, SW, SH), small = make(IC_FORMAT_RGBA8, DW, DH);
    img warped = make(IC_FORMAT_NV12, 140, 100), back = make(IC_FORMAT_RGBA8, SW, SH);
    CHECK(stress_round(&r, &nv12, &rgba, &small, &warped, &back, &want));
    /* The same with the scalar kernels: bit-identical except the warp, whose AVX2 kernels
     * step positions in single precision (both within 1 LSB of float64, README). A call runs
     * on one snapshot, so each result must equal one of the two references; a call that
     * mixed the masks (e.g. across planes) would give neither. */
    stress_hashes scalar;
    ic_set_cpu_mask(0);
    CHECK(stress_round(&r, &nv12, &rgba, &small, &warped, &back, &scalar));
    ic_set_cpu_mask(mask);
    CHECK(scalar.nv12 == want.nv12 && scalar.rgba == want.rgba && scalar.small == want.small &&
          scalar.back == want.back && scalar.sum == want.sum && scalar.sq == want.sq);
    changer c = {0, 0, mask};
    pthread_t ct, wt[16];
    stress_worker w[16];
    if (workers > 16) workers = 16;
    const double until = now_s() + seconds;
    pthread_create(&ct, NULL, change_settings, &c);
    for (int i = 0; i < workers; i++) {
        w[i] = (stress_worker){&r, &want, &scalar, until, 0, 0, 0};
        pthread_create(&wt[i], NULL, stress_work, &w[i]);
    }
    long rounds = 0, mismatches = 0, failures = 0;
    for (int i = 0; i < workers; i++) {
        pthread_join(wt[i], NULL);
        rounds += w[i].rounds; mismatches += w[i].mismatches; failures += w[i].failures;
    }
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
    pthread_join(ct, NULL);
    ic_set_num_threads(0);
    ic_set_cpu_mask(mask);
    printf("stress (%s backend): %d callers, %ld rounds, %ld settings changes, %ld mismatches, %ld failures\n",
           ic_parallel_backend(), workers, rounds, c.changes, mismatches, failures);
    CHECK(rounds >= workers && c.changes > 0);
    CHECK(mismatches == 0 && failures == 0);
    img all[] = {r.src, nv12, rgba, small, warped, back};
    for (size_t i = 0; i < 6; i++) free(all[i].mem);
    ic_jpeg_free(r.jpeg);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* usage: ic_concurrency_tests [seconds per phase (2)] [stress callers (6)] */
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    const int callers = argc > 2 ? atoi(argv[2]) : 6;
    test_settings_read_once();
    test_plan_create_race(seconds);
    test_stress(seconds, callers);
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
