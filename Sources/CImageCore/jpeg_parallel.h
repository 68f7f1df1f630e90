/* Parallel decode over restart-interval stripes (jpeg_parallel.c). Not installed. */
#ifndef IMAGECORE_JPEG_PARALLEL_H
#define IMAGECORE_JPEG_PARALLEL_H

#include "jpeg_restart.h"

/* The source a stripe's decompressor reads (see jpeg_parallel.c). */
typedef struct ic_jpeg_stripe_source {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    size_t size;
    size_t begin;           /* first entropy-coded byte */
    const ic_jpeg_restart_map *map;
    int phase;
    uint8_t height[2];      /* the stripe's frame height, big-endian */
} ic_jpeg_stripe_source;

IC_INTERNAL void ic__jpeg_stripe_source_init(ic_jpeg_stripe_source *s, const uint8_t *data, size_t size,
                                             const ic_jpeg_restart_map *map, const ic_jpeg_stripe *stripe);

/* Installs an initialised stripe source (`context`) as cinfo's source manager. */
IC_INTERNAL void ic__jpeg_stripe_source_install(j_decompress_ptr cinfo, void *context);

/* Bytes of corrupt data libjpeg has skipped at restart markers but not reported yet: a later
 * marker's "extraneous bytes" warning will count them. A stripe that ends with some pending
 * would hide them from the stripe after it, so the decode is redone serially. */
IC_INTERNAL unsigned int ic__jpeg_pending_discards(j_decompress_ptr cinfo);

/* Decodes one stripe (the decode driver's callback): a decode of the request with the
 * stripe source installed and the stripe's rows as the crop, into `rows` (its output rows
 * [out_begin, out_end), as an image of that height).
 * Returns its status and fills `outcome`. */
typedef struct ic_jpeg_stripe_outcome {
    int32_t warnings;       /* warnings libjpeg raised, plus 1 if it ended with skipped bytes
                               pending (ic__jpeg_pending_discards) */
    uint64_t peak_memory;   /* its decompressor's peak (ic_jpeg_budget) */
} ic_jpeg_stripe_outcome;
typedef ic_status (*ic_jpeg_stripe_fn)(void *context, const ic_jpeg_stripe *stripe, uint64_t max_memory,
                                       ic_image *rows, ic_jpeg_stripe_source *src, ic_jpeg_stripe_outcome *outcome);

typedef struct ic_jpeg_parallel_job {
    const uint8_t *data;
    size_t size;
    ic__settings settings;          /* the call's snapshot: threads and CPU features */
    ic_jpeg_stripe_request request; /* max_stripes is set from the thread count */
    uint64_t max_memory;            /* the decode's memory budget (0: none), shared by the stripes */
    const ic_image *dst;            /* ic_jpeg_decode: the request's rows [y0, y1) */
    ic_jpeg_stripe_fn decode_stripe;
    void *context;
} ic_jpeg_parallel_job;

typedef enum ic_jpeg_parallel_result {
    IC_PARALLEL_NOT_SPLIT = 0,  /* the file or request cannot be split: nothing was written */
    IC_PARALLEL_DONE = 1,       /* decoded, every stripe cleanly */
    IC_PARALLEL_REDO = 2        /* a stripe met corrupt data (a warning) or failed */
} ic_jpeg_parallel_result;

/* After libjpeg has read the header into `cinfo` (the driver's decompressor, whose image pool
 * holds the restart map): scans the markers, plans the stripes and decodes them on up to
 * job->settings.threads threads; *stripes gets their number and *peak_memory the sum of
 * their decompressors' peaks. Each stripe's budget is an equal share of what the budget
 * leaves after the driver's decompressor (exceeding it makes the decode redo serially).
 *
 * On IC_PARALLEL_REDO the caller decodes serially with `cinfo` (still just past the header),
 * overwriting the stripes' rows. A stripe cannot reproduce everything libjpeg carries from
 * one restart interval to the next in corrupt data (bytes it skipped but has not reported
 * yet, which a later interval's warning then counts), so a decode that meets corruption
 * reports exactly what a serial decode reports by being one. Valid data costs nothing. */
IC_INTERNAL ic_jpeg_parallel_result ic__jpeg_decode_parallel(j_decompress_ptr cinfo, const ic_jpeg_parallel_job *job,
                                                            int32_t *stripes, uint64_t *peak_memory);

/* ic_jpeg_decode_stream in parallel: the rows are decoded in waves of one chunk per thread
 * into chunk buffers (slots), and after each wave the calling thread hands the finished bands
 * to the sink's callback in order (a band within one chunk straight from its slot, one that
 * spans two through the sink's band buffer), so the callback always runs on the calling
 * thread and sees the serial decode's bands. Chunks are as long as an 8 MiB budget for the
 * slots allows, and at least 16 MCU rows (each costs a decompressor and two rows decoded
 * twice); a full-size decode of a wide image stays serial.
 *
 * Returns IC_PARALLEL_NOT_SPLIT (nothing delivered), IC_PARALLEL_DONE (everything delivered,
 * or the callback stopped it: *status) or IC_PARALLEL_REDO: a chunk met corrupt data; the
 * bands before output row *resume were delivered (exactly as a serial decode's), and the
 * caller decodes serially, delivering from *resume on. */
IC_INTERNAL ic_jpeg_parallel_result ic__jpeg_stream_parallel(j_decompress_ptr cinfo, const ic_jpeg_parallel_job *job,
                                                            ic_jpeg_sink *sink, int32_t *resume, ic_status *status,
                                                            int32_t *stripes, uint64_t *peak_memory);

#endif
