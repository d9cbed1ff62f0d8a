/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seedless filling of closed contours: every pixel that cannot reach the
 * frame border through background pixels is filled. Plan once per size,
 * execute per frame.
 *
 * Contour pixels are those > threshold; the rest is background, connected
 * 4-ways (default) or 8-ways. FV_FILL_FILLED gives fill_value on contours
 * and enclosed background, 0 elsewhere (scipy.ndimage.binary_fill_holes);
 * FV_FILL_HOLES gives fill_value on enclosed background only. */
#ifndef FV_FILL_H
#define FV_FILL_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"
#include "../common/fv_chunk_run.h"

/* The largest frame side a fill plan takes (the element's caps say it). */
#define FV_FILL_MAX_SIDE (1 << 16)

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_FILL_FILLED = 0, FV_FILL_HOLES = 1 } fv_fill_output;

typedef struct {
  int width, height;
  unsigned threshold;      /* 0..254 */
  unsigned fill_value;     /* 0..255 */
  int connectivity;        /* of the background: 4 or 8 */
  fv_fill_output output;
  int seeds;               /* CPU interior seeds, 0 = from size and cores */
  int threads;             /* CPU threads, 0 = all cores */
  /* CUDA: the device memory budget and the devices a frame is spread over
   * (fv_chunk_run.h): beyond it, chunks filled alone and their seams
   * reconciled (fv_fill_chunked.c), exactly */
  fv_spread spread;
  /* also measure the enclosed regions of every frame (fv_fill_regions);
   * not on chunked CUDA plans */
  int measure;
} fv_fill_params;

/* An enclosed region: one connected component (in the background's
 * connectivity) of the enclosed background, that is of the pixels the fill
 * turns on that were not contour. Its box is inclusive of x, y and spans
 * width x height; area counts its pixels. */
typedef struct {
  int x, y, width, height;
  int64_t area;
} fv_fill_region;

typedef struct fv_fill_plan fv_fill_plan;

/* A plan whose host memory (its worst frame's runs included) would pass
 * fv_memory_limit() is refused (FV_ERR_INVALID, the figures in
 * fv_last_error()) before anything is allocated. */
fv_status fv_fill_plan_create (fv_fill_plan **plan, const fv_fill_params *params,
    fv_backend backend, int device, void *stream);

/* The host bytes a plan of params takes on that backend, at most. */
size_t fv_fill_plan_bytes (const fv_fill_params *params, fv_backend backend);

/* GRAY8 images of the plan's size (one channel). A CUDA plan takes host or
 * device images and returns when dst is written. */
fv_status fv_fill_execute (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);

/* Queues the work and returns: on a CUDA plan src must stay unchanged and
 * dst unread until fv_fill_wait() (pinned host memory makes the copies
 * truly asynchronous); on a CPU plan this is fv_fill_execute. */
fv_status fv_fill_execute_async (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);
fv_status fv_fill_wait (fv_fill_plan *plan);

/* The enclosed regions of the last frame executed (after fv_fill_wait for
 * an asynchronous one), ordered by their first pixel in raster order (top
 * row first, then leftmost); *regions stays valid until the next execute.
 * Needs a plan made with measure set. The same list on every back end. */
fv_status fv_fill_regions (fv_fill_plan *plan, const fv_fill_region **regions, int *n);

void fv_fill_plan_destroy (fv_fill_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
