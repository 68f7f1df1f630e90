/* The row layer's dispatch: one kernel per call, chosen from the feature mask the caller
 * read once (ic_cpu_features()). */
#include "row.h"

ic_row_merge_uv_fn ic__row_pick_merge_uv(uint32_t features) {
#if IC_X86
    if (features & IC_CPU_AVX2) return ic_row_merge_uv_avx2;
    if (features & IC_CPU_SSE2) return ic_row_merge_uv_sse2;
#endif
    (void)features;
    return ic_row_merge_uv_c;
}

ic_row_split_uv_fn ic__row_pick_split_uv(uint32_t features) {
#if IC_X86
    if (features & IC_CPU_AVX2) return ic_row_split_uv_avx2;
    if (features & IC_CPU_SSE2) return ic_row_split_uv_sse2;
#endif
    (void)features;
    return ic_row_split_uv_c;
}

ic_row_luma_fn ic__row_pick_luma(uint32_t features) {
#if IC_X86
    if (features & IC_CPU_AVX2) return ic_row_luma_avx2;
#endif
    (void)features;
    return ic_row_luma_c;
}
