/* Writes the PNG harness's seed corpus with the codec itself (nothing is checked in): gray,
 * RGB and RGBA images of a few odd sizes, with and without an orientation chunk, at two
 * compression levels.   usage: png_seeds DIR */
#include <imagecore.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    static const ic_format formats[] = {IC_FORMAT_GRAY8, IC_FORMAT_RGB8, IC_FORMAT_RGBA8};
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}};
    int count = 0;
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 3; s++)
            for (int v = 0; v < 2; v++) {
                const int w = sizes[s][0], h = sizes[s][1], ch = f == 0 ? 1 : f == 1 ? 3 : 4;
                uint8_t *px = (uint8_t *)malloc((size_t)w * h * ch);
                for (int i = 0; i < w * h * ch; i++) px[i] = (uint8_t)(i * 37 + v * 101);
                ic_image im = {formats[f], IC_ALPHA_STRAIGHT, w, h, {{px, (size_t)w * ch}}};
                ic_png_encode_options o = {0};
                o.compression_level = v ? 9 : -1;
                o.orientation = v ? 6 : 0;
                uint8_t *out = NULL;
                size_t n = 0;
                if (ic_png_encode_alloc(&im, &o, &out, &n) != IC_OK) return 1;
                char path[4096];
                snprintf(path, sizeof path, "%s/seed-%03d.png", argv[1], count++);
                FILE *fp = fopen(path, "wb");
                if (!fp || fwrite(out, 1, n, fp) != n) return 1;
                fclose(fp);
                free(out);
                free(px);
            }
    return 0;
}
