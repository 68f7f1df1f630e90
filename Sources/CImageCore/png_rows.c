/* PNG row kernels: 16-bit samples rounded to 8 bits (libspng's own RGBA8 output truncates
 * them, v >> 8, which is up to 1 LSB low), with the channel layout of the destination. */
#include "png_internal.h"
#include "row.h"

static inline uint8_t round16(uint32_t v) { return (uint8_t)((v + 128u) / 257u); }

void ic_png_round16_row_c(const uint16_t *s, uint8_t *d, int dc, int32_t n) {
    if (dc == 4) {
        for (int32_t i = 0; i < 4 * n; i++) d[i] = round16(s[i]);
    } else if (dc == 3) {
        for (int32_t x = 0; x < n; x++, s += 4, d += 3) {
            d[0] = round16(s[0]);
            d[1] = round16(s[1]);
            d[2] = round16(s[2]);
        }
    } else {
        for (int32_t x = 0; x < n; x++, s += 4) {
            d[x] = ic__luma(round16(s[0]), round16(s[1]), round16(s[2]));
        }
    }
}
