/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fill plans: checks, and the back end chosen once per plan (the planner:
 * it calls the back ends; what they share is in fv_fill.c). */
#include "fv_config.h"   /* FV_HAVE_CUDA, for the tables' CUDA entries */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "fv_fill_plan.h"
#include "../common/fv_file.h"
#include "../common/fv_memory.h"
#include "../common/fv_planner.h"

static fv_status
check_image (const fv_fill_params *p, const fv_image *im, const char *what)
{
  if (!im || !im->data || im->width != p->frame.width || im->height != p->frame.height
      || im->channels != 1 || im->sample != FV_U8 || im->stride < (size_t) p->frame.width) {
    fv_set_last_error ("%s image does not match the plan (%dx%d GRAY8)", what, p->frame.width,
        p->frame.height);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

static const fv_fill_backend backends[] = {
  [FV_BACKEND_CPU] = { fv_fill_cpu_init, fv_fill_cpu_execute, NULL, fv_fill_cpu_free,
    fv_fill_cpu_bytes },
  [FV_BACKEND_CUDA] = { FV_CUDA_ENTRY (fv_fill_cuda_init), FV_CUDA_ENTRY (fv_fill_cuda_execute),
    FV_CUDA_ENTRY (fv_fill_cuda_wait), FV_CUDA_ENTRY (fv_fill_cuda_free),
    FV_CUDA_ENTRY (fv_fill_cuda_plan_bytes) },
};
/* chunks are filled (and their seams reconciled) before execute returns;
 * the runner's lanes have budgets of their own */
static const fv_fill_backend chunked_backend = {
  FV_CUDA_ENTRY (fv_fill_chunked_init), FV_CUDA_ENTRY (fv_fill_chunked_execute), NULL,
  FV_CUDA_ENTRY (fv_fill_chunked_free), NULL
};

size_t
fv_fill_plan_bytes (const fv_fill_params *p, fv_backend backend)
{
  size_t b = sizeof (fv_fill_plan);
  const fv_fill_plan probe = { .p = *p };
  if (backend == FV_BACKEND_CPU)
    b += backends[FV_BACKEND_CPU].bytes (&probe);
  /* CUDA: measured on the device; the regions' table grows with the
   * content, against the budget (fv_fill_grow) */
  return b;
}

fv_status
fv_fill_plan_create (fv_fill_plan **out, const fv_fill_params *p, fv_backend backend,
    int device, void *stream)
{
  *out = NULL;
  if (p && backend == FV_BACKEND_CPU && (long long) p->frame.width * p->frame.height
      >= (1LL << 31)) {
    fv_set_last_error ("a %dx%d frame has 2^31 pixels or more: the CPU fill takes fewer "
        "(the CUDA fill takes it in chunks)", p->frame.width, p->frame.height);
    return FV_ERR_INVALID;
  }
  if (p && (p->frame.width < 1 || p->frame.height < 1 || p->frame.width > FV_FILL_MAX_SIDE
      || p->frame.height > FV_FILL_MAX_SIDE)) {
    fv_set_last_error ("a %dx%d frame: the fill takes sides of 1 to %d pixels", p->frame.width,
        p->frame.height, 1 << 16);
    return FV_ERR_INVALID;
  }
  if (!p || p->threshold > 254 || p->fill_value > 255
      || (p->connectivity != 4 && p->connectivity != 8)
      || (p->output != FV_FILL_FILLED && p->output != FV_FILL_HOLES)
      || p->seeds < 0 || p->frame.threads < 0
      || p->measure < FV_FILL_MEASURE_NONE || p->measure > FV_FILL_MEASURE_BOTH) {
    fv_set_last_error ("invalid fill parameters");
    return FV_ERR_INVALID;
  }
  if (fv_frame_check_gray (&p->frame, "the fill") != FV_OK)
    return FV_ERR_INVALID;
  fv_fill_params q = *p;
  /* labels are 32-bit: frames of 2^31 pixels and more go in chunks under it */
  const long long px = (long long) p->frame.width * p->frame.height;
  if (backend == FV_BACKEND_CUDA && px >= (1LL << 31)
      && q.frame.spread.min_chunks < (int) (px >> 30) + 1)
    q.frame.spread.min_chunks = (int) (px >> 30) + 1;
  /* the order every kernel's planner keeps (fv_planner.h) */
  const fv_fill_plan whole = { .p = *p };
  const void *init = FV_PLAN_INIT (backend, backends);
  const fv_plan_choice choice = { backend, init, &q.frame,
    backend == FV_BACKEND_CUDA && init ? backends[backend].bytes (&whole) : 0,
    { (double) fv_fill_plan_bytes (&q, backend), (double) fv_fill_plan_bytes (&q,
          FV_BACKEND_CUDA) }, "the fill's plan" };
  int chunked = 0;
  fv_status bst = fv_plan_choose (&choice, device, &chunked);
  if (bst != FV_OK)
    return bst;
  fv_fill_plan *pl = calloc (1, sizeof *pl);
  if (!pl)
    return FV_ERR_NOMEM;
  pl->p = q;
  pl->backend = backend;
  /* runs and regions grow with the content, up to the limit left */
  pl->budget = (size_t) (fv_memory_limit () - fv_fill_plan_bytes (&q, backend));
  pl->be = chunked ? &chunked_backend : &backends[backend];
  fv_status st = pl->be->init (pl, device, stream);
  if (st != FV_OK) {
    fv_fill_plan_destroy (pl);
    return st;
  }
  *out = pl;
  return FV_OK;
}

fv_status
fv_fill_execute_async (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  fv_status st;
  if (!pl)
    return FV_ERR_INVALID;
  if ((st = check_image (&pl->p, src, "source")) != FV_OK
      || (st = check_image (&pl->p, dst, "destination")) != FV_OK)
    return st;
  pl->measured = 0;
  pl->nregions = pl->nparts = 0;
  return pl->be->execute (pl, src, dst);
}

fv_status
fv_fill_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  fv_status st = fv_fill_execute_async (pl, src, dst);
  return st == FV_OK ? fv_fill_wait (pl) : st;
}

fv_status
fv_fill_wait (fv_fill_plan *pl)
{
  if (!pl)
    return FV_ERR_INVALID;
  return pl->be->wait ? pl->be->wait (pl) : FV_OK;
}

/* The last frame's measurements, made now where the back end measures when
 * asked (CUDA); what = the flag the caller needs. */
static fv_status
measured (fv_fill_plan *pl, int what, const char *name)
{
  if (!(pl->p.measure & what)) {
    fv_set_last_error ("the fill plan was made without measuring %s", name);
    return FV_ERR_INVALID;
  }
#if FV_HAVE_CUDA
  /* the chunked back end measures every frame as it runs (fv_fill_chunked.c) */
  if (pl->be == &backends[FV_BACKEND_CUDA] && !pl->measured) {
    fv_status st = fv_fill_cuda_regions (pl);
    if (st != FV_OK)
      return st;
  }
#endif
  pl->measured = 1;
  return FV_OK;
}

/* One kind of the last frame's regions, handed out: the plan's own list
 * (CPU) or the back end's pinned table (CUDA). */
static fv_status
hand_out (fv_fill_plan *pl, int what, const fv_fill_region **list, int *n)
{
  if (!pl || !list || !n)
    return FV_ERR_INVALID;
  *list = NULL;
  *n = 0;
  const int parts = what == FV_FILL_MEASURE_PARTS;
  fv_status st = measured (pl, what, parts ? "parts" : "regions");
  if (st != FV_OK)
    return st;
  const fv_fill_region *shown = parts ? pl->shown_parts : pl->shown_regions;
  *list = shown ? shown : parts ? pl->parts : pl->regions;
  *n = parts ? pl->nparts : pl->nregions;
  return FV_OK;
}

fv_status
fv_fill_regions (fv_fill_plan *pl, const fv_fill_region **regions, int *n)
{
  return hand_out (pl, FV_FILL_MEASURE_BOTH, regions, n);
}

fv_status
fv_fill_parts (fv_fill_plan *pl, const fv_fill_region **parts, int *n)
{
  return hand_out (pl, FV_FILL_MEASURE_PARTS, parts, n);
}

void
fv_fill_plan_destroy (fv_fill_plan *pl)
{
  if (!pl)
    return;
  if (pl->be)
    pl->be->free (pl);
  fv_fill_measure_free (pl);
  fv_fill_pieces_join_free (pl);
  free (pl->regions);
  free (pl->parts);
  free (pl);
}
