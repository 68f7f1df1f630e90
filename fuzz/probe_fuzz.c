/* libFuzzer harness over the header probe (its EXIF offset / length checked against the bytes
 * they claim), the EXIF parser (on the input as a JPEG, as an
 * APP1 payload and as a bare TIFF structure), the EXIF orientation writer
 * (ic_exif_set_orientation), the EXIF thumbnail finder, and the scale helpers with
 * fuzzer-chosen sizes. */
#include "fuzz_common.h"

/* ic_exif_set_orientation on a copy of p[0..n): when it reports a rewrite, the reader sees the
 * new value and at most the 4-byte value field changed; otherwise nothing changed. */
static void check_set_orientation(const uint8_t *p, size_t n, int32_t want) {
    uint8_t *copy = (uint8_t *)malloc(n);
    memcpy(copy, p, n);
    const int32_t done = ic_exif_set_orientation(copy, n, want);
    size_t first = n, last = 0;
    for (size_t i = 0; i < n; i++)
        if (copy[i] != p[i]) { if (first == n) first = i; last = i; }
    if (done != 0 && done != 1) FUZZ_FAIL();
    if (!done && first != n) FUZZ_FAIL(); /* refused, yet written */
    if (done && (ic_exif_orientation(copy, n) != want || (first != n && last - first >= 4))) FUZZ_FAIL();
    if (ic_exif_set_orientation(copy, n, 0) != 0 || ic_exif_set_orientation(copy, n, 9) != 0) FUZZ_FAIL();
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    fuzz_expect(st, 1);
    if (st == IC_OK) {
        if (info.width < 1 || info.height < 1 || info.orientation < 1 || info.orientation > 8) FUZZ_FAIL();
        /* The EXIF fields: inside the input, right after an APP1 header and "Exif\0" + its pad
         * byte (any value, as exif.c reads it) whose segment length covers exactly them, and the
         * orientation read there is the probe's. */
        if (info.exif_length || info.exif_offset) {
            const uint64_t off = info.exif_offset, len = info.exif_length;
            if (!info.has_exif || off < 10 || off + len > size) FUZZ_FAIL();
            if (data[off - 10] != 0xFF || data[off - 9] != 0xE1 || memcmp(data + off - 6, "Exif\0", 5) != 0) FUZZ_FAIL();
            if (((uint64_t)data[off - 8] << 8 | data[off - 7]) != len + 8) FUZZ_FAIL();
            /* The orientation is the one of the segment found there (read as its APP1 payload);
             * where the bytes there start a TIFF header, read bare they give the same. */
            const int32_t eo = ic_exif_orientation(data + off - 6, (size_t)len + 6);
            if (info.orientation != (eo ? eo : 1)) FUZZ_FAIL();
            const int tiff = len >= 4 && (memcmp(data + off, "II*\0", 4) == 0 || memcmp(data + off, "MM\0*", 4) == 0);
            if (tiff && ic_exif_orientation(data + off, (size_t)len) != eo) FUZZ_FAIL();
        } else if (info.has_exif && info.orientation != 1) FUZZ_FAIL(); /* an empty EXIF has no tag */
        /* An EXIF thumbnail is only reported inside the data, starting with SOI. */
        if (info.thumbnail_length && ((uint64_t)info.thumbnail_offset + info.thumbnail_length > size ||
                                      data[info.thumbnail_offset] != 0xFF || data[info.thumbnail_offset + 1] != 0xD8))
            FUZZ_FAIL();
        ic_jpeg_exif_thumbnail t;
        const ic_status ts = ic_jpeg_find_exif_thumbnail(data, size, &t);
        if (ts != IC_OK && ts != IC_ERR_UNSUPPORTED) FUZZ_FAIL();
        if (ts == IC_OK && (t.offset != info.thumbnail_offset || t.length != info.thumbnail_length || t.content_x < 0 ||
                            t.content_y < 0 || t.content_width < 1 || t.content_height < 1 ||
                            t.content_x + t.content_width > t.width || t.content_y + t.content_height > t.height))
            FUZZ_FAIL();
        int32_t m = 0, sw = 0, sh = 0;
        if (ic_jpeg_pick_scale(info.width, info.height, 256, 256, 2.0, &m) != IC_OK || m < 1 || m > 8) FUZZ_FAIL();
        if (ic_jpeg_scaled_size(info.width, info.height, m, &sw, &sh) != IC_OK || sw < 1 || sh < 1) FUZZ_FAIL();
    }
    const int32_t o = ic_exif_orientation(data, size);
    if (o < 0 || o > 8) FUZZ_FAIL();
    if (size > 6) {
        const int32_t o2 = ic_exif_orientation(data + 6, size - 6);
        if (o2 < 0 || o2 > 8) FUZZ_FAIL();
    }
    /* The orientation writer on the input as APP1 payload / bare TIFF, and on the JPEG's own
     * EXIF from its "Exif\0\0" on (what the encoders hand it). */
    if (size > 0) {
        const int32_t want = 1 + (int32_t)(data[size - 1] % 8);
        check_set_orientation(data, size, want);
        const uint8_t *exif = (const uint8_t *)memmem(data, size, "Exif\0\0", 6);
        if (exif) check_set_orientation(exif, size - (size_t)(exif - data), want);
    }
    fuzz_in in = {data, size};
    const int32_t w = (int32_t)fuzz_u32(&in, UINT32_MAX), h = (int32_t)fuzz_u32(&in, UINT32_MAX);
    const int32_t tw = (int32_t)fuzz_u32(&in, UINT32_MAX), th = (int32_t)fuzz_u32(&in, UINT32_MAX);
    int32_t m = 0, sw = 0, sh = 0;
    if (ic_jpeg_pick_scale(w, h, tw, th, fuzz_raw_double(&in), &m) == IC_OK && (m < 1 || m > 8)) FUZZ_FAIL();
    if (ic_jpeg_scaled_size(w, h, (int32_t)fuzz_u32(&in, 9), &sw, &sh) == IC_OK && (sw < 1 || sh < 1)) FUZZ_FAIL();
    return 0;
}
