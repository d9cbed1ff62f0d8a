/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SAT plan, shared by its CPU and CUDA halves (private). */
#ifndef FV_SAT_PLAN_H
#define FV_SAT_PLAN_H

#include "fv_sat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A back end (fv_plan.h): execute's dst is the table, a view of the plan's
 * size whose data and stride are the table's (its entries of the plan's
 * type; the view's sample field is not used). */
typedef FV_PLAN_BACKEND (fv_sat_plan) fv_sat_backend;

struct fv_sat_plan {
  fv_sat_params p;
  fv_backend backend;
  const fv_sat_backend *be;
  int nthreads;
  void *state;          /* the back end's own (made by its init, freed by its free):
                         * the CPU's per-strip column sums, the CUDA half */
};

fv_status fv_sat_cpu_execute (fv_sat_plan *plan, const fv_image *src, void *table,
    size_t table_stride);
fv_status fv_sat_cuda_init (fv_sat_plan *plan, int device, void *stream);
fv_status fv_sat_cuda_execute (fv_sat_plan *plan, const fv_image *src, const fv_image *table);
void fv_sat_cuda_free (fv_sat_plan *plan);
/* Device bytes fv_sat_cuda_init allocates for the plan. */
size_t fv_sat_cuda_bytes (const fv_sat_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
