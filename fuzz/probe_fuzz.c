/* libFuzzer harness over the header probe, the EXIF parser (on the input as a JPEG, as an
 * APP1 payload and as a bare TIFF structure), the EXIF thumbnail finder, and the scale helpers
 * with fuzzer-chosen sizes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    fuzz_expect(st, 1);
    if (st == IC_OK) {
        if (info.width < 1 || info.height < 1 || info.orientation < 1 || info.orientation > 8) FUZZ_FAIL();
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
    fuzz_in in = {data, size};
    const int32_t w = (int32_t)fuzz_u32(&in, UINT32_MAX), h = (int32_t)fuzz_u32(&in, UINT32_MAX);
    const int32_t tw = (int32_t)fuzz_u32(&in, UINT32_MAX), th = (int32_t)fuzz_u32(&in, UINT32_MAX);
    int32_t m = 0, sw = 0, sh = 0;
    if (ic_jpeg_pick_scale(w, h, tw, th, fuzz_raw_double(&in), &m) == IC_OK && (m < 1 || m > 8)) FUZZ_FAIL();
    if (ic_jpeg_scaled_size(w, h, (int32_t)fuzz_u32(&in, 9), &sw, &sh) == IC_OK && (sw < 1 || sh < 1)) FUZZ_FAIL();
    return 0;
}
