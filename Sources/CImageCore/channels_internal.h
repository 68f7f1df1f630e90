/* Private to the channels family: its row kernels. Not installed. */
#ifndef IMAGECORE_CHANNELS_INTERNAL_H
#define IMAGECORE_CHANNELS_INTERNAL_H

#include "internal.h"

/* n pixels from `sc` to `dc` channels (1, 3 or 4): gray replicated, alpha dropped or set to
 * 255; to one channel, the row layer's luma (row.h). */
typedef void (*ic_channels_row_fn)(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n);
IC_INTERNAL void ic_channels_row_c(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n);
#if IC_X86
/* AVX2: every pair but the luma ones (which the driver sends to the row layer). */
IC_INTERNAL void ic_channels_row_avx2(const uint8_t *s, int sc, uint8_t *d, int dc, int32_t n);
#endif

#endif
