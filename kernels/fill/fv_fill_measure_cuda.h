/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure on the GPU (fv_fill_measure_cuda.cu), for the CUDA fill (private). */
#ifndef FV_FILL_MEASURE_CUDA_H
#define FV_FILL_MEASURE_CUDA_H

#include "fv_fill_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv_fill_measure_dev fv_fill_measure_dev;

/* Device bytes the measurement of a width x height frame takes (labels,
 * root lists, the sort's work space; parts: a second label plane). */
size_t fv_fill_measure_dev_bytes (int width, int height, int parts);
fv_status fv_fill_measure_dev_init (fv_fill_measure_dev **m, int width, int height, int parts);
/* The holes of hole_bits and, when filled_bits is not NULL, the parts of
 * filled_bits (both in the fill's tile layout for a width x height frame, at
 * most init's, on the device), measured on `stream` into pl's shown tables;
 * returns when they are there. */
fv_status fv_fill_measure_dev_run (fv_fill_measure_dev *m, fv_fill_plan *pl, int width,
    int height, const unsigned *hole_bits, const unsigned *filled_bits, void *stream);
/* After a run, for plane k (holes 0, parts 1) of n regions, into host
 * memory: each region's first pixel (y * width + x; n ints) and the region
 * of each of the frame's edge pixels, in the order top, bottom, left,
 * right (-1: none; 2 (width + height) ints); with ncontacts (a plane joined
 * 4-ways), the diagonal contacts of fv_fill_pieces found and counted there,
 * kept on the device for fv_fill_measure_dev_contacts. Returns when they
 * are there. */
fv_status fv_fill_measure_dev_pieces (fv_fill_measure_dev *m, int k, int n, int *first,
    int *edge, int *ncontacts, void *stream);
fv_status fv_fill_measure_dev_contacts (fv_fill_measure_dev *m, int *list, int n,
    void *stream);
void fv_fill_measure_dev_free (fv_fill_measure_dev *m);

#ifdef __cplusplus
}
#endif
#endif
