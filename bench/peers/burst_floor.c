/* The C floor of ranking a burst by sharpness: read each file and decode its luma at M/8 with
 * tjDecompress2 (TJPF_GRAY), one after the other on one thread; nothing else. What any burst
 * ranker built on libjpeg-turbo must at least do.
 *   burst_floor M FILE.jpg...          one pass (a whole process)
 *   burst_floor -reps N M FILE.jpg...  N timed passes, one JSON line with the median (in process) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "timing.h"

static int pass(tjhandle d, int m, int count, char **paths) {
    for (int i = 0; i < count; i++) {
        FILE *f = fopen(paths[i], "rb");
        if (!f) { perror(paths[i]); return 1; }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *jpeg = malloc((size_t)n);
        if (!jpeg || fread(jpeg, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "read failed\n"); return 1; }
        fclose(f);
        int w, h, ss, cs;
        if (tjDecompressHeader3(d, jpeg, (unsigned long)n, &w, &h, &ss, &cs)) { fprintf(stderr, "%s\n", tjGetErrorStr2(d)); return 1; }
        const int sw = (w * m + 7) / 8, sh = (h * m + 7) / 8;
        unsigned char *luma = malloc((size_t)sw * sh);
        if (!luma || tjDecompress2(d, jpeg, (unsigned long)n, luma, sw, 0, sh, TJPF_GRAY, 0)) {
            fprintf(stderr, "%s\n", tjGetErrorStr2(d));
            return 1;
        }
        free(luma);
        free(jpeg);
    }
    return 0;
}

int main(int argc, char **argv) {
    int reps = 0, a = 1;
    if (argc > 2 && strcmp(argv[1], "-reps") == 0) { reps = atoi(argv[2]); a = 3; }
    if (argc - a < 2) { fprintf(stderr, "usage: %s [-reps N] M FILE.jpg...\n", argv[0]); return 2; }
    const int m = atoi(argv[a]);
    tjhandle d = tjInitDecompress();
    int rc = 0;
    if (reps > 0) {
        char name[64];
        snprintf(name, sizeof name, "burst_gray_%d_8", m);
        TIME(name, reps, rc |= pass(d, m, argc - a - 1, argv + a + 1));
    } else {
        rc = pass(d, m, argc - a - 1, argv + a + 1);
    }
    tjDestroy(d);
    return rc;
}
