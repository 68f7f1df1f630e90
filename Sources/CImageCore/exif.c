/* EXIF: the orientation tag (0x0112) read from IFD0 of an APP1 TIFF structure in either byte
 * order, the embedded JPEG thumbnail of IFD1, and the minimal APP1 the encoder writes to
 * carry an orientation.
 *
 * Hostile input: every offset and count is checked against the buffer with 64-bit
 * arithmetic before it is used, and only IFD0 and the IFD it links to are visited, so a
 * next-IFD pointer that loops back cannot make the parse long. */
#include "jpeg_internal.h"

#include <string.h>

typedef struct tiff {
    const uint8_t *p;
    size_t size;
    int big_endian;
} tiff;

static int read_u16(const tiff *t, uint64_t off, uint32_t *v) {
    if (off > t->size || t->size - off < 2) return 0;
    const uint8_t *b = t->p + off;
    *v = t->big_endian ? ((uint32_t)b[0] << 8 | b[1]) : ((uint32_t)b[1] << 8 | b[0]);
    return 1;
}

static int read_u32(const tiff *t, uint64_t off, uint32_t *v) {
    if (off > t->size || t->size - off < 4) return 0;
    const uint8_t *b = t->p + off;
    *v = t->big_endian ? ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3])
                       : ((uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0]);
    return 1;
}

enum { TAG_ORIENTATION = 0x0112, TYPE_SHORT = 3, TYPE_LONG = 4, ENTRY_BYTES = 12, TIFF_HEADER = 8 };

/* Opens the TIFF structure of an APP1 payload: `*skip` is the "Exif\0" + pad prefix (0 or 6,
 * normally present), `t` the structure past it, `*ifd0` IFD0's offset in it. 0 when the
 * header (byte order mark, 42) is not there. */
static int tiff_open(const uint8_t *data, size_t size, tiff *t, size_t *skip, uint32_t *ifd0) {
    if (!data) return 0;
    *skip = size >= 6 && memcmp(data, "Exif", 5) == 0 ? 6 : 0;
    if (size - *skip < TIFF_HEADER) return 0;
    t->p = data + *skip;
    t->size = size - *skip;
    if (t->p[0] == 'I' && t->p[1] == 'I') t->big_endian = 0;
    else if (t->p[0] == 'M' && t->p[1] == 'M') t->big_endian = 1;
    else return 0;
    uint32_t magic = 0;
    return read_u16(t, 2, &magic) && magic == 42 && read_u32(t, 4, ifd0);
}

/* The value of a one-number entry at `e` of type `type` and count `count`: SHORT per the
 * standard, LONG as a few writers use; both sit left-justified in the 4-byte value field,
 * in the file's byte order. 0 for another count or type, or a value outside the buffer. */
static int entry_value(const tiff *t, uint64_t e, uint32_t type, uint32_t count, uint32_t *value) {
    if (count != 1) return 0;
    if (type == TYPE_SHORT) return read_u16(t, e + 8, value);
    if (type == TYPE_LONG) return read_u32(t, e + 8, value);
    return 0;
}

/* Finds IFD0's orientation entry: its offset in `t` (opened by tiff_open, prefix `*skip`) and
 * its value; 0 when there is no well-formed entry (a truncated IFD ends the search). */
static uint64_t find_orientation(const uint8_t *data, size_t size, tiff *t, size_t *skip, uint32_t *type,
                                 uint32_t *value) {
    uint32_t ifd0 = 0, count = 0;
    if (!tiff_open(data, size, t, skip, &ifd0) || !read_u16(t, ifd0, &count)) return 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint64_t entry = (uint64_t)ifd0 + 2 + (uint64_t)i * ENTRY_BYTES;
        uint32_t tag = 0, n = 0;
        if (!read_u16(t, entry, &tag) || !read_u16(t, entry + 2, type) || !read_u32(t, entry + 4, &n)) return 0;
        if (tag != TAG_ORIENTATION) continue;
        return entry_value(t, entry, *type, n, value) ? entry : 0;
    }
    return 0;
}

int32_t ic_exif_set_orientation(uint8_t *data, size_t size, int32_t orientation) {
    if (!data || orientation < 1 || orientation > 8) return 0;
    tiff t;
    size_t skip = 0;
    uint32_t type = 0, value = 0;
    const uint64_t entry = find_orientation(data, size, &t, &skip, &type, &value);
    if (!entry || !read_u32(&t, entry + 8, &value)) return 0; /* the whole value field is inside */
    uint8_t *v = data + skip + entry + 8;
    const uint8_t o = (uint8_t)orientation;
    const int be = t.big_endian;
    if (type == TYPE_SHORT) { v[0] = be ? 0 : o; v[1] = be ? o : 0; }
    else { v[0] = be ? 0 : o; v[1] = 0; v[2] = 0; v[3] = be ? o : 0; }
    return 1;
}

int32_t ic_exif_orientation(const uint8_t *data, size_t size) {
    tiff t;
    size_t skip = 0;
    uint32_t type = 0, value = 0;
    if (!find_orientation(data, size, &t, &skip, &type, &value)) return 0;
    return value >= 1 && value <= 8 ? (int32_t)value : 0;
}

/* ---- IFD1: the embedded JPEG thumbnail ----------------------------------------------------
 * IFD0's next-IFD link leads to IFD1, whose JPEGInterchangeFormat (0x0201) and
 * JPEGInterchangeFormatLength (0x0202) give the thumbnail's offset (from the TIFF header) and
 * length. Only that one link is followed. A thumbnail is accepted when both tags are there
 * (LONG, or SHORT as a few writers use), the range lies inside the structure without
 * overlapping its header or either IFD, IFD1 does not say it is uncompressed (Compression 1),
 * and the bytes start with a JPEG SOI marker. Anything else means "no thumbnail". */

enum { TAG_COMPRESSION = 0x0103, TAG_JPEG_OFFSET = 0x0201, TAG_JPEG_LENGTH = 0x0202 };

/* [a, a + n) and [b, b + m) share a byte. */
static int overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m) { return a < b + m && b < a + n; }

/* One IFD's entry count and the end of its table (link included); 0 when it does not fit. */
static int ifd_extent(const tiff *t, uint32_t at, uint32_t *count, uint64_t *end) {
    if (!read_u16(t, at, count)) return 0;
    *end = (uint64_t)at + 2 + (uint64_t)*count * ENTRY_BYTES + 4;
    return *end <= t->size;
}

int ic__exif_thumbnail_range(const uint8_t *data, size_t size, size_t *offset, size_t *length) {
    tiff t;
    size_t base = 0;
    uint32_t ifd0 = 0, n0 = 0, ifd1 = 0, n1 = 0;
    uint64_t end0 = 0, end1 = 0;
    if (!tiff_open(data, size, &t, &base, &ifd0)) return 0;
    if (!ifd_extent(&t, ifd0, &n0, &end0) || !read_u32(&t, end0 - 4, &ifd1)) return 0;
    if (ifd1 < TIFF_HEADER || ifd1 == ifd0 || !ifd_extent(&t, ifd1, &n1, &end1)) return 0;
    if (overlaps(ifd0, end0 - ifd0, ifd1, end1 - ifd1)) return 0;
    uint32_t off = 0, len = 0;
    int have_off = 0, have_len = 0;
    for (uint32_t i = 0; i < n1; i++) {
        const uint64_t e = (uint64_t)ifd1 + 2 + (uint64_t)i * ENTRY_BYTES;
        uint32_t tag = 0, type = 0, count = 0, value = 0;
        if (!read_u16(&t, e, &tag) || !read_u16(&t, e + 2, &type) || !read_u32(&t, e + 4, &count)) return 0;
        if (tag != TAG_JPEG_OFFSET && tag != TAG_JPEG_LENGTH && tag != TAG_COMPRESSION) continue;
        if (!entry_value(&t, e, type, count, &value)) return 0;
        if (tag == TAG_COMPRESSION) { if (value == 1) return 0; }
        else if (tag == TAG_JPEG_OFFSET) { off = value; have_off = 1; }
        else { len = value; have_len = 1; }
    }
    if (!have_off || !have_len || len < 4 || (uint64_t)off + len > t.size) return 0;
    if (overlaps(off, len, 0, TIFF_HEADER) || overlaps(off, len, ifd0, end0 - ifd0) || overlaps(off, len, ifd1, end1 - ifd1))
        return 0;
    if (t.p[off] != 0xFF || t.p[off + 1] != 0xD8) return 0;
    *offset = base + off;
    *length = len;
    return 1;
}

/* The smallest APP1 payload holding one orientation: "Exif\0\0", a big-endian TIFF header,
 * IFD0 with the single Orientation entry, and a zero next-IFD offset. 32 bytes. */
size_t ic__exif_orientation_app1(uint8_t out[32], int32_t orientation) {
    static const uint8_t head[] = {
        'E', 'x', 'i', 'f', 0, 0,          /* APP1 identifier */
        'M', 'M', 0, 42, 0, 0, 0, 8,       /* TIFF header: big-endian, IFD0 at offset 8 */
        0, 1,                              /* one entry */
        0x01, 0x12, 0, TYPE_SHORT, 0, 0, 0, 1, /* Orientation, SHORT, count 1 */
    };
    memcpy(out, head, sizeof head);
    uint8_t *p = out + sizeof head;
    p[0] = 0; p[1] = (uint8_t)orientation; p[2] = 0; p[3] = 0; /* value, left-justified */
    memset(p + 4, 0, 4);                                        /* no next IFD */
    return sizeof head + 8;
}
