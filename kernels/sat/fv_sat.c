/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAT plans: checks, and the back end chosen once per plan. */
#include "fv_config.h"   /* FV_HAVE_CUDA, for the table's CUDA entries */
#include <stdlib.h>
#include "fv_sat_plan.h"
#include "../common/fv_parallel.h"

/* The CPU back end: per-strip column sums, host images only. */
static int
cpu_strips (const fv_sat_params *p)
{
  const int n = fv_threads_resolve (p->threads);
  return n > p->height ? p->height : n;
}

/* what cpu_init allocates */
static size_t
cpu_bytes (const fv_sat_plan *pl)
{
  return (size_t) pl->p.type * pl->p.width * (cpu_strips (&pl->p) + 1);
}

static fv_status
cpu_init (fv_sat_plan *pl, int device, void *stream)
{
  pl->nthreads = cpu_strips (&pl->p);
  pl->state = malloc (cpu_bytes (pl));
  return pl->state ? FV_OK : FV_ERR_NOMEM;
}

static fv_status
cpu_execute (fv_sat_plan *pl, const fv_image *src, const fv_image *table)
{
  fv_status st = fv_require_host (src, NULL);
  if (st != FV_OK)
    return st;
  return fv_sat_cpu_execute (pl, src, table->data, table->stride);
}

static void
cpu_free (fv_sat_plan *pl)
{
  free (pl->state);
  pl->state = NULL;
}

static const fv_sat_backend backends[] = {
  [FV_BACKEND_CPU] = { cpu_init, cpu_execute, NULL, cpu_free, cpu_bytes },
  [FV_BACKEND_CUDA] = { FV_CUDA_ENTRY (fv_sat_cuda_init), FV_CUDA_ENTRY (fv_sat_cuda_execute),
    NULL, FV_CUDA_ENTRY (fv_sat_cuda_free), FV_CUDA_ENTRY (fv_sat_cuda_bytes) },
};

fv_status
fv_sat_plan_create (fv_sat_plan **out, const fv_sat_params *p, fv_backend backend,
    int device, void *stream)
{
  *out = NULL;
  if (!p || p->width < 1 || p->height < 1 || p->channels < 1 || p->channels > 4
      || p->channel < 0 || p->channel >= p->channels
      || (p->sample != FV_U8 && p->sample != FV_U16)
      || (p->type != FV_SAT_U32 && p->type != FV_SAT_U64) || p->threads < 0) {
    fv_set_last_error ("invalid SAT parameters");
    return FV_ERR_INVALID;
  }
  fv_status st = FV_PLAN_CHECK (backend, backends);
  if (st != FV_OK)
    return st;
  fv_sat_plan *pl = calloc (1, sizeof *pl);
  if (!pl)
    return FV_ERR_NOMEM;
  pl->p = *p;
  pl->backend = backend;
  pl->be = &backends[backend];
  st = pl->be->init (pl, device, stream);
  if (st != FV_OK) {
    fv_sat_plan_destroy (pl);
    return st;
  }
  *out = pl;
  return FV_OK;
}

fv_status
fv_sat_execute (fv_sat_plan *pl, const fv_image *src, void *table, size_t tstride)
{
  if (!pl || !src || !src->data || !table || src->width != pl->p.width
      || src->height != pl->p.height || src->channels != pl->p.channels
      || src->sample != pl->p.sample
      || tstride < (size_t) pl->p.width * pl->p.type) {
    fv_set_last_error ("SAT source or table does not match the plan");
    return FV_ERR_INVALID;
  }
  const fv_image t = fv_image_make (table, tstride, pl->p.width, pl->p.height, 1, FV_U8,
      pl->backend == FV_BACKEND_CUDA ? FV_MEM_DEVICE : FV_MEM_HOST);
  return pl->be->execute (pl, src, &t);
}

void
fv_sat_plan_destroy (fv_sat_plan *pl)
{
  if (!pl)
    return;
  if (pl->be)
    pl->be->free (pl);
  free (pl);
}
