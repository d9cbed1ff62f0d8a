/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one order in which every kernel's planner decides where a plan runs
 * (FFTW's way: one planner chooses among the solvers; the kernels' tables
 * hold the leaf back ends, and the chunked row is the wrapper that serves
 * frames larger than a device or spread over several):
 *
 *   1. the back end asked for exists in this build (fv_plan_backend_check:
 *      FV_ERR_NO_CUDA, or FV_ERR_INVALID naming it);
 *   2. a CUDA plan of a whole frame (frame.roi_width 0: not a window of
 *      one) runs in chunks when its frame.spread asks for them (several devices, another device,
 *      min_chunks) or when the whole-frame plan's device bytes pass the
 *      budget (fv_spread_chunked);
 *   3. the host memory of the row chosen fits the process's limit
 *      (fv_memory_check: FV_ERR_INVALID with the figures). A chunked row
 *      counts what it keeps itself; the sub-plans it makes through the
 *      kernel's planner are checked there, each at its chunk's size.
 *
 * One kernel departs from step 2 by design: the box filter's whole-frame
 * CUDA plan meets a budget itself, in bands of rows, so it asks for chunks
 * only when its init runs out of device memory (fv_box_planner.c). */
#ifndef FV_PLANNER_H
#define FV_PLANNER_H

#include <stddef.h>
#include "fv_plan.h"
#include "fv_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  fv_backend backend;          /* asked for */
  const void *leaf_init;       /* the kernel table's init for it (NULL: absent in this build) */
  const fv_frame *frame;       /* the frame the plan is for (the head of the kernel's
                                * parameters): its window (a window is never chunked) and
                                * its spread, with any chunks the kernel itself needs in
                                * min_chunks */
  size_t device_bytes;         /* the whole-frame CUDA plan's device bytes (0: chunks only
                                * where the spread asks) */
  double host_bytes[2];        /* host bytes: [0] the leaf plan's, [1] the chunked row's own */
  const char *what;            /* the plan, in words ("the fill's plan") */
} fv_plan_choice;

/* Steps 1 to 3 above: FV_OK and *chunked (1: the chunked row), or the
 * first step's refusal. */
fv_status fv_plan_choose (const fv_plan_choice *c, int device, int *chunked);

#ifdef __cplusplus
}
#endif
#endif
