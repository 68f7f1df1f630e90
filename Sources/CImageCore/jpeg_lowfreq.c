/* The reduced progressive decoder's driver: whether a request qualifies, the walk over the
 * file's segments and scans, the choice of the scans to decode, and the row loop that turns
 * each iMCU row's coefficients into output rows.
 *
 * libjpeg decodes a progressive file by entropy-decoding every scan into a coefficient
 * buffer for the whole image (2 bytes per sample) before the first output row, also at 1/8
 * scale, where its 1x1 IDCT reads only the DC coefficient. Here the scans are found marker
 * to marker (a memchr for 0xFF per segment), the ones no reduced IDCT of this decode reads
 * are skipped without entropy decoding, and the kept ones advance together one iMCU row at a
 * time, so coefficient memory is one iMCU row, whatever the image size.
 *
 * Which coefficients a decode reads is libjpeg's choice, taken from the decompressor after
 * jpeg_calc_output_dimensions: each component's DCT_scaled_size (1, 2 or 4 here). A 1x1 IDCT
 * reads the DC coefficient only, so only DC scans are kept for such a component; the 2x2
 * and 4x4 IDCTs of jidctred.c read odd (and 2x2: also even) frequencies up to 7, so for such
 * a component every scan is kept (an AC refinement scan depends on the whole band's
 * history). At 1/8 that means the DC scans only for 4:4:4, 4:2:2 and gray files, and the
 * DC scans plus the (small) chroma scans for 4:2:0; at 1/4, all scans but in one row of
 * coefficient memory.
 *
 * A streamed file (ic_jpeg_decode_options::read_at) is read by offset, never whole: the walk
 * goes forward through one window (the skipped scans pass through it), then each kept scan's
 * cursor reads its data through a window of its own (jpeg_lowfreq_scan.c), so the kept scans
 * still advance together. libjpeg's own source is not moved, so a file left to libjpeg is
 * read by it from where its header reading stopped, as without this decoder.
 *
 * Everything unusual goes back to libjpeg, which then behaves exactly as without this
 * decoder: a segment or marker out of place, a truncated file, a scan script libjpeg warns
 * about, block smoothing (libjpeg smooths when some of the first AC coefficients were never
 * fully sent), any irregularity in the data of a kept scan. Not seen: corruption inside the
 * entropy-coded data of a skipped scan, which does not change the pixels of this decode
 * (libjpeg would warn about it); IC_JPEG_STRICT decodes therefore always use libjpeg. */
#include "jpeg_lowfreq_internal.h"

#include <string.h>

enum {
    M_SOF0 = 0xC0, M_SOF2 = 0xC2, M_DHT = 0xC4, M_DAC = 0xCC, M_RST0 = 0xD0, M_RST7 = 0xD7,
    M_SOI = 0xD8, M_EOI = 0xD9, M_SOS = 0xDA, M_DQT = 0xDB, M_DRI = 0xDD, M_APP0 = 0xE0,
    M_APP15 = 0xEF, M_COM = 0xFE, M_TEM = 0x01
};

/* libjpeg's limit on blocks in an interleaved MCU (D_MAX_BLOCKS_IN_MCU). */
enum { MAX_BLOCKS_IN_MCU = 10 };

/* Natural positions of the quantisation entries libjpeg's block smoothing divides by
 * (Q00 and the nine first AC coefficients in zigzag order). */
static const uint8_t smoothing_positions[10] = {0, 1, 8, 16, 9, 2, 3, 10, 17, 24};

/* Zigzag index -> natural index, for the DQT payload (zigzag order in the file). */
static const uint8_t zigzag_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct walk {
    j_decompress_ptr cinfo;    /* for scratch from libjpeg's pool */
    ic_lf_frame *frame;
    ic_lf_huff_spec dc[4], ac[4];
    uint16_t quant[4][64];
    int quant_defined[4];
    uint32_t restart_interval;
    int32_t scans;             /* SOS markers seen */
    int32_t max_scans;
    int seen_sof;
    ic_lf_scan **kept;         /* kept scans in file order (a growing array in the pool) */
    int32_t nkept, cap;
} walk;

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static int parse_dqt(walk *w, const uint8_t *p, size_t n) {
    while (n > 0) {
        const int prec = p[0] >> 4, slot = p[0] & 15;
        const size_t need = 1 + 64 * (size_t)(prec ? 2 : 1);
        if (prec > 1 || slot > 3 || n < need) return 0;
        for (int i = 0; i < 64; i++)
            w->quant[slot][zigzag_natural[i]] = (uint16_t)(prec ? be16(p + 1 + 2 * i) : p[1 + i]);
        w->quant_defined[slot] = 1;
        p += need;
        n -= need;
    }
    return 1;
}

static int parse_dht(walk *w, const uint8_t *p, size_t n) {
    while (n > 0) {
        if (n < 17) return 0;
        const int cls = p[0] >> 4, slot = p[0] & 15;
        if (cls > 1 || slot > 3) return 0;
        size_t count = 0;
        for (int l = 1; l <= 16; l++) count += p[l];
        if (count > 256 || n < 17 + count) return 0;
        ic_lf_huff_spec *t = cls ? &w->ac[slot] : &w->dc[slot];
        memset(t, 0, sizeof *t);
        memcpy(t->counts + 1, p + 1, 16);
        memcpy(t->symbols, p + 17, count);
        t->defined = 1;
        p += 17 + count;
        n -= 17 + count;
    }
    return 1;
}

/* ---- the walk's cursor -----------------------------------------------------------------------
 * The file read forward: in memory the window is the whole file; streamed, a window of
 * WALK_WINDOW bytes refilled from the reader (a segment, at most 65535 + 2 bytes, always fits). */

enum { WALK_WINDOW = 128 * 1024 };

typedef struct cursor {
    const ic_lf_file *file;
    const uint8_t *buf;  /* file bytes [offset, offset + len) */
    size_t len, pos;     /* next byte: buf[pos] */
    uint64_t offset;
    uint8_t *own;        /* streamed: the window's memory (WALK_WINDOW bytes), else NULL */
} cursor;

/* At least n (<= WALK_WINDOW) bytes at pos; 0 when the file ends first. */
static int ensure(cursor *c, size_t n) {
    if (c->len - c->pos >= n) return 1;
    if (!c->own) return 0;
    const size_t rest = c->len - c->pos;
    memmove(c->own, c->buf + c->pos, rest);
    c->offset += c->pos;
    c->pos = 0;
    c->buf = c->own;
    c->len = rest + ic__lf_file_read(c->file, c->offset + rest, c->own + rest, WALK_WINDOW - rest);
    return c->len >= n;
}

static uint64_t cursor_offset(const cursor *c) { return c->offset + c->pos; }

/* Passes n bytes. 0 when the file ends first. */
static int skip(cursor *c, uint64_t n) {
    while (c->len - c->pos < n) {
        n -= c->len - c->pos;
        c->pos = c->len;
        if (!ensure(c, 1)) return 0;
    }
    c->pos += (size_t)n;
    return 1;
}

/* Moves to the end of a scan's entropy-coded data: the first marker that is not RSTn (0xFF
 * 0x00 is a data byte; extra 0xFF before a marker are fill), leaving pos at its first 0xFF.
 * 0 when the file ends first (streamed: also a run of fill bytes longer than the window). */
static int scan_end(cursor *c) {
    for (;;) {
        const uint8_t *p = (const uint8_t *)memchr(c->buf + c->pos, 0xFF, c->len - c->pos);
        if (!p) {
            c->pos = c->len;
            if (!ensure(c, 1)) return 0;
            continue;
        }
        c->pos = (size_t)(p - c->buf);
        size_t k = 1;
        while (ensure(c, k + 1) && c->buf[c->pos + k] == 0xFF) k++;
        if (!ensure(c, k + 1)) return 0;
        const int m = c->buf[c->pos + k];
        if (m == 0 || (m >= M_RST0 && m <= M_RST7)) {
            c->pos += k + 1;
            continue;
        }
        return 1;
    }
}

/* Whether a component's reduced IDCT reads coefficients beyond DC. */
static int needs_ac(const ic_lf_component *c) { return c->needed && c->scaled > 1; }

static const ic_lf_huff *built_table(walk *w, const ic_lf_huff_spec *spec, int dc) {
    ic_lf_huff *h = (ic_lf_huff *)ic__jpeg_scratch((j_common_ptr)w->cinfo, sizeof *h);
    (void)ic__lf_huff_build(spec, dc, h); /* validated by the caller */
    return h;
}

/* One SOS: libjpeg's checks (get_sos, per_scan_setup, start_pass_phuff_decoder), then the
 * scan is kept (a cursor) or skipped. Returns 0 to leave the file to libjpeg. */
static int take_scan(walk *w, const uint8_t *hdr, size_t len, cursor *cur) {
    ic_lf_frame *f = w->frame;
    if (!w->seen_sof || len < 1) return 0;
    const int ns = hdr[0];
    if (ns < 1 || ns > 4 || len != (size_t)(2 * ns + 4)) return 0;
    if (++w->scans > w->max_scans) return 0; /* libjpeg refuses (IC_ERR_TOO_LARGE) */
    int comp[4], dct[4], act[4], last = -1, blocks = 0;
    for (int i = 0; i < ns; i++) {
        const int id = hdr[1 + 2 * i], tables = hdr[2 + 2 * i];
        int ci = -1;
        for (int k = 0; k < f->ncomp; k++)
            if (f->comp[k].id == id) { ci = k; break; }
        /* Components in frame order: what libjpeg's get_sos surely accepts. */
        if (ci <= last) return 0;
        last = ci;
        comp[i] = ci;
        dct[i] = tables >> 4;
        act[i] = tables & 15;
        blocks += f->comp[ci].h * f->comp[ci].v;
    }
    const int ss = hdr[1 + 2 * ns], se = hdr[2 + 2 * ns], ah = hdr[3 + 2 * ns] >> 4, al = hdr[3 + 2 * ns] & 15;
    if (ns > 1 && blocks > MAX_BLOCKS_IN_MCU) return 0;
    /* Scan parameters (libjpeg errors) and progression order (libjpeg warns). */
    const int dc_band = ss == 0;
    if (dc_band ? se != 0 : (ss > se || se > 63 || ns != 1)) return 0;
    if ((ah != 0 && al != ah - 1) || al > 13) return 0;
    for (int i = 0; i < ns; i++) {
        ic_lf_component *c = &f->comp[comp[i]];
        if (!dc_band && c->coef_bits[0] < 0) return 0;
        for (int k = ss; k <= se; k++) {
            const int expected = c->coef_bits[k] < 0 ? 0 : c->coef_bits[k];
            if (ah != expected) return 0;
            c->coef_bits[k] = al;
        }
        /* libjpeg copies a component's quantisation table when the component first appears. */
        if (!c->latched) {
            if (!w->quant_defined[c->qtable]) return 0;
            for (int k = 0; k < 64; k++) c->quant[k] = (int16_t)w->quant[c->qtable][k];
            memcpy(c->quant_raw, w->quant[c->qtable], sizeof c->quant_raw);
            c->latched = 1;
        }
        /* Tables it would build (and refuse if absent or invalid). */
        if (dc_band && ah == 0 && (dct[i] > 3 || !ic__lf_huff_build(&w->dc[dct[i]], 1, NULL))) return 0;
        if (!dc_band && (act[i] > 3 || !ic__lf_huff_build(&w->ac[act[i]], 0, NULL))) return 0;
    }
    /* The header is in the window, which scan_end may move: everything needed is copied. */
    const uint64_t data_offset = cursor_offset(cur);
    if (!scan_end(cur)) return 0; /* truncated */
    const uint64_t end_offset = cursor_offset(cur);

    /* DC scans are always decoded, also for a component the output does not read (gray from
     * YCbCr): they are small, and libjpeg's one fatal data error (a DC prediction overflow) and
     * the data-sanity rule's first-scan case both live there. */
    int keep = dc_band;
    for (int i = 0; i < ns; i++)
        if (needs_ac(&f->comp[comp[i]])) keep = 1;
    if (!keep) return 1;

    ic_lf_scan *s = (ic_lf_scan *)ic__jpeg_scratch((j_common_ptr)w->cinfo, sizeof *s);
    memset(s, 0, sizeof *s);
    s->kind = dc_band ? (ah ? IC_LF_DC_REFINE : IC_LF_DC_FIRST) : (ah ? IC_LF_AC_REFINE : IC_LF_AC_FIRST);
    s->ncomp = ns;
    for (int i = 0; i < ns; i++) {
        s->comp[i] = comp[i];
        f->comp[comp[i]].touched = 1;
        if (!dc_band) f->comp[comp[i]].cpb = 64;
    }
    s->ss = ss;
    s->se = se;
    s->ah = ah;
    s->al = al;
    s->restart_interval = w->restart_interval;
    s->data_offset = data_offset;
    s->end_offset = end_offset;
    if (!cur->own) { /* in memory: the scan's bytes in place */
        s->data = cur->file->data + data_offset;
        s->end = cur->file->data + end_offset;
    }
    if (s->kind == IC_LF_DC_FIRST)
        for (int i = 0; i < ns; i++) {
            int same = -1;
            for (int j = 0; j < i; j++)
                if (dct[j] == dct[i]) same = j;
            s->dc[i] = same >= 0 ? s->dc[same] : built_table(w, &w->dc[dct[i]], 1);
        }
    if (!dc_band) s->ac = built_table(w, &w->ac[act[0]], 0);
    if (w->nkept == w->cap) {
        const int32_t cap = w->cap ? w->cap * 2 : 16;
        ic_lf_scan **grown = (ic_lf_scan **)ic__jpeg_scratch((j_common_ptr)w->cinfo, sizeof *grown * (size_t)cap);
        if (w->nkept) memcpy(grown, w->kept, sizeof *grown * (size_t)w->nkept);
        w->kept = grown;
        w->cap = cap;
    }
    w->kept[w->nkept++] = s;
    return 1;
}

/* Walks SOI .. EOI. Returns 1 when every segment is one this decoder takes as libjpeg would
 * without a warning, and EOI is reached within the data. */
static int walk_file(walk *w, cursor *c) {
    if (!ensure(c, 4) || c->buf[0] != 0xFF || c->buf[1] != M_SOI) return 0;
    c->pos = 2;
    for (;;) {
        if (!ensure(c, 1) || c->buf[c->pos] != 0xFF) return 0; /* truncated, or bytes between segments */
        while (ensure(c, 1) && c->buf[c->pos] == 0xFF) c->pos++;
        if (!ensure(c, 1)) return 0;
        const int m = c->buf[c->pos++];
        if (m == M_EOI) return 1;
        if ((m >= M_RST0 && m <= M_RST7) || m == M_TEM) continue; /* parameterless; libjpeg ignores */
        if (!ensure(c, 2)) return 0;
        const size_t len = be16(c->buf + c->pos);
        if (len < 2) return 0;
        if ((m >= M_APP0 && m <= M_APP15) || m == M_COM) { /* metadata: passed over */
            if (!skip(c, len)) return 0;
            continue;
        }
        if (!ensure(c, len)) return 0;
        const uint8_t *body = c->buf + c->pos + 2;
        const size_t n = len - 2;
        c->pos += len;
        if (m == M_SOF2) {
            if (w->seen_sof) return 0;
            w->seen_sof = 1; /* the frame itself comes from libjpeg's reading of this segment */
        } else if (m == M_DHT) {
            if (!parse_dht(w, body, n)) return 0;
        } else if (m == M_DQT) {
            if (!parse_dqt(w, body, n)) return 0;
        } else if (m == M_DRI) {
            if (n != 2) return 0;
            w->restart_interval = be16(body);
        } else if (m == M_SOS) {
            if (!take_scan(w, body, n, c)) return 0;
        } else {
            return 0; /* other frame types, DAC, DNL, a second SOI, reserved markers */
        }
    }
}

/* libjpeg's smoothing_ok() on the final progression state: block smoothing is used when
 * some of the first nine AC coefficients of some component were not completely sent. */
static int libjpeg_would_smooth(const ic_lf_frame *f) {
    int useful = 0;
    for (int c = 0; c < f->ncomp; c++) {
        const ic_lf_component *k = &f->comp[c];
        for (int i = 0; i < 10; i++)
            if (k->quant_raw[smoothing_positions[i]] == 0) return 0;
        if (k->coef_bits[0] < 0) return 0;
        for (int i = 1; i < 10; i++)
            if (k->coef_bits[i] != 0) useful = 1;
    }
    return useful;
}

/* ---- frame and output plan ---------------------------------------------------------------- */

enum { UP_FULL, UP_FANCY_H2, UP_BOX };

typedef struct lowfreq {
    ic_lf_frame frame;
    const ic_jpeg_plan *plan;
    int min_scaled;
    int ycc;                         /* 3-component YCbCr (else 1-component gray) */
    int out_comps;                   /* components the output reads: 1 or 3 */
    int up[IC_LF_MAX_COMPONENTS];    /* UP_* per component */
    int hx[IC_LF_MAX_COMPONENTS], vx[IC_LF_MAX_COMPONENTS]; /* box factors */
    uint8_t *uprow[IC_LF_MAX_COMPONENTS];                     /* upsampled row per component */
    ic_jpeg_ycc_tables tables;
    ic_lf_scan **scans;
    int32_t nscans;
} lowfreq;

/* The frame from libjpeg's header reading and output dimensions. Returns 0 when the decode
 * is not one this decoder makes (libjpeg's upsampler choice needs context rows, an IDCT
 * size other than 1, 2, 4, ...). */
static int setup_frame(j_decompress_ptr cinfo, lowfreq *lf) {
    ic_lf_frame *f = &lf->frame;
    memset(f, 0, sizeof *f);
    const ic_format fmt = lf->plan->format;
    f->ncomp = cinfo->num_components;
    f->max_h = cinfo->max_h_samp_factor;
    f->max_v = cinfo->max_v_samp_factor;
    f->mcus_per_row = (int32_t)((cinfo->image_width + 8 * (JDIMENSION)f->max_h - 1) / (8 * (JDIMENSION)f->max_h));
    f->imcu_rows = (int32_t)cinfo->total_iMCU_rows;
    lf->min_scaled = cinfo->min_DCT_scaled_size;
    lf->ycc = f->ncomp == 3;
    lf->out_comps = lf->ycc && fmt != IC_FORMAT_GRAY8 ? 3 : 1;
    for (int c = 0; c < f->ncomp; c++) {
        const jpeg_component_info *ci = &cinfo->comp_info[c];
        ic_lf_component *k = &f->comp[c];
        k->id = ci->component_id;
        for (int j = 0; j < c; j++)
            if (f->comp[j].id == k->id) return 0;
        k->h = ci->h_samp_factor;
        k->v = ci->v_samp_factor;
        k->qtable = ci->quant_tbl_no;
        if (k->qtable < 0 || k->qtable > 3) return 0;
        k->width_in_blocks = (int32_t)ci->width_in_blocks;
        k->height_in_blocks = (int32_t)ci->height_in_blocks;
        k->scaled = ci->DCT_scaled_size;
        k->downsampled_width = (int32_t)ci->downsampled_width;
        k->needed = c < lf->out_comps;
        k->cpb = 1;
        for (int i = 0; i < 64; i++) k->coef_bits[i] = -1;
        if (!k->needed) continue;
        if (k->scaled != 1 && k->scaled != 2 && k->scaled != 4) return 0;
        /* libjpeg's upsampler choice (jdsample.c jinit_upsampler): triangle filtering only
         * when the smallest IDCT is larger than 1x1. */
        const int fancy = lf->min_scaled > 1;
        const int h_in = k->h * k->scaled / lf->min_scaled, v_in = k->v * k->scaled / lf->min_scaled;
        if (h_in == f->max_h && v_in == f->max_v) {
            lf->up[c] = UP_FULL;
        } else if (h_in * 2 == f->max_h && v_in == f->max_v && fancy && k->downsampled_width > 2) {
            lf->up[c] = UP_FANCY_H2;
        } else if ((h_in == f->max_h && v_in * 2 == f->max_v && fancy) ||
                   (h_in * 2 == f->max_h && v_in * 2 == f->max_v && fancy && k->downsampled_width > 2)) {
            return 0; /* vertical triangle filters read the neighbouring row groups */
        } else if (h_in > 0 && v_in > 0 && f->max_h % h_in == 0 && f->max_v % v_in == 0) {
            lf->up[c] = UP_BOX;
            lf->hx[c] = f->max_h / h_in;
            lf->vx[c] = f->max_v / v_in;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Row buffers for every component a kept scan touches, sample rows and upsampled rows for
 * the ones the output reads. All from libjpeg's pool (freed with the decompressor). */
static void allocate_rows(j_decompress_ptr cinfo, lowfreq *lf) {
    ic_lf_frame *f = &lf->frame;
    const int32_t out_w = lf->plan->out_width;
    for (int c = 0; c < f->ncomp; c++) {
        ic_lf_component *k = &f->comp[c];
        if (!k->touched) continue;
        if (k->needed && k->scaled > 1) k->cpb = 64; /* the 2x2 and 4x4 IDCTs read whole blocks */
        k->cols = f->mcus_per_row * k->h;
        const size_t coefs = (size_t)k->v * (size_t)k->cols * (size_t)k->cpb;
        k->coef = (int16_t *)ic__jpeg_scratch((j_common_ptr)cinfo, coefs * sizeof(int16_t));
        if (!k->needed) continue;
        k->sample_stride = (size_t)k->width_in_blocks * (size_t)k->scaled;
        k->samples = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo,
                                                 k->sample_stride * (size_t)(k->v * k->scaled));
        if (lf->up[c] != UP_FULL) {
            size_t w = (size_t)out_w;
            if (lf->up[c] == UP_FANCY_H2 && (size_t)k->downsampled_width * 2 > w) w = (size_t)k->downsampled_width * 2;
            lf->uprow[c] = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, w);
        }
    }
}

/* Row `y` (0 .. rows per iMCU row) of component c, at output width. */
static const uint8_t *component_row(lowfreq *lf, int c, int32_t y) {
    ic_lf_component *k = &lf->frame.comp[c];
    switch (lf->up[c]) {
    case UP_FULL:
        return k->samples + (size_t)y * k->sample_stride;
    case UP_FANCY_H2:
        ic_jpeg_h2v1_fancy_row_c(k->samples + (size_t)y * k->sample_stride, k->downsampled_width, lf->uprow[c]);
        return lf->uprow[c];
    default:
        ic_jpeg_box_row_c(k->samples + (size_t)(y / lf->vx[c]) * k->sample_stride, lf->hx[c], lf->plan->out_width,
                          lf->uprow[c]);
        return lf->uprow[c];
    }
}

/* IDCT, upsampling and colour conversion of iMCU row `row` into the sink. */
static ic_status emit_row(lowfreq *lf, int32_t row) {
    ic_lf_frame *f = &lf->frame;
    const ic_jpeg_plan *p = lf->plan;
    ic_jpeg_sink *s = p->sink;
    for (int c = 0; c < lf->out_comps; c++) {
        ic_lf_component *k = &f->comp[c];
        int32_t block_rows = k->height_in_blocks - row * k->v;
        if (block_rows > k->v) block_rows = k->v;
        for (int32_t b = 0; b < block_rows; b++) {
            const int16_t *coef = k->coef + (size_t)b * (size_t)k->cols * (size_t)k->cpb;
            uint8_t *out = k->samples + (size_t)(b * k->scaled) * k->sample_stride;
            if (k->scaled == 1) ic_jpeg_idct_1x1_row_c(coef, k->cpb, k->width_in_blocks, k->quant, out);
            else if (k->scaled == 2) ic_jpeg_idct_2x2_row_c(coef, k->width_in_blocks, k->quant, out, k->sample_stride);
            else ic_jpeg_idct_4x4_row_c(coef, k->width_in_blocks, k->quant, out, k->sample_stride);
        }
    }
    const int32_t per_row = f->max_v * lf->min_scaled;
    const int32_t y0 = row * per_row;
    int32_t rows = p->height - y0;
    if (rows > per_row) rows = per_row;
    const int channels = p->format == IC_FORMAT_RGBA8 ? 4 : p->format == IC_FORMAT_RGB8 ? 3 : 1;
    for (int32_t y = 0; y < rows; y++) {
        uint8_t *out = ic__sink_row(s, 0, y0 + y);
        const uint8_t *l = component_row(lf, 0, y);
        if (lf->out_comps == 3) {
            const uint8_t *cb = component_row(lf, 1, y), *cr = component_row(lf, 2, y);
            ic_jpeg_ycc_rgb_row_c(&lf->tables, l, cb, cr, out, p->width, channels);
        } else if (channels == 1) {
            memcpy(out, l, (size_t)p->width);
        } else {
            ic_jpeg_gray_rgb_row_c(l, out, p->width, channels);
        }
        const int32_t next = y0 + y + 1;
        if (next == s->first + s->band.height || next == p->height) {
            ic_status st = ic__sink_flush(s, next);
            if (st != IC_OK) return st;
        }
    }
    return IC_OK;
}

/* All rows; with emit = 0 only the entropy decoding (the check before a stream's first band).
 * Returns IC_OK, IC_ERR_CANCELLED (from the sink), or IC_ERR_CORRUPT_DATA for data this
 * decoder leaves to libjpeg. */
static ic_status run_rows(lowfreq *lf, int emit) {
    ic_lf_frame *f = &lf->frame;
    for (int32_t i = 0; i < lf->nscans; i++) ic__lf_scan_reset(lf->scans[i]);
    for (int32_t r = 0; r < f->imcu_rows; r++) {
        for (int c = 0; c < f->ncomp; c++) {
            ic_lf_component *k = &f->comp[c];
            if (k->coef) memset(k->coef, 0, (size_t)k->v * (size_t)k->cols * (size_t)k->cpb * sizeof(int16_t));
        }
        for (int32_t i = 0; i < lf->nscans; i++)
            if (!ic__lf_scan_row(lf->scans[i], f, r)) return IC_ERR_CORRUPT_DATA;
        if (emit) {
            ic_status st = emit_row(lf, r);
            if (st != IC_OK) return st;
        }
    }
    for (int32_t i = 0; i < lf->nscans; i++)
        if (!ic__lf_scan_finished(lf->scans[i])) return IC_ERR_CORRUPT_DATA;
    return IC_OK;
}

static int eligible(j_decompress_ptr cinfo, const ic_jpeg_plan *p) {
    if (!cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8) return 0;
    if (p->scale_num != 1 && p->scale_num != 2) return 0;
    if (p->cropped) return 0;
    if (p->format != IC_FORMAT_RGBA8 && p->format != IC_FORMAT_RGB8 && p->format != IC_FORMAT_GRAY8) return 0;
    if (p->flags & (IC_JPEG_STRICT | IC_JPEG_FAST_UPSAMPLE | IC_JPEG_LIBJPEG_ONLY)) return 0;
    const int ycc = cinfo->num_components == 3 && cinfo->jpeg_color_space == JCS_YCbCr;
    const int gray = cinfo->num_components == 1 && cinfo->jpeg_color_space == JCS_GRAYSCALE;
    return ycc || gray;
}

/* Streamed: a window per kept scan, 32 KiB each for up to 8 scans, less for more (256 KiB in
 * all, but at least 4 KiB each: a window's cost is a read call per refill). */
static void give_windows(j_decompress_ptr cinfo, lowfreq *lf, const ic_lf_file *file) {
    size_t size = 32 * 1024;
    if (lf->nscans > 8) size = (256 * 1024) / (size_t)lf->nscans;
    if (size < 4 * 1024) size = 4 * 1024;
    for (int32_t i = 0; i < lf->nscans; i++) {
        ic_lf_scan *s = lf->scans[i];
        const uint64_t bytes = s->end_offset - s->data_offset;
        s->file = file;
        s->window_size = bytes < size ? (size_t)(bytes ? bytes : 1) : size;
        if (s->window_size < 2) s->window_size = 2;
        s->window = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, s->window_size);
    }
}

ic_status ic__jpeg_decode_lowfreq(j_decompress_ptr cinfo, const ic_lf_file *file, const ic_jpeg_plan *plan,
                                  int *used) {
    *used = 0;
    if (!eligible(cinfo, plan)) return IC_OK;
    lowfreq *lf = (lowfreq *)ic__jpeg_scratch((j_common_ptr)cinfo, sizeof *lf);
    memset(lf, 0, sizeof *lf);
    lf->plan = plan;
    if (!setup_frame(cinfo, lf)) return IC_OK;
    walk *w = (walk *)ic__jpeg_scratch((j_common_ptr)cinfo, sizeof *w);
    memset(w, 0, sizeof *w);
    w->cinfo = cinfo;
    w->frame = &lf->frame;
    w->max_scans = ((ic_jpeg_error *)cinfo->err)->max_scans;
    cursor cur;
    memset(&cur, 0, sizeof cur);
    cur.file = file;
    if (file->read_at) {
        cur.own = (uint8_t *)ic__jpeg_scratch((j_common_ptr)cinfo, WALK_WINDOW);
        cur.buf = cur.own;
    } else {
        cur.buf = file->data;
        cur.len = file->size;
    }
    if (!walk_file(w, &cur)) return IC_OK;
    for (int c = 0; c < lf->frame.ncomp; c++)
        if (!lf->frame.comp[c].latched) return IC_OK; /* a component without scans */
    if (libjpeg_would_smooth(&lf->frame)) return IC_OK;
    lf->scans = w->kept;
    lf->nscans = w->nkept;
    if (file->read_at) give_windows(cinfo, lf, file);
    allocate_rows(cinfo, lf);
    if (lf->out_comps == 3) ic__jpeg_ycc_tables_init(&lf->tables);

    /* A stream's bands cannot be taken back: check all the data first, unless the callback
     * accepts them again from row 0 (IC_JPEG_STREAM_RESTART). A destination can be rewritten by
     * libjpeg if the data turns out irregular halfway. */
    const int restartable = !plan->sink->fn || (plan->flags & IC_JPEG_STREAM_RESTART);
    if (!restartable && run_rows(lf, 0) != IC_OK) return IC_OK;
    ic_status st = run_rows(lf, 1);
    if (st == IC_ERR_CORRUPT_DATA) {
        if (restartable) {
            plan->sink->first = 0; /* libjpeg starts over at row 0 */
            return IC_OK;
        }
        /* Streamed to a stream callback: the data was whole a moment ago, and bands are out. */
        *used = 1;
        ic__jpeg_fail((j_common_ptr)cinfo, IC_ERR_CORRUPT_DATA, "the file could not be read again while it was decoded");
    }
    *used = 1;
    /* Every row came from whole, regular data (the data-sanity rule's valid_rows = height). */
    ((ic_jpeg_error *)cinfo->err)->decoding = 1;
    return st;
}
