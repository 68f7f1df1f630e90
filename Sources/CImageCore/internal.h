/* Private helpers shared by the C core's translation units. Not installed. */
#ifndef IMAGECORE_INTERNAL_H
#define IMAGECORE_INTERNAL_H

#include "imagecore.h"

#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define IC_LIKELY(x) __builtin_expect(!!(x), 1)
#define IC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define IC_LIKELY(x) (x)
#define IC_UNLIKELY(x) (x)
#endif

/* x86 vector paths are compiled per function with target attributes and chosen at run
 * time, so the SwiftPM build needs no -m flags (-mavx2 would be an unsafe flag in
 * Package.swift; see README, "Layout"). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define IC_X86 1
#define IC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define IC_TARGET_AVX512 __attribute__((target("avx2,fma,avx512f")))
#define IC_TARGET_AVX512VNNI __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vnni")))
#define IC_TARGET_SSE41 __attribute__((target("sse4.1")))
#else
#define IC_X86 0
#endif

#if defined(__aarch64__) || defined(__ARM_NEON)
#define IC_NEON 1
#else
#define IC_NEON 0
#endif

/* Internal symbols stay out of the shared library's interface. */
#if defined(__GNUC__) || defined(__clang__)
#define IC_INTERNAL __attribute__((visibility("hidden")))
#else
#define IC_INTERNAL
#endif

/* Records why a public call refuses its arguments (ic_last_error) and returns `status`:
 * `return ic__refuse(IC_ERR_INVALID_ARGUMENT, "stride %zu < row bytes %zu", s, r);` */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
IC_INTERNAL ic_status ic__refuse(ic_status status, const char *format, ...);

/* Whether the JPEG decoder gives I420/NV12 from a file of colour space `cs` and sampling `ss`
 * (jpeg_probe.c): gray, or YCbCr of a sampling it reads. The decoder refuses the others and
 * the scan plan decodes their crop to RGBA8. */
IC_INTERNAL int ic__jpeg_yuv_decodable(ic_jpeg_colorspace cs, ic_jpeg_subsampling ss);

/* IC_OK for 1 <= width, height <= IC_MAX_DIMENSION; else the error, its reason recorded. */
IC_INTERNAL ic_status ic__check_dimensions(int32_t width, int32_t height);

/* Bytes of pixels in one row of plane `plane`, and its row count, without validation:
 * callers have validated format and size. */
IC_INTERNAL size_t ic__row_bytes(ic_format format, int32_t width, int32_t plane);
IC_INTERNAL int32_t ic__plane_rows(ic_format format, int32_t height, int32_t plane);

/* The process-wide settings as one call sees them. Every entry point reads them once, at
 * its start (ic__settings_read), and hands the snapshot to everything it runs, so that a
 * concurrent ic_set_num_threads / ic_set_cpu_mask never changes a call half-way (issue #12:
 * a size computed with one thread count and a layout written with another overflowed). */
typedef struct ic__settings {
    int32_t threads; /* >= 1 */
    uint32_t cpu;    /* ic_cpu_features() at the start of the call */
} ic__settings;
IC_INTERNAL ic__settings ic__settings_read(void);

/* Work too small to split runs on the calling thread, so the OpenMP runtime's threads are
 * never started for it (issue #17: a 256 px thumbnail must not spawn threads): a call uses at
 * most one thread per IC_PARALLEL_MIN_BYTES of pixels it reads and writes. */
enum { IC_PARALLEL_MIN_BYTES = 512 * 1024 };
IC_INTERNAL void ic__settings_limit_work(ic__settings *s, uint64_t bytes);
/* Bytes of pixels of an image (validated descriptor): the sum of its planes' row bytes x rows. */
IC_INTERNAL uint64_t ic__image_bytes(const ic_image *im);
/* How many times this thread has read the settings (ic__settings_read, ic_get_num_threads,
 * ic_cpu_features): tests check that each entry point reads them exactly once. */
IC_INTERNAL uint64_t ic__settings_reads(void);
IC_INTERNAL void ic__settings_count_read(void);
IC_INTERNAL uint32_t ic__cpu_features_uncounted(void);

/* ic_parallel_for with the call's snapshot. */
IC_INTERNAL ic_status ic__parallel_for(const ic__settings *s, int64_t count, int64_t grain, ic_range_fn fn,
                                       void *context);
#endif
