/* libyuv on the same pixels as ImageCore: RGBA <-> NV12/I420 and 90-degree rotations,
 * one thread. Times each call and writes its output for the Python side to check against
 * the float64 reference.
 *   yuv_libyuv W H REPS DIR
 * reads  DIR/input.rgba (W*H*4), DIR/input_{i420,nv12}_{full,video}.yuv
 * writes DIR/libyuv_<op>.{yuv,rgba} and one JSON line per timed call. */
#include <libyuv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

static uint8_t *load(const char *dir, const char *name, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    uint8_t *p = malloc(n);
    if (fread(p, 1, n, f) != n) { fprintf(stderr, "%s: short\n", path); exit(1); }
    fclose(f);
    return p;
}

static void save(const char *dir, const char *name, const uint8_t *p, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(path); exit(1); }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s W H REPS DIR\n", argv[0]); return 2; }
    int w = atoi(argv[1]), h = atoi(argv[2]), reps = atoi(argv[3]);
    const char *dir = argv[4];
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    size_t ysize = (size_t)w * h, csize = (size_t)cw * ch, yuv = ysize + 2 * csize, rgba_n = ysize * 4;
    uint8_t *rgba = load(dir, "input.rgba", rgba_n);
    uint8_t *out = malloc(yuv > rgba_n ? yuv : rgba_n);
    uint8_t *rgba_out = malloc(rgba_n);
    int rc = 0;

    /* RGBA bytes in memory are libyuv's "ABGR". J420 = full-range BT.601 (JPEG). */
    TIME("rgba_to_i420_full", reps,
         rc |= ABGRToJ420(rgba, w * 4, out, w, out + ysize, cw, out + ysize + csize, cw, w, h));
    save(dir, "libyuv_rgba_to_i420_full.yuv", out, yuv);
    TIME("rgba_to_i420_video", reps,
         rc |= ABGRToI420(rgba, w * 4, out, w, out + ysize, cw, out + ysize + csize, cw, w, h));
    save(dir, "libyuv_rgba_to_i420_video.yuv", out, yuv);
    /* libyuv has no full-range RGBA -> NV12; its NV12 output is video range. */
    TIME("rgba_to_nv12_video", reps, rc |= ABGRToNV12(rgba, w * 4, out, w, out + ysize, cw * 2, w, h));
    save(dir, "libyuv_rgba_to_nv12_video.yuv", out, yuv);

    uint8_t *i420f = load(dir, "input_i420_full.yuv", yuv), *nv12f = load(dir, "input_nv12_full.yuv", yuv);
    uint8_t *i420v = load(dir, "input_i420_video.yuv", yuv), *nv12v = load(dir, "input_nv12_video.yuv", yuv);
    TIME("i420_full_to_rgba", reps,
         rc |= J420ToABGR(i420f, w, i420f + ysize, cw, i420f + ysize + csize, cw, rgba_out, w * 4, w, h));
    save(dir, "libyuv_i420_full_to_rgba.rgba", rgba_out, rgba_n);
    TIME("i420_video_to_rgba", reps,
         rc |= I420ToABGR(i420v, w, i420v + ysize, cw, i420v + ysize + csize, cw, rgba_out, w * 4, w, h));
    save(dir, "libyuv_i420_video_to_rgba.rgba", rgba_out, rgba_n);
    /* NV12 -> ABGR with a matrix: NV21ToARGBMatrix with the VU-swapped constants. */
    TIME("nv12_full_to_rgba", reps,
         rc |= NV21ToARGBMatrix(nv12f, w, nv12f + ysize, cw * 2, rgba_out, w * 4, &kYvuJPEGConstants, w, h));
    save(dir, "libyuv_nv12_full_to_rgba.rgba", rgba_out, rgba_n);
    TIME("nv12_video_to_rgba", reps, rc |= NV12ToABGR(nv12v, w, nv12v + ysize, cw * 2, rgba_out, w * 4, w, h));
    save(dir, "libyuv_nv12_video_to_rgba.rgba", rgba_out, rgba_n);

    TIME("rotate90_rgba", reps, rc |= ARGBRotate(rgba, w * 4, rgba_out, h * 4, w, h, kRotate90));
    int rcw = (h + 1) / 2;
    TIME("rotate90_nv12_to_i420", reps,
         rc |= NV12ToI420Rotate(nv12f, w, nv12f + ysize, cw * 2, out, h, out + ysize, rcw,
                                out + ysize + csize, rcw, w, h, kRotate90));
    if (rc) { fprintf(stderr, "libyuv returned an error\n"); return 1; }
    return 0;
}
