/**
 * @file imagecore.h
 * @brief ImageCore C API: image descriptors over caller-owned memory, plane kernels,
 *        a parallel-for helper and CPU dispatch.
 *
 * This is the one exported header. C and C++ hosts include it (installed by the CMake
 * build as `<imagecore.h>`) and Swift imports it as the `CImageCore` module.
 *
 * Conventions
 * - Every symbol is prefixed `ic_`. Every fallible entry point returns an ::ic_status
 *   (`IC_OK` == 0, negative on failure) and never crashes, reads or writes out of bounds,
 *   or leaks, whatever its arguments.
 * - The library never allocates pixel memory. An image is a descriptor (::ic_image) that
 *   points at memory the caller owns; kernels read the source planes and write the
 *   destination planes in place. Scratch memory, where a kernel needs any, is small,
 *   bounded and documented at the function.
 * - Strides are in bytes and may be padded; kernels honour them and never touch the
 *   padding bytes beyond a row's pixels.
 * - Every function that takes an ::ic_image checks it with ::ic_image_validate first; the
 *   `@return` lists below call a descriptor it refuses "an invalid descriptor", which means
 *   IC_ERR_INVALID_ARGUMENT, or IC_ERR_TOO_LARGE for sizes or extents beyond the limits.
 * - Thread safety: functions are re-entrant. The thread count and CPU mask are process-wide
 *   settings read atomically at the start of each call.
 */
#ifndef IMAGECORE_H
#define IMAGECORE_H

#include <stddef.h>
#include <stdint.h>

/** Marks every function of the public API: exported from the shared library, which builds
 *  with hidden visibility by default (everything else is private to the library). */
#ifndef IC_API
#if defined(__GNUC__) || defined(__clang__)
#define IC_API __attribute__((visibility("default")))
#else
#define IC_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/** @name Status codes                                                          */
/* ------------------------------------------------------------------------- */

/** Result of every fallible entry point. */
typedef enum ic_status {
    IC_OK = 0,                        /**< Success. */
    IC_ERR_INVALID_ARGUMENT = -1,     /**< A null pointer, a bad size, stride or enum value. */
    IC_ERR_UNSUPPORTED = -2,          /**< Valid request the library does not implement (format pair, feature). */
    IC_ERR_CORRUPT_DATA = -3,         /**< Encoded input is malformed, truncated or not of the expected kind. */
    IC_ERR_TOO_LARGE = -4,            /**< Dimensions or byte counts beyond the library's limits or a configured limit. */
    IC_ERR_OUT_OF_MEMORY = -5,        /**< A (bounded, documented) scratch allocation failed. */
    IC_ERR_CANCELLED = -6,            /**< A callback asked to stop. */
    IC_ERR_BUFFER_TOO_SMALL = -7,     /**< A caller-provided buffer cannot hold the result. */
    IC_ERR_IO = -8,                   /**< Reading or writing a file failed. */
    IC_ERR_INTERNAL = -9              /**< A bug: an internal invariant failed. Please report. */
} ic_status;

/**
 * A static, human-readable English name for a status ("ok", "invalid argument", ...).
 * @param status any value; unknown values give "unknown status".
 * @return a static string, never NULL.
 */
IC_API const char *ic_status_string(ic_status status);

/** Room for an ::ic_last_error detail, terminator included. */
enum { IC_DETAIL_LENGTH = 160 };

/**
 * Why the C core last refused an argument on the calling thread, e.g. "image plane 0: stride
 * 12 < row bytes 16" — the validating entry points (descriptor checks, size and format
 * mismatches, overlapping images, bad options) record it when they return an error. Reading
 * it clears it, so a caller that reads it after each failed call never sees an old one.
 * The record is per thread, so concurrent calls do not mix their details.
 * @param detail    receives the text ("" if none), truncated to `capacity` - 1 bytes; may be
 *                  NULL.
 * @param capacity  bytes at `detail`; ::IC_DETAIL_LENGTH holds every detail.
 * @return the status the refusal returned, or IC_OK when nothing was recorded since the last
 *         read.
 */
IC_API ic_status ic_last_error(char *detail, size_t capacity);

/* ------------------------------------------------------------------------- */
/** @name Version                                                                */
/* ------------------------------------------------------------------------- */

/**
 * The library version as a number.
 * @return `major * 10000 + minor * 100 + patch`.
 */
IC_API uint32_t ic_version(void);

/**
 * The library version as a static string, e.g. "0.1.0".
 * @return a static string, never NULL.
 */
IC_API const char *ic_version_string(void);

/* ------------------------------------------------------------------------- */
/** @name Image descriptor                                                       */
/* ------------------------------------------------------------------------- */

/** Pixel formats. Byte order within a pixel is the name's order (RGBA8 = R,G,B,A bytes). */
typedef enum ic_format {
    IC_FORMAT_INVALID = 0,
    IC_FORMAT_GRAY8 = 1,  /**< 1 plane, 1 byte per pixel. */
    IC_FORMAT_RGB8 = 2,   /**< 1 plane, 3 bytes per pixel. */
    IC_FORMAT_RGBA8 = 3,  /**< 1 plane, 4 bytes per pixel; see ::ic_alpha. */
    IC_FORMAT_I420 = 4,   /**< 3 planes Y, U, V; chroma ceil(w/2) x ceil(h/2). */
    IC_FORMAT_NV12 = 5    /**< 2 planes Y, interleaved UV; UV plane ceil(w/2) pairs x ceil(h/2) rows. */
} ic_format;

/** How the alpha channel of an RGBA8 image is to be read. Kernels ignore it for other
 *  formats, but ::ic_image_validate still requires one of the values below. */
typedef enum ic_alpha {
    IC_ALPHA_STRAIGHT = 0,       /**< Colour not multiplied by alpha. */
    IC_ALPHA_PREMULTIPLIED = 1,  /**< Colour already multiplied by alpha. */
    IC_ALPHA_OPAQUE = 2          /**< Alpha is 255 everywhere (or to be ignored). */
} ic_alpha;

/** Largest number of planes a format has. */
enum { IC_MAX_PLANES = 3 };

/** Largest width or height accepted anywhere (the JPEG limit). */
enum { IC_MAX_DIMENSION = 65535 };

/** One plane: the address of its first row and the byte distance between rows. */
typedef struct ic_plane {
    uint8_t *data;
    size_t stride;
} ic_plane;

/**
 * An image: format, size and per plane a pointer and a stride. The caller owns the
 * memory; the descriptor is a plain value that may be copied freely. Planes beyond the
 * format's plane count are ignored.
 */
typedef struct ic_image {
    ic_format format;
    ic_alpha alpha;
    int32_t width;
    int32_t height;
    ic_plane planes[IC_MAX_PLANES];
} ic_image;

/** A rectangle of pixels: columns [x, x + width), rows [y, y + height). */
typedef struct ic_rect {
    int32_t x;
    int32_t y;
    int32_t width;
    int32_t height;
} ic_rect;

/**
 * The number of planes of a format.
 * @param format any value.
 * @return 1, 2 or 3; 0 for an unknown format.
 */
IC_API int32_t ic_format_plane_count(ic_format format);

/**
 * The geometry of one plane of a `width` x `height` image: the bytes one row of pixels
 * occupies (the smallest legal stride) and the number of rows.
 * @param format     a pixel format.
 * @param width      image width, 1 to ::IC_MAX_DIMENSION.
 * @param height     image height, 1 to ::IC_MAX_DIMENSION.
 * @param plane      0 to ic_format_plane_count(format) - 1.
 * @param row_bytes  receives the row bytes of that plane (may be NULL).
 * @param rows       receives its number of rows (may be NULL).
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a bad format, plane index or a size < 1;
 *         IC_ERR_TOO_LARGE for a size > ::IC_MAX_DIMENSION.
 */
IC_API ic_status ic_plane_geometry(ic_format format, int32_t width, int32_t height, int32_t plane,
                            size_t *row_bytes, int32_t *rows);

/**
 * Total bytes of a buffer holding all planes of an image, each stride rounded up to
 * `alignment` and each plane starting on an `alignment` boundary: the size
 * ::ic_layout_compute reports as `total_size`.
 * @param format      a pixel format.
 * @param width       1 to ::IC_MAX_DIMENSION.
 * @param height      1 to ::IC_MAX_DIMENSION.
 * @param alignment   a power of two from 1 to 4096; 0 means the default of 64.
 * @param total_size  receives the byte count.
 * @return IC_OK, or the statuses of ::ic_layout_compute.
 */
IC_API ic_status ic_image_size(ic_format format, int32_t width, int32_t height, size_t alignment,
                        size_t *total_size);

/**
 * The largest buffer, in bytes, that ::ic_layout_compute accepts: 4 GiB. Above it,
 * IC_ERR_TOO_LARGE (a 65500 x 65500 RGBA8 request is refused, never wrapped).
 * @return 4294967296.
 */
IC_API uint64_t ic_max_image_bytes(void);

/** Where each plane of an image lives inside one allocation. */
typedef struct ic_layout {
    int32_t plane_count;
    size_t alignment;                 /**< Alignment of strides and plane offsets. */
    size_t row_bytes[IC_MAX_PLANES];  /**< Bytes of pixels in one row. */
    int32_t rows[IC_MAX_PLANES];      /**< Rows of the plane. */
    size_t stride[IC_MAX_PLANES];     /**< row_bytes rounded up to `alignment`. */
    size_t offset[IC_MAX_PLANES];     /**< Byte offset of the plane from the allocation start. */
    size_t plane_size[IC_MAX_PLANES]; /**< stride * rows. */
    size_t total_size;                /**< Bytes to allocate for all planes. */
} ic_layout;

/**
 * Computes the layout of a `width` x `height` image of `format` in one allocation whose
 * strides and plane starts are multiples of `alignment`. All arithmetic is overflow-checked.
 * @param format     a pixel format.
 * @param width      1 to ::IC_MAX_DIMENSION.
 * @param height     1 to ::IC_MAX_DIMENSION.
 * @param alignment  a power of two from 1 to 4096; 0 means 64.
 * @param out        receives the layout.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a bad format, a size < 1, an alignment that is not a
 *         power of two or is > 4096, or a null `out`;
 *         IC_ERR_TOO_LARGE for a dimension > ::IC_MAX_DIMENSION or a total above
 *         ::ic_max_image_bytes.
 */
IC_API ic_status ic_layout_compute(ic_format format, int32_t width, int32_t height, size_t alignment,
                            ic_layout *out);

/**
 * Fills `image` to describe the layout `layout` placed at `base`.
 * @param image   receives the descriptor.
 * @param format  the format the layout was computed for.
 * @param alpha   stored as given (see ::ic_alpha).
 * @param width   the width the layout was computed for.
 * @param height  the height the layout was computed for.
 * @param base    the allocation, at least `layout->total_size` bytes (the caller's contract).
 * @param layout  from ::ic_layout_compute for the same format and size.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null argument or a layout computed for another image,
 *         or the statuses of ::ic_layout_compute for the format and size.
 */
IC_API ic_status ic_image_init(ic_image *image, ic_format format, ic_alpha alpha, int32_t width,
                        int32_t height, uint8_t *base, const ic_layout *layout);

/**
 * Checks a descriptor: known format and alpha mode; 1 <= width, height <= ::IC_MAX_DIMENSION;
 * every used plane non-null with stride >= its row bytes; the extent of every plane
 * (stride * (rows - 1) + row bytes) representable. It cannot know how large the caller's
 * memory is: that is the caller's contract.
 * @param image  the descriptor.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null `image`, a bad format or alpha mode, a size < 1,
 *         a null plane or a short stride;
 *         IC_ERR_TOO_LARGE for a size > ::IC_MAX_DIMENSION or a plane extent that does not fit
 *         the address space.
 */
IC_API ic_status ic_image_validate(const ic_image *image);

/**
 * A sub-image view: `*view` describes the rectangle `rect` of `image` in the same memory.
 * Each plane pointer moves to the rectangle's origin (for I420 and NV12 the chroma planes
 * by (x/2, y/2) samples), strides, format and alpha mode are kept; no pixel is read or
 * copied. The view is valid while `image`'s memory is.
 * @param image  a valid descriptor (see ::ic_image_validate).
 * @param rect   columns [x, x + width), rows [y, y + height), inside the image, width and
 *               height >= 1; for I420 and NV12, x and y even (an odd origin would split
 *               the 2x2 blocks that share a chroma sample); odd sizes are fine.
 * @param view   receives the view; untouched on failure. May be `image` itself.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null `rect` or `view`, a rectangle that is empty or
 *         not inside the image, an odd origin for I420/NV12, or an invalid `image`;
 *         IC_ERR_TOO_LARGE for an `image` whose planes ::ic_image_validate finds too large.
 */
IC_API ic_status ic_image_crop(const ic_image *image, const ic_rect *rect, ic_image *view);

/* ------------------------------------------------------------------------- */
/** @name Plane and image copy / fill                                          */
/* ------------------------------------------------------------------------- */

/**
 * Copies `rows` rows of `row_bytes` bytes from `src` to `dst`, honouring both strides;
 * bytes between `row_bytes` and the stride are neither read nor written. Runs in parallel
 * bands at memory speed.
 * @param src         first source row.
 * @param src_stride  bytes between source rows (>= row_bytes when rows > 1).
 * @param dst         first destination row.
 * @param dst_stride  bytes between destination rows (>= row_bytes when rows > 1).
 * @param row_bytes   bytes to copy per row; 0 copies nothing.
 * @param rows        rows to copy, >= 0; 0 copies nothing.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for rows < 0, a null pointer, a short stride, a region that
 *         does not fit the address space, or source and destination regions that overlap.
 */
IC_API ic_status ic_plane_copy(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                        size_t row_bytes, int32_t rows);

/**
 * Fills `rows` rows of `row_bytes` bytes with a repeating pattern (e.g. one RGBA pixel).
 * @param dst           first row.
 * @param stride        bytes between rows (>= row_bytes when rows > 1).
 * @param row_bytes     bytes to fill per row, a multiple of `pattern_size`.
 * @param rows          rows to fill, >= 0.
 * @param pattern       the pattern's bytes.
 * @param pattern_size  1 to 16.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for rows < 0, a null pointer, a pattern size outside 1..16,
 *         row bytes not a multiple of it, a short stride or a region that does not fit the
 *         address space.
 */
IC_API ic_status ic_plane_fill(uint8_t *dst, size_t stride, size_t row_bytes, int32_t rows,
                        const uint8_t *pattern, size_t pattern_size);

/**
 * Copies every plane of `src` into `dst` (the alpha mode is not checked or changed).
 * @param src  a valid image.
 * @param dst  a valid image of the same format and size, sharing no byte with `src`.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for another format or size, overlapping planes, or an
 *         invalid descriptor (IC_ERR_TOO_LARGE as ::ic_image_validate).
 */
IC_API ic_status ic_image_copy(const ic_image *src, ic_image *dst);

/**
 * Fills an image with one colour.
 * @param image  a valid image.
 * @param value  up to 4 channel values in the format's order: GRAY8 {g}, RGB8 {r,g,b},
 *               RGBA8 {r,g,b,a}, I420/NV12 {y,u,v}.
 * @return IC_OK;
 *         IC_ERR_INVALID_ARGUMENT for a null `value` or an invalid descriptor
 *         (IC_ERR_TOO_LARGE as ::ic_image_validate).
 */
IC_API ic_status ic_image_fill(ic_image *image, const uint8_t value[4]);

/* ------------------------------------------------------------------------- */
/** @name Threads                                                               */
/* ------------------------------------------------------------------------- */

/** Work function of ::ic_parallel_for: processes indices [begin, end). */
typedef void (*ic_range_fn)(void *context, int64_t begin, int64_t end);

/**
 * Calls `fn` over [0, count) split into chunks, in parallel on up to ::ic_get_num_threads
 * threads; returns when all chunks are done. Every index is visited exactly once. Chunks
 * are handed out dynamically, so a busy core does not hold the others up. Called from
 * inside another parallel region it runs serially on the calling thread.
 *
 * Backends: OpenMP pragmas when compiled with -fopenmp (the CMake build); the OpenMP
 * runtime's GOMP entry points when built with IC_OMP_RUNTIME (the SwiftPM build on Linux);
 * libdispatch on Apple platforms; serial elsewhere.
 * @param count    indices to visit, >= 0 (0: `fn` is not called).
 * @param grain    smallest chunk; < 1 means 1.
 * @param fn       the work function, called with [begin, end) ranges.
 * @param context  passed to `fn` unchanged.
 * @return IC_OK; IC_ERR_INVALID_ARGUMENT for a null `fn` or count < 0.
 */
IC_API ic_status ic_parallel_for(int64_t count, int64_t grain, ic_range_fn fn, void *context);

/**
 * Sets the number of threads kernels use (process-wide).
 * @param n  >= 1 sets it; <= 0 restores the default: the `IC_NUM_THREADS` environment
 *           variable if it holds a positive integer, else the number of online CPUs.
 */
IC_API void ic_set_num_threads(int32_t n);

/**
 * The number of threads kernels called from this thread will use: the calling thread's own
 * count (::ic_set_local_num_threads) if set, else the process-wide one.
 * @return >= 1.
 */
IC_API int32_t ic_get_num_threads(void);

/**
 * Sets the thread count for ImageCore calls made from the calling thread only, overriding
 * ::ic_set_num_threads there. A pool that runs one image per worker gives each worker its
 * share of the cores (e.g. 1 with as many workers as cores), so the kernels it calls do not
 * start a team of threads per worker.
 * @param n  >= 1 sets it (at most 1024); <= 0 clears it (the process-wide count applies).
 * @return the calling thread's previous value (0 = none), to restore when done.
 */
IC_API int32_t ic_set_local_num_threads(int32_t n);

/**
 * The calling thread's own thread count.
 * @return the value ::ic_set_local_num_threads set on this thread, or 0 when unset.
 */
IC_API int32_t ic_get_local_num_threads(void);

/**
 * The compiled-in parallel backend.
 * @return "openmp", "omp-runtime", "dispatch" or "serial" (static).
 */
IC_API const char *ic_parallel_backend(void);

/* ------------------------------------------------------------------------- */
/** @name CPU features                                                          */
/* ------------------------------------------------------------------------- */

/** Instruction-set extensions that kernels may dispatch on. */
typedef enum ic_cpu_feature {
    IC_CPU_SSE2 = 1 << 0,
    IC_CPU_SSSE3 = 1 << 1,
    IC_CPU_SSE41 = 1 << 2,
    IC_CPU_AVX2 = 1 << 3,   /**< Reported only with FMA and OS support for YMM state. */
    IC_CPU_AVX512 = 1 << 4, /**< AVX-512 F; reported only with ::IC_CPU_AVX2 and OS support for ZMM state. */
    IC_CPU_AVX512VNNI = 1 << 5, /**< AVX-512 BW and VNNI; reported only with ::IC_CPU_AVX512. Kernels use it
                                     only together with ::IC_CPU_AVX512 (masking either off masks both). */
    IC_CPU_NEON = 1 << 8
} ic_cpu_feature;

/**
 * The instruction-set extensions the CPU has (detected once).
 * @return a mask of ::ic_cpu_feature bits.
 */
IC_API uint32_t ic_cpu_features_detected(void);

/**
 * The features kernels may use: detected & mask (::ic_set_cpu_mask).
 * @return a mask of ::ic_cpu_feature bits.
 */
IC_API uint32_t ic_cpu_features(void);

/**
 * Restricts the features kernels may use (tests pass 0 to force the scalar reference
 * paths). The initial mask is all ones, or the value of the `IC_CPU_MASK` environment
 * variable (decimal or 0x-hex) if set.
 * @param mask  a mask of ::ic_cpu_feature bits.
 * @return the previous mask.
 */
IC_API uint32_t ic_set_cpu_mask(uint32_t mask);

/**
 * The current feature mask (see ::ic_set_cpu_mask).
 * @return a mask of ::ic_cpu_feature bits.
 */
IC_API uint32_t ic_get_cpu_mask(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#include "imagecore/jpeg.h"
#include "imagecore/png.h"
#include "imagecore/color.h"
#include "imagecore/yuv.h"
#include "imagecore/rotate.h"
#include "imagecore/laplacian.h"
#include "imagecore/resize.h"
#include "imagecore/geometry.h"
#include "imagecore/warp.h"
#include "imagecore/detect.h"
#include "imagecore/enhance.h"
#include "imagecore/channels.h"
#include "imagecore/pipeline.h"

#endif /* IMAGECORE_H */
