/* Bare libjpeg-turbo (TurboJPEG 2.1 tj* API) on one JPEG file: the floor every ImageCore
 * codec path is compared with. Prints one JSON line per measurement.
 *   tj_bare FILE.jpg REPS */
#include <stdio.h>
#include <stdlib.h>
#include <turbojpeg.h>

#include "timing.h"

static unsigned char *read_file(const char *path, unsigned long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *size = (unsigned long)n;
    return p;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s FILE.jpg REPS\n", argv[0]); return 2; }
    int reps = atoi(argv[2]);
    unsigned long size;
    unsigned char *jpeg = read_file(argv[1], &size);
    if (!jpeg) { perror(argv[1]); return 1; }
    tjhandle d = tjInitDecompress(), c = tjInitCompress();
    int w, h, ss, cs;
    if (tjDecompressHeader3(d, jpeg, size, &w, &h, &ss, &cs)) { fprintf(stderr, "%s\n", tjGetErrorStr2(d)); return 1; }
    unsigned char *rgba = malloc((size_t)w * h * 4);
    unsigned char *yuv = malloc(tjBufSizeYUV2(w, 1, h, ss)); /* native subsampling */
    int rc = 0;
    TIME("decode_rgba", reps, rc |= tjDecompress2(d, jpeg, size, rgba, w, 0, h, TJPF_RGBA, 0));
    TIME("decode_yuv", reps, rc |= tjDecompressToYUV2(d, jpeg, size, yuv, w, 1, h, 0));
    /* The DCT scale a 256 px thumbnail needs: the smallest M/8 whose long side is >= 256. */
    int m = 1;
    while (m < 8 && ((w > h ? w : h) * m + 7) / 8 < 256) m++;
    int sw = (w * m + 7) / 8, sh = (h * m + 7) / 8;
    char name[64];
    snprintf(name, sizeof name, "decode_rgba_scale_%d_8", m);
    unsigned char *small = malloc((size_t)sw * sh * 4);
    TIME(name, reps, rc |= tjDecompress2(d, jpeg, size, small, sw, 0, sh, TJPF_RGBA, 0));
    free(small);
    unsigned char *out = NULL;
    unsigned long out_size = 0;
    TIME("encode_rgba_q85_420", reps,
         (rc |= tjCompress2(c, rgba, w, 0, h, TJPF_RGBA, &out, &out_size, TJSAMP_420, 85, 0)));
    printf("{\"name\": \"info\", \"width\": %d, \"height\": %d, \"thumb_scale_num\": %d}\n", w, h, m);
    tjFree(out);
    free(rgba);
    free(yuv);
    free(jpeg);
    tjDestroy(d);
    tjDestroy(c);
    if (rc) { fprintf(stderr, "turbojpeg error\n"); return 1; }
    return 0;
}
