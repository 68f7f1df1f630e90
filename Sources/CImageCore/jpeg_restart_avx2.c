/* Marker search, AVX2: 32 bytes compared with their successors at once. The mask is almost
 * always empty (an 0xFF in the data is followed by a stuffed 0x00), so the loop runs at
 * load speed and a 3 MB scan costs about a tenth of a millisecond. */
#include "jpeg_restart.h"

#if IC_X86
#include <immintrin.h>

IC_TARGET_AVX2 size_t ic_jpeg_find_marker_avx2(const uint8_t *data, size_t pos, size_t end) {
    const __m256i ff = _mm256_set1_epi8((char)0xFF);
    const __m256i zero = _mm256_setzero_si256();
    size_t i = pos;
    /* Each step reads data[i .. i + 32], so it needs i + 33 <= end. */
    for (; i + 33 <= end; i += 32) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(data + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(data + i + 1));
        const __m256i is_ff = _mm256_cmpeq_epi8(a, ff);
        const __m256i next_plain = _mm256_or_si256(_mm256_cmpeq_epi8(b, zero), _mm256_cmpeq_epi8(b, ff));
        const uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_andnot_si256(next_plain, is_ff));
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return ic_jpeg_find_marker_c(data, i, end);
}
#endif
