/* Writes the fuzzer's seed corpus: small JPEGs of every kind the decoder handles, made with
 * TurboJPEG and libjpeg at run time (nothing is checked in): each subsampling, gray,
 * progressive, restart markers, arithmetic coding, CMYK and YCCK (Adobe), odd sizes, and
 * files carrying EXIF (both byte orders) and ICC segments.   usage: seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <turbojpeg.h>

static int count;

static void save(const char *dir, const unsigned char *buf, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%03d.jpg", dir, count++);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n) { perror(path); exit(1); }
    fclose(f);
}

static unsigned char *pixels(int w, int h, int channels) {
    unsigned char *p = malloc((size_t)w * h * channels);
    unsigned s = 12345;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * channels; x++) {
            s = s * 1103515245u + 12345u;
            p[(size_t)y * w * channels + x] = (unsigned char)(x * 3 + y * 5 + ((s >> 16) & 31));
        }
    return p;
}

static void tj(const char *dir, int w, int h, int samp, int flags) {
    int gray = samp == TJSAMP_GRAY;
    unsigned char *px = pixels(w, h, gray ? 1 : 3), *out = NULL;
    unsigned long n = 0;
    tjhandle t = tjInitCompress();
    if (tjCompress2(t, px, w, 0, h, gray ? TJPF_GRAY : TJPF_RGB, &out, &n, samp, 75, flags) == 0) save(dir, out, n);
    tjFree(out);
    tjDestroy(t);
    free(px);
}

/* libjpeg directly: colour space, restart interval, arithmetic coding, an extra segment. */
static void lj(const char *dir, int w, int h, J_COLOR_SPACE in, int comps, J_COLOR_SPACE space, int restart,
               int arith, int progressive, int marker, const unsigned char *seg, unsigned seglen) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *out = NULL, *px = pixels(w, h, comps);
    unsigned long n = 0;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &n);
    c.image_width = w;
    c.image_height = h;
    c.input_components = comps;
    c.in_color_space = in;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, space);
    jpeg_set_quality(&c, 70, TRUE);
    c.restart_interval = restart;
    c.arith_code = arith;
    if (progressive) jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    if (seg) jpeg_write_marker(&c, marker, seg, seglen);
    for (int y = 0; y < h; y++) {
        JSAMPROW row = px + (size_t)y * w * comps;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    save(dir, out, n);
    free(out);
    free(px);
}

/* Progressive files with a scan script of our own (as cjpeg -scans), for the reduced
 * progressive decoder: bands, successive approximation, DC scans apart, restart markers. */
static void script(const char *dir, int w, int h, int h0, int v0, int restart, const jpeg_scan_info *scans, int n) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *out = NULL, *px = pixels(w, h, 3);
    unsigned long size = 0;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &size);
    c.image_width = w;
    c.image_height = h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 75, TRUE);
    c.comp_info[0].h_samp_factor = h0;
    c.comp_info[0].v_samp_factor = v0;
    c.restart_interval = restart;
    c.scan_info = scans;
    c.num_scans = n;
    jpeg_start_compress(&c, TRUE);
    for (int y = 0; y < h; y++) {
        JSAMPROW row = px + (size_t)y * w * 3;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    save(dir, out, size);
    free(out);
    free(px);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *d = argv[1];
    const int samps[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY, TJSAMP_440, TJSAMP_411};
    for (int i = 0; i < 6; i++) {
        tj(d, 17, 9, samps[i], 0);
        tj(d, 33, 20, samps[i], TJFLAG_PROGRESSIVE);
    }
    tj(d, 1, 1, TJSAMP_420, 0);
    tj(d, 64, 48, TJSAMP_420, 0);
    /* EXIF orientation 6 in both byte orders, and an ICC chunk. */
    static const unsigned char exif_mm[] = {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1,
                                            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0};
    static const unsigned char exif_ii[] = {'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
                                            0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char icc[] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0, 1, 1, 0, 0, 0, 0};
    lj(d, 24, 16, JCS_RGB, 3, JCS_YCbCr, 0, 0, 0, JPEG_APP0 + 1, exif_mm, sizeof exif_mm);
    lj(d, 24, 16, JCS_RGB, 3, JCS_YCbCr, 0, 0, 0, JPEG_APP0 + 1, exif_ii, sizeof exif_ii);
    lj(d, 24, 16, JCS_RGB, 3, JCS_YCbCr, 0, 0, 0, JPEG_APP0 + 2, icc, sizeof icc);
    lj(d, 40, 24, JCS_RGB, 3, JCS_YCbCr, 2, 0, 0, 0, NULL, 0);
    lj(d, 40, 24, JCS_RGB, 3, JCS_YCbCr, 0, 1, 0, 0, NULL, 0);
    lj(d, 40, 24, JCS_RGB, 3, JCS_YCbCr, 1, 1, 1, 0, NULL, 0);
    lj(d, 21, 13, JCS_RGB, 3, JCS_RGB, 0, 0, 0, 0, NULL, 0);
    lj(d, 21, 13, JCS_CMYK, 4, JCS_CMYK, 0, 0, 0, 0, NULL, 0);
    lj(d, 21, 13, JCS_CMYK, 4, JCS_YCCK, 0, 0, 1, 0, NULL, 0);
    /* A camera-style APP1: IFD0 (orientation 6) linked to IFD1 with a 16x12 JPEG thumbnail. */
    {
        unsigned char *tj_out = NULL, *px = pixels(16, 12, 3);
        unsigned long tn = 0;
        tjhandle t = tjInitCompress();
        if (tjCompress2(t, px, 16, 0, 12, TJPF_RGB, &tj_out, &tn, TJSAMP_420, 70, 0) == 0 && tn < 60000) {
            static const unsigned char head[] = {
                'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, /* TIFF, IFD0 at 8 */
                1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 26, 0, 0, 0, /* orientation 6; IFD1 at 26 */
                2, 0, 0x01, 0x02, 4, 0, 1, 0, 0, 0, 56, 0, 0, 0,          /* JPEGInterchangeFormat = 56 */
                0x02, 0x02, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};   /* ...Length (patched), next 0 */
            unsigned char *seg = malloc(sizeof head + tn);
            memcpy(seg, head, sizeof head);
            seg[6 + 48] = (unsigned char)(tn & 255);
            seg[6 + 49] = (unsigned char)(tn >> 8);
            memcpy(seg + sizeof head, tj_out, tn);
            lj(d, 64, 48, JCS_RGB, 3, JCS_YCbCr, 0, 0, 0, JPEG_APP0 + 1, seg, (unsigned)(sizeof head + tn));
            lj(d, 64, 48, JCS_RGB, 3, JCS_YCbCr, 0, 0, 1, JPEG_APP0 + 1, seg, (unsigned)(sizeof head + tn));
            free(seg);
        }
        tjFree(tj_out);
        tjDestroy(t);
        free(px);
    }
    static const jpeg_scan_info approx[] = {
        {3, {0, 1, 2}, 0, 0, 0, 2}, {1, {0}, 1, 5, 0, 1}, {1, {1}, 1, 63, 0, 1}, {1, {2}, 1, 63, 0, 1},
        {1, {0}, 6, 63, 0, 1},     {3, {0, 1, 2}, 0, 0, 2, 1}, {3, {0, 1, 2}, 0, 0, 1, 0}, {1, {0}, 1, 63, 1, 0},
        {1, {1}, 1, 63, 1, 0},     {1, {2}, 1, 63, 1, 0}};
    static const jpeg_scan_info apart[] = {{1, {0}, 0, 0, 0, 0}, {1, {0}, 1, 63, 0, 0}, {1, {1}, 0, 0, 0, 0},
                                           {1, {2}, 0, 0, 0, 0}, {1, {1}, 1, 63, 0, 0}, {1, {2}, 1, 63, 0, 0}};
    script(d, 37, 29, 2, 2, 0, approx, 10);
    script(d, 37, 29, 2, 1, 3, approx, 10);
    script(d, 45, 20, 1, 1, 2, apart, 6);
    script(d, 45, 20, 2, 2, 1, apart, 6);
    printf("%d seeds in %s\n", count, d);
    return 0;
}
