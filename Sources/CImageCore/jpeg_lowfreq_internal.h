/* Private pieces of the reduced progressive decoder (jpeg_lowfreq*.c). Not installed.
 *
 * A progressive JPEG decoded at 1/8 or 1/4 needs only the coefficients its reduced IDCTs
 * read. jpeg_lowfreq.c parses the file's scans marker to marker, keeps the scans that carry
 * such coefficients, and decodes them all at once, one iMCU row at a time, each from its own
 * read position (one cursor per scan), so the coefficients never exist for more than one
 * row; the other scans are skipped without entropy decoding. jpeg_lowfreq_scan.c is the
 * entropy decoder (Huffman, successive approximation, restart markers), jpeg_lowfreq_rows.c
 * the row kernels (libjpeg's reduced IDCTs, upsampling and colour conversion, with the same
 * integer arithmetic). */
#ifndef IMAGECORE_JPEG_LOWFREQ_INTERNAL_H
#define IMAGECORE_JPEG_LOWFREQ_INTERNAL_H

#include "jpeg_internal.h"

enum { IC_LF_MAX_COMPONENTS = 4, IC_LF_LOOKAHEAD = 9 };

/* ---- Huffman tables (jpeg_lowfreq_scan.c) ----------------------------------------------
 * A table as a DHT segment defines it: code counts per length 1..16 and the symbols. */
typedef struct ic_lf_huff_spec {
    uint8_t counts[17];    /* counts[l] = codes of length l (index 0 unused) */
    uint8_t symbols[256];
    int defined;
} ic_lf_huff_spec;

/* Decoding form: a IC_LF_LOOKAHEAD-bit lookup for short codes, canonical limits for the rest. */
typedef struct ic_lf_huff {
    uint16_t fast[1 << IC_LF_LOOKAHEAD]; /* (length << 8) | symbol; 0 = code longer than the lookahead */
    int32_t maxcode[18];                 /* largest code of each length, -1 if none */
    int32_t valoffset[18];               /* symbol index of a code of that length = code + valoffset */
    uint8_t symbols[256];
} ic_lf_huff;

/* Checks a table as libjpeg's jpeg_make_d_derived_tbl does (at most 256 codes, a valid
 * canonical code tree, DC symbols 0..15) and builds the decoding form into `out` if non-NULL.
 * Returns 0 for a table libjpeg would refuse. */
IC_INTERNAL int ic__lf_huff_build(const ic_lf_huff_spec *spec, int dc, ic_lf_huff *out);

/* ---- the file's bytes ------------------------------------------------------------------------
 * In memory (read_at NULL: the file is data[0..size)), or streamed: data[0..size) is its start
 * and read_at (ic_jpeg_decode_options::read_at) reads the rest by offset. */
typedef struct ic_lf_file {
    const uint8_t *data;
    size_t size;
    ic_jpeg_read_at_fn read_at;
    void *context;
} ic_lf_file;

/* Up to `capacity` bytes at `offset` into `buffer`, fewer only at the end of the file or on a
 * read error (then 0 from there). */
IC_INTERNAL size_t ic__lf_file_read(const ic_lf_file *file, uint64_t offset, uint8_t *buffer, size_t capacity);

/* ---- bit reader over one scan's entropy-coded data -------------------------------------- */
typedef struct ic_lf_bits {
    const uint8_t *p;    /* next byte to read */
    const uint8_t *end;  /* in memory: the scan's terminating marker (first 0xFF of it); streamed:
                            the end of the bytes in the window */
    uint64_t buf;        /* unread bits, left-aligned */
    int n;               /* bits in buf, zero padding included */
    int pad;             /* zero bits appended after a marker stopped the reader */
    int at_marker;       /* a marker (RSTn or the end) stopped the reader; p points at its 0xFF */
    /* Streamed (file != NULL): the scan's bytes pass through `window`, which never ends in
     * 0xFF before the scan's end, so a marker's two bytes are always in one window. */
    const ic_lf_file *file;
    uint8_t *window;
    size_t window_size;
    uint64_t window_offset;  /* file offset of window[0] */
    uint64_t data_end;       /* file offset of the scan's terminating marker */
    int failed;              /* a read came back short before data_end */
} ic_lf_bits;

/* ---- components and scans --------------------------------------------------------------- */

typedef struct ic_lf_component {
    int id;                      /* component identifier from SOF */
    int h, v;                    /* sampling factors */
    int qtable;                  /* quantisation table slot from SOF */
    int32_t width_in_blocks, height_in_blocks;
    int scaled;                  /* libjpeg's DCT_scaled_size for this decode: 1, 2 or 4 */
    int32_t downsampled_width;   /* samples per row after the reduced IDCT */
    int needed;                  /* read by the output (gray output needs only Y) */
    int latched;                 /* quantisation table copied at the component's first scan */
    int touched;                 /* some kept scan decodes blocks of this component */
    uint16_t quant_raw[64];      /* the latched table as stored (natural order) */
    int16_t quant[64];           /* the same as libjpeg's ISLOW multiplier table (16-bit) */
    int coef_bits[64];           /* progression state, as libjpeg's coef_bits (-1 = not yet sent) */
    /* Row buffers for the current iMCU row (NULL when no kept scan touches the component). */
    int cpb;                     /* coefficients kept per block: 1 (DC only) or 64 */
    int32_t cols;                /* blocks per buffer row (MCUs per row x h, dummy blocks included) */
    int16_t *coef;               /* v rows x cols blocks x cpb */
    uint8_t *samples;            /* v * scaled rows of width_in_blocks * scaled samples */
    size_t sample_stride;
} ic_lf_component;

enum { IC_LF_DC_FIRST, IC_LF_DC_REFINE, IC_LF_AC_FIRST, IC_LF_AC_REFINE };

/* One kept scan and its cursor. */
typedef struct ic_lf_scan {
    int kind;                          /* IC_LF_DC_FIRST ... */
    int ncomp;
    int comp[IC_LF_MAX_COMPONENTS];    /* component indices, in MCU order */
    int ss, se, ah, al;
    uint32_t restart_interval;         /* DRI in force at this scan; 0 = none */
    const uint8_t *data, *end;         /* in memory: entropy-coded segment, end = terminating marker */
    uint64_t data_offset, end_offset;  /* the same as file offsets (both modes) */
    const ic_lf_file *file;            /* streamed: read through window[0..window_size) */
    uint8_t *window;
    size_t window_size;
    const ic_lf_huff *dc[IC_LF_MAX_COMPONENTS];
    const ic_lf_huff *ac;
    /* cursor */
    ic_lf_bits br;
    int pred[IC_LF_MAX_COMPONENTS];
    uint32_t eobrun;
    uint32_t restarts_to_go;
    int next_restart;
} ic_lf_scan;

/* The frame as the cursors see it. */
typedef struct ic_lf_frame {
    int ncomp;
    ic_lf_component comp[IC_LF_MAX_COMPONENTS];
    int max_h, max_v;
    int32_t mcus_per_row;              /* of an interleaved scan */
    int32_t imcu_rows;
} ic_lf_frame;

/* Puts a scan's cursor at its start. */
IC_INTERNAL void ic__lf_scan_reset(ic_lf_scan *scan);

/* Decodes the scan's part of iMCU row `row` into the components' row buffers (which the
 * caller zeroed). Returns 0 on data libjpeg would warn about or refuse (a bad Huffman code,
 * data running out, a wrong or misplaced restart marker, an out-of-range DC value, a
 * refinement symbol of size other than 1) or a streamed read that came back short: the
 * caller then leaves the file to libjpeg. */
IC_INTERNAL int ic__lf_scan_row(ic_lf_scan *scan, ic_lf_frame *frame, int32_t row);

/* After the last row: 1 when the scan's data ended exactly where its last MCU did (no whole
 * byte left before the next marker, and that marker is not an RSTn). */
IC_INTERNAL int ic__lf_scan_finished(ic_lf_scan *scan);

/* ---- row kernels (jpeg_lowfreq_rows.c) ---------------------------------------------------
 * libjpeg-turbo's arithmetic (jidctred.c, jdsample.c, jdcolor.c), written from its
 * description; tests hold the result to libjpeg's own output. */

/* Reduced IDCTs of `n` blocks laid side by side (block i at coef + i * cpb) into `scaled` rows
 * of n * scaled samples (scaled = 1, 2, 4). */
IC_INTERNAL void ic_jpeg_idct_1x1_row_c(const int16_t *coef, int cpb, int32_t n, const int16_t *quant,
                                        uint8_t *out);
IC_INTERNAL void ic_jpeg_idct_2x2_row_c(const int16_t *coef, int32_t n, const int16_t *quant, uint8_t *out,
                                        size_t stride);
IC_INTERNAL void ic_jpeg_idct_4x4_row_c(const int16_t *coef, int32_t n, const int16_t *quant, uint8_t *out,
                                        size_t stride);

/* libjpeg's h2v1 "fancy" (triangle) upsampling of `width` (>= 3) samples into 2 * width. */
IC_INTERNAL void ic_jpeg_h2v1_fancy_row_c(const uint8_t *in, int32_t width, uint8_t *out);
/* Box upsampling: out[x] = in[x / factor] for x < out_width. */
IC_INTERNAL void ic_jpeg_box_row_c(const uint8_t *in, int factor, int32_t out_width, uint8_t *out);

/* libjpeg's YCbCr -> RGB tables (jdcolor.c build_ycc_rgb_table). */
typedef struct ic_jpeg_ycc_tables {
    int32_t cr_r[256], cb_b[256], cr_g[256], cb_g[256];
} ic_jpeg_ycc_tables;
IC_INTERNAL void ic__jpeg_ycc_tables_init(ic_jpeg_ycc_tables *t);
/* One row to RGB8 (channels 3) or RGBA8 (channels 4, alpha 255). */
IC_INTERNAL void ic_jpeg_ycc_rgb_row_c(const ic_jpeg_ycc_tables *t, const uint8_t *y, const uint8_t *cb,
                                       const uint8_t *cr, uint8_t *out, int32_t n, int channels);
IC_INTERNAL void ic_jpeg_gray_rgb_row_c(const uint8_t *y, uint8_t *out, int32_t n, int channels);

/* ---- driver (jpeg_lowfreq.c) -------------------------------------------------------------- */

/* Tries the reduced decode of a planned request. libjpeg has read the header (cinfo) but not
 * started decompressing. `file` is the whole file in memory, or its start and a positional
 * reader (then libjpeg's own source is left where it is). Sets *used = 1 when it decoded the
 * image (the status is then the decode's: IC_OK, IC_ERR_CANCELLED from the sink, or for a
 * streamed file to a stream callback IC_ERR_CORRUPT_DATA when a read failed after the data
 * was checked), 0 when the file is left to libjpeg (not progressive, another scale, format or
 * option, a scan script or data it does not take, a read error; nothing has then been handed
 * to a stream callback). */
IC_INTERNAL ic_status ic__jpeg_decode_lowfreq(j_decompress_ptr cinfo, const ic_lf_file *file,
                                              const ic_jpeg_plan *plan, int *used);

#endif
