/* Concurrency tests of the C core: entry points called from many threads while another thread
 * changes the process-wide settings (thread count, CPU mask). Built by CMake and run by ctest,
 * in `make sanitize` under ASan + UBSan, where any overflow aborts the run.
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

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    test_plan_create_race(seconds);
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
