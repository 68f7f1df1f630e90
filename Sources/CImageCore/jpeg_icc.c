/* The ICC profile of a JPEG: APP2 "ICC_PROFILE" chunks found by a bounds-checked walk over the
 * marker segments before the first scan (the caller's bytes, read in place), checked and
 * reassembled in chunk-number order. libjpeg's jpeg_read_icc_profile would need the markers
 * saved (a copy of each) and a decompressor; this needs neither. */
#include "jpeg_internal.h"

#include <string.h>

typedef struct icc_chunk {
    const uint8_t *data;
    size_t size;
} icc_chunk;

/* Fills chunks[1..count] (count 0: no chunks). IC_ERR_CORRUPT_DATA for inconsistent chunks. */
static ic_status collect(const uint8_t *data, size_t size, icc_chunk chunks[256], int *count) {
    *count = 0;
    memset(chunks, 0, 256 * sizeof *chunks);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return IC_ERR_CORRUPT_DATA;
    size_t pos = 2;
    int seen = 0;
    while (pos < size) {
        if (data[pos] != 0xFF) break;
        while (pos < size && data[pos] == 0xFF) pos++;
        if (pos >= size) break;
        const uint8_t m = data[pos++];
        if (m == 0xDA || m == 0xD9 || m == 0xD8) break;        /* SOS, EOI, SOI */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;   /* no length */
        if (size - pos < 2) break;
        const size_t len = (size_t)data[pos] << 8 | data[pos + 1];
        if (len < 2 || size - pos < len) break;
        const uint8_t *p = data + pos + 2;
        const size_t n = len - 2;
        if (m == 0xE2 && n >= 14 && memcmp(p, "ICC_PROFILE\0", 12) == 0) {
            const int number = p[12], total = p[13];
            if (total == 0 || number == 0 || number > total) return IC_ERR_CORRUPT_DATA;
            if (*count && total != *count) return IC_ERR_CORRUPT_DATA;  /* chunks disagree on the count */
            if (chunks[number].data) return IC_ERR_CORRUPT_DATA;         /* duplicate */
            *count = total;
            chunks[number].data = p + 14;
            chunks[number].size = n - 14;
            seen++;
        }
        pos += len;
    }
    if (seen != *count) return IC_ERR_CORRUPT_DATA; /* missing chunks */
    return IC_OK;
}

ic_status ic_jpeg_icc_profile(const uint8_t *data, size_t size, uint8_t *out, size_t capacity,
                              size_t *profile_size) {
    if (!profile_size || (!data && size) || (!out && capacity)) return IC_ERR_INVALID_ARGUMENT;
    *profile_size = 0;
    icc_chunk chunks[256];
    int count = 0;
    ic_status st = collect(data, size, chunks, &count);
    if (st != IC_OK) return st;
    size_t total = 0;
    for (int i = 1; i <= count; i++) total += chunks[i].size;
    *profile_size = total;
    if (total > capacity) return IC_ERR_BUFFER_TOO_SMALL;
    if (total == 0) return IC_OK;
    for (int i = 1; i <= count; i++) {
        if (chunks[i].size) memcpy(out, chunks[i].data, chunks[i].size);
        out += chunks[i].size;
    }
    return IC_OK;
}
