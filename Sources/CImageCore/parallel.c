/* ic_parallel_for: one helper, three backends (README, "Threading").
 *  - _OPENMP (the CMake build with -fopenmp): `#pragma omp parallel`.
 *  - IC_OMP_RUNTIME (the SwiftPM build on Linux, where -fopenmp would be an unsafe flag):
 *    the OpenMP runtime's GOMP entry points, declared here and linked as libomp5.
 *  - __APPLE__: libdispatch's dispatch_apply_f.
 *  - otherwise: serial.
 * In every backend the team pulls fixed-size chunks from one atomic counter, so a core
 * that the shared machine slows down does not hold the others up. */
#include "internal.h"

#include <stdlib.h>
#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#define IC_BACKEND "openmp"
#elif defined(IC_OMP_RUNTIME)
/* Exported by both LLVM's libomp and GCC's libgomp. */
extern void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
extern int omp_in_parallel(void);
#define IC_BACKEND "omp-runtime"
#elif defined(__APPLE__)
#include <dispatch/dispatch.h>
#define IC_BACKEND "dispatch"
#else
#define IC_BACKEND "serial"
#endif

const char *ic_parallel_backend(void) { return IC_BACKEND; }

/* ---- thread count ------------------------------------------------------- */

static int32_t g_threads;         /* 0 = use the default */
static int32_t g_default_threads; /* 0 = not computed yet */
/* A worker of a caller's own pool (a batch of images, one per thread) sets its share of the
 * cores here, so the kernels it calls do not start a second team per worker. */
static _Thread_local int32_t t_threads; /* 0 = the process-wide count */

int32_t ic_set_local_num_threads(int32_t n) {
    const int32_t previous = t_threads;
    t_threads = n <= 0 ? 0 : n > 1024 ? 1024 : n;
    return previous;
}

int32_t ic_get_local_num_threads(void) { return t_threads; }

static int32_t compute_default_threads(void) {
    const char *env = getenv("IC_NUM_THREADS");
    if (env && *env) {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (end && *end == '\0' && v >= 1 && v <= 1024) return (int32_t)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 1024) n = 1024;
    return (int32_t)n;
}

void ic_set_num_threads(int32_t n) {
    if (n > 1024) n = 1024;
    __atomic_store_n(&g_threads, n > 0 ? n : 0, __ATOMIC_RELAXED);
}

static int32_t threads_uncounted(void) {
    if (t_threads > 0) return t_threads;
    int32_t n = __atomic_load_n(&g_threads, __ATOMIC_RELAXED);
    if (n > 0) return n;
    int32_t d = __atomic_load_n(&g_default_threads, __ATOMIC_RELAXED);
    if (d == 0) { /* benign race: every thread computes the same value */
        d = compute_default_threads();
        __atomic_store_n(&g_default_threads, d, __ATOMIC_RELAXED);
    }
    return d;
}

int32_t ic_get_num_threads(void) {
    ic__settings_count_read();
    return threads_uncounted();
}

void ic__settings_limit_work(ic__settings *s, uint64_t bytes) {
    const uint64_t most = bytes / IC_PARALLEL_MIN_BYTES;
    if ((uint64_t)s->threads > most) s->threads = most < 1 ? 1 : (int32_t)most;
}

ic__settings ic__settings_read(void) {
    ic__settings_count_read();
    ic__settings s = {threads_uncounted(), ic__cpu_features_uncounted()};
    return s;
}

/* ---- the shared chunk loop ---------------------------------------------- */

typedef struct ic_job {
    ic_range_fn fn;
    void *context;
    int64_t count;
    int64_t chunk;
    int64_t chunks;     /* ceil(count / chunk) */
    int64_t next_chunk; /* atomic: next chunk number to hand out */
} ic_job;

/* Chunk numbers, not indices, are handed out: the counter overshoots by at most the
 * team size, so nothing overflows even for counts near INT64_MAX. */
static void run_chunks(ic_job *job) {
    for (;;) {
        int64_t k = __atomic_fetch_add(&job->next_chunk, 1, __ATOMIC_RELAXED);
        if (k >= job->chunks) return;
        int64_t begin = k * job->chunk;
        int64_t end = job->count - begin < job->chunk ? job->count : begin + job->chunk;
        job->fn(job->context, begin, end);
    }
}

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

#if defined(IC_OMP_RUNTIME) && !defined(_OPENMP)
static void omp_worker(void *data) { run_chunks((ic_job *)data); }
#endif
#if defined(__APPLE__) && !defined(_OPENMP) && !defined(IC_OMP_RUNTIME)
static _Thread_local int t_in_region;
static void dispatch_worker(void *data, size_t i) {
    (void)i;
    t_in_region = 1;
    run_chunks((ic_job *)data);
    t_in_region = 0;
}
#endif

static int in_parallel_region(void) {
#if defined(_OPENMP) || defined(IC_OMP_RUNTIME)
    return omp_in_parallel();
#elif defined(__APPLE__)
    return t_in_region;
#else
    return 0;
#endif
}

ic_status ic_parallel_for(int64_t count, int64_t grain, ic_range_fn fn, void *context) {
    const ic__settings s = ic__settings_read();
    return ic__parallel_for(&s, count, grain, fn, context);
}

ic_status ic__parallel_for(const ic__settings *s, int64_t count, int64_t grain, ic_range_fn fn,
                           void *context) {
    if (!fn || count < 0) return IC_ERR_INVALID_ARGUMENT;
    if (count == 0) return IC_OK;
    if (grain < 1) grain = 1;
    int64_t threads = s->threads;
    int64_t max_useful = ceil_div(count, grain);
    if (threads > max_useful) threads = max_useful;
    if (threads <= 1 || in_parallel_region()) {
        fn(context, 0, count);
        return IC_OK;
    }
    /* About 4 chunks per thread: enough to rebalance, few enough atomics. */
    int64_t chunk = ceil_div(count, threads * 4);
    if (chunk < grain) chunk = grain;
    ic_job job = {fn, context, count, chunk, ceil_div(count, chunk), 0};
#if defined(_OPENMP)
#pragma omp parallel num_threads((int)threads)
    run_chunks(&job);
#elif defined(IC_OMP_RUNTIME)
    GOMP_parallel(omp_worker, &job, (unsigned)threads, 0);
#elif defined(__APPLE__)
    dispatch_apply_f((size_t)threads, DISPATCH_APPLY_AUTO, &job, dispatch_worker);
#else
    run_chunks(&job);
#endif
    return IC_OK;
}
