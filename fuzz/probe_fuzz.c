/* libFuzzer harness over the header probe, the EXIF parser (on the input as a JPEG, as an
 * APP1 payload and as a bare TIFF structure), and the scale helpers with fuzzer-chosen sizes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ic_jpeg_info info;
    ic_status st = ic_jpeg_probe(data, size, &info);
    fuzz_expect(st, 1);
    if (st == IC_OK) {
        if (info.width < 1 || info.height < 1 || info.orientation < 1 || info.orientation > 8) FUZZ_FAIL();
        int32_t m = 0, sw = 0, sh = 0;
        if (ic_jpeg_pick_scale(info.width, info.height, 256, 256, 2.0, &m) != IC_OK || m < 1 || m > 8) FUZZ_FAIL();
        if (ic_jpeg_scaled_size(info.width, info.height, m, &sw, &sh) != IC_OK || sw < 1 || sh < 1) FUZZ_FAIL();
    }
    ic_jpeg_header hdr;
    fuzz_expect(ic_jpeg_read_header(data, size, &hdr), 1);
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
