/* Private: whether two validated images share any byte of their planes. Used by the
 * kernels that read one image and write another, which refuse overlapping arguments
 * (the results would depend on the order of the writes). Not installed. */
#ifndef IMAGECORE_IMAGE_OVERLAP_H
#define IMAGECORE_IMAGE_OVERLAP_H

#include "internal.h"

/* 1 if any plane of `a` overlaps any plane of `b`; both descriptors must be valid. */
int ic__images_overlap(const ic_image *a, const ic_image *b);

#endif
