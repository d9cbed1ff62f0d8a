/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Summed-area tables: S(x,y) = sum of I(x',y') over x' <= x, y' <= y,
 * kept modulo 2^32 or 2^64 (window sums taken as differences of four
 * entries stay exact as long as the window's true sum fits). */
#ifndef FV_SAT_H
#define FV_SAT_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_SAT_U32 = 4, FV_SAT_U64 = 8 } fv_sat_type; /* = bytes */

typedef struct {
  int width, height;
  int channels;        /* interleaved channels of the source */
  int channel;         /* which one to sum */
  fv_sample sample;
  fv_sat_type type;
  int squared;         /* sum I^2 instead of I */
  int threads;         /* CPU only, 0 = all cores */
} fv_sat_params;

typedef struct fv_sat_plan fv_sat_plan;

fv_status fv_sat_plan_create (fv_sat_plan **plan, const fv_sat_params *params,
    fv_backend backend, int device, void *stream);

/* table: width*height entries of the plan's type, table_stride bytes per
 * row, in the same memory space as the plan works (host for CPU, device
 * for CUDA; a CUDA plan also accepts a host src and uploads it). A CUDA
 * plan with a device source returns once the work is queued on its stream
 * (synchronize the stream passed at creation before reading the table);
 * with a host source it returns when the table is written. */
fv_status fv_sat_execute (fv_sat_plan *plan, const fv_image *src, void *table,
    size_t table_stride);

void fv_sat_plan_destroy (fv_sat_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
