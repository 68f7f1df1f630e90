/* C tests of the JPEG codec for `make sanitize` (ASan + UBSan) and plain builds: decode vs
 * TurboJPEG at every scale, encode round trips into exact-size buffers, hostile input through
 * every entry point, and the decompression bomb: a 65500x65500 header must be refused with
 * no large allocation anywhere in the process (libjpeg included), measured with the
 * sanitizer's malloc hooks under ASan and by interposing malloc otherwise.
 * Prints "N passed, 0 failed" (the form ctest's PASS_REGULAR_EXPRESSION expects). */
#include <imagecore.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

static long g_pass, g_fail;
static char g_ctx[256];
#define CTX(...) snprintf(g_ctx, sizeof g_ctx, __VA_ARGS__)
#define CHECK(cond) check_((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
static int check_(int ok, const char *what, const char *file, int line) {
    if (ok) g_pass++;
    else { g_fail++; printf("FAIL %s:%d [%s] %s\n", file, line, g_ctx, what); }
    return ok;
}

/* ---- allocation accounting --------------------------------------------------------- */

static size_t g_largest, g_total;
static int g_counting;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1 /* clang spells it __has_feature */
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
/* From <sanitizer/allocator_interface.h>, which gcc does not install; exported by the runtime. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n) {
    (void)p;
    if (!g_counting) return;
    if (n > g_largest) g_largest = n;
    g_total += n;
}
static void on_free(const volatile void *p) { (void)p; }
static void install_hooks(void) { __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); }
#elif defined(__GLIBC__)
/* Plain glibc build: interpose malloc/calloc/realloc for the whole process (shared libjpeg
 * included) and forward to glibc's own entry points. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static void note(size_t n) {
    if (!g_counting) return;
    if (n > g_largest) g_largest = n;
    g_total += n;
}
void *malloc(size_t n) { note(n); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { note(a * b); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { note(n); return __libc_realloc(p, n); }
static void install_hooks(void) {}
#else
#define IC_NO_ALLOC_ACCOUNTING 1
static void install_hooks(void) {}
#endif

/* ---- fixtures ------------------------------------------------------------------------ */

static unsigned char *make_pixels(int w, int h, int ch) {
    unsigned char *p = (unsigned char *)malloc((size_t)w * h * ch);
    unsigned s = 99;
    for (size_t i = 0; i < (size_t)w * h * ch; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (unsigned char)((i / ch) % (size_t)w * 3 + (i / ch / w) * 2 + ((s >> 16) & 15));
    }
    return p;
}

static unsigned char *make_jpeg(int w, int h, int samp, int flags, unsigned long *size) {
    int gray = samp == TJSAMP_GRAY;
    unsigned char *px = make_pixels(w, h, gray ? 1 : 3), *jpg = NULL;
    tjhandle t = tjInitCompress();
    *size = 0;
    int rc = tjCompress2(t, px, w, 0, h, gray ? TJPF_GRAY : TJPF_RGB, &jpg, size, samp, 85, flags);
    tjDestroy(t);
    free(px);
    if (rc) { tjFree(jpg); return NULL; }
    return jpg;
}

/* Exact-size planes (separate heap blocks, so ASan sees any write past one). */
typedef struct img { ic_image im; unsigned char *p[3]; } img;
static int img_alloc(img *m, ic_format f, int w, int h) {
    memset(m, 0, sizeof *m);
    m->im.format = f;
    m->im.width = w;
    m->im.height = h;
    for (int i = 0; i < ic_format_plane_count(f); i++) {
        size_t row; int32_t rows;
        if (ic_plane_geometry(f, w, h, i, &row, &rows)) return 0;
        m->p[i] = (unsigned char *)malloc(row * (size_t)rows);
        m->im.planes[i].data = m->p[i];
        m->im.planes[i].stride = row;
    }
    return 1;
}
static void img_free(img *m) { for (int i = 0; i < 3; i++) free(m->p[i]); }

/* ---- tests ----------------------------------------------------------------------------- */

static void test_decode_vs_turbojpeg(void) {
    static const int samps[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY};
    static const int sizes[][2] = {{1, 1}, {17, 9}, {64, 48}, {203, 151}};
    tjhandle t = tjInitDecompress();
    for (int si = 0; si < 4; si++)
        for (int zi = 0; zi < 4; zi++)
            for (int prog = 0; prog < 2; prog++) {
                unsigned long n;
                unsigned char *jpg = make_jpeg(sizes[zi][0], sizes[zi][1], samps[si], prog ? TJFLAG_PROGRESSIVE : 0, &n);
                if (!CHECK(jpg != NULL)) continue;
                for (int m = 8; m >= 1; m--) {
                    ic_jpeg_decode_options o;
                    ic_jpeg_decode_options_init(&o);
                    o.scale_num = m;
                    int32_t w, h;
                    CTX("samp %d size %dx%d prog %d scale %d", samps[si], sizes[zi][0], sizes[zi][1], prog, m);
                    if (!CHECK(ic_jpeg_decode_size(jpg, n, &o, &w, &h, NULL) == IC_OK)) continue;
                    if (m < 8 && w * 8 < 16) continue; /* TurboJPEG picks another factor for tiny outputs */
                    img a;
                    img_alloc(&a, IC_FORMAT_RGBA8, w, h);
                    unsigned char *ref = (unsigned char *)malloc((size_t)w * h * 4);
                    CHECK(ic_jpeg_decode(jpg, n, &o, &a.im, NULL) == IC_OK);
                    CHECK(tjDecompress2(t, jpg, n, ref, w, 0, h, TJPF_RGBA, 0) == 0);
                    CHECK(memcmp(ref, a.p[0], (size_t)w * h * 4) == 0);
                    free(ref);
                    img_free(&a);
                    if (samps[si] != TJSAMP_420) continue;
                    img y;
                    img_alloc(&y, IC_FORMAT_I420, w, h);
                    unsigned long ysz = tjBufSizeYUV2(w, 1, h, TJSAMP_420);
                    unsigned char *yref = (unsigned char *)malloc(ysz);
                    CHECK(ic_jpeg_decode(jpg, n, &o, &y.im, NULL) == IC_OK);
                    CHECK(tjDecompressToYUV2(t, jpg, n, yref, w, 1, h, 0) == 0);
                    int pw0 = tjPlaneWidth(0, w, TJSAMP_420), ph0 = tjPlaneHeight(0, h, TJSAMP_420);
                    int pw1 = tjPlaneWidth(1, w, TJSAMP_420), ph1 = tjPlaneHeight(1, h, TJSAMP_420);
                    int same = 1;
                    for (int r = 0; r < h; r++) same &= memcmp(y.p[0] + (size_t)r * w, yref + (size_t)r * pw0, (size_t)w) == 0;
                    for (int r = 0; r < (h + 1) / 2; r++) {
                        same &= memcmp(y.p[1] + (size_t)r * ((w + 1) / 2), yref + (size_t)pw0 * ph0 + (size_t)r * pw1, (size_t)(w + 1) / 2) == 0;
                        same &= memcmp(y.p[2] + (size_t)r * ((w + 1) / 2), yref + (size_t)pw0 * ph0 + (size_t)pw1 * ph1 + (size_t)r * pw1, (size_t)(w + 1) / 2) == 0;
                    }
                    CHECK(same);
                    free(yref);
                    img_free(&y);
                }
                tjFree(jpg);
            }
    tjDestroy(t);
}

static void test_encode(void) {
    int w = 61, h = 37;
    unsigned char *px = make_pixels(w, h, 4);
    ic_image src = {IC_FORMAT_RGBA8, IC_ALPHA_OPAQUE, w, h, {{px, (size_t)w * 4}}};
    ic_jpeg_encode_options o;
    ic_jpeg_encode_options_init(&o);
    o.orientation = 6;
    size_t bound = 0, n = 0;
    CTX("encode");
    CHECK(ic_jpeg_encode_bound(w, h, &o, &bound) == IC_OK);
    unsigned char *out = (unsigned char *)malloc(bound);
    CHECK(ic_jpeg_encode(&src, &o, out, bound, &n) == IC_OK && n > 0 && n <= bound);
    /* Exact-size and short heap buffers: fits exactly / fails without writing past the end. */
    for (size_t cap = n + 1; cap-- > n - 8;) {
        unsigned char *b = (unsigned char *)malloc(cap);
        size_t m = 0;
        ic_status st = ic_jpeg_encode(&src, &o, b, cap, &m);
        CHECK(cap >= n ? (st == IC_OK && m == n && memcmp(b, out, n) == 0) : st == IC_ERR_BUFFER_TOO_SMALL);
        free(b);
    }
    unsigned char *grown = NULL;
    size_t gn = 0;
    CHECK(ic_jpeg_encode_alloc(&src, &o, &grown, &gn) == IC_OK && gn == n && memcmp(grown, out, n) == 0);
    ic_jpeg_free(grown);
    ic_jpeg_info info;
    CHECK(ic_jpeg_probe(out, n, &info) == IC_OK && info.orientation == 6 && info.width == w);
    /* NV12 planes in, straight to raw input. */
    img nv;
    img_alloc(&nv, IC_FORMAT_NV12, w, h);
    CHECK(ic_jpeg_decode(out, n, NULL, &nv.im, NULL) == IC_OK);
    size_t n2 = 0;
    CHECK(ic_jpeg_encode(&nv.im, NULL, out, bound, &n2) == IC_OK && n2 > 0);
    img_free(&nv);
    free(out);
    free(px);
}

static void test_hostile(void) {
    unsigned long n;
    unsigned char *jpg = make_jpeg(40, 24, TJSAMP_420, TJFLAG_PROGRESSIVE, &n);
    static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_GRAY8, IC_FORMAT_I420, IC_FORMAT_NV12};
    unsigned s = 7;
    int ok = 1;
    for (int iter = 0; iter < 400; iter++) {
        unsigned char *b = (unsigned char *)malloc(n);
        memcpy(b, jpg, n);
        size_t len = iter < 200 ? (size_t)iter * n / 200 : n; /* truncations, then corruption */
        for (int k = 0; iter >= 200 && k < 4; k++) {
            s = s * 1103515245u + 12345u;
            b[(s >> 8) % n] = (unsigned char)(s >> 24);
        }
        ic_jpeg_info info;
        ic_status st = ic_jpeg_probe(b, len, &info);
        ok &= st == IC_OK || st == IC_ERR_CORRUPT_DATA || st == IC_ERR_UNSUPPORTED || st == IC_ERR_TOO_LARGE;
        for (int f = 0; f < 4; f++) {
            ic_jpeg_decode_options o;
            ic_jpeg_decode_options_init(&o);
            o.format = formats[f];
            o.scale_num = 1 + iter % 8;
            o.max_pixels = 1000000;
            int32_t w, h;
            if (ic_jpeg_decode_size(b, len, &o, &w, &h, NULL) != IC_OK) continue;
            img m;
            img_alloc(&m, formats[f], w, h);
            st = ic_jpeg_decode(b, len, &o, &m.im, NULL);
            ok &= st == IC_OK || st == IC_ERR_CORRUPT_DATA || st == IC_ERR_UNSUPPORTED || st == IC_ERR_TOO_LARGE;
            img_free(&m);
        }
        free(b);
    }
    CTX("hostile");
    CHECK(ok);
    tjFree(jpg);
}

static int discard_band(void *ctx, const ic_image *band, int32_t first) { (void)ctx; (void)band; (void)first; return 0; }

static void test_bomb(void) {
    unsigned long n;
    unsigned char *jpg = make_jpeg(16, 16, TJSAMP_420, TJFLAG_PROGRESSIVE, &n);
    /* Patch the frame header (SOF2) to claim 65500 x 65500. */
    for (unsigned long i = 2; i + 9 < n; ) {
        if (jpg[i + 1] == 0xC2 || jpg[i + 1] == 0xC0) {
            jpg[i + 5] = jpg[i + 7] = 65500 >> 8;
            jpg[i + 6] = jpg[i + 8] = 65500 & 255;
            break;
        }
        i += 2 + ((size_t)jpg[i + 2] << 8 | jpg[i + 3]);
    }
    CTX("bomb");
#ifndef IC_NO_ALLOC_ACCOUNTING
    /* The accounting itself sees allocations. */
    g_largest = g_total = 0;
    g_counting = 1;
    void *(*volatile alloc)(size_t) = malloc; /* an opaque call: the compiler may not elide it */
    void *big = alloc(10 << 20);
    free(big);
    g_counting = 0;
    CHECK(g_largest >= (10 << 20));
#endif
    ic_jpeg_info info;
    CHECK(ic_jpeg_probe(jpg, n, &info) == IC_OK && info.width == 65500 && info.height == 65500);
    static const ic_format formats[] = {IC_FORMAT_RGBA8, IC_FORMAT_I420, IC_FORMAT_NV12};
    unsigned char pixel[4];
    for (int f = 0; f < 3; f++) {
        ic_jpeg_decode_options o;
        ic_jpeg_decode_options_init(&o);
        o.format = formats[f];
        ic_image tiny = {formats[f], IC_ALPHA_OPAQUE, 1, 1, {{pixel, 4}, {pixel + 1, 2}, {pixel + 2, 1}}};
        int32_t w = 0, h = 0;
        g_largest = g_total = 0;
        g_counting = 1;
        ic_status a = ic_jpeg_decode_size(jpg, n, &o, &w, &h, NULL);
        ic_status b = ic_jpeg_decode(jpg, n, &o, &tiny, NULL);
        ic_status c = ic_jpeg_decode_stream(jpg, n, &o, discard_band, NULL, NULL);
        g_counting = 0;
        CHECK(a == IC_ERR_TOO_LARGE && b == IC_ERR_TOO_LARGE && c == IC_ERR_TOO_LARGE);
#ifndef IC_NO_ALLOC_ACCOUNTING
        /* libjpeg's per-decompressor state is tens of KiB; an image-sized buffer would be GiB. */
        CHECK(g_largest < 256 * 1024 && g_total < 1024 * 1024);
        printf("bomb (format %d): largest allocation %zu B, total %zu B\n", (int)formats[f], g_largest, g_total);
#endif
    }
    tjFree(jpg);
}


/* ---- data-sanity rule and memory budget (issue #12, defect 4) ------------------------ */

/* Offset of the EOI marker (the last two bytes of a file TurboJPEG wrote). */
static size_t eoi_of(size_t n) { return n - 2; }

/* Decodes with the rule off; returns the status and fills `r`. */
static ic_status decode_rgba(const unsigned char *jpg, size_t n, int32_t permille, uint64_t max_memory,
                             img *m, ic_jpeg_decode_result *r) {
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.min_valid_permille = permille;
    o.max_memory = max_memory;
    return ic_jpeg_decode(jpg, n, &o, &m->im, r);
}

static void test_valid_rows(void) {
    const int w = 96, h = 160;
    static const int samps[] = {TJSAMP_420, TJSAMP_444, TJSAMP_GRAY};
    for (int si = 0; si < 3; si++) {
        unsigned long n;
        unsigned char *jpg = make_jpeg(w, h, samps[si], 0, &n);
        img full, cut;
        img_alloc(&full, IC_FORMAT_RGBA8, w, h);
        img_alloc(&cut, IC_FORMAT_RGBA8, w, h);
        ic_jpeg_decode_result r;
        CTX("valid rows samp %d: whole file", samps[si]);
        CHECK(decode_rgba(jpg, n, 0, 0, &full, &r) == IC_OK && r.valid_rows == h && r.warnings == 0);
        /* Without its EOI marker every bit is still there: a warning, but all rows valid. */
        CTX("valid rows samp %d: no EOI", samps[si]);
        CHECK(decode_rgba(jpg, eoi_of(n), 0, 0, &cut, &r) == IC_OK && r.warnings >= 1 && r.valid_rows == h);
        CHECK(memcmp(cut.p[0], full.p[0], (size_t)w * h * 4) == 0);
        int32_t last = -1, monotone = 1, exact = 1, grey_after = 1, rule = 1;
        size_t start = 2;
        while (start + 1 < n && !(jpg[start] == 0xFF && jpg[start + 1] == 0xDA)) start++;
        for (size_t len = start + 16; len < eoi_of(n) - 1; len += 7) {
            CTX("valid rows samp %d cut at %zu of %lu", samps[si], len, n);
            memset(cut.p[0], 0, (size_t)w * h * 4);
            ic_status st0 = decode_rgba(jpg, len, -1, 0, &cut, &r);
            if (!CHECK(st0 == IC_OK)) { printf("  %d %s\n", (int)st0, r.message); break; }
            CHECK(r.valid_rows >= 0 && r.valid_rows <= h && r.warnings >= 1);
            monotone &= r.valid_rows >= last;
            last = r.valid_rows;
            /* The valid rows are exactly the full decode's. */
            if (memcmp(cut.p[0], full.p[0], (size_t)r.valid_rows * w * 4) != 0) {
                int32_t bad = 0;
                while (memcmp(cut.p[0] + (size_t)bad * w * 4, full.p[0] + (size_t)bad * w * 4, (size_t)w * 4) == 0) bad++;
                int nd = 0, fx = -1;
                for (int x = 0; x < w * 4; x++) if (cut.p[0][(size_t)bad * w * 4 + x] != full.p[0][(size_t)bad * w * 4 + x]) { nd++; if (fx < 0) fx = x; }
                printf("  cut %zu: valid %d, first differing row %d: %d bytes from %d: %d vs %d (%s)\n", len, (int)r.valid_rows, (int)bad, nd, fx,
                       cut.p[0][(size_t)bad * w * 4 + fx], full.p[0][(size_t)bad * w * 4 + fx], r.message);
                exact = 0;
            }
            /* Rows a whole iMCU row below the valid ones are not (the data is missing there). */
            const int32_t below = r.valid_rows + (samps[si] == TJSAMP_420 ? 16 : 8) + 1;
            if (below < h) grey_after &= memcmp(cut.p[0] + (size_t)below * w * 4, full.p[0] + (size_t)below * w * 4,
                                                (size_t)(h - below) * w * 4) != 0;
            /* The default rule: fail below half the rows, decode (with the same count) above. */
            ic_status d = decode_rgba(jpg, len, 0, 0, &cut, &r);
            const int32_t need = (500 * h + 999) / 1000;
            rule &= last < need ? (d == IC_ERR_CORRUPT_DATA && strstr(r.message, "rows have image data") != NULL)
                                : (d == IC_OK && r.valid_rows == last);
            /* A rule of 1000 accepts only complete data; of 1 only non-empty. */
            d = decode_rgba(jpg, len, 1000, 0, &cut, &r);
            rule &= last < h ? d == IC_ERR_CORRUPT_DATA : d == IC_OK;
            d = decode_rgba(jpg, len, 1, 0, &cut, &r);
            rule &= last < 1 ? d == IC_ERR_CORRUPT_DATA : d == IC_OK;
        }
        CTX("valid rows samp %d", samps[si]);
        CHECK(monotone); CHECK(exact); CHECK(grey_after); CHECK(rule);
        CHECK(last > h / 2); /* the cuts reached past the middle */
        /* The same count on the YUV path, in crops and in streams. */
        ic_jpeg_decode_options o;
        ic_jpeg_decode_options_init(&o);
        o.min_valid_permille = -1;
        CHECK(decode_rgba(jpg, n / 2, -1, 0, &cut, &r) == IC_OK);
        const int32_t half = r.valid_rows;
        if (samps[si] != TJSAMP_444) {
            img y;
            img_alloc(&y, IC_FORMAT_I420, w, h);
            /* Raw planes need no chroma context row below: one row more may count. */
            CHECK(ic_jpeg_decode(jpg, n / 2, &o, &y.im, &r) == IC_OK && r.valid_rows >= half && r.valid_rows <= half + 1);
            img_free(&y);
        }
        o.crop_x = 8; o.crop_y = 32; o.crop_width = 40; o.crop_height = 100;
        img c;
        img_alloc(&c, IC_FORMAT_RGBA8, 40, 100);
        CHECK(ic_jpeg_decode(jpg, n / 2, &o, &c.im, &r) == IC_OK && r.valid_rows == half - 32);
        o.crop_y = 0;
        o.crop_height = 100;
        o.crop_y = half; /* starts where the data ends: nothing valid */
        if (half + 100 <= h) {
            CHECK(ic_jpeg_decode(jpg, n / 2, &o, &c.im, &r) == IC_OK && r.valid_rows == 0);
            o.min_valid_permille = 1;
            CHECK(ic_jpeg_decode(jpg, n / 2, &o, &c.im, &r) == IC_ERR_CORRUPT_DATA);
            o.min_valid_permille = -1;
        }
        img_free(&c);
        o.crop_x = o.crop_y = o.crop_width = o.crop_height = 0;
        o.min_valid_permille = 0;
        CHECK(ic_jpeg_decode_stream(jpg, n / 2, &o, discard_band, NULL, &r) ==
              (half * 1000 < 500 * h ? IC_ERR_CORRUPT_DATA : IC_OK));
        CHECK(r.valid_rows == half);
        int32_t sw, sh;
        CHECK(ic_jpeg_decode_size(jpg, n / 2, &o, &sw, &sh, &r) == IC_OK && r.valid_rows == 0);
        o.min_valid_permille = 1001;
        CHECK(ic_jpeg_decode(jpg, n, &o, &full.im, &r) == IC_ERR_INVALID_ARGUMENT);
        img_free(&full);
        img_free(&cut);
        tjFree(jpg);
    }
    /* Progressive: a file cut between two scans has every row (at lower quality); one cut
     * inside the first (DC) scan has the rows that scan reached. */
    unsigned long n;
    unsigned char *jpg = make_jpeg(96, 160, TJSAMP_420, TJFLAG_PROGRESSIVE, &n);
    size_t sos[32];
    int scans = 0;
    for (size_t i = 2; i + 1 < n && scans < 32; i++)
        if (jpg[i] == 0xFF && jpg[i + 1] == 0xDA) sos[scans++] = i;
    img m;
    img_alloc(&m, IC_FORMAT_RGBA8, 96, 160);
    ic_jpeg_decode_result r;
    CTX("progressive, %d scans", scans);
    CHECK(scans >= 3);
    if (scans >= 3) {
        CHECK(decode_rgba(jpg, sos[2], 0, 0, &m, &r) == IC_OK && r.valid_rows == 160 && r.warnings >= 1);
        CHECK(decode_rgba(jpg, sos[0] + 20, -1, 0, &m, &r) == IC_OK && r.valid_rows < 160);
    }
    img_free(&m);
    tjFree(jpg);
}

/* Bytes malloc'd during one decode against what the budget counted. */
static void test_memory_budget(void) {
    static const struct { int w, h, samp, flags; ic_format f; int scale, crop, stream; } cases[] = {
        {640, 480, TJSAMP_420, 0, IC_FORMAT_RGBA8, 8, 0, 0},
        {640, 480, TJSAMP_420, 0, IC_FORMAT_RGB8, 2, 1, 0},
        {640, 480, TJSAMP_444, 0, IC_FORMAT_GRAY8, 8, 0, 1},
        {640, 480, TJSAMP_420, 0, IC_FORMAT_NV12, 8, 0, 0},
        {640, 480, TJSAMP_422, 0, IC_FORMAT_I420, 4, 1, 1},
        {640, 480, TJSAMP_420, TJFLAG_PROGRESSIVE, IC_FORMAT_RGBA8, 8, 0, 0},
        {640, 480, TJSAMP_444, TJFLAG_PROGRESSIVE, IC_FORMAT_NV12, 1, 0, 1},
        {333, 1001, TJSAMP_GRAY, TJFLAG_PROGRESSIVE, IC_FORMAT_GRAY8, 8, 1, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned long n;
        unsigned char *jpg = make_jpeg(cases[k].w, cases[k].h, cases[k].samp, cases[k].flags, &n);
        ic_jpeg_decode_options o;
        ic_jpeg_decode_options_init(&o);
        o.format = cases[k].f;
        o.scale_num = cases[k].scale;
        int32_t w, h;
        CTX("budget case %zu", k);
        if (!CHECK(ic_jpeg_decode_size(jpg, n, &o, &w, &h, NULL) == IC_OK)) continue;
        if (cases[k].crop) { o.crop_x = w / 4 * 2; o.crop_y = h / 4 * 2; o.crop_width = w / 3; o.crop_height = h / 3; w /= 3; h /= 3; }
        img m;
        img_alloc(&m, cases[k].f, w, h);
        ic_jpeg_decode_result r;
        g_largest = g_total = 0;
        g_counting = 1;
        ic_status st = cases[k].stream ? ic_jpeg_decode_stream(jpg, n, &o, discard_band, NULL, &r)
                                       : ic_jpeg_decode(jpg, n, &o, &m.im, &r);
        g_counting = 0;
        CHECK(st == IC_OK && r.peak_memory > 0);
#ifndef IC_NO_ALLOC_ACCOUNTING
        /* What the budget does not see: creation (~2 KB) and small-pool slack (< 32 KB). */
        printf("budget case %zu: counted %llu B, malloc'd %zu B\n", k, (unsigned long long)r.peak_memory, g_total);
        CHECK(g_total <= r.peak_memory + 34 * 1024);
#endif
        /* The budget: exactly the peak passes, one byte less fails before that allocation. */
        const uint64_t peak = r.peak_memory;
        o.max_memory = peak;
        st = cases[k].stream ? ic_jpeg_decode_stream(jpg, n, &o, discard_band, NULL, &r)
                             : ic_jpeg_decode(jpg, n, &o, &m.im, &r);
        CHECK(st == IC_OK && r.peak_memory == peak);
        o.max_memory = peak - 1;
        st = cases[k].stream ? ic_jpeg_decode_stream(jpg, n, &o, discard_band, NULL, &r)
                             : ic_jpeg_decode(jpg, n, &o, &m.im, &r);
        CHECK(st == IC_ERR_TOO_LARGE && strstr(r.message, "memory budget") != NULL && r.peak_memory < peak);
        img_free(&m);
        tjFree(jpg);
    }
    /* A progressive header claiming 20000 x 20000 (1.2 GB of coefficients) with a 10 MB budget:
     * refused before the coefficient buffer, with nothing large allocated. */
    unsigned long n;
    unsigned char *jpg = make_jpeg(16, 16, TJSAMP_444, TJFLAG_PROGRESSIVE, &n);
    for (unsigned long i = 2; i + 9 < n;) {
        if (jpg[i + 1] == 0xC2) {
            jpg[i + 5] = jpg[i + 7] = 20000 >> 8;
            jpg[i + 6] = jpg[i + 8] = 20000 & 255;
            break;
        }
        i += 2 + ((size_t)jpg[i + 2] << 8 | jpg[i + 3]);
    }
    ic_jpeg_decode_options o;
    ic_jpeg_decode_options_init(&o);
    o.max_pixels = 500000000;
    o.max_memory = 10 << 20;
    ic_jpeg_decode_result r;
    CTX("budget: progressive bomb");
    g_largest = g_total = 0;
    g_counting = 1;
    ic_status st = ic_jpeg_decode_stream(jpg, n, &o, discard_band, NULL, &r);
    g_counting = 0;
    CHECK(st == IC_ERR_TOO_LARGE && strstr(r.message, "memory budget") != NULL);
#ifndef IC_NO_ALLOC_ACCOUNTING
    CHECK(g_total <= o.max_memory + 34 * 1024);
#endif
    tjFree(jpg);
}

/* The reduced progressive decoder (1/8, 1/4): TurboJPEG's pixels, and memory that does not
 * grow with the image's height (the coefficients of one iMCU row at a time): the same bytes
 * counted and malloc'd for W x H and W x 4H, far below libjpeg's whole-image buffer. */
static void test_lowfreq_memory(void) {
    static const int samps[] = {TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_GRAY};
    const int w = 1024;
    tjhandle t = tjInitDecompress();
    for (int si = 0; si < 4; si++) {
        for (int scale = 1; scale <= 2; scale++) {
            uint64_t peak[2] = {0, 0};
            size_t total[2] = {0, 0};
            for (int k = 0; k < 2; k++) {
                const int h = k ? 1536 : 384;
                unsigned long n;
                unsigned char *jpg = make_jpeg(w, h, samps[si], TJFLAG_PROGRESSIVE, &n);
                CTX("lowfreq samp %d scale %d/8 height %d", samps[si], scale, h);
                ic_jpeg_decode_options o;
                ic_jpeg_decode_options_init(&o);
                o.scale_num = scale;
                o.format = IC_FORMAT_RGBA8;
                const int ow = (w * scale + 7) / 8, oh = (h * scale + 7) / 8;
                img m;
                img_alloc(&m, IC_FORMAT_RGBA8, ow, oh);
                ic_jpeg_decode_result r;
                g_largest = g_total = 0;
                g_counting = 1;
                ic_status st = ic_jpeg_decode(jpg, n, &o, &m.im, &r);
                g_counting = 0;
                CHECK(st == IC_OK && r.decoder == IC_JPEG_DECODER_LOWFREQ && r.valid_rows == oh);
                unsigned char *ref = (unsigned char *)malloc((size_t)ow * oh * 4);
                CHECK(tjDecompress2(t, jpg, n, ref, ow, 0, oh, TJPF_RGBA, 0) == 0);
                CHECK(memcmp(ref, m.p[0], (size_t)ow * oh * 4) == 0);
                peak[k] = r.peak_memory;
                total[k] = g_total;
                /* libjpeg alone: a coefficient buffer of 2 bytes per sample. */
                o.flags = IC_JPEG_LIBJPEG_ONLY;
                ic_jpeg_decode_result lj;
                CHECK(ic_jpeg_decode(jpg, n, &o, &m.im, &lj) == IC_OK && lj.decoder == IC_JPEG_DECODER_LIBJPEG);
                CHECK(memcmp(ref, m.p[0], (size_t)ow * oh * 4) == 0);
                CHECK(r.peak_memory * 4 < lj.peak_memory);
                if (k) printf("lowfreq samp %d %d/8 %dx%d: %llu B counted (libjpeg alone %llu B)\n", samps[si], scale, w, h,
                              (unsigned long long)r.peak_memory, (unsigned long long)lj.peak_memory);
                free(ref);
                img_free(&m);
                tjFree(jpg);
            }
            CTX("lowfreq samp %d scale %d/8: height-independent", samps[si], scale);
            CHECK(peak[0] == peak[1]);
#ifndef IC_NO_ALLOC_ACCOUNTING
            CHECK(total[0] == total[1]);
#endif
        }
    }
    tjDestroy(t);
}

int main(void) {
    install_hooks();
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_decode_vs_turbojpeg();
    test_encode();
    test_hostile();
    test_bomb();
    test_valid_rows();
    test_memory_budget();
    test_lowfreq_memory();
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
