/* Shared timing for the peer C programs: warm-up, then N timed runs; median in ms. */
#ifndef PEERS_TIMING_H
#define PEERS_TIMING_H
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ms(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return (n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2) * 1e3;
}

/* TIME(name, reps, stmt): prints one JSON line {"name":…,"median_ms":…} */
#define TIME(name, reps, stmt)                                                     \
    do {                                                                           \
        double t_[256];                                                            \
        int n_ = (reps) > 256 ? 256 : (reps);                                      \
        stmt; /* warm-up */                                                        \
        for (int i_ = 0; i_ < n_; i_++) {                                          \
            double s_ = now_s();                                                   \
            stmt;                                                                  \
            t_[i_] = now_s() - s_;                                                 \
        }                                                                          \
        printf("{\"name\": \"%s\", \"median_ms\": %.4f}\n", name, median_ms(t_, n_)); \
        fflush(stdout);                                                            \
    } while (0)
#endif
