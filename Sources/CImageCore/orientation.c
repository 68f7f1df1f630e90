/* The algebra of the 8 EXIF orientations (the dihedral group of the square).
 *
 * Each orientation is the 2x2 integer matrix that maps a source point, taken relative
 * to the image centre (x right, y down), to its output point; composing orientations
 * multiplies matrices. Deriving the tables from the matrices, rather than typing an 8x8
 * table, leaves nothing to get wrong by hand. The matrices follow the source-pixel
 * table in rotate.h, e.g. 6 (rotate 90 cw) reads (y, H-1-x), so a source point (u, v)
 * lands at (-v, u). */
#include "internal.h"

static const signed char k_matrix[9][4] = {
    {0, 0, 0, 0},   /* invalid */
    {1, 0, 0, 1},   /* 1 identity */
    {-1, 0, 0, 1},  /* 2 mirror left-right */
    {-1, 0, 0, -1}, /* 3 rotate 180 */
    {1, 0, 0, -1},  /* 4 mirror top-bottom */
    {0, 1, 1, 0},   /* 5 transpose */
    {0, -1, 1, 0},  /* 6 rotate 90 cw */
    {0, -1, -1, 0}, /* 7 transverse */
    {0, 1, -1, 0},  /* 8 rotate 90 ccw */
};

static int valid(ic_orientation o) { return o >= IC_ORIENTATION_UP && o <= IC_ORIENTATION_LEFT; }

static ic_orientation from_matrix(const int m[4]) {
    for (int o = 1; o <= 8; o++)
        if (k_matrix[o][0] == m[0] && k_matrix[o][1] == m[1] && k_matrix[o][2] == m[2] &&
            k_matrix[o][3] == m[3])
            return (ic_orientation)o;
    return IC_ORIENTATION_INVALID;
}

ic_orientation ic_orientation_compose(ic_orientation first, ic_orientation second) {
    if (!valid(first) || !valid(second)) return IC_ORIENTATION_INVALID;
    const signed char *a = k_matrix[first], *b = k_matrix[second];
    /* Applying `first` then `second` maps p to B (A p): the product B A. */
    const int m[4] = {b[0] * a[0] + b[1] * a[2], b[0] * a[1] + b[1] * a[3],
                      b[2] * a[0] + b[3] * a[2], b[2] * a[1] + b[3] * a[3]};
    return from_matrix(m);
}

ic_orientation ic_orientation_inverse(ic_orientation o) {
    if (!valid(o)) return IC_ORIENTATION_INVALID;
    /* Orthogonal matrices: the inverse is the transpose. */
    const signed char *a = k_matrix[o];
    const int m[4] = {a[0], a[2], a[1], a[3]};
    return from_matrix(m);
}

ic_status ic_oriented_size(ic_orientation o, int32_t width, int32_t height, int32_t *out_width,
                           int32_t *out_height) {
    if (!valid(o) || !out_width || !out_height || width < 1 || height < 1)
        return IC_ERR_INVALID_ARGUMENT;
    if (width > IC_MAX_DIMENSION || height > IC_MAX_DIMENSION) return IC_ERR_TOO_LARGE;
    const int swap = o >= IC_ORIENTATION_LEFT_MIRRORED;
    *out_width = swap ? height : width;
    *out_height = swap ? width : height;
    return IC_OK;
}
