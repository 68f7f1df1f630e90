/* Restart-interval stripes of a baseline JPEG (jpeg_restart*.c, used by jpeg_parallel.c and
 * jpeg_encode_parallel.c). Not installed.
 *
 * A restart marker (RSTn) resets the entropy decoder: the DC predictions restart at 0 and
 * the bit stream restarts on a byte boundary. Where a marker falls on an MCU-row boundary,
 * the data after it decodes without anything before it, so the rows below can be decoded
 * by an independent decompressor at the same time as the rows above. */
#ifndef IMAGECORE_JPEG_RESTART_H
#define IMAGECORE_JPEG_RESTART_H

#include "jpeg_internal.h"

/* ---- marker search (jpeg_restart_rows.c, jpeg_restart_avx2.c) -------------------------
 * The offset i >= pos of the first 0xFF with i + 1 < end whose next byte is neither 0x00 (a
 * stuffed data byte) nor 0xFF (a fill byte): where a marker's 0xFF is. `end` if none. */
typedef size_t (*ic_find_marker_fn)(const uint8_t *data, size_t pos, size_t end);
IC_INTERNAL size_t ic_jpeg_find_marker_c(const uint8_t *data, size_t pos, size_t end);
#if IC_X86
IC_INTERNAL size_t ic_jpeg_find_marker_avx2(const uint8_t *data, size_t pos, size_t end);
#endif
IC_INTERNAL ic_find_marker_fn ic__jpeg_pick_find_marker(uint32_t cpu);
/* MCU rows between interval starts that fall on a row start: interval / gcd(interval, MCUs
 * per row) (the decoder's stripe planning and the parallel encoder share it). */
IC_INTERNAL int32_t ic__jpeg_restart_period(int64_t interval, int64_t mcus_per_row);

/* Walks the marker segments from SOI to the first SOS. Returns 1 with the frame header's
 * height offset and the start of the entropy-coded data for a baseline or extended Huffman
 * frame (SOF0/SOF1) whose segments are back to back; 0 otherwise. */
IC_INTERNAL int ic__jpeg_walk_header(const uint8_t *data, size_t size, size_t *sof_height, size_t *entropy);

/* ---- the restart map (jpeg_restart.c) ------------------------------------------------ */

typedef struct ic_jpeg_restart_map {
    size_t sof_height;      /* offset of the frame header's 2-byte image height */
    size_t entropy;         /* first byte of the scan's entropy-coded data */
    size_t eoi;             /* offset of the EOI marker's 0xFF */
    int32_t image_height;   /* pixels */
    int32_t mcu_height;     /* pixels per MCU row (= iMCU row) */
    int32_t mcu_rows;
    int32_t mcus_per_row;
    int32_t interval;       /* restart interval, MCUs */
    int32_t period;         /* MCU rows from one row where an interval starts to the next */
    int32_t starts;         /* ceil(mcu_rows / period) */
    size_t *start;          /* start[j], j < starts: first entropy byte of MCU row j * period;
                               start[starts] = eoi */
} ic_jpeg_restart_map;

/* Index of the restart interval that begins MCU row `row` (row a multiple of the period). */
static inline int64_t ic__restart_interval_at(const ic_jpeg_restart_map *m, int32_t row) {
    return (int64_t)row * m->mcus_per_row / m->interval;
}

/* After libjpeg has read the header into `cinfo`: whether the file is one interleaved
 * baseline Huffman scan with restart markers, some of which begin MCU rows below the first;
 * if so (1) fills `map` but its `start` table (map->starts + 1 entries are needed). */
IC_INTERNAL int ic__jpeg_restart_geometry(j_decompress_ptr cinfo, const uint8_t *data, size_t size,
                                          ic_jpeg_restart_map *map);

/* One pass over the entropy-coded data: checks that every marker is there, in sequence,
 * around non-empty data, and that EOI ends the scan, and records in `start` (the caller's,
 * map->starts + 1 entries) where the rows that begin an interval start. Returns 1 when the
 * file can be split, 0 when it must be decoded serially (a missing, extra or misnumbered
 * marker, another marker inside the scan, truncation). */
IC_INTERNAL int ic__jpeg_restart_scan(ic_jpeg_restart_map *map, const uint8_t *data, size_t size, uint32_t cpu,
                                      size_t *start);

/* MCU rows from one start of an interval numbered 0 mod 8 to the next. */
IC_INTERNAL int32_t ic__jpeg_restart_cut_period(const ic_jpeg_restart_map *map);

/* ---- stripes (jpeg_restart.c) --------------------------------------------------------- */

/* The output rows a decode writes and what its rows cost, for the planner. */
typedef struct ic_jpeg_stripe_request {
    int32_t lines;          /* output rows per MCU row (max_v_samp * scale_num) */
    int32_t out_height;     /* output rows of the whole (scaled) image */
    int32_t y0, y1;         /* output rows written: [y0, y1) */
    int32_t overlap;        /* MCU rows each stripe decodes above its own (chroma context) */
    int even;               /* stripes must start on even output rows (4:2:0 output) */
    double byte_cost;       /* cost of decoding one entropy-coded byte, ... */
    double mcu_row_cost;    /* ... of the fixed per-block work of one MCU row, ... */
    double written_row_cost;/* ... and of one output row of the rows that are written */
    int32_t max_stripes;
} ic_jpeg_stripe_request;

typedef struct ic_jpeg_stripe {
    int32_t first_row;      /* MCU row its decode starts at (an interval numbered 0 mod 8) */
    int32_t own_begin;      /* MCU rows whose warnings it reports: [own_begin, own_end) */
    int32_t own_end;        /* INT32_MAX for the last stripe */
    int32_t height;         /* pixel rows of the image its decoder sees (from first_row) */
    int32_t out_begin;      /* output rows it writes: [out_begin, out_end), never empty */
    int32_t out_end;
    size_t data_begin;      /* first entropy-coded byte it reads; it reads on to the end of the
                               file, so libjpeg sees as much data ahead as in a serial decode */
    int last;
} ic_jpeg_stripe;

enum { IC_JPEG_PLAN_MAX_STRIPES = 64 };

/* Cuts the rows of `req` into at most req->max_stripes (<= IC_JPEG_PLAN_MAX_STRIPES) stripes
 * of about equal cost, each decoded from an interval numbered 0 mod 8 (see jpeg_restart.c).
 * Returns the number of stripes (1: the file cannot be cut for this request). */
IC_INTERNAL int32_t ic__jpeg_plan_stripes(const ic_jpeg_restart_map *map, const ic_jpeg_stripe_request *req,
                                          ic_jpeg_stripe *stripes);

/* ---- encode in stripes (jpeg_encode_parallel.c) ---------------------------------------- */

enum { IC_JPEG_ENCODE_MAX_STRIPES = 64 };

/* A stripe's output: a whole JPEG of its rows. */
typedef struct ic_jpeg_part {
    uint8_t *data;
    size_t size;
    int owned;              /* malloc'd for the stripe (freed by ic__jpeg_stripes_free) */
} ic_jpeg_part;

typedef struct ic_jpeg_segment {
    const uint8_t *data;
    size_t size;
} ic_jpeg_segment;

typedef struct ic_jpeg_stripes {
    int32_t count;
    int32_t height, mcu_height, mcus_per_row, interval;
    int32_t first_row[IC_JPEG_ENCODE_MAX_STRIPES];      /* MCU rows */
    ic_jpeg_part part[IC_JPEG_ENCODE_MAX_STRIPES];
    uint8_t marker[IC_JPEG_ENCODE_MAX_STRIPES][2];      /* the RSTn before each stripe after the first */
    ic_jpeg_segment segment[2 * IC_JPEG_ENCODE_MAX_STRIPES + 1]; /* the joined file, in order */
    int32_t segments;       /* segment[0] is the first part (without its EOI) */
} ic_jpeg_stripes;

/* Encodes pixel rows [row0, row0 + rows) of the source as a JPEG of that height into `out`
 * (stripe `index`; the encode driver's callback). */
typedef ic_status (*ic_jpeg_encode_rows_fn)(void *context, int32_t row0, int32_t rows, int32_t index, ic_jpeg_part *out);

/* Cuts the image's MCU rows into up to set->threads stripes starting where a restart interval
 * of `interval` MCUs starts, encodes them in parallel with `fn` and joins them into the
 * segments of `out` (see jpeg_encode_parallel.c). Returns 0 when the image cannot be cut
 * (nothing was encoded), 1 when it ran, with the first failure in *status; the caller frees
 * the parts with ic__jpeg_stripes_free. */
IC_INTERNAL int ic__jpeg_encode_parallel(const ic__settings *set, int32_t width, int32_t height, int32_t mcu_width,
                                         int32_t mcu_height, int32_t interval, ic_jpeg_encode_rows_fn fn,
                                         void *context, ic_jpeg_stripes *out, ic_status *status);
IC_INTERNAL void ic__jpeg_stripes_free(ic_jpeg_stripes *s);

#endif
