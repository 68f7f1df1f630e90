/* Private pieces of the PNG codec shared by png_*.c. Not installed. */
#ifndef IMAGECORE_PNG_INTERNAL_H
#define IMAGECORE_PNG_INTERNAL_H

#include "exif_internal.h"
#include "internal.h"

#include <spng.h>

/* ---- decoder context (png_source.c) ---------------------------------------------
 * A libspng decoder over the caller's bytes (read in place) with our limits set before any
 * chunk is read: image size at most IC_MAX_DIMENSION a side, the chunk cache (metadata libspng
 * keeps, and the largest inflated chunk, so a zlib bomb in iCCP stops there) and the CRC policy (strict: ancillary CRC errors are errors too). */
typedef struct ic_png_limits {
    uint64_t max_pixels;
    uint64_t max_memory;
    int strict;
    int32_t min_valid_permille;
} ic_png_limits;

/* Resolves zeros to the defaults; IC_ERR_INVALID_ARGUMENT for negative counts. */
IC_INTERNAL ic_status ic__png_limits(const ic_png_decode_options *o, ic_png_limits *out);

/* Creates the context (NULL on allocation failure). */
IC_INTERNAL spng_ctx *ic__png_open(const uint8_t *data, size_t size, const ic_png_limits *limits);

/* libspng error -> ic_status (limits -> TOO_LARGE, memory -> OUT_OF_MEMORY, else CORRUPT_DATA). */
IC_INTERNAL ic_status ic__png_status(int spng_error);

/* Reads IHDR and checks the pixel limit. */
IC_INTERNAL ic_status ic__png_header(spng_ctx *ctx, const ic_png_limits *limits, struct spng_ihdr *ihdr,
                                     char *message, size_t message_size);

/* Formats "what: libspng's message" into message[0..n). */
IC_INTERNAL void ic__png_message(char *message, size_t n, const char *what, int spng_error);

/* ---- chunk walk (png_probe.c) ----------------------------------------------------
 * The first eXIf chunk anywhere in the file, by a bounds-checked walk over chunk headers
 * (lengths and types only; CRCs are libspng's business). Returns the EXIF orientation 1..8,
 * 0 without a valid tag; *has_exif (optional) tells whether the chunk exists, *offset and
 * *length (optional) where its data is in the file (0, 0 without one). */
IC_INTERNAL int32_t ic__png_exif_orientation(const uint8_t *data, size_t size, int32_t *has_exif, size_t *offset,
                                             size_t *length);

/* ---- row kernels (png_rows.c) -----------------------------------------------------
 * Scalar references (no vector versions: zlib's inflate dominates a PNG decode). */

/* n RGBA16 pixels (host-endian, libspng's SPNG_FMT_RGBA16) to dc = 4 (RGBA8), 3 (RGB8, alpha
 * dropped) or 1 (GRAY8: the library's luma of the rounded RGB, row.h) channels, each sample rounded
 * (v + 128) / 257. */
IC_INTERNAL void ic_png_round16_row_c(const uint16_t *rgba16, uint8_t *dst, int dc, int32_t n);

#endif
