/* Private EXIF helpers (exif.c) shared by the JPEG and PNG codecs. Not installed. */
#ifndef IMAGECORE_EXIF_INTERNAL_H
#define IMAGECORE_EXIF_INTERNAL_H

#include "internal.h"

/* Writes the minimal APP1 payload carrying `orientation` (1..8): "Exif\0\0" and a TIFF
 * structure (PNG's eXIf chunk takes the TIFF part, from byte 6); returns its length (32). */
IC_INTERNAL size_t ic__exif_orientation_app1(uint8_t out[32], int32_t orientation);

#endif
