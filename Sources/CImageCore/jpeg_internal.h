/* Private pieces of the JPEG codec shared by jpeg_*.c and exif.c. Not installed. */
#ifndef IMAGECORE_JPEG_INTERNAL_H
#define IMAGECORE_JPEG_INTERNAL_H

#include "internal.h"
#include "jpeg_sink.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */

#include <jerror.h>
#include <jpeglib.h>

/* ---- error manager (jpeg_source.c) ---------------------------------------------
 * libjpeg reports fatal errors through error_exit, which must not return: ours records a
 * status and the formatted message and longjmps back to the setjmp in ic__jpeg_guard.
 * Warnings (emit_message with level -1) are counted; in strict mode the first one jumps
 * out as IC_ERR_CORRUPT_DATA. */
typedef struct ic_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    ic_status status;     /* why we jumped */
    int strict;
    int32_t warnings;
    int32_t max_scans;    /* decoder: refuse more input scans than this (progress monitor) */
    char message[IC_JPEG_MESSAGE_LENGTH];
    /* Data-sanity rule (jpeg_decode.c fills the geometry after planning). Once decoding has
     * started, the first warning about the entropy data (see jpeg_source.c) fixes valid_rows;
     * fewer than min_valid rows is IC_ERR_CORRUPT_DATA at once. */
    int decoding;         /* jpeg_start_decompress called: warnings now concern the data */
    int32_t imcu_rows;    /* scaled output rows per iMCU row */
    int32_t context_rows; /* output rows above an iMCU row that its data also shapes (1 with fancy
                             vertical chroma upsampling, which reads the next chroma row) */
    int32_t out_rows;     /* scaled output height */
    int32_t first_row;    /* the output rectangle: first scaled row and row count */
    int32_t rows;
    int32_t min_valid;    /* rows that must have data; 0 = no rule */
    int32_t valid_rows;   /* rows of the rectangle before the first data problem */
    int problem;          /* 1 once a data problem was seen */
} ic_jpeg_error;

/* The decode's memory budget: every allocation libjpeg and the codec make goes through the
 * memory manager's methods, which jpeg_source.c wraps to count bytes and refuse
 * (IC_ERR_TOO_LARGE) before an allocation that would take the total above `limit`. */
typedef struct ic_jpeg_budget {
    uint64_t limit;       /* 0 = none */
    uint64_t pool[2];     /* bytes in JPOOL_PERMANENT, JPOOL_IMAGE */
    uint64_t virt;        /* requested virtual arrays, realized later in JPOOL_IMAGE */
    uint64_t peak;
    struct jpeg_memory_mgr real; /* libjpeg's own methods */
} ic_jpeg_budget;

/* Installs the error manager into `common` (cinfo->err) and resets the counters. */
IC_INTERNAL void ic__jpeg_error_init(ic_jpeg_error *err, int strict);

/* Raises a fatal error of our own (status + message) through the same longjmp. */
IC_INTERNAL void ic__jpeg_fail(j_common_ptr cinfo, ic_status status, const char *message);

/* ---- memory source (jpeg_source.c) ---------------------------------------------
 * Reads the caller's bytes in place. Past the end it supplies a fake EOI marker and a
 * JWRN_JPEG_EOF warning, as libjpeg's own sources do, so truncated files end cleanly. */
typedef struct ic_jpeg_source {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    size_t size;
    ic_jpeg_read_fn read;   /* the rest of the file after data[0..size), or NULL */
    void *read_context;
    uint8_t *buffer;        /* read's chunks (libjpeg's image pool) */
    size_t capacity;
} ic_jpeg_source;

IC_INTERNAL void ic__jpeg_source_init(j_decompress_ptr cinfo, ic_jpeg_source *src,
                                      const uint8_t *data, size_t size);

/* The file continues after the bytes given through `read` (ic_jpeg_decode_options::read), in
 * chunks of a buffer from libjpeg's image pool. Call before the first byte is read beyond data. */
IC_INTERNAL void ic__jpeg_source_stream(j_decompress_ptr cinfo, ic_jpeg_source *src,
                                        ic_jpeg_read_fn read, void *read_context);

/* ---- decompressor lifetime (jpeg_source.c) -------------------------------------- */

typedef struct ic_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    ic_jpeg_error err;
    ic_jpeg_source src;
    struct jpeg_progress_mgr progress;
    ic_jpeg_budget budget;
    int created;
} ic_jpeg_decoder;

/* Work done under the error manager: returns a status; libjpeg errors jump out of it. */
typedef ic_status (*ic_jpeg_body_fn)(ic_jpeg_decoder *dec, void *context);

/* Installs a source manager other than the memory source (a parallel decode's stripe). */
typedef void (*ic_jpeg_source_fn)(j_decompress_ptr cinfo, void *context);

/* Creates the decompressor over data[0..size) (or over the source `install` sets up, when
 * not NULL), runs `body` under setjmp, and destroys the decompressor on every path (normal
 * return, error status, longjmp). All state the body needs after an error lives in `dec` or
 * `context`, never in the guard's locals, so no local is read after longjmp (no volatile
 * needed). */
IC_INTERNAL ic_status ic__jpeg_guard(ic_jpeg_decoder *dec, const uint8_t *data, size_t size,
                                     int strict, int32_t max_scans, uint64_t max_memory,
                                     ic_jpeg_body_fn body, void *context);
IC_INTERNAL ic_status ic__jpeg_guard_source(ic_jpeg_decoder *dec, const uint8_t *data, size_t size,
                                            ic_jpeg_source_fn install, void *source, int strict,
                                            int32_t max_scans, uint64_t max_memory, ic_jpeg_body_fn body,
                                            void *context);

/* jpeg_start_decompress, marking the start of entropy decoding for the data-sanity rule. */
IC_INTERNAL void ic__jpeg_start(j_decompress_ptr cinfo);

/* Scratch from libjpeg's image pool (freed by jpeg_destroy on every path). */
IC_INTERNAL void *ic__jpeg_scratch(j_common_ptr cinfo, size_t bytes);

/* ---- marker walk (jpeg_probe.c) ------------------------------------------------- */

typedef struct ic_jpeg_markers {
    int32_t orientation;  /* 0 = none */
    int32_t has_exif;
    int32_t has_icc;
    uint32_t icc_size;
    int32_t adobe;
    size_t thumb_offset;  /* the EXIF (IFD1) JPEG thumbnail: data[thumb_offset .. + thumb_length) */
    size_t thumb_length;  /* 0 = none */
    size_t exif_offset;   /* the EXIF TIFF structure (after "Exif\0\0"): data[exif_offset .. + exif_length) */
    size_t exif_length;   /* 0 = none */
} ic_jpeg_markers;

/* Walks the marker segments from SOI to the first SOS (bounds-checked, never past size). */
IC_INTERNAL void ic__jpeg_scan_markers(const uint8_t *data, size_t size, ic_jpeg_markers *out);

/* The frame size from the first SOFn segment, by a walk of our own (no decompressor):
 * 1 when found and non-zero. */
IC_INTERNAL int ic__jpeg_frame_size(const uint8_t *data, size_t size, int32_t *width, int32_t *height);

/* A tw x th image has the shape of a w x h one within a pixel of rounding. */
IC_INTERNAL int ic__same_shape(int32_t w, int32_t h, int32_t tw, int32_t th);

/* Our reading of the sampling factors (after jpeg_read_header). */
IC_INTERNAL ic_jpeg_subsampling ic__jpeg_subsampling(j_decompress_ptr cinfo);
IC_INTERNAL ic_jpeg_colorspace ic__jpeg_colorspace(J_COLOR_SPACE cs);

/* ---- EXIF (exif.c): exif_internal.h --------------------------------------------- */
#include "exif_internal.h"

/* ---- row kernels (jpeg_rows.c; the UV pair kernels are the row layer's, row.h) -------- */
/* One 4:2:0 chroma row, columns [x0, x0 + n), from chroma rows a and b sampled at 1/rh of the
 * luma width `width` (rh 1, 2 or 4): the rounded mean of the samples the 2x2 luma block covers;
 * at an odd right edge the last sample counts twice. */
IC_INTERNAL void ic_jpeg_chroma420_row_c(const uint8_t *a, const uint8_t *b, uint8_t *out, int32_t x0,
                                         int32_t n, int rh, int32_t width);

/* CMYK (libjpeg's JCS_CMYK output) to RGB8 / RGBA8 / GRAY8 (the library's luma, row.h);
 * `inverted` = Adobe storage. */
IC_INTERNAL void ic_jpeg_cmyk_row_c(const uint8_t *cmyk, uint8_t *dst, size_t n, int channels,
                                    int inverted);

/* ---- decode (jpeg_decode.c, jpeg_decode_yuv.c) ------------------------------------ */

/* A decode request after the header has been read and checked. */
typedef struct ic_jpeg_plan {
    ic_format format;
    int32_t scale_num;
    uint32_t flags;
    int32_t out_width, out_height;   /* scaled size */
    int32_t x, y, width, height;     /* the rectangle written (the whole scaled image if no crop) */
    int cropped;
    ic_jpeg_subsampling subsampling;
    ic_jpeg_sink *sink;
    uint32_t cpu;                    /* the call's CPU features (its settings snapshot) */
} ic_jpeg_plan;

/* Raw (I420 / NV12) decode of a planned request; libjpeg's header has been read. */
IC_INTERNAL ic_status ic__jpeg_decode_yuv(j_decompress_ptr cinfo, const ic_jpeg_plan *plan);

#endif
