/* The boundary map's convolution row kernels on layer shapes the network does not have, the
 * reduction's column sums at every width class and box height, its box sums across a row at
 * every box width class, and the quad search's ranker
 * against LightGBM's scores
 * (linked statically: the kernels are internal). The Swift tests compare the scalar, AVX2 and
 * AVX-512 kernels on the network's own layers, which the vector files specialise (3x3 stride
 * 1 and 2, 1x1 stride 1, channel counts multiples of 4 or 8); this test reaches the rest: the
 * generic paths (other kernel sizes, strides and dilations), the paths for channels past the
 * last multiple of 4 or 8, rows narrower than 8 columns and the AVX-512 kernel's masked last
 * block (widths 1 to 15 past the blocks), with weights at their largest magnitudes and
 * outputs clamped at both ends. Every output must be the same bits as the scalar
 * reference's (detect_map_internal.h's contract), and the reference must equal the
 * definition (the sums in 64 bits, then the same fmaf and rounding). */
#include "detect_map_internal.h"
#include "detect_quad_internal.h"
#include "detect_rank_reference.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long g_pass, g_fail, g_clamped_low, g_clamped_high;
static char g_ctx[160];
#define CHECK(c) check_((c) != 0, #c, __LINE__)
static void check_(int ok, const char *expr, int line) {
    if (ok) { g_pass++; return; }
    if (++g_fail <= 20) fprintf(stderr, "test_detect_kernels.c:%d: FAILED: %s [%s]\n", line, expr, g_ctx);
}

static uint32_t g_seed = 12345u;
static float rnd(void) { /* uniform in [-1, 1) */
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)((g_seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

enum { BORDER = 8 }; /* room for any tap and the one column a stride-2 load reads past */

static uint32_t rnd32(void) {
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed;
}

typedef struct byte_set {
    uint32_t *mem;
    ic_dm_bytes t;
} byte_set;

/* ch / 4 planes of w x h words inside a border of `fill` words; interior: random bytes (some
 * 0 and 255) when `random`, else `fill` too. */
static byte_set byte_planes(int32_t w, int32_t h, int32_t ch, uint32_t fill, int random) {
    byte_set p;
    const ptrdiff_t stride = w + 2 * BORDER, rows = h + 2 * BORDER;
    const size_t n = (size_t)(stride * rows * (ch / 4));
    p.mem = (uint32_t *)malloc(n * sizeof(uint32_t));
    if (!p.mem) abort();
    for (size_t i = 0; i < n; i++) p.mem[i] = fill;
    p.t.data = p.mem + BORDER * stride + BORDER;
    p.t.w = w;
    p.t.h = h;
    p.t.groups = ch / 4;
    p.t.stride = stride;
    p.t.plane = stride * rows;
    if (random)
        for (int32_t g = 0; g < ch / 4; g++)
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++) {
                    uint32_t v = rnd32();
                    if ((x + y) % 7 == 0) v |= 0xFF00FF00u; /* the largest bytes */
                    p.t.data[g * p.t.plane + y * stride + x] = v;
                }
    return p;
}

typedef struct float_set {
    float *mem;
    ic_dm_floats t;
} float_set;

/* ch planes of w x h floats with BORDER floats of 7.0 after each row (must stay untouched). */
static float_set float_planes(int32_t w, int32_t h, int32_t ch) {
    float_set p;
    const ptrdiff_t stride = w + BORDER;
    const size_t n = (size_t)(stride * h * ch);
    p.mem = (float *)malloc(n * sizeof(float));
    if (!p.mem) abort();
    for (size_t i = 0; i < n; i++) p.mem[i] = 7.0f;
    p.t.data = p.mem;
    p.t.w = w;
    p.t.h = h;
    p.t.ch = ch;
    p.t.stride = stride;
    p.t.plane = stride * h;
    return p;
}

static int32_t weight_of(const ic_dm_conv *L, int32_t co, int32_t ci, int32_t tap) {
    const int32_t taps = L->k * L->k;
    const uint32_t pair = L->wp[(((size_t)co * (L->cin / 4) + ci / 4) * taps + tap) * 2 + (ci & 1)];
    return (int16_t)(uint16_t)((ci & 2) ? pair >> 16 : pair & 0xFFFFu);
}

/* Output (co, x, y) from the definition: the sum of weight times byte over input channels and
 * taps, the taps outside the input reading the border word `fill`, in 64 bits; then fmaf. */
static float exact(const ic_dm_conv *L, const ic_dm_bytes *in, uint32_t fill, int32_t co, int32_t x, int32_t y,
                   int64_t *sum) {
    const int32_t k = L->k, half = k / 2;
    int64_t acc = 0;
    for (int32_t ci = 0; ci < L->cin; ci++)
        for (int32_t ky = 0; ky < k; ky++)
            for (int32_t kx = 0; kx < k; kx++) {
                const int32_t sy = y * L->stride + (ky - half) * L->dil, sx = x * L->stride + (kx - half) * L->dil;
                const uint32_t v = (sy < 0 || sy >= in->h || sx < 0 || sx >= in->w)
                                       ? fill
                                       : in->data[(ci / 4) * in->plane + sy * in->stride + sx];
                acc += (int64_t)weight_of(L, co, ci, ky * k + kx) * (int64_t)((v >> (8 * (ci % 4))) & 0xFF);
            }
    *sum = acc;
    return fmaf((float)acc, L->m[co], L->c[co]);
}

/* One layer shape: random weights of `bits` (at their largest magnitude in places), random
 * bytes, multipliers and offsets that put some outputs below 0 and above 255; bytes out
 * (cout a multiple of 4) or floats. The reference against the definition, the AVX2 and
 * AVX-512 kernels against the reference bit for bit, nothing written past a row. */
static void one_shape(int32_t cin, int32_t cout, int32_t k, int32_t s, int32_t d, int32_t win, int32_t hin, int bits,
                      int bytes_out) {
    snprintf(g_ctx, sizeof g_ctx, "cin %d cout %d k %d stride %d dil %d in %dx%d bits %d %s", cin, cout, k, s, d, win, hin,
             bits, bytes_out ? "bytes" : "floats");
    const int32_t groups = cin / 4, taps = k * k;
    const int32_t top = bits == 8 ? 127 : (int32_t)((2147483647 / ((int64_t)cin * taps * 255)) < 32767
                                                        ? 2147483647 / ((int64_t)cin * taps * 255)
                                                        : 32767);
    const size_t nw = (size_t)cout * groups * taps;
    uint32_t *wp = malloc(nw * 2 * sizeof *wp), *w8 = malloc(nw * sizeof *w8);
    float *m = malloc((size_t)cout * sizeof *m), *c = malloc((size_t)cout * sizeof *c);
    if (!wp || !w8 || !m || !c) abort();
    for (size_t i = 0; i < nw; i++) {
        int32_t q[4];
        for (int j = 0; j < 4; j++) {
            q[j] = (int32_t)(rnd32() % (uint32_t)(2 * top + 1)) - top;
            if (i % 5 == 0) q[j] = j & 1 ? -top : top; /* the largest magnitudes */
        }
        wp[2 * i] = (uint32_t)(uint16_t)q[0] | (uint32_t)(uint16_t)q[2] << 16;
        wp[2 * i + 1] = (uint32_t)(uint16_t)q[1] | (uint32_t)(uint16_t)q[3] << 16;
        w8[i] = (uint32_t)(uint8_t)q[0] | (uint32_t)(uint8_t)q[1] << 8 | (uint32_t)(uint8_t)q[2] << 16 |
                (uint32_t)(uint8_t)q[3] << 24;
    }
    /* a sum's spread is about top / sqrt(3) times 147 (the bytes' root mean square) times
     * sqrt(cin taps): scaled to about 300, past both ends of 0 .. 255 */
    const float scale = 300.0f / (0.58f * (float)top * 147.0f * sqrtf((float)(cin * taps)));
    for (int32_t i = 0; i < cout; i++) {
        m[i] = scale * (1.0f + rnd());
        c[i] = 100.0f * rnd();
    }
    const ic_dm_conv L = {cin, cout, k, s, d, bits, wp, bits == 8 ? w8 : NULL, m, c};
    const int32_t wo = (win + s - 1) / s, ho = (hin + s - 1) / s;
    const uint32_t fill = (rnd32() & 1) ? 0x80808080u : 0u, sentinel = 0xA5A5A5A5u;
    byte_set in = byte_planes(win, hin, cin, fill, 1);
    byte_set bo[3];
    float_set fo[3];
    const int avx2 = (ic_cpu_features_detected() & IC_CPU_AVX2) != 0;
    const uint32_t vnni_bits = IC_CPU_AVX512 | IC_CPU_AVX512VNNI;
    const int avx512 = (ic_cpu_features_detected() & vnni_bits) == vnni_bits;
    for (int i = 0; i < 3; i++) {
        bo[i] = byte_planes(wo, ho, bytes_out ? cout : 4, sentinel, 0);
        fo[i] = float_planes(wo, ho, cout);
    }
    for (int32_t y = 0; y < ho; y++) {
        const ic_dm_bytes *b[3] = {bytes_out ? &bo[0].t : NULL, bytes_out ? &bo[1].t : NULL, bytes_out ? &bo[2].t : NULL};
        ic__dm_conv_row_c(&L, &in.t, b[0], &fo[0].t, y);
#if IC_X86
        if (avx2) ic__dm_conv_row_avx2(&L, &in.t, b[1], &fo[1].t, y);
        if (avx512) ic__dm_conv_row_avx512(&L, &in.t, b[2], &fo[2].t, y);
#endif
    }
    int right = 1, bound = 1, clamped_low = 0, clamped_high = 0;
    for (int32_t co = 0; co < cout; co++)
        for (int32_t y = 0; y < ho; y++)
            for (int32_t x = 0; x < wo; x++) {
                int64_t sum;
                const float e = exact(&L, &in.t, fill, co, x, y, &sum);
                bound &= sum < 2147483647LL && sum > -2147483647LL;
                if (bytes_out) {
                    const float cl = e > 0.0f ? (e < 255.0f ? e : 255.0f) : 0.0f;
                    const uint32_t want = (uint32_t)nearbyintf(cl);
                    const uint32_t got = (bo[0].t.data[(co / 4) * bo[0].t.plane + y * bo[0].t.stride + x] >> (8 * (co % 4))) & 0xFF;
                    right &= got == want;
                    clamped_low += e < 0.0f;
                    clamped_high += e > 255.0f;
                } else {
                    const float got = fo[0].t.data[co * fo[0].t.plane + y * fo[0].t.stride + x];
                    right &= memcmp(&got, &e, sizeof e) == 0;
                }
            }
    CHECK(bound);
    CHECK(right);
    g_clamped_low += clamped_low; /* both clamps must be reached (checked over all shapes) */
    g_clamped_high += clamped_high;
    int same = 1, border = 1;
    for (int i = 1; i < 3; i++) {
        if ((i == 1 && !avx2) || (i == 2 && !avx512)) continue;
        if (bytes_out) {
            const size_t n = (size_t)(bo[0].t.plane * bo[0].t.groups);
            same &= memcmp(bo[0].mem, bo[i].mem, n * sizeof(uint32_t)) == 0;
        } else {
            same &= memcmp(fo[0].mem, fo[i].mem, (size_t)(fo[0].t.plane * cout) * sizeof(float)) == 0;
        }
    }
    /* outside the rows: the sentinels (bytes) and the 7.0 after each float row, in the
     * reference's output too (the comparison above covers the vector kernels') */
    if (bytes_out) {
        for (int32_t g = 0; g < cout / 4; g++)
            for (int32_t y = 0; y < ho; y++)
                for (int32_t x = wo; x < wo + BORDER; x++) border &= bo[0].t.data[g * bo[0].t.plane + y * bo[0].t.stride + x] == sentinel;
    } else {
        for (int32_t ch = 0; ch < cout; ch++)
            for (int32_t y = 0; y < ho; y++)
                for (int32_t x = wo; x < wo + BORDER; x++) border &= fo[0].t.data[ch * fo[0].t.plane + y * fo[0].t.stride + x] == 7.0f;
    }
    CHECK(same);
    CHECK(border);
    free(in.mem);
    for (int i = 0; i < 3; i++) { free(bo[i].mem); free(fo[i].mem); }
    free(wp); free(w8); free(m); free(c);
}

/* The two-output column sums (ic__dm_column_sums2_*) of `rows` rows into outputs of n0 and n1
 * columns, each written or added to (add0, add1): both kernels equal to 16-bit sums of the
 * same rows (plus the prior contents when adding), nothing written past n0 or n1. */
static void one_box2(int32_t rows, size_t n0, size_t n1, int add0, int add1) {
    snprintf(g_ctx, sizeof g_ctx, "column_sums2: %d rows, %zu and %zu columns, add %d %d", (int)rows, n0, n1, add0, add1);
    const size_t hi = n0 > n1 ? n0 : n1, stride = hi + 5;
    uint8_t *src = malloc((size_t)rows * stride + 1);
    uint16_t *prior[2], *ref[2], *c[2], *v[2];
    const size_t n[2] = {n0, n1};
    const int add[2] = {add0, add1};
    for (size_t i = 0; i < (size_t)rows * stride; i++) src[i] = (uint8_t)(rnd32() >> 24);
    for (int o = 0; o < 2; o++) {
        prior[o] = malloc((hi + 8) * sizeof(uint16_t));
        ref[o] = malloc((hi + 8) * sizeof(uint16_t));
        c[o] = malloc((hi + 8) * sizeof(uint16_t));
        v[o] = malloc((hi + 8) * sizeof(uint16_t));
        for (size_t i = 0; i < hi + 8; i++) prior[o][i] = (uint16_t)rnd32();
        for (size_t i = 0; i < hi + 8; i++) {
            uint16_t sum = 0;
            for (int32_t y = 0; y < rows; y++) sum = (uint16_t)(sum + src[(size_t)y * stride + i % stride]);
            ref[o][i] = i < n[o] ? (uint16_t)((add[o] ? prior[o][i] : 0) + sum) : prior[o][i];
        }
        memcpy(c[o], prior[o], (hi + 8) * sizeof(uint16_t));
        memcpy(v[o], prior[o], (hi + 8) * sizeof(uint16_t));
    }
    ic__dm_column_sums2_c(src, stride, rows, c, add, n);
    int ok = 1;
    for (int o = 0; o < 2; o++) ok &= memcmp(c[o], ref[o], (hi + 8) * sizeof(uint16_t)) == 0;
    CHECK(ok);
#if IC_X86
    if (ic_cpu_features_detected() & IC_CPU_AVX2) {
        ic__dm_column_sums2_avx2(src, stride, rows, v, add, n);
        int same = 1;
        for (int o = 0; o < 2; o++) same &= memcmp(v[o], ref[o], (hi + 8) * sizeof(uint16_t)) == 0;
        CHECK(same);
    }
#endif
    free(src);
    for (int o = 0; o < 2; o++) { free(prior[o]); free(ref[o]); free(c[o]); free(v[o]); }
}

/* The reduction's column sums (ic__dm_column_sums_*) of `rows` rows of `n` bytes, `fill`
 * 0: random bytes, 1: all 255 (257 rows of 255 sum to 65535, the 16-bit limit): both kernels
 * equal to 32-bit sums, and neither writes past sums[n - 1]. */
static void one_box(int32_t rows, size_t n, int fill) {
    const size_t stride = n + 7;
    uint8_t *src = malloc((size_t)rows * stride);
    uint16_t *ref = malloc((n + 1) * sizeof *ref), *vec = malloc((n + 1) * sizeof *vec);
    for (size_t i = 0; i < (size_t)rows * stride; i++) src[i] = fill ? 255 : (uint8_t)((rnd() + 1) * 128);
    ref[n] = vec[n] = 0xBEEF;
    snprintf(g_ctx, sizeof g_ctx, "column sums: %d rows of %zu bytes, %s", (int)rows, n, fill ? "255" : "random");
    ic__dm_column_sums_c(src, stride, rows, ref, n);
    int ok = ref[n] == 0xBEEF, same = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t t = 0;
        for (int32_t y = 0; y < rows; y++) t += src[(size_t)y * stride + i];
        ok &= ref[i] == t;
    }
    CHECK(ok);
#if IC_X86
    if (ic_cpu_features_detected() & IC_CPU_AVX2) {
        ic__dm_column_sums_avx2(src, stride, rows, vec, n);
        same = vec[n] == 0xBEEF && memcmp(ref, vec, n * sizeof *ref) == 0;
    }
#endif
    CHECK(same);
    free(src); free(ref); free(vec);
}

/* The box sums across a row of 4-channel column sums: w boxes of k pixels, every value
 * random or the largest (65 535); the reference against 64-bit sums, the AVX2 kernel against
 * the reference bit for bit, and neither writes past 4 w. */
static void one_box4(int32_t k, int32_t w, int fill) {
    const size_t n = (size_t)4 * k * w;
    uint16_t *src = malloc((n + 8) * sizeof *src);
    uint32_t *ref = malloc((4 * (size_t)w + 1) * sizeof *ref), *vec = malloc((4 * (size_t)w + 1) * sizeof *vec);
    for (size_t i = 0; i < n + 8; i++) src[i] = fill ? 65535 : (uint16_t)((rnd() + 1) * 32768);
    ref[4 * w] = vec[4 * w] = 0xBEEFu;
    snprintf(g_ctx, sizeof g_ctx, "box sums: %d boxes of %d pixels, %s", (int)w, (int)k, fill ? "65535" : "random");
    ic__dm_box_sums4_c(src, k, w, ref);
    int ok = ref[4 * w] == 0xBEEFu, same = 1;
    for (int32_t i = 0; i < w; i++)
        for (int j = 0; j < 4; j++) {
            uint64_t t = 0;
            for (int32_t x = 0; x < k; x++) t += src[(size_t)4 * (i * k + x) + j];
            ok &= ref[4 * i + j] == t;
        }
    CHECK(ok);
#if IC_X86
    if (ic_cpu_features_detected() & IC_CPU_AVX2) {
        ic__dm_box_sums4_avx2(src, k, w, vec);
        same = vec[4 * w] == 0xBEEFu && memcmp(ref, vec, 4 * (size_t)w * sizeof *ref) == 0;
    }
#endif
    CHECK(same);
    free(src); free(ref); free(vec);
}

/* The decoder's addition of one group: byte j of o[x] = clamp(rint(fmaf(byte, a[j],
 * low[j][x / 2]))) for w outputs, with sums below 0, above 255 and at exact halves (ties to
 * even); the reference against the definition, the AVX2 kernel against the reference bit for
 * bit, and neither writes past w. */
static void one_add(int32_t w) {
    const int32_t lw = (w + 1) / 2;
    const ptrdiff_t plane = lw + 4;
    float *low = malloc((size_t)plane * 4 * sizeof *low), a[4];
    uint32_t *o = malloc(((size_t)w + 1) * sizeof *o), *ref = malloc(((size_t)w + 1) * sizeof *ref),
             *vec = malloc(((size_t)w + 1) * sizeof *vec);
    for (int32_t i = 0; i < plane * 4; i++) low[i] = 300.0f * rnd();
    for (int j = 0; j < 4; j++) a[j] = 1.0f + rnd() / 2;
    for (int32_t x = 0; x < w; x++) o[x] = rnd32();
    if (w > 2) { a[0] = 1.0f; o[0] = 0; o[1] = 1; low[0] = 2.5f; } /* ties: 2.5 -> 2, 3.5 -> 4 */
    o[w] = 0xA5A5A5A5u;
    memcpy(ref, o, ((size_t)w + 1) * sizeof *o);
    memcpy(vec, o, ((size_t)w + 1) * sizeof *o);
    snprintf(g_ctx, sizeof g_ctx, "add: %d outputs", (int)w);
    ic__dm_add_row_c(low, plane, a, ref, w);
    int ok = ref[w] == 0xA5A5A5A5u;
    for (int32_t x = 0; x < w; x++)
        for (int j = 0; j < 4; j++) {
            float v = fmaf((float)((o[x] >> (8 * j)) & 0xFF), a[j], low[j * plane + x / 2]);
            v = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f;
            ok &= ((ref[x] >> (8 * j)) & 0xFF) == (uint32_t)nearbyintf(v);
        }
    if (w > 2) ok &= (ref[0] & 0xFF) == 2 && (ref[1] & 0xFF) == 4;
    CHECK(ok);
    int same = 1;
#if IC_X86
    if (ic_cpu_features_detected() & IC_CPU_AVX2) {
        ic__dm_add_row_avx2(low, plane, a, vec, w);
        same = memcmp(ref, vec, ((size_t)w + 1) * sizeof *ref) == 0;
    }
#endif
    CHECK(same);
    free(low); free(o); free(ref); free(vec);
}

/* The Hough votes of one map row of w cells (row j; probabilities random in [0, 1), some at
 * the vote threshold exactly, some just below it): the reference against double-precision
 * sums of the same votes, the AVX-512 kernel against the reference bit for bit (the last
 * block's masked lanes included: nothing written past the 180 angles' bins). */
static void one_votes(int32_t w, int32_t j) {
    const double diag = sqrt((double)w * w + (double)(j + 1) * (j + 1)) + 4;
    const int32_t nrho = 2 * (int32_t)ceil(diag) + 4, off = nrho / 2 - 1;
    const size_t n = (size_t)IC_DQ_THETA * nrho;
    double cs[IC_DQ_THETA], sn[IC_DQ_THETA];
    for (int32_t t = 0; t < IC_DQ_THETA; t++) {
        cs[t] = cos(t * 3.14159265358979323846 / IC_DQ_THETA);
        sn[t] = sin(t * 3.14159265358979323846 / IC_DQ_THETA);
    }
    const size_t guard = (size_t)nrho + 2; /* a 181st angle's row and more: must stay untouched */
    float *row = malloc((size_t)w * sizeof *row), *ref = calloc(n + guard, sizeof *ref), *vec = calloc(n + guard, sizeof *vec);
    double *exact_sums = calloc(n, sizeof *exact_sums);
    for (int32_t i = 0; i < w; i++) row[i] = i % 7 == 3 ? 0.25f : i % 7 == 5 ? nextafterf(0.25f, 0) : (rnd() + 1) / 2;
    for (size_t x = n; x < n + guard; x++) ref[x] = vec[x] = 7.0f;
    snprintf(g_ctx, sizeof g_ctx, "votes: %d cells, row %d", (int)w, (int)j);
    ic__dq_votes_row_c(row, w, j, 0.25f, cs, sn, off, nrho, ref);
    for (int32_t i = 0; i < w; i++) {
        if (!(row[i] >= 0.25f)) continue;
        for (int32_t t = 0; t < IC_DQ_THETA; t++) {
            const double r = (i + 0.5) * cs[t] + (j + 0.5) * sn[t] + off - 0.5, b = floor(r);
            exact_sums[(size_t)t * nrho + (size_t)b] += row[i] * (1 - (r - b));
            exact_sums[(size_t)t * nrho + (size_t)b + 1] += row[i] * (r - b);
        }
    }
    int ok = 1;
    for (size_t x = n; x < n + guard; x++) ok &= ref[x] == 7.0f;
    for (size_t x = 0; x < n; x++) ok &= fabs(ref[x] - exact_sums[x]) <= 1e-5 * (1 + exact_sums[x]);
    CHECK(ok);
    int same = 1;
#if IC_X86
    if (ic_cpu_features_detected() & IC_CPU_AVX512) {
        ic__dq_votes_row_avx512(row, w, j, 0.25f, cs, sn, off, nrho, vec);
        same = memcmp(ref, vec, (n + guard) * sizeof *ref) == 0;
    }
#endif
    CHECK(same);
    free(row); free(ref); free(vec); free(exact_sums);
}

/* A two-size detection's second map: its working image written by the first run's pass over
 * the image (ic__dm_run with g2), then the network on it (reduced), must be the map of a run
 * at that size alone, bit for bit, in every format the detector reads; the first run's map
 * must not change either. */
static void one_pair(ic_format format, int32_t w, int32_t h, int32_t work, int32_t work2) {
    snprintf(g_ctx, sizeof g_ctx, "two sizes: format %d %dx%d, %d then %d", (int)format, (int)w, (int)h, (int)work,
             (int)work2);
    ic_layout lay;
    if (ic_layout_compute(format, w, h, 0, &lay) != IC_OK) abort();
    uint8_t *px = malloc(lay.total_size);
    for (size_t i = 0; i < lay.total_size; i++) px[i] = (uint8_t)((rnd() + 1) * 20 + (i % 97));
    ic_image im;
    if (ic_image_init(&im, format, IC_ALPHA_STRAIGHT, w, h, px, &lay) != IC_OK) abort();
    ic_dm_geometry g, g2;
    ic__dm_geometry(w, h, work, &g);
    ic__dm_geometry(w, h, work2, &g2);
    size_t sc = ic__dm_scratch(&g, w), sc2 = ic__dm_scratch(&g2, w);
    if (sc2 > sc) sc = sc2;
    uint8_t *scratch_mem = malloc(sc + 64), *input2_mem = malloc(ic__dm_input_bytes(&g2) + 64);
    if (!scratch_mem || !input2_mem) abort();
    uint8_t *scratch = (uint8_t *)(((uintptr_t)scratch_mem + 63) & ~(uintptr_t)63); /* the stage's alignment */
    uint8_t *input2 = (uint8_t *)(((uintptr_t)input2_mem + 63) & ~(uintptr_t)63);
    const size_t n1 = (size_t)g.mw * g.mh, n2 = (size_t)g2.mw * g2.mh;
    float *alone1 = malloc(2 * n1 * sizeof(float)), *pass1 = malloc(2 * n1 * sizeof(float));
    float *alone2 = malloc(2 * n2 * sizeof(float)), *pass2 = malloc(2 * n2 * sizeof(float));
    const uint32_t cpu = ic_cpu_features();
    ic__dm_run(&im, &g, cpu, scratch, alone1, alone1 + n1, (size_t)g.mw, NULL, NULL, 0);
    ic__dm_run(&im, &g2, cpu, scratch, alone2, alone2 + n2, (size_t)g2.mw, NULL, NULL, 0);
    ic__dm_run(&im, &g, cpu, scratch, pass1, pass1 + n1, (size_t)g.mw, &g2, input2, 0);
    memset(scratch, 0x7f, sc); /* nothing of the first run's may be read by the second */
    ic__dm_run(&im, &g2, cpu, scratch, pass2, pass2 + n2, (size_t)g2.mw, NULL, input2, 1);
    CHECK(memcmp(alone1, pass1, 2 * n1 * sizeof(float)) == 0);
    CHECK(memcmp(alone2, pass2, 2 * n2 * sizeof(float)) == 0);
    free(px); free(scratch_mem); free(input2_mem); free(alone1); free(pass1); free(alone2); free(pass2);
}

/* The ranker's trees (detect_rank_model.c) against LightGBM's own raw scores on inputs from
 * its training data (detect_rank_reference.h, both written by scripts/detector/ranker.py):
 * the same sum of the same leaves, so within double rounding of the sum. */
static void ranker_reference(void) {
    for (int i = 0; i < RANK_REF_N; i++) {
        snprintf(g_ctx, sizeof g_ctx, "ranker reference %d", i);
        const double s = ic__dq_rank(rank_ref_inputs[i]);
        CHECK(fabs(s - rank_ref_scores[i]) <= 1e-9 * (1 + fabs(rank_ref_scores[i])));
    }
    /* the scores are not all alike: a ranker of constant output would pass the above only if
     * LightGBM's were constant too */
    double lo = rank_ref_scores[0], hi = lo;
    for (int i = 1; i < RANK_REF_N; i++) { lo = fmin(lo, rank_ref_scores[i]); hi = fmax(hi, rank_ref_scores[i]); }
    snprintf(g_ctx, sizeof g_ctx, "ranker reference spread");
    CHECK(hi - lo > 1.0);
}

int main(void) {
    ranker_reference();
    /* the 64-column blocks, the 16-column ones and the tail, one row to the 16-bit limit */
    static const int32_t box_rows[] = {1, 2, 14, 257};
    static const size_t box_widths[] = {1, 15, 16, 17, 63, 64, 65, 95, 200};
    for (size_t i = 0; i < sizeof box_rows / sizeof box_rows[0]; i++)
        for (size_t j = 0; j < sizeof box_widths / sizeof box_widths[0]; j++)
            for (int fill = 0; fill < 2; fill++) one_box(box_rows[i], box_widths[j], fill);
    /* the two-output column sums: either output longer, one empty, equal, the 64-column
     * blocks and their tails, written and added, one row to the 16-bit limit */
    static const size_t pair_n[][2] = {{64, 100}, {200, 13}, {0, 77}, {129, 129}, {65, 0}, {128, 191}, {1, 2}};
    static const int32_t pair_rows[] = {1, 3, 11, 257};
    for (size_t i = 0; i < sizeof pair_n / sizeof pair_n[0]; i++)
        for (size_t r = 0; r < sizeof pair_rows / sizeof pair_rows[0]; r++)
            for (int m = 0; m < 4; m++) one_box2(pair_rows[r], pair_n[i][0], pair_n[i][1], m & 1, m >> 1);
    /* box sums: every remainder of the 8-, 2- and 1-pixel steps, up to the largest box (257) */
    static const int32_t box4_k[] = {1, 2, 3, 7, 8, 9, 10, 14, 15, 16, 17, 257};
    for (size_t i = 0; i < sizeof box4_k / sizeof box4_k[0]; i++)
        for (int fill = 0; fill < 2; fill++) one_box4(box4_k[i], 1 + (int32_t)(i % 5) * 7, fill);
    /* the Hough votes: rows of a few cells to a 12 MP map's width, near and far from row 0 */
    static const int32_t vote_w[] = {1, 2, 7, 33, 144}, vote_j[] = {0, 5, 107};
    for (size_t i = 0; i < sizeof vote_w / sizeof vote_w[0]; i++)
        for (size_t j = 0; j < sizeof vote_j / sizeof vote_j[0]; j++) one_votes(vote_w[i], vote_j[j]);
    /* the addition: widths below one 8-column step, at and past it, odd and even tails */
    for (int32_t w = 1; w <= 40; w++) one_add(w);
    /* shapes the vector files do not specialise (their generic paths) and the network's, with
     * 4 to 12 input channels, output channel counts past the last multiple of 4 and 8 (floats:
     * the 2- and 1-channel blocks), at widths below 8 (the AVX2 file's reference columns),
     * between 8 and 16 and past 16 (its 16- and 8-column blocks, the last 8 overlapping), and
     * widths that take the AVX-512 file's 32- and 16-column blocks and its masked last block
     * (1 to 15 columns); 8- and 16-bit weights, bytes and floats out */
    static const int32_t shapes[][4] = {/* k, stride, dilation, cout */
        {5, 1, 1, 4}, {5, 1, 1, 6}, {3, 1, 3, 5}, {3, 2, 2, 8}, {1, 2, 1, 7},
        {5, 2, 1, 3}, {3, 1, 1, 6}, {3, 2, 1, 2}, {1, 1, 1, 9},
        {3, 1, 1, 12}, {3, 2, 1, 16}, {1, 1, 1, 18}, {3, 1, 4, 8}};
    static const int32_t widths[] = {1, 5, 8, 13, 16, 31, 32, 37, 50, 64};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t j = 0; j < sizeof widths / sizeof widths[0]; j++) {
            const int32_t cout = shapes[i][3];
            const int bits = (i + j) % 2 ? 8 : 16;
            one_shape(4 * (1 + (int32_t)(i % 3)), cout, shapes[i][0], shapes[i][1], shapes[i][2], widths[j] * shapes[i][1],
                      6, bits, 0);
            if (cout % 4 == 0)
                one_shape(4 * (1 + (int32_t)(j % 3)), cout, shapes[i][0], shapes[i][1], shapes[i][2],
                          widths[j] * shapes[i][1], 5, bits, 1);
        }
    snprintf(g_ctx, sizeof g_ctx, "byte outputs clamped: %ld below 0, %ld above 255", g_clamped_low, g_clamped_high);
    CHECK(g_clamped_low > 100 && g_clamped_high > 100);
    /* the second working size larger and smaller than the first, box heights that divide
     * each other and that do not, a width and height no box divides */
    static const ic_format pair_formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_RGB8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12};
    for (size_t i = 0; i < sizeof pair_formats / sizeof pair_formats[0]; i++) {
        one_pair(pair_formats[i], 1600, 1200, 288, 384);
        one_pair(pair_formats[i], 997, 613, 288, 224);
        one_pair(pair_formats[i], 613, 997, 100, 300);
    }
    printf("AVX2 kernels %s\n", (ic_cpu_features_detected() & IC_CPU_AVX2) ? "compared" : "absent: the reference alone");
    printf("AVX-512 kernels %s\n", (ic_cpu_features_detected() & IC_CPU_AVX512) ? "compared" : "absent");
    printf("AVX-512 VNNI convolution %s\n", (ic_cpu_features_detected() & IC_CPU_AVX512VNNI) ? "compared" : "absent");
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
