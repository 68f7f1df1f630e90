/* Restart-interval stripes: where a baseline JPEG's restart markers are (one pass over the
 * entropy-coded data) and how to cut its MCU rows into stripes of about equal cost at them.
 *
 * The scan is strict on purpose. A parallel decode must give the serial decode's pixels and
 * warnings; that holds when every restart interval is decoded from the same bytes in both,
 * i.e. when all the markers are where the restart interval says. Anything else (a missing,
 * extra or misnumbered marker, an empty interval, another marker inside the scan, no EOI
 * because the file is truncated) makes libjpeg resynchronise in ways a stripe that starts
 * at a marker cannot reproduce, so such files are decoded serially. */
#include "jpeg_restart.h"

#include <stdint.h>
#include <string.h>

enum { M_SOI = 0xD8, M_EOI = 0xD9, M_SOS = 0xDA, M_RST0 = 0xD0, M_RST7 = 0xD7, M_TEM = 0x01 };

int ic__jpeg_walk_header(const uint8_t *d, size_t size, size_t *sof_height, size_t *entropy) {
    if (size < 4 || d[0] != 0xFF || d[1] != M_SOI) return 0;
    size_t pos = 2;
    int sof = 0;
    while (pos < size) {
        if (d[pos] != 0xFF) return 0; /* garbage between segments: libjpeg warns, stay serial */
        while (pos < size && d[pos] == 0xFF) pos++;
        if (pos >= size) return 0;
        const uint8_t m = d[pos++];
        if (m == M_SOI || m == M_EOI || m == M_TEM || (m >= M_RST0 && m <= M_RST7)) return 0;
        if (size - pos < 2) return 0;
        const size_t len = (size_t)d[pos] << 8 | d[pos + 1];
        if (len < 2 || size - pos < len) return 0;
        if (m == 0xC0 || m == 0xC1) {
            if (sof || len < 8) return 0;
            sof = 1;
            *sof_height = pos + 3; /* length (2), precision (1), height (2) */
        } else if (m >= 0xC2 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            return 0; /* progressive, lossless, hierarchical or arithmetic frames */
        } else if (m == M_SOS) {
            if (!sof) return 0;
            *entropy = pos + len;
            return 1;
        }
        pos += len;
    }
    return 0;
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int32_t ic__jpeg_restart_period(int64_t interval, int64_t mcus_per_row) {
    return (int32_t)(interval / gcd64(interval, mcus_per_row));
}

int ic__jpeg_restart_geometry(j_decompress_ptr cinfo, const uint8_t *data, size_t size, ic_jpeg_restart_map *map) {
    memset(map, 0, sizeof *map);
    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->restart_interval == 0) return 0;
    if (cinfo->comps_in_scan != cinfo->num_components) return 0; /* one scan per component */
    if (cinfo->num_components == 1 &&
        (cinfo->comp_info[0].h_samp_factor != 1 || cinfo->comp_info[0].v_samp_factor != 1))
        return 0; /* a lone component's MCU is one block: keep the geometry simple */
    if (!ic__jpeg_walk_header(data, size, &map->sof_height, &map->entropy)) return 0;

    const int32_t mcu_w = cinfo->max_h_samp_factor * DCTSIZE, mcu_h = cinfo->max_v_samp_factor * DCTSIZE;
    map->image_height = (int32_t)cinfo->image_height;
    map->mcu_height = mcu_h;
    map->mcus_per_row = (int32_t)((cinfo->image_width + (JDIMENSION)mcu_w - 1) / (JDIMENSION)mcu_w);
    map->mcu_rows = (int32_t)((cinfo->image_height + (JDIMENSION)mcu_h - 1) / (JDIMENSION)mcu_h);
    map->interval = (int32_t)cinfo->restart_interval;
    map->period = ic__jpeg_restart_period(map->interval, map->mcus_per_row);
    map->starts = (map->mcu_rows + map->period - 1) / map->period;
    return map->starts >= 2; /* an interval starts below the first row */
}

int ic__jpeg_restart_scan(ic_jpeg_restart_map *map, const uint8_t *data, size_t size, uint32_t cpu, size_t *start) {
    const int64_t total_mcus = (int64_t)map->mcus_per_row * map->mcu_rows;
    const int64_t intervals = (total_mcus + map->interval - 1) / map->interval;
    map->start = start;
    map->start[0] = map->entropy;
    const ic_find_marker_fn find = ic__jpeg_pick_find_marker(cpu);
    int64_t k = 0;          /* the interval being read */
    int32_t next = 1;       /* the next row start to record ... */
    int64_t next_k = ic__restart_interval_at(map, map->period); /* ... begins this interval */
    size_t pos = map->entropy;
    for (;;) {
        const size_t p = find(data, pos, size);
        if (p + 1 >= size || p == pos) return 0; /* truncated (no EOI), or an empty interval */
        const uint8_t code = data[p + 1];
        if (code == M_EOI) {
            if (k + 1 != intervals) return 0;
            map->eoi = p;
            break;
        }
        if (code < M_RST0 || code > M_RST7 || (int64_t)(code - M_RST0) != (k & 7)) return 0;
        if (++k >= intervals) return 0; /* more markers than intervals */
        pos = p + 2;
        if (k == next_k) {
            map->start[next++] = pos;
            next_k = ic__restart_interval_at(map, next * map->period);
        }
    }
    if (next != map->starts) return 0;
    map->start[map->starts] = map->eoi;
    return 1;
}

int32_t ic__jpeg_restart_cut_period(const ic_jpeg_restart_map *m) {
    return ic__jpeg_restart_period(8 * (int64_t)m->interval, m->mcus_per_row);
}

/* ---- planning ------------------------------------------------------------------------ */

typedef struct planner {
    const ic_jpeg_restart_map *m;
    const ic_jpeg_stripe_request *r;
    int32_t last_row;        /* MCU row holding the last output row */
    int32_t aligned;         /* MCU rows between starts of intervals numbered 0 mod 8 */
} planner;

/* Entropy-coded bytes of MCU row `row`: its share of the bytes from its interval start to
 * the next one. */
static double row_bytes(const planner *p, int32_t row) {
    const ic_jpeg_restart_map *m = p->m;
    const int32_t j = row / m->period;
    return (double)(m->start[j + 1] - m->start[j]) / (double)m->period;
}

/* Entropy decoding and per-block work of MCU row `row`: all a skipped row costs. */
static double skip_cost(const planner *p, int32_t row) {
    return row_bytes(p, row) * p->r->byte_cost + p->r->mcu_row_cost;
}

/* A fully decoded row: upsampling and colour conversion on top (whether written or not). */
static double full_cost(const planner *p, int32_t row) {
    return skip_cost(p, row) + p->r->written_row_cost * p->r->lines;
}

/* Cost of MCU row `row` to the stripe that owns it: rows above the first written one are only
 * entropy-decoded (skipped, as in a serial crop), the others fully. */
static double own_cost(const planner *p, int32_t row) {
    return (int64_t)(row + 1) * p->r->lines > p->r->y0 ? full_cost(p, row) : skip_cost(p, row);
}

/* The MCU row where a stripe that owns rows from `a` starts decoding: the nearest start of an
 * interval numbered 0 mod 8 at least `overlap` rows above it, after the previous stripe's
 * start. -1 if no stripe can own rows from `a`. */
static int32_t stripe_first(const planner *p, int32_t a, int32_t previous_first) {
    const ic_jpeg_stripe_request *r = p->r;
    if (a <= r->y0 / r->lines || a > p->last_row || a - r->overlap < 1) return -1;
    if (r->even && ((int64_t)a * r->lines) % 2) return -1;
    const int32_t s = (a - r->overlap) / p->aligned * p->aligned;
    if (s < 1 || s <= previous_first || (r->even && ((int64_t)s * r->lines) % 2)) return -1;
    return s;
}

/* What a stripe decodes before its own rows: skipped rows from its start, then the rows of
 * chroma context, decoded fully. */
static double lead_cost(const planner *p, int32_t first, int32_t a) {
    double c = 0;
    for (int32_t q = first; q < a; q++) c += q < a - p->r->overlap ? skip_cost(p, q) : full_cost(p, q);
    return c;
}

/* Greedy cut with every stripe's cost (lead, own rows, the context row below) at most
 * `limit`, each as long as it may be. Returns the number of stripes, or 0 if more than `n`
 * would be needed. */
static int32_t cut(const planner *p, double limit, int32_t n, int32_t *own, int32_t *first) {
    int32_t count = 1, a = 0;
    own[0] = first[0] = 0;
    double lead = 0;
    for (;;) {
        double cost = lead;
        int32_t best = -1, best_first = -1;
        double best_lead = 0;
        for (int32_t e = a; e <= p->last_row; e++) {
            cost += own_cost(p, e);
            if (cost > limit) break;
            /* Could the next stripe own rows from e + 1, with row e + 1 as this one's context? */
            if (e + 1 > p->last_row || cost + full_cost(p, e + 1) > limit) continue;
            const int32_t s = stripe_first(p, e + 1, first[count - 1]);
            if (s >= 0) best = e + 1, best_first = s;
        }
        if (cost <= limit) return count; /* the rest fits in this stripe */
        if (best < 0 || count == n) return 0;
        own[count] = a = best;
        first[count++] = best_first;
        best_lead = lead_cost(p, best_first, best);
        lead = best_lead;
    }
}

int32_t ic__jpeg_plan_stripes(const ic_jpeg_restart_map *m, const ic_jpeg_stripe_request *r,
                              ic_jpeg_stripe *stripes) {
    planner p = {m, r, (r->y1 - 1) / r->lines, 0};
    /* A stripe's decode starts where an interval numbered 0 mod 8 starts, because a fresh
     * decoder expects RST0 as the first marker. (Renumbering the markers on the fly would
     * allow any interval, but only by serving the data in pieces, which switches libjpeg's
     * Huffman decoder to its slow path near every piece's end; that path counts the bytes
     * of corrupt data differently, so warnings would differ from a serial decode's.) */
    p.aligned = ic__jpeg_restart_cut_period(m);
    int32_t n = r->max_stripes;
    if (n > IC_JPEG_PLAN_MAX_STRIPES) n = IC_JPEG_PLAN_MAX_STRIPES;
    if (n < 2 || p.last_row < 1 || p.aligned >= m->mcu_rows) return 1;

    /* The smallest largest-stripe cost (bisection over the greedy cut). */
    double total = 0;
    for (int32_t row = 0; row <= p.last_row; row++) total += own_cost(&p, row);
    int32_t own[IC_JPEG_PLAN_MAX_STRIPES + 1], first[IC_JPEG_PLAN_MAX_STRIPES + 1];
    double lo = total / n, hi = total;
    for (int i = 0; i < 40 && hi - lo > total * 1e-4; i++) {
        const double mid = (lo + hi) / 2;
        if (cut(&p, mid, n, own, first)) hi = mid;
        else lo = mid;
    }
    const int32_t count = cut(&p, hi, n, own, first);
    /* Not worth a second decompressor and a fork below a fifth off the serial time (a file
     * whose intervals numbered 0 mod 8 start only near the bottom, say). */
    if (count < 2 || hi > 0.8 * total) return 1;

    for (int32_t k = 0; k < count; k++) {
        ic_jpeg_stripe *s = &stripes[k];
        memset(s, 0, sizeof *s);
        s->last = k == count - 1;
        s->first_row = first[k];
        s->own_begin = own[k];
        s->own_end = s->last ? INT32_MAX : own[k + 1];
        /* A stripe decodes down to the row below its own (the chroma context of its last
         * rows); the last one sees the rest of the image, as the serial decode does. */
        const int32_t end_row = s->last ? m->mcu_rows : own[k + 1] + 1;
        const int64_t bottom = (int64_t)end_row * m->mcu_height;
        s->height = (int32_t)((bottom < m->image_height ? bottom : m->image_height) -
                              (int64_t)s->first_row * m->mcu_height);
        const int64_t ob = (int64_t)own[k] * r->lines, oe = s->last ? r->y1 : (int64_t)own[k + 1] * r->lines;
        s->out_begin = (int32_t)(ob > r->y0 ? ob : r->y0);
        s->out_end = (int32_t)(oe < r->y1 ? oe : r->y1);
        s->data_begin = m->start[s->first_row / m->period];
    }
    return count;
}
