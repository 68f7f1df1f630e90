/* Writes the ICC harness's seed corpus (nothing is checked in): profiles made by Little CMS of
 * every kind the conversion meets (matrix/TRC with parametric and tabulated curves, v2 and
 * v4, a LUT-based RGB profile with a CLUT, and the non-RGB gray and Lab profiles it refuses),
 * and JPEGs carrying a profile in APP2 chunks (one chunk from the encoder; three chunks out of
 * order, spliced by hand).   usage: icc_seeds DIR */
#include <imagecore.h>
#include <lcms2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count;

static void save(const char *dir, const char *ext, const uint8_t *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%03d.%s", dir, count++, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(path); exit(1); }
    fclose(f);
}

/* The profile's bytes (malloc'd), or exits. */
static uint8_t *bytes_of(cmsHPROFILE p, size_t *n) {
    cmsUInt32Number size = 0;
    if (!p || !cmsSaveProfileToMem(p, NULL, &size)) exit(1);
    uint8_t *b = malloc(size);
    if (!cmsSaveProfileToMem(p, b, &size)) exit(1);
    cmsCloseProfile(p);
    *n = size;
    return b;
}

static cmsHPROFILE matrix_rgb(double rx, double ry, double gx, double gy, double bx, double by, cmsToneCurve *c) {
    cmsCIExyY white = {0.3127, 0.3290, 1};
    cmsCIExyYTRIPLE prim = {{rx, ry, 1}, {gx, gy, 1}, {bx, by, 1}};
    cmsToneCurve *curves[3] = {c, c, c};
    cmsHPROFILE p = cmsCreateRGBProfile(&white, &prim, curves);
    cmsFreeToneCurve(c);
    return p;
}

/* An RGB -> Lab profile whose AToB0 is A curves, a 5-point CLUT and B curves (lutAtoBType, v4). */
static cmsHPROFILE lut_rgb(void) {
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(p, 4.3);
    cmsSetDeviceClass(p, cmsSigInputClass);
    cmsSetColorSpace(p, cmsSigRgbData);
    cmsSetPCS(p, cmsSigLabData);
    cmsPipeline *lut = cmsPipelineAlloc(NULL, 3, 3);
    enum { GRID = 5 };
    cmsUInt16Number table[GRID * GRID * GRID * 3];
    int i = 0;
    for (int r = 0; r < GRID; r++)
        for (int g = 0; g < GRID; g++)
            for (int b = 0; b < GRID; b++) { /* a made-up but smooth RGB -> Lab mapping */
                table[i++] = (cmsUInt16Number)((r * 3 + g * 6 + b) * 65535 / (10 * (GRID - 1)));
                table[i++] = (cmsUInt16Number)(32768 + (r - g) * 4000);
                table[i++] = (cmsUInt16Number)(32768 + (g - b) * 4000);
            }
    cmsToneCurve *gamma = cmsBuildGamma(NULL, 2.2);
    cmsToneCurve *in[3] = {gamma, gamma, gamma};
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, in));
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocCLut16bit(NULL, GRID, 3, 3, table));
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL)); /* B curves (identity) */
    cmsFreeToneCurve(gamma);
    cmsWriteTag(p, cmsSigAToB0Tag, lut);
    cmsCIEXYZ d50 = {0.9642, 1.0, 0.8249};
    cmsWriteTag(p, cmsSigMediaWhitePointTag, &d50);
    cmsPipelineFree(lut);
    return p;
}

/* A small JPEG (8 x 8 RGB) with `icc` split into `chunks` APP2 segments written in the order
 * 2, 1, 3, ... (the reader takes any order). */
static void jpeg_with_chunks(const char *dir, const uint8_t *icc, size_t n, int chunks) {
    uint8_t px[8 * 8 * 3];
    for (int i = 0; i < (int)sizeof px; i++) px[i] = (uint8_t)(i * 7);
    ic_image im = {IC_FORMAT_RGB8, IC_ALPHA_STRAIGHT, 8, 8, {{px, 24}}};
    ic_jpeg_encode_options o;
    ic_jpeg_encode_options_init(&o);
    if (chunks == 1) { o.icc_profile = icc; o.icc_size = n; }
    uint8_t *jpg = NULL;
    size_t m = 0;
    if (ic_jpeg_encode_alloc(&im, &o, &jpg, &m) != IC_OK) exit(1);
    if (chunks == 1) { save(dir, "jpg", jpg, m); ic_jpeg_free(jpg); return; }
    uint8_t *out = malloc(m + n + 18 * (size_t)chunks);
    size_t k = 0;
    out[k++] = 0xFF; out[k++] = 0xD8;
    const size_t per = (n + chunks - 1) / chunks;
    for (int c = 0; c < chunks; c++) {
        const int number = c == 0 ? 2 : c == 1 ? 1 : c + 1;
        const size_t at = (size_t)(number - 1) * per, len = at + per > n ? n - at : per, seg = len + 16;
        out[k++] = 0xFF; out[k++] = 0xE2; out[k++] = (uint8_t)(seg >> 8); out[k++] = (uint8_t)seg;
        memcpy(out + k, "ICC_PROFILE", 12); k += 12;
        out[k++] = (uint8_t)number; out[k++] = (uint8_t)chunks;
        memcpy(out + k, icc + at, len); k += len;
    }
    memcpy(out + k, jpg + 2, m - 2);
    save(dir, "jpg", out, k + m - 2);
    free(out);
    ic_jpeg_free(jpg);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    const double srgb_params[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsUInt16Number table[256];
    for (int i = 0; i < 256; i++) table[i] = (cmsUInt16Number)(65535.0 * (i / 255.0) * (i / 255.0));
    cmsCIExyY d65 = {0.3127, 0.3290, 1};
    cmsHPROFILE v2 = cmsCreate_sRGBProfile();
    cmsSetProfileVersion(v2, 2.1);
    cmsHPROFILE made[] = {
        cmsCreate_sRGBProfile(),
        v2,
        matrix_rgb(0.680, 0.320, 0.265, 0.690, 0.150, 0.060, cmsBuildParametricToneCurve(NULL, 4, srgb_params)), /* Display P3 */
        matrix_rgb(0.640, 0.330, 0.210, 0.710, 0.150, 0.060, cmsBuildTabulatedToneCurve16(NULL, 256, table)),   /* Adobe RGB, a table */
        matrix_rgb(0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001, cmsBuildGamma(NULL, 1.8)),                  /* ProPhoto-like */
        lut_rgb(),
        cmsCreateGrayProfile(&d65, cmsBuildGamma(NULL, 2.2)), /* refused: not RGB */
        cmsCreateLab4Profile(NULL),
    };
    uint8_t *p3 = NULL;
    size_t p3_size = 0;
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        size_t n = 0;
        uint8_t *b = bytes_of(made[i], &n);
        save(dir, "icc", b, n);
        if (i == 2) { p3 = b; p3_size = n; } else free(b);
    }
    jpeg_with_chunks(dir, p3, p3_size, 1);
    jpeg_with_chunks(dir, p3, p3_size, 3);
    free(p3);
    return 0;
}
