/* Scalar reference row kernel of the channel conversions (channels_internal.h). */
#include "channels_internal.h"
#include "row.h"

#include <string.h>

/* Scalar reference: n pixels from `sc` to `dc` channels. */
void ic_channels_row_c(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n) {
    if (sc == dc) { memcpy(d, s, (size_t)n * (size_t)sc); return; }
    if (dc == 1) { ic_row_luma_c(s, sc, d, (size_t)n); return; }
    for (int32_t x = 0; x < n; x++, s += sc, d += dc) {
        if (sc == 1) { d[0] = d[1] = d[2] = s[0]; }
        else { d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; }
        if (dc == 4) d[3] = 255;
    }
}

