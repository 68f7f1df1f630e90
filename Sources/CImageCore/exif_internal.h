/* Private EXIF helpers (exif.c) shared by the JPEG and PNG codecs. Not installed. */
#ifndef IMAGECORE_EXIF_INTERNAL_H
#define IMAGECORE_EXIF_INTERNAL_H

#include "internal.h"

/* Writes the minimal APP1 payload carrying `orientation` (1..8): "Exif\0\0" and a TIFF
 * structure (PNG's eXIf chunk takes the TIFF part, from byte 6); returns its length (32). */
IC_INTERNAL size_t ic__exif_orientation_app1(uint8_t out[32], int32_t orientation);

/* IFD1's JPEG thumbnail in an APP1 payload ("Exif\0\0" + TIFF) or a bare TIFF structure:
 * 1 and its byte range relative to `data` when present and well-formed (see exif.c), else 0. */
IC_INTERNAL int ic__exif_thumbnail_range(const uint8_t *data, size_t size, size_t *offset, size_t *length);

#endif
