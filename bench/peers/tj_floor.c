/* The C floor of a whole-process 256 px thumbnail: read the file, decode it at 1/8 with
 * tjDecompress2 (RGBA), exit. What any thumbnailer built on libjpeg-turbo must at least do.
 *   tj_floor FILE.jpg */
#include <stdio.h>
#include <stdlib.h>
#include <turbojpeg.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE.jpg\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *jpeg = malloc((size_t)n);
    if (!jpeg || fread(jpeg, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "read failed\n"); return 1; }
    fclose(f);
    tjhandle d = tjInitDecompress();
    int w, h, ss, cs;
    if (tjDecompressHeader3(d, jpeg, (unsigned long)n, &w, &h, &ss, &cs)) { fprintf(stderr, "%s\n", tjGetErrorStr2(d)); return 1; }
    int sw = (w + 7) / 8, sh = (h + 7) / 8;
    unsigned char *out = malloc((size_t)sw * sh * 4);
    if (!out || tjDecompress2(d, jpeg, (unsigned long)n, out, sw, 0, sh, TJPF_RGBA, 0)) { fprintf(stderr, "%s\n", tjGetErrorStr2(d)); return 1; }
    printf("%dx%d\n", sw, sh);
    free(out);
    free(jpeg);
    tjDestroy(d);
    return 0;
}
