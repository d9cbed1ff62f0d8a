/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Viola-Jones detection with a boosted cascade (fv_cascade.h), with the
 * results of OpenCV 4.6's CascadeClassifier::detectMultiScale: the same
 * pyramid (bit-exact linear resize per scale), window steps, variance
 * normalisation, stage thresholds and rectangle grouping. Plan once per
 * frame size, cascade and parameters; execute per frame.
 *
 * The CPU plan hands rows of every pyramid level to all cores from one
 * queue. The CUDA plan builds every level in one device buffer and scans
 * all of them with one launch of persistent warps. */
#ifndef FV_VJ_H
#define FV_VJ_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"
#include "fv_cascade.h"
#include "../common/fv_frame.h"

/* The largest frame side a detector plan takes (the element's caps say it). */
#define FV_VJ_MAX_SIDE (1 << 15)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int x, y, width, height; } fv_rect;

typedef struct {
  fv_rect box;
  int neighbors;     /* raw windows merged into the box (1 when not grouped) */
} fv_detection;

typedef struct {
  /* the frame: size and threads (one 8-bit channel, no window); CUDA
   * (frame.spread): the device budget and the devices (fv_chunk_run.h). A
   * plan beyond the budget, or spread, runs as groups of whole pyramid
   * levels, each built from the whole frame, their raw windows merged in
   * OpenCV's order before grouping: the same boxes as one plan. */
  fv_frame frame;
  double scale_factor;       /* > 1 */
  int min_neighbors;         /* >= 0; 0 returns the raw windows ungrouped */
  int min_width, min_height; /* 0 = the cascade's window */
  int max_width, max_height; /* 0 = the frame */
} fv_vj_params;

typedef struct fv_vj_plan fv_vj_plan;

/* The plan keeps a pointer to the cascade: it must outlive the plan. A
 * plan whose host memory (the levels' sums on the CPU) would pass
 * fv_memory_limit() is refused (FV_ERR_INVALID, the figures in
 * fv_last_error()) before its sums are allocated. */
fv_status fv_vj_plan_create (fv_vj_plan **plan, const fv_cascade *cascade,
    const fv_vj_params *params, fv_backend backend, int device, void *stream);

/* gray: one-channel GRAY8 of the plan's size, on the host (either plan) or
 * on the device (CUDA plan). The detections stay owned by the plan until
 * its next execute; *n may be 0. */
fv_status fv_vj_execute (fv_vj_plan *plan, const fv_image *gray,
    const fv_detection **detections, int *n);

/* The raw windows of the last execute, before grouping (tests, tools). */
const fv_rect *fv_vj_raw (const fv_vj_plan *plan, int *n);

/* The host bytes the plan takes. */
size_t fv_vj_plan_bytes (const fv_vj_plan *plan);

void fv_vj_plan_destroy (fv_vj_plan *plan);

/* OpenCV's groupRectangles(rects, min_neighbors, eps) with the neighbour
 * counts: classes of similar rectangles (transitive), averaged, classes of
 * min_neighbors or fewer dropped, and small boxes inside bigger, better
 * supported ones dropped. out holds at least n; returns the count. */
int fv_vj_group (const fv_rect *rects, int n, int min_neighbors, double eps,
    fv_detection *out);

#ifdef __cplusplus
}
#endif
#endif
