/* Entropy decoding of progressive JPEG scans (ITU T.81 Annex G, Huffman), one cursor per
 * scan, one iMCU row per call.
 *
 * Each kept scan reads its own entropy-coded segment from its own position, so several scans
 * advance together row by row and a block's coefficients are complete (every kept scan has
 * visited it) before the row is turned into pixels. Decoding follows libjpeg's jdphuff.c
 * bit for bit on well-formed data; whatever libjpeg would warn about or refuse (a bad code,
 * data running out, a wrong restart marker, bytes left over) ends the call with 0, and the
 * driver hands the file to libjpeg, which then reports it as it always does. */
#include "jpeg_lowfreq_internal.h"

#include <limits.h>
#include <string.h>

/* Zigzag index -> natural (row-major) index. 16 extra entries: a corrupt run can push the
 * index up to 63 + 15, and libjpeg then writes coefficient 63, as this table does. */
static const uint8_t natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* ---- Huffman tables -------------------------------------------------------------------- */

int ic__lf_huff_build(const ic_lf_huff_spec *spec, int dc, ic_lf_huff *out) {
    if (!spec->defined) return 0;
    int total = 0;
    for (int l = 1; l <= 16; l++) total += spec->counts[l];
    if (total > 256) return 0;
    if (dc)
        for (int i = 0; i < total; i++)
            if (spec->symbols[i] > 15) return 0;
    if (out) {
        memset(out->fast, 0, sizeof out->fast);
        memcpy(out->symbols, spec->symbols, sizeof out->symbols);
    }
    /* Canonical codes (T.81 Annex C): consecutive within a length, doubled between lengths.
     * A length whose codes would reach all ones is an invalid tree, as libjpeg says. */
    uint32_t code = 0;
    int index = 0;
    for (int l = 1; l <= 16; l++) {
        const int n = spec->counts[l];
        if (out) {
            out->maxcode[l] = n ? (int32_t)(code + (uint32_t)n - 1) : -1;
            out->valoffset[l] = index - (int32_t)code;
            if (l <= IC_LF_LOOKAHEAD) {
                for (int i = 0; i < n; i++) {
                    const uint32_t first = (code + (uint32_t)i) << (IC_LF_LOOKAHEAD - l);
                    const uint16_t entry = (uint16_t)(l << 8 | spec->symbols[index + i]);
                    for (uint32_t k = 0; k < (1u << (IC_LF_LOOKAHEAD - l)); k++) out->fast[first + k] = entry;
                }
            }
        }
        code += (uint32_t)n;
        index += n;
        if (code >= (1u << l) && n > 0) return 0;
        code <<= 1;
    }
    if (out) out->maxcode[0] = out->maxcode[17] = -1;
    return 1;
}

/* ---- the file's bytes -------------------------------------------------------------------- */

size_t ic__lf_file_read(const ic_lf_file *f, uint64_t offset, uint8_t *buffer, size_t capacity) {
    size_t got = 0;
    if (offset < f->size) {
        got = f->size - (size_t)offset < capacity ? f->size - (size_t)offset : capacity;
        memcpy(buffer, f->data + offset, got);
    }
    while (got < capacity && f->read_at) {
        const size_t want = capacity - got;
        const size_t n = f->read_at(f->context, offset + got, buffer + got, want);
        if (n == 0 || n > want) break; /* the end, a read error, or a reader out of contract */
        got += n;
    }
    return got;
}

/* ---- bit reader ---------------------------------------------------------------------------- */

/* Streamed: the window's next bytes from file offset `offset` (< data_end). A window that
 * does not reach data_end is cut before a trailing run of 0xFF, so that a marker's bytes are
 * never split; a window of 0xFF only is passed over but for its last byte (extra 0xFF are
 * fill, which the reader skips anyway). Returns 0 when a read comes back short. */
static int load_window(ic_lf_bits *b, uint64_t offset) {
    for (;;) {
        const uint64_t left = b->data_end - offset;
        const size_t want = left < b->window_size ? (size_t)left : b->window_size;
        const size_t got = ic__lf_file_read(b->file, offset, b->window, want);
        if (got < want) {
            b->failed = 1;
            return 0;
        }
        size_t keep = got;
        if (offset + got < b->data_end) {
            while (keep > 0 && b->window[keep - 1] == 0xFF) keep--;
            if (keep == 0) {
                offset += got - 1; /* window_size >= 2 */
                continue;
            }
        }
        b->window_offset = offset;
        b->p = b->window;
        b->end = b->window + keep;
        return 1;
    }
}

/* Whether bytes of the scan remain at p (loading the next window of a streamed scan). */
static inline int more(ic_lf_bits *b) {
    if (b->p < b->end) return 1;
    if (!b->file || b->failed) return 0;
    const uint64_t offset = b->window_offset + (uint64_t)(b->p - b->window);
    return offset < b->data_end && load_window(b, offset);
}

/* Tops the buffer up to more than 56 bits. 0xFF 0x00 is a data 0xFF (extra 0xFF fill bytes
 * before the 0x00 are accepted, as libjpeg does); any other marker stops the reader, which
 * then supplies zero bits and counts them in `pad`. */
static void refill(ic_lf_bits *b) {
    while (b->n <= 56) {
        if (b->at_marker) {
            b->n += 8;
            b->pad += 8;
            continue;
        }
        if (!more(b)) {
            b->at_marker = 1;
            continue;
        }
        uint32_t c = *b->p;
        if (c == 0xFF) {
            const uint8_t *q = b->p + 1;
            while (q < b->end && *q == 0xFF) q++;
            if (q < b->end && *q == 0) {
                b->p = q + 1;
            } else {
                b->at_marker = 1;
                continue;
            }
        } else {
            b->p++;
        }
        b->buf |= (uint64_t)c << (56 - b->n);
        b->n += 8;
    }
}

static inline uint32_t get_bits(ic_lf_bits *b, int k) {
    if (k == 0) return 0;
    if (b->n < k) refill(b);
    const uint32_t v = (uint32_t)(b->buf >> (64 - k));
    b->buf <<= k;
    b->n -= k;
    return v;
}

/* One Huffman symbol, or -1 for a bit string that is no code of the table. */
static inline int huff_decode(ic_lf_bits *b, const ic_lf_huff *h) {
    if (b->n < 16) refill(b);
    const uint32_t e = h->fast[b->buf >> (64 - IC_LF_LOOKAHEAD)];
    if (IC_LIKELY(e != 0)) {
        const int l = (int)(e >> 8);
        b->buf <<= l;
        b->n -= l;
        return (int)(e & 0xFF);
    }
    for (int l = IC_LF_LOOKAHEAD + 1; l <= 16; l++) {
        const int32_t code = (int32_t)(b->buf >> (64 - l));
        if (code <= h->maxcode[l]) {
            b->buf <<= l;
            b->n -= l;
            return h->symbols[(code + h->valoffset[l]) & 0xFF];
        }
    }
    return -1;
}

/* T.81 F.12: the s-bit magnitude category value v as a signed number. */
static inline int extend(uint32_t v, int s) {
    return v < (1u << (s - 1)) ? (int)v - (1 << s) + 1 : (int)v;
}

/* libjpeg's (JCOEF)LEFT_SHIFT(v, al): the low 16 bits of v * 2^al. */
static inline int16_t scaled_coef(int v, int al) {
    return (int16_t)(uint16_t)((uint32_t)v << al);
}

/* ---- block decoders (jdphuff.c's four MCU kinds, one block each) ------------------------- */

static inline int dc_first(ic_lf_scan *s, int ci, int16_t *block) {
    ic_lf_bits *b = &s->br;
    const int t = huff_decode(b, s->dc[ci]);
    if (t < 0) return 0;
    int diff = 0;
    if (t) diff = extend(get_bits(b, t), t);
    const int pred = s->pred[ci];
    /* libjpeg refuses a prediction that would overflow (JERR_BAD_DCT_COEF). */
    if ((pred >= 0 && diff > INT_MAX - pred) || (pred < 0 && diff < INT_MIN - pred)) return 0;
    s->pred[ci] = pred + diff;
    block[0] = scaled_coef(pred + diff, s->al);
    return 1;
}

static inline void dc_refine(ic_lf_scan *s, int16_t *block) {
    if (get_bits(&s->br, 1)) block[0] = (int16_t)(block[0] | (1 << s->al));
}

static int ac_first(ic_lf_scan *s, int16_t *block) {
    if (s->eobrun > 0) {
        s->eobrun--;
        return 1;
    }
    ic_lf_bits *b = &s->br;
    const ic_lf_huff *h = s->ac;
    const int se = s->se, al = s->al;
    for (int k = s->ss; k <= se; k++) {
        const int t = huff_decode(b, h);
        if (t < 0) return 0;
        int r = t >> 4;
        const int size = t & 15;
        if (size) {
            k += r;
            const int v = extend(get_bits(b, size), size);
            block[natural_order[k]] = scaled_coef(v, al);
        } else if (r == 15) {
            k += 15; /* ZRL: sixteen zeros */
        } else {
            /* EOBr: this block and 2^r - 1 + (r appended bits) more end here. */
            uint32_t run = 1u << r;
            if (r) run += get_bits(b, r);
            s->eobrun = run - 1;
            break;
        }
    }
    return 1;
}

/* A correction bit for an already non-zero coefficient: raise its magnitude by p1. */
static inline void correct(ic_lf_bits *b, int16_t *c, int p1) {
    if (get_bits(b, 1) && (*c & p1) == 0) *c = (int16_t)(*c >= 0 ? *c + p1 : *c - p1);
}

static int ac_refine(ic_lf_scan *s, int16_t *block) {
    ic_lf_bits *b = &s->br;
    const int se = s->se;
    const int p1 = 1 << s->al;
    int k = s->ss;
    if (s->eobrun == 0) {
        for (; k <= se; k++) {
            const int t = huff_decode(b, s->ac);
            if (t < 0) return 0;
            int r = t >> 4;
            int size = t & 15;
            int value = 0;
            if (size) {
                if (size != 1) return 0; /* libjpeg warns: a new coefficient is always +-1 here */
                value = get_bits(b, 1) ? p1 : -p1;
            } else if (r != 15) {
                uint32_t run = 1u << r;
                if (r) run += get_bits(b, r);
                s->eobrun = run;
                break; /* the rest of the block as an EOB run, below */
            }
            /* Skip r zero-history coefficients (correcting the non-zero ones on the way), then
             * place the new one. */
            do {
                int16_t *c = block + natural_order[k];
                if (*c != 0) {
                    correct(b, c, p1);
                } else {
                    if (--r < 0) break;
                }
                k++;
            } while (k <= se);
            if (value) block[natural_order[k]] = (int16_t)value;
        }
    }
    if (s->eobrun > 0) {
        for (; k <= se; k++) {
            int16_t *c = block + natural_order[k];
            if (*c != 0) correct(b, c, p1);
        }
        s->eobrun--;
    }
    return 1;
}

/* ---- restarts and rows ------------------------------------------------------------------- */

void ic__lf_scan_reset(ic_lf_scan *s) {
    memset(&s->br, 0, sizeof s->br);
    if (s->file) {
        /* An empty window at the data's start: the first read loads it. */
        s->br.file = s->file;
        s->br.window = s->window;
        s->br.window_size = s->window_size;
        s->br.window_offset = s->data_offset;
        s->br.data_end = s->end_offset;
        s->br.p = s->br.end = s->window;
    } else {
        s->br.p = s->data;
        s->br.end = s->end;
    }
    memset(s->pred, 0, sizeof s->pred);
    s->eobrun = 0;
    s->restarts_to_go = s->restart_interval;
    s->next_restart = 0;
}

/* Whole bytes of data not yet consumed before the reader's marker: libjpeg counts them as
 * extraneous and warns. Reads ahead if the reader has not reached a marker yet. */
static int leftover_bytes(ic_lf_bits *b) {
    if (b->n - b->pad >= 8) return 1;
    if (!b->at_marker) refill(b);
    return b->n - b->pad >= 8;
}

/* At the end of a restart interval: the data must end here and RSTn (n = 0..7 in turn) follow. */
static int restart(ic_lf_scan *s) {
    ic_lf_bits *b = &s->br;
    if (leftover_bytes(b) || !more(b)) return 0;
    const uint8_t *q = b->p;
    while (q < b->end && *q == 0xFF) q++;
    if (q >= b->end || *q != 0xD0 + s->next_restart) return 0;
    b->p = q + 1;
    b->buf = 0;
    b->n = b->pad = b->at_marker = 0;
    s->next_restart = (s->next_restart + 1) & 7;
    memset(s->pred, 0, sizeof s->pred);
    s->eobrun = 0;
    s->restarts_to_go = s->restart_interval;
    return 1;
}

static inline int next_mcu(ic_lf_scan *s) {
    if (s->restart_interval) {
        if (s->restarts_to_go == 0 && !restart(s)) return 0;
        s->restarts_to_go--;
    }
    return 1;
}

static inline int decode_block(ic_lf_scan *s, int ci, int16_t *block) {
    switch (s->kind) {
    case IC_LF_DC_FIRST: return dc_first(s, ci, block);
    case IC_LF_DC_REFINE: dc_refine(s, block); return 1;
    case IC_LF_AC_FIRST: return ac_first(s, block);
    default: return ac_refine(s, block);
    }
}

int ic__lf_scan_row(ic_lf_scan *s, ic_lf_frame *f, int32_t row) {
    if (s->ncomp > 1) {
        /* Interleaved (DC only): MCU row `row`, h x v blocks of each component per MCU, the
         * dummy blocks past the right and bottom edges included. */
        for (int32_t m = 0; m < f->mcus_per_row; m++) {
            if (!next_mcu(s)) return 0;
            for (int ci = 0; ci < s->ncomp; ci++) {
                ic_lf_component *c = &f->comp[s->comp[ci]];
                for (int y = 0; y < c->v; y++) {
                    int16_t *block = c->coef + ((size_t)y * (size_t)c->cols + (size_t)m * (size_t)c->h) * (size_t)c->cpb;
                    for (int x = 0; x < c->h; x++, block += c->cpb)
                        if (!decode_block(s, ci, block)) return 0;
                }
            }
            if (s->br.n < s->br.pad) return 0; /* read past the data: libjpeg warns */
        }
        return !s->br.failed;
    }
    /* One component: its own block rows of the iMCU row, one block per MCU, no dummies. */
    ic_lf_component *c = &f->comp[s->comp[0]];
    const int32_t first = row * c->v;
    int32_t rows = c->height_in_blocks - first;
    if (rows > c->v) rows = c->v;
    for (int32_t y = 0; y < rows; y++) {
        int16_t *block = c->coef + (size_t)y * (size_t)c->cols * (size_t)c->cpb;
        for (int32_t x = 0; x < c->width_in_blocks; x++, block += c->cpb) {
            if (!next_mcu(s) || !decode_block(s, 0, block)) return 0;
            if (s->br.n < s->br.pad) return 0;
        }
    }
    return !s->br.failed;
}

int ic__lf_scan_finished(ic_lf_scan *s) {
    ic_lf_bits *b = &s->br;
    if (b->n < b->pad || leftover_bytes(b)) return 0;
    return !more(b) && !b->failed; /* the scan's own terminating marker, not an RSTn */
}
