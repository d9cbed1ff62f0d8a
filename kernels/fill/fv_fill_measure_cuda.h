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
 * filled_bits (both in the fill's tile layout, on the device), measured on
 * `stream` into pl->regions and pl->parts; returns when they are there. */
fv_status fv_fill_measure_dev_run (fv_fill_measure_dev *m, fv_fill_plan *pl,
    const unsigned *hole_bits, const unsigned *filled_bits, void *stream);
void fv_fill_measure_dev_free (fv_fill_measure_dev *m);

#ifdef __cplusplus
}
#endif
#endif
