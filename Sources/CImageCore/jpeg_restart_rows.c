/* Marker search in entropy-coded JPEG data: the scalar reference. The AVX2 version is in
 * jpeg_restart_avx2.c; ic__jpeg_pick_find_marker chooses once per call. */
#include "jpeg_restart.h"

size_t ic_jpeg_find_marker_c(const uint8_t *data, size_t pos, size_t end) {
    /* In entropy-coded data an 0xFF byte is followed by 0x00 (a stuffed data byte), by 0xFF
     * (a fill byte before a marker) or by a marker code. */
    for (size_t i = pos; i + 1 < end; i++) {
        if (data[i] == 0xFF && data[i + 1] != 0x00 && data[i + 1] != 0xFF) return i;
    }
    return end;
}

ic_find_marker_fn ic__jpeg_pick_find_marker(uint32_t cpu) {
#if IC_X86
    if (cpu & IC_CPU_AVX2) return ic_jpeg_find_marker_avx2;
#else
    (void)cpu;
#endif
    return ic_jpeg_find_marker_c;
}
