/* Resize filters and coefficient tables.
 *
 * For output sample i of an axis resized from `in` samples (pre-reduced by k: the filter
 * sees nred = ceil(in / k) samples spanning in / k) to `out`:
 *     scale = (in / k) / out,  fs = max(scale, 1),  support = R * fs,
 *     centre = (i + 0.5) * scale,
 *     weight of reduced sample j = f((j + 0.5 - centre) / fs)
 * over the j whose weight can be non-zero; j outside [0, nred) is clamped to the edge (its
 * weight added to the edge sample's), and the weights are normalised to sum to 1. With `fold`
 * (horizontal pre-reduction), reduced sample j's weight is spread evenly over the source
 * samples of its block [j*k, min(j*k + k, in)), so the kernels filter full-resolution rows
 * and "box average, then filter" is one set of weights.
 *
 * Quantisation to 14 bits uses cumulative rounding: q_t = round(16384 * S_t) -
 * round(16384 * S_{t-1}) with S_t the running sum of the normalised weights. The q_t sum to
 * exactly 16384, each is within 1 of its exact value, and every partial sum within 1/2, so
 * the error of a filtered value is at most half a unit of the total variation of the
 * window's samples / 16384.
 *
 * The expressions above are evaluated exactly in this order in double; the tests' float64
 * reference uses the same ones. */
#include "resize_internal.h"

#include <math.h>
#include <string.h>

#define IC_PI 3.14159265358979323846

static double cubic_bc(double x, double b, double c) {
    x = fabs(x);
    if (x < 1.0)
        return ((12.0 - 9.0 * b - 6.0 * c) * x * x * x + (-18.0 + 12.0 * b + 6.0 * c) * x * x +
                (6.0 - 2.0 * b)) / 6.0;
    if (x < 2.0)
        return ((-b - 6.0 * c) * x * x * x + (6.0 * b + 30.0 * c) * x * x +
                (-12.0 * b - 48.0 * c) * x + (8.0 * b + 24.0 * c)) / 6.0;
    return 0.0;
}

static double sinc(double x) {
    if (x == 0.0) return 1.0;
    x *= IC_PI;
    return sin(x) / x;
}

double ic_resize_filter_eval(ic_resize_filter filter, double x) {
    switch (filter) {
    case IC_RESIZE_BOX: return (x > -0.5 && x <= 0.5) ? 1.0 : 0.0;
    case IC_RESIZE_TRIANGLE: x = fabs(x); return x < 1.0 ? 1.0 - x : 0.0;
    case IC_RESIZE_CATMULL_ROM: return cubic_bc(x, 0.0, 0.5);
    case IC_RESIZE_MITCHELL: return cubic_bc(x, 1.0 / 3.0, 1.0 / 3.0);
    case IC_RESIZE_LANCZOS3: return (x > -3.0 && x < 3.0) ? sinc(x) * sinc(x / 3.0) : 0.0;
    default: return 0.0;
    }
}

double ic_resize_filter_support(ic_resize_filter filter) {
    switch (filter) {
    case IC_RESIZE_BOX: return 0.5;
    case IC_RESIZE_TRIANGLE: return 1.0;
    case IC_RESIZE_CATMULL_ROM:
    case IC_RESIZE_MITCHELL: return 2.0;
    case IC_RESIZE_LANCZOS3: return 3.0;
    default: return 0.0;
    }
}

int32_t ic__rs_reduce_factor(int32_t in, int32_t out) {
    int32_t k = in / out / 2; /* floor(in / out / 2) */
    return k >= 2 ? k : 1;
}

/* sRGB (IEC 61966-2-1) decoding and encoding, in double. */
static double srgb_to_linear(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }

void ic__rs_linear_tables(uint16_t *dec, uint8_t *enc) {
    for (int32_t v = 0; v < 256; v++)
        dec[v] = (uint16_t)floor(srgb_to_linear(v / 255.0) * IC_RS_LINEAR_MAX + 0.5);
    /* enc[i] = round(255 * S(i / 65280)) is the number of k in 1 ... 255 with
     * 255 * S(i / 65280) >= k - 0.5, i.e. with i >= 65280 * L((k - 0.5) / 255), S and L
     * being inverse and increasing: fill between the 255 decision thresholds. */
    int32_t i = 0;
    for (int32_t k = 1; k < 256; k++) {
        const double t = srgb_to_linear((k - 0.5) / 255.0) * IC_RS_LINEAR_MAX;
        const int32_t first = (int32_t)ceil(t); /* the first i at or above the threshold */
        for (; i < first && i < IC_RS_LINEAR_ENC; i++) enc[i] = (uint8_t)(k - 1);
    }
    for (; i < IC_RS_LINEAR_ENC; i++) enc[i] = 255;
}

/* The geometry shared by shape and build. */
typedef struct axis_geo {
    double scale, fs, support;
    int32_t nred;
} axis_geo;

static axis_geo geo_of(ic_resize_filter filter, int32_t in, int32_t out, int32_t k) {
    axis_geo g;
    double extent = (double)in / (double)k;
    g.scale = extent / (double)out;
    g.fs = g.scale > 1.0 ? g.scale : 1.0;
    g.support = ic_resize_filter_support(filter) * g.fs;
    g.nred = (int32_t)((in + (int64_t)k - 1) / k);
    return g;
}

/* Reduced window of output i before clamping: every j whose weight can be non-zero (the
 * 1e-9 margins make it a superset despite rounding; extra taps get weight 0). */
static void raw_window(const axis_geo *g, int32_t i, double *centre, int64_t *a, int64_t *b) {
    double c = ((double)i + 0.5) * g->scale;
    *centre = c;
    *a = (int64_t)floor(c - g->support - 0.5 - 1e-9) + 1;
    *b = (int64_t)floor(c + g->support - 0.5 + 1e-9) + 1;
}

/* Clamped reduced window [ra, rb), never empty. */
static void clamped_window(const axis_geo *g, int64_t a, int64_t b, int32_t *ra, int32_t *rb) {
    if (a < 0) a = 0;
    if (a > g->nred - 1) a = g->nred - 1;
    if (b > g->nred) b = g->nred;
    if (b < a + 1) b = a + 1;
    *ra = (int32_t)a;
    *rb = (int32_t)b;
}

/* The source-sample window of output i: [s, s + count). */
static void source_window(int32_t in, int32_t k, int32_t fold, int32_t ra, int32_t rb,
                          int32_t *s, int32_t *count) {
    if (!fold || k == 1) { *s = ra; *count = rb - ra; return; }
    int64_t lo = (int64_t)ra * k, hi = (int64_t)rb * k;
    if (hi > in) hi = in;
    *s = (int32_t)lo;
    *count = (int32_t)(hi - lo);
}

/* Output i's raw window [a, b) around centre c, clamped to the image [ra, rb), and the
 * source samples [s, s + count) it reads. */
static void window_of(const axis_geo *g, int32_t in, int32_t k, int32_t fold, int32_t i, double *c, int64_t *a,
                      int64_t *b, int32_t *ra, int32_t *rb, int32_t *s, int32_t *count) {
    raw_window(g, i, c, a, b);
    clamped_window(g, *a, *b, ra, rb);
    source_window(in, k, fold, *ra, *rb, s, count);
}

ic_status ic__rs_axis_shape(ic_resize_filter filter, int32_t in, int32_t out, int32_t k,
                            int32_t fold, int32_t pad, ic_rs_axis_shape *shape) {
    if (in < 1 || out < 1 || k < 1 || pad < 1) return IC_ERR_INVALID_ARGUMENT;
    axis_geo g = geo_of(filter, in, out, k);
    int32_t max_count = 1;
    for (int32_t i = 0; i < out; i++) {
        double c;
        int64_t a, b;
        int32_t ra, rb, s, count;
        window_of(&g, in, k, fold, i, &c, &a, &b, &ra, &rb, &s, &count);
        if (count > max_count) max_count = count;
    }
    int64_t n = ((int64_t)max_count + pad - 1) / pad * pad;
    if (n > INT32_MAX / 2) return IC_ERR_TOO_LARGE;
    shape->n = (int32_t)n;
    shape->max_count = max_count;
    return IC_OK;
}

void ic__rs_axis_build(ic_resize_filter filter, int32_t in, int32_t out, int32_t k,
                       int32_t fold, int32_t fit, const ic_rs_axis_shape *shape,
                       ic_rs_axis *axis, double *tmp) {
    axis_geo g = geo_of(filter, in, out, k);
    const int32_t n = shape->n;
    /* Samples the windows index: full resolution when the box is folded in. */
    const int32_t span = fold ? in : g.nred;
    axis->in = span;
    axis->out = out;
    axis->n = n;
    axis->max_count = shape->max_count;
    /* With `fit`, windows are shifted left so each holds exactly n samples: then the vector
     * kernels run n taps everywhere without reading past the row. Only the horizontal axis
     * asks for it; the vertical ring wants tight windows. */
    axis->fits = fit && n <= span;
    memset(axis->w, 0, sizeof(int16_t) * (size_t)out * (size_t)n);
    for (int32_t i = 0; i < out; i++) {
        double c;
        int64_t a, b;
        int32_t ra, rb, s, count;
        window_of(&g, in, k, fold, i, &c, &a, &b, &ra, &rb, &s, &count);

        /* Reduced-sample weights, clamped taps folded onto the edges. */
        const int32_t rn = rb - ra;
        for (int32_t t = 0; t < rn; t++) tmp[t] = 0.0;
        for (int64_t j = a; j < b; j++) {
            double wt = ic_resize_filter_eval(filter, ((double)j + 0.5 - c) / g.fs);
            if (wt == 0.0) continue;
            int64_t jj = j < ra ? ra : j >= rb ? rb - 1 : j;
            tmp[jj - ra] += wt;
        }
        double sum = 0.0;
        for (int32_t t = 0; t < rn; t++) sum += tmp[t];
        if (!(fabs(sum) > 1e-12)) { /* cannot happen for these filters; be safe */
            for (int32_t t = 0; t < rn; t++) tmp[t] = 0.0;
            tmp[(rn - 1) / 2] = 1.0;
            sum = 1.0;
        }

        int32_t start = s, offset = 0;
        if (axis->fits && n > count) {
            start = s < span - n ? s : span - n;
            offset = s - start;
        }
        axis->start[i] = start;
        axis->count[i] = axis->fits ? n : count;

        /* Cumulative rounding over the source samples of the window. */
        int16_t *w = axis->w + (size_t)i * (size_t)n + offset;
        double running = 0.0;
        int64_t prev = 0;
        for (int32_t t = 0; t < count; t++) {
            double wt;
            if (!fold || k == 1) {
                wt = tmp[t] / sum;
            } else {
                int32_t m = s + t, j = m / k;
                int32_t bsize = (int32_t)((int64_t)(j + 1) * k > in ? in - (int64_t)j * k : k);
                wt = tmp[j - ra] / sum / (double)bsize;
            }
            running += wt;
            int64_t r = t == count - 1 ? IC_RS_ONE : (int64_t)floor(running * (double)IC_RS_ONE + 0.5);
            w[t] = (int16_t)(r - prev);
            prev = r;
        }
    }
}
