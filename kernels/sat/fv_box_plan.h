/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The box-filter plan, shared by its CPU and CUDA halves (private). */
#ifndef FV_BOX_PLAN_H
#define FV_BOX_PLAN_H

#include "fv_box.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One border column of the CPU filter: its window sum as a combination of
 * the row's zero-padded prefix sums Pz[idx] (Pz[0] = 0), and how many
 * samples the window counts along x. */
typedef struct {
  int n, count;
  int idx[16];
  int64_t coef[16];
} fv_col_terms;

/* A back end (fv_plan.h), chosen once per plan. */
typedef FV_PLAN_BACKEND (fv_box_plan) fv_box_backend;

/* How a window plan (fv_box_roi.c) makes and runs its sub-plan, a
 * whole-frame plan: the planner's calls, handed to it in the plan so that
 * the back end names none of the planner's functions. */
typedef struct {
  fv_status (*create) (fv_box_plan **plan, const fv_box_params *p, fv_backend backend,
      int device, void *stream);
  fv_status (*execute) (fv_box_plan *plan, const fv_image *src, const fv_image *dst);
  void (*destroy) (fv_box_plan *plan);
  size_t (*bytes) (const fv_box_params *p, fv_backend backend);
} fv_box_whole_api;

struct fv_box_plan {
  fv_box_params p;
  fv_backend backend;
  const fv_box_backend *be;
  const fv_box_whole_api *whole;   /* the planner's, for window plans' sub-plans */
  int acc64;            /* window sums need 64 bits (else 32, modulo 2^32) */
  void *state;          /* the back end's own: fv_box_cpu, struct fv_box_cuda
                         * (fv_box_cuda.cu), or the chunked one's fv_chunked */
};

/* The CPU back end's state. */
typedef struct {
  int nthreads;
  int xl, xr;           /* interior columns [xl, xr): window inside the row */
  fv_col_terms *cols;   /* per column; used outside [xl, xr) */
  void *scratch;        /* nthreads blocks of scratch_stride bytes */
  size_t scratch_stride;
} fv_box_cpu;

fv_status fv_box_cpu_init (fv_box_plan *plan);
/* The host bytes fv_box_cpu_init allocates for p. */
size_t fv_box_cpu_bytes (const fv_box_params *p);
fv_status fv_box_cpu_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst);
void fv_box_cpu_free (fv_box_plan *plan);

fv_status fv_box_cuda_init (fv_box_plan *plan, int device, void *stream);
fv_status fv_box_cuda_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst);
void fv_box_cuda_free (fv_box_plan *plan);
/* Rows [row0, row0 + rows) of the result into dst (where row0 goes). */
fv_status fv_box_cuda_execute_rows (fv_box_plan *plan, const fv_image *src, const fv_image *dst,
    int row0, int rows);
/* Device bytes a whole-frame CUDA plan of p at width x height takes; the
 * plan's own (its table entry). */
size_t fv_box_cuda_bytes (const fv_box_params *p, int width, int height);
size_t fv_box_cuda_plan_bytes (const fv_box_plan *plan);

/* Window plans (roi_width > 0; fv_box_roi.c): a plan of the window grown
 * by the radius, run on that part of the frame. */
fv_status fv_box_roi_init (fv_box_plan *plan, int device, void *stream);
fv_status fv_box_roi_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst);
fv_status fv_box_roi_run (fv_box_plan *plan, const fv_image *src, const fv_image *dst, int x,
    int y, int w, int h);
void fv_box_roi_free (fv_box_plan *plan);
/* The host bytes of a window plan of p on that backend. */
size_t fv_box_roi_bytes (const fv_box_params *p, fv_backend backend,
    const fv_box_whole_api *whole);

/* Whether window sums (and sums of squares, in stddev mode) can exceed
 * 32 bits for these parameters. */
int fv_box_needs_acc64 (const fv_box_params *p);

/* Checks an image against the plan. */
fv_status fv_box_check_image (const fv_box_params *p, const fv_image *im, const char *what);
/* 16-bit samples at even addresses and strides (1 for 8-bit images). */
int fv_box_aligned (const fv_image *im);

#ifdef __cplusplus
}
#endif
#endif
