/* CPU feature detection and the mask that tests use to force scalar paths. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

static uint32_t detect(void) {
    uint32_t f = 0;
#if IC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse2")) f |= IC_CPU_SSE2;
    if (__builtin_cpu_supports("ssse3")) f |= IC_CPU_SSSE3;
    if (__builtin_cpu_supports("sse4.1")) f |= IC_CPU_SSE41;
    /* __builtin_cpu_supports("avx2") already accounts for OS support of YMM state in
     * current gcc and clang; FMA is required alongside so kernels may use both. */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) f |= IC_CPU_AVX2;
    /* the same for ZMM state (gcc's libgcc and clang's compiler-rt both check XCR0) */
    if ((f & IC_CPU_AVX2) && __builtin_cpu_supports("avx512f")) f |= IC_CPU_AVX512;
    if ((f & IC_CPU_AVX512) && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
        f |= IC_CPU_AVX512VNNI;
#elif IC_NEON
    f |= IC_CPU_NEON; /* mandatory on AArch64 */
#endif
    return f;
}

static uint32_t g_detected;
static uint32_t g_mask;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static uint32_t initial_mask(void) {
    const char *env = getenv("IC_CPU_MASK");
    if (env && *env) {
        char *end = NULL;
        unsigned long v = strtoul(env, &end, 0);
        if (end && *end == '\0') return (uint32_t)v;
    }
    return 0xffffffffu;
}

static void init_once(void) {
    g_detected = detect();
    __atomic_store_n(&g_mask, initial_mask(), __ATOMIC_RELAXED);
}

uint32_t ic_cpu_features_detected(void) {
    pthread_once(&g_once, init_once);
    return g_detected;
}

/* The per-thread count of settings reads (this CPU mask, and parallel.c's thread count): kept
 * in this lowest unit so that parallel.c -> cpu.c is the only call between the two files. */
static _Thread_local uint64_t t_reads;

void ic__settings_count_read(void) { t_reads++; }
uint64_t ic__settings_reads(void) { return t_reads; }

uint32_t ic__cpu_features_uncounted(void) {
    pthread_once(&g_once, init_once);
    return g_detected & __atomic_load_n(&g_mask, __ATOMIC_RELAXED);
}

uint32_t ic_cpu_features(void) {
    ic__settings_count_read();
    return ic__cpu_features_uncounted();
}

uint32_t ic_set_cpu_mask(uint32_t mask) {
    pthread_once(&g_once, init_once);
    return __atomic_exchange_n(&g_mask, mask, __ATOMIC_RELAXED);
}

uint32_t ic_get_cpu_mask(void) {
    pthread_once(&g_once, init_once);
    return __atomic_load_n(&g_mask, __ATOMIC_RELAXED);
}
