/* Header probe: libjpeg's jpeg_read_header for the frame (size, components, sampling,
 * progressive, restart interval) and a bounds-checked walk of our own over the marker
 * segments for EXIF and ICC, reading the caller's bytes in place (nothing is copied, unlike
 * jpeg_save_markers). */
#include "jpeg_internal.h"

#include <string.h>

enum {
    M_SOI = 0xD8, M_EOI = 0xD9, M_SOS = 0xDA, M_TEM = 0x01, M_RST0 = 0xD0, M_RST7 = 0xD7,
    M_APP1 = 0xE1, M_APP2 = 0xE2
};

void ic__jpeg_scan_markers(const uint8_t *data, size_t size, ic_jpeg_markers *out) {
    memset(out, 0, sizeof *out);
    if (!data || size < 2 || data[0] != 0xFF || data[1] != M_SOI) return;
    size_t pos = 2;
    while (pos < size) {
        if (data[pos] != 0xFF) return; /* not at a marker: stop (libjpeg would resync) */
        while (pos < size && data[pos] == 0xFF) pos++; /* fill bytes */
        if (pos >= size) return;
        const uint8_t m = data[pos++];
        if (m == M_SOS || m == M_EOI || m == M_SOI) return;
        if (m == M_TEM || (m >= M_RST0 && m <= M_RST7)) continue; /* no length */
        if (size - pos < 2) return;
        const size_t len = (size_t)data[pos] << 8 | data[pos + 1];
        if (len < 2 || size - pos < len) return; /* bad or truncated segment */
        const uint8_t *payload = data + pos + 2;
        const size_t n = len - 2;
        if (m == M_APP1 && !out->has_exif && n >= 6 && memcmp(payload, "Exif\0", 5) == 0) {
            out->has_exif = 1;
            out->orientation = ic_exif_orientation(payload, n);
            out->exif_offset = (size_t)(payload - data) + 6;
            out->exif_length = n - 6;
            size_t off = 0, len = 0;
            if (ic__exif_thumbnail_range(payload, n, &off, &len)) {
                out->thumb_offset = (size_t)(payload - data) + off;
                out->thumb_length = len;
            }
        } else if (m == M_APP2 && n >= 14 && memcmp(payload, "ICC_PROFILE\0", 12) == 0) {
            /* 12-byte identifier, then chunk number and chunk count, then profile bytes. */
            out->has_icc = 1;
            out->icc_size += (uint32_t)(n - 14);
        }
        pos += len;
    }
}

ic_jpeg_colorspace ic__jpeg_colorspace(J_COLOR_SPACE cs) {
    switch (cs) {
    case JCS_GRAYSCALE: return IC_JPEG_CS_GRAY;
    case JCS_YCbCr: return IC_JPEG_CS_YCBCR;
    case JCS_RGB: return IC_JPEG_CS_RGB;
    case JCS_CMYK: return IC_JPEG_CS_CMYK;
    case JCS_YCCK: return IC_JPEG_CS_YCCK;
    default: return IC_JPEG_CS_UNKNOWN;
    }
}

int ic__jpeg_yuv_decodable(ic_jpeg_colorspace cs, ic_jpeg_subsampling ss) {
    if (cs == IC_JPEG_CS_GRAY) return ss == IC_JPEG_SUBSAMP_GRAY; /* one component */
    return cs == IC_JPEG_CS_YCBCR && ss != IC_JPEG_SUBSAMP_UNKNOWN && ss != IC_JPEG_SUBSAMP_GRAY;
}

/* The luma-to-chroma sampling ratio, as TurboJPEG's getSubsamp reads it, generalised: both
 * chroma components share one factor pair that divides the first component's, and a fourth
 * (K) component, if any, samples like the first. */
ic_jpeg_subsampling ic__jpeg_subsampling(j_decompress_ptr cinfo) {
    const int n = cinfo->num_components;
    if (n == 1) return IC_JPEG_SUBSAMP_GRAY;
    if (n != 3 && n != 4) return IC_JPEG_SUBSAMP_UNKNOWN;
    const jpeg_component_info *c = cinfo->comp_info;
    const int h0 = c[0].h_samp_factor, v0 = c[0].v_samp_factor;
    const int hc = c[1].h_samp_factor, vc = c[1].v_samp_factor;
    if (c[2].h_samp_factor != hc || c[2].v_samp_factor != vc) return IC_JPEG_SUBSAMP_UNKNOWN;
    if (n == 4 && (c[3].h_samp_factor != h0 || c[3].v_samp_factor != v0)) return IC_JPEG_SUBSAMP_UNKNOWN;
    if (hc < 1 || vc < 1 || h0 % hc != 0 || v0 % vc != 0) return IC_JPEG_SUBSAMP_UNKNOWN;
    const int rh = h0 / hc, rv = v0 / vc;
    if (rh == 1 && rv == 1) return IC_JPEG_SUBSAMP_444;
    if (rh == 2 && rv == 1) return IC_JPEG_SUBSAMP_422;
    if (rh == 2 && rv == 2) return IC_JPEG_SUBSAMP_420;
    if (rh == 1 && rv == 2) return IC_JPEG_SUBSAMP_440;
    if (rh == 4 && rv == 1) return IC_JPEG_SUBSAMP_411;
    return IC_JPEG_SUBSAMP_UNKNOWN;
}

static ic_status probe_body(ic_jpeg_decoder *dec, void *context) {
    ic_jpeg_info *info = (ic_jpeg_info *)context;
    j_decompress_ptr cinfo = &dec->cinfo;
    (void)jpeg_read_header(cinfo, TRUE); /* a tables-only stream is an error (no image) */
    info->width = (int32_t)cinfo->image_width;
    info->height = (int32_t)cinfo->image_height;
    info->components = cinfo->num_components;
    info->colorspace = ic__jpeg_colorspace(cinfo->jpeg_color_space);
    info->subsampling = ic__jpeg_subsampling(cinfo);
    info->progressive = cinfo->progressive_mode ? 1 : 0;
    info->arithmetic = cinfo->arith_code ? 1 : 0;
    info->restart_interval = (int32_t)cinfo->restart_interval;
    info->adobe = cinfo->saw_Adobe_marker ? 1 : 0;
    if (info->width < 1 || info->height < 1) return IC_ERR_CORRUPT_DATA;
    return IC_OK;
}

ic_status ic_jpeg_probe(const uint8_t *data, size_t size, ic_jpeg_info *out) {
    if (!out || (!data && size)) return IC_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    /* Cheap rejection before creating a decompressor: a JPEG starts with SOI (FF D8). */
    if (size < 4 || data[0] != 0xFF || data[1] != M_SOI) return IC_ERR_CORRUPT_DATA;
    ic_jpeg_info info;
    memset(&info, 0, sizeof info);
    ic_jpeg_decoder dec;
    ic_status st = ic__jpeg_guard(&dec, data, size, 0, IC_JPEG_DEFAULT_MAX_SCANS, 0, probe_body, &info);
    if (st != IC_OK) return st;
    ic_jpeg_markers m;
    ic__jpeg_scan_markers(data, size, &m);
    info.orientation = m.orientation ? m.orientation : 1;
    info.has_exif = m.has_exif;
    info.has_icc = m.has_icc;
    info.icc_size = m.icc_size;
    info.exif_offset = (uint32_t)m.exif_offset; /* within a 64 KiB segment near the start */
    info.exif_length = (uint32_t)m.exif_length;
    if (m.thumb_length > 0 && m.thumb_offset <= UINT32_MAX && m.thumb_length <= UINT32_MAX) {
        info.thumbnail_offset = (uint32_t)m.thumb_offset;
        info.thumbnail_length = (uint32_t)m.thumb_length;
        int32_t tw = 0, th = 0;
        if (ic__jpeg_frame_size(data + m.thumb_offset, m.thumb_length, &tw, &th)) {
            info.thumbnail_width = tw;
            info.thumbnail_height = th;
            info.thumbnail_same_shape = ic__same_shape(info.width, info.height, tw, th);
        }
    }
    *out = info;
    return IC_OK;
}

int ic__same_shape(int32_t w, int32_t h, int32_t tw, int32_t th) {
    /* |th - tw * h / w| <= 1 or |tw - th * w / h| <= 1, in integers. */
    int64_t d = (int64_t)th * w - (int64_t)tw * h;
    if (d < 0) d = -d;
    return d <= (int64_t)(w > h ? w : h);
}

int ic__jpeg_frame_size(const uint8_t *data, size_t size, int32_t *width, int32_t *height) {
    if (size < 4 || data[0] != 0xFF || data[1] != M_SOI) return 0;
    size_t pos = 2;
    while (pos + 4 <= size) {
        if (data[pos] != 0xFF) return 0;
        while (pos < size && data[pos] == 0xFF) pos++;
        if (pos >= size) return 0;
        const uint8_t m = data[pos++];
        if (m == M_SOS || m == M_EOI || m == M_SOI) return 0; /* no frame header before the data */
        if (m == M_TEM || (m >= M_RST0 && m <= M_RST7)) continue;
        if (size - pos < 2) return 0;
        const size_t len = (size_t)data[pos] << 8 | data[pos + 1];
        if (len < 2 || size - pos < len) return 0;
        /* SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC): P, Y (2), X (2), ... */
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (len < 8) return 0;
            *height = (int32_t)((uint32_t)data[pos + 3] << 8 | data[pos + 4]);
            *width = (int32_t)((uint32_t)data[pos + 5] << 8 | data[pos + 6]);
            return *width > 0 && *height > 0;
        }
        pos += len;
    }
    return 0;
}
