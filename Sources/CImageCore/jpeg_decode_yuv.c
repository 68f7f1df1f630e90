/* JPEG decode to I420 / NV12 through libjpeg's raw-data output (no colour conversion, no
 * upsampling), one iMCU row at a time.
 *
 * Scaled 4:2:0. With raw_data_out and M/8 scaling, libjpeg "helpfully" decodes chroma with a
 * larger IDCT so that it comes out at luma resolution (at 1/2, 8x8 chroma blocks instead of
 * 4x4): the result is no longer 4:2:0. tjDecompressToYUV2 undoes this after
 * jpeg_start_decompress by forcing each such component back to the luma IDCT size
 * (DCT_scaled_size, MCU_sample_width and the IDCT method pointer). We do the same, so the
 * planes are TurboJPEG's, sample for sample, at every scale. The IDCT method table lives in
 * libjpeg's private jpegint.h; its layout (a start_pass pointer followed by one method per
 * component) has been the same in every libjpeg-turbo release, and is mirrored below.
 *
 * Bands. Raw rows land in bounded band buffers (at most two iMCU rows of each component,
 * block-padded width) and are copied, interleaved (NV12) or resampled to 4:2:0 into the
 * destination or the stream's band. An uncropped 4:2:0 decode into a destination whose rows
 * match the block-padded width writes Y (and I420's U and V) straight into the caller's
 * planes, as TurboJPEG does, except for a final partial iMCU row. Nothing image-sized is ever
 * allocated. */
#include "jpeg_internal.h"
#include "row.h"

#include <string.h>

#if JPEG_LIB_VERSION >= 70
#define IC_MIN_DCT(cinfo) ((cinfo)->min_DCT_h_scaled_size)
#define IC_COMP_DCT(c) ((c)->DCT_h_scaled_size)
#define IC_SET_COMP_DCT(c, n) ((c)->DCT_h_scaled_size = (c)->DCT_v_scaled_size = (n))
#else
#define IC_MIN_DCT(cinfo) ((cinfo)->min_DCT_scaled_size)
#define IC_COMP_DCT(c) ((c)->DCT_scaled_size)
#define IC_SET_COMP_DCT(c, n) ((c)->DCT_scaled_size = (n))
#endif

/* jpegint.h's struct jpeg_inverse_dct (libjpeg-turbo 1.x to 3.x: same leading fields). */
typedef void (*ic_idct_method)(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY,
                               JDIMENSION);
struct ic_inverse_dct_layout {
    void (*start_pass)(j_decompress_ptr);
    ic_idct_method inverse_DCT[MAX_COMPONENTS];
};

enum { MAX_BAND_ROWS = 2 * 4 * 8 }; /* two iMCU rows of v_samp 4 at full size */

typedef struct yuv_job {
    j_decompress_ptr cinfo;
    const ic_jpeg_plan *p;
    ic_jpeg_sink *s;
    int nc;                        /* 1 (gray) or 3 */
    int rh, rv;                    /* luma : chroma sampling ratio */
    int32_t W, H;                  /* scaled output size */
    int32_t lines;                 /* luma rows per iMCU row */
    int32_t group;                 /* iMCU rows per band (2 when `lines` is odd) */
    int32_t th[3];                 /* rows per band, per component */
    uint8_t *buf[3];               /* band buffers */
    size_t iw[3];                  /* block-padded widths (band buffer strides) */
    uint8_t *tmp_u, *tmp_v;        /* resampled chroma rows */
    ic_row_merge_uv_fn interleave;
} yuv_job;

/* Copies the component rows the raw decode produced for band [y0, y0 + group * lines)
 * into the sink, pair of luma rows by pair, resampling chroma to 4:2:0 where needed.
 * `in_place` bits: 1 = Y already in the destination, 2 = U and V already there. */
static ic_status emit(yuv_job *j, int32_t y0, int in_place) {
    const ic_jpeg_plan *p = j->p;
    ic_jpeg_sink *s = j->s;
    const int32_t y_end = y0 + j->group * j->lines < j->H ? y0 + j->group * j->lines : j->H;
    int32_t sq0 = y0 / 2, sq1 = (y_end + 1) / 2;               /* chroma rows of this band */
    const int32_t cq0 = p->y / 2, cq1 = p->y / 2 + (p->height + 1) / 2; /* wanted ones */
    if (sq0 < cq0) sq0 = cq0;
    if (sq1 > cq1) sq1 = cq1;
    const int32_t cx = p->x / 2, cw = (p->width + 1) / 2;
    for (int32_t sq = sq0; sq < sq1; sq++) {
        const int32_t q = sq - cq0; /* output chroma row; output luma rows 2q, 2q + 1 */
        if (!(in_place & 1)) {
            for (int32_t l = 2 * sq; l < 2 * sq + 2; l++) {
                if (l >= p->y + p->height || l >= j->H) break;
                memcpy(ic__sink_row(s, 0, l - p->y), j->buf[0] + (size_t)(l - y0) * j->iw[0] + p->x,
                       (size_t)p->width);
            }
        }
        if (!(in_place & 2)) {
            const uint8_t *u, *v;
            if (j->nc == 1) {
                memset(j->tmp_u, 128, (size_t)cw);
                u = v = j->tmp_u;
            } else if (j->rh == 2 && j->rv == 2) {
                u = j->buf[1] + (size_t)(sq - y0 / 2) * j->iw[1] + cx;
                v = j->buf[2] + (size_t)(sq - y0 / 2) * j->iw[2] + cx;
            } else {
                /* Source rows for chroma row sq, and the native chroma width. */
                const int32_t ra = j->rv == 2 ? sq - y0 / 2 : 2 * sq - y0;
                const int32_t rb = j->rv == 2 ? ra : (2 * sq + 1 < j->H ? 2 * sq + 1 : j->H - 1) - y0;
                for (int c = 1; c <= 2; c++) {
                    ic_jpeg_chroma420_row_c(j->buf[c] + (size_t)ra * j->iw[c], j->buf[c] + (size_t)rb * j->iw[c],
                                            c == 1 ? j->tmp_u : j->tmp_v, cx, cw, j->rh, j->W);
                }
                u = j->tmp_u;
                v = j->tmp_v;
            }
            if (p->format == IC_FORMAT_NV12) {
                j->interleave(u, v, ic__sink_row(s, 1, q), (size_t)cw);
            } else {
                memcpy(ic__sink_row(s, 1, q), u, (size_t)cw);
                memcpy(ic__sink_row(s, 2, q), v, (size_t)cw);
            }
        }
        const int32_t end = 2 * q + 2 < p->height ? 2 * q + 2 : p->height;
        if (end == s->first + s->band.height || end == p->height) {
            ic_status st = ic__sink_flush(s, end);
            if (st != IC_OK) return st;
        }
    }
    return IC_OK;
}

ic_status ic__jpeg_decode_yuv(j_decompress_ptr cinfo, const ic_jpeg_plan *p) {
    yuv_job j;
    memset(&j, 0, sizeof j);
    j.cinfo = cinfo;
    j.p = p;
    j.s = p->sink;
    j.interleave = ic__row_pick_merge_uv(p->cpu); /* the call's settings snapshot */
    cinfo->raw_data_out = TRUE;
    /* Below full size every IDCT is libjpeg's accurate scaled one anyway; keeping ISLOW makes
     * the chroma override below use matching dequantisation tables (with JDCT_IFAST the
     * overridden chroma would get IFAST-scaled tables). */
    if (p->scale_num < 8) cinfo->dct_method = JDCT_ISLOW;
    ic__jpeg_start(cinfo);

    j.nc = cinfo->num_components;
    j.W = (int32_t)cinfo->output_width;
    j.H = (int32_t)cinfo->output_height;
    const int dct = IC_MIN_DCT(cinfo);
    jpeg_component_info *comp = cinfo->comp_info;
    if (j.nc == 3) {
        j.rh = comp[0].h_samp_factor / comp[1].h_samp_factor;
        j.rv = comp[0].v_samp_factor / comp[1].v_samp_factor;
    }
    /* Undo libjpeg's chroma IDCT upscaling (see the file comment). */
    for (int c = 1; c < j.nc; c++) {
        if (IC_COMP_DCT(&comp[c]) == dct) continue;
#if defined(LIBJPEG_TURBO_VERSION_NUMBER)
        IC_SET_COMP_DCT(&comp[c], dct);
        /* Only single-scan (interleaved) decoding reads MCU_sample_width, and there MCU_width ==
         * h_samp_factor. MCU_width itself is per-scan state, unset for a component whose scan
         * never came (a truncated multi-scan file): never read it. */
        comp[c].MCU_sample_width = comp[c].h_samp_factor * dct;
        struct ic_inverse_dct_layout *idct = (struct ic_inverse_dct_layout *)(void *)cinfo->idct;
        idct->inverse_DCT[c] = idct->inverse_DCT[0];
#else
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_UNSUPPORTED, "scaled YUV decode needs libjpeg-turbo");
#endif
    }
    j.lines = cinfo->max_v_samp_factor * dct;
    j.group = (j.lines & 1) ? 2 : 1;

    /* Band buffers and row-pointer arrays. */
    JSAMPROW rows[3][MAX_BAND_ROWS];
    for (int c = 0; c < j.nc; c++) {
        j.iw[c] = (size_t)comp[c].width_in_blocks * (size_t)dct;
        j.th[c] = comp[c].v_samp_factor * dct * j.group;
        if (j.th[c] > MAX_BAND_ROWS) ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_UNSUPPORTED, "sampling factors");
        j.buf[c] = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, j.iw[c] * (size_t)j.th[c]);
    }
    const size_t cw_max = (size_t)(p->width + 1) / 2 + 1;
    j.tmp_u = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, 2 * cw_max);
    j.tmp_v = j.tmp_u + cw_max;

    /* Straight into the destination: uncropped 4:2:0 (or gray) whose rows are exactly the
     * block-padded width, not streaming. */
    const ic_image *d = &j.s->band;
    const int whole = !j.s->fn && !p->cropped;
    const int y_direct = whole && (j.nc == 1 || (j.rh == 2 && j.rv == 2)) && j.iw[0] == (size_t)j.W;
    const int c_direct = whole && j.nc == 3 && j.rh == 2 && j.rv == 2 &&
                         p->format == IC_FORMAT_I420 && j.iw[1] == (size_t)((j.W + 1) / 2) &&
                         j.iw[2] == j.iw[1];
    const int32_t crows = (j.H + 1) / 2;

    const int32_t stop = p->y + p->height; /* no need to decode below the rectangle */
    for (int32_t y0 = 0; y0 < stop; y0 += j.group * j.lines) {
        /* In place only when the whole band lies inside the destination planes. */
        const int32_t y1 = y0 + j.group * j.lines;
        const int in_place = (y_direct && y1 <= j.H ? 1 : 0) |
                             (c_direct && y1 / 2 <= crows ? 2 : 0);
        for (int g = 0; g < j.group && cinfo->output_scanline < cinfo->output_height; g++) {
            const int32_t row = y0 + g * j.lines; /* == output_scanline */
            JSAMPARRAY planes[3];
            for (int c = 0; c < j.nc; c++) {
                const int32_t n = comp[c].v_samp_factor * dct;
                const int32_t crow = row * comp[c].v_samp_factor / cinfo->max_v_samp_factor;
                const int direct = in_place & (c == 0 ? 1 : 2);
                for (int32_t i = 0; i < n; i++) {
                    rows[c][g * n + i] = direct ? d->planes[c].data + (size_t)(crow + i) * d->planes[c].stride
                                                : j.buf[c] + (size_t)(g * n + i) * j.iw[c];
                }
                planes[c] = &rows[c][g * n];
            }
            if (jpeg_read_raw_data(cinfo, planes, (JDIMENSION)j.lines) == 0)
                ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_CORRUPT_DATA, "decoder made no progress");
        }
        ic_status st = emit(&j, y0, in_place);
        if (st != IC_OK) return st;
    }
    if (cinfo->output_scanline >= cinfo->output_height) jpeg_finish_decompress(cinfo);
    return IC_OK;
}
