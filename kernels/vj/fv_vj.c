/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection plans: checks, the back end chosen once per plan, grouping. */
#include "fv_config.h"   /* FV_HAVE_CUDA, for the tables' CUDA entries */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fv_vj_plan.h"
#include "../common/fv_file.h"
#include "../common/fv_memory.h"
#include "../common/fv_planner.h"

/* The back ends, chosen once per plan. */
static fv_status
cpu_init (fv_vj_plan *pl, int device, void *stream)
{
  return fv_vj_cpu_init (pl);
}

static fv_status
cpu_execute (fv_vj_plan *pl, const fv_image *g, const fv_image *unused)
{
  (void) unused;
  fv_status st = fv_require_host (g, NULL);
  if (st != FV_OK)
    return st;
  return fv_vj_cpu_execute (pl, g);
}

static const fv_vj_backend backends[] = {
  [FV_BACKEND_CPU] = { cpu_init, cpu_execute, NULL, fv_vj_cpu_destroy, fv_vj_cpu_bytes },
  [FV_BACKEND_CUDA] = { FV_CUDA_ENTRY (fv_vj_cuda_init), FV_CUDA_ENTRY (fv_vj_cuda_execute), NULL,
    FV_CUDA_ENTRY (fv_vj_cuda_destroy), FV_CUDA_ENTRY (fv_vj_cuda_bytes) },
};
/* the groups' plans hold the model and their own workspaces */
static const fv_vj_backend chunked_backend = {
  FV_CUDA_ENTRY (fv_vj_chunked_init), FV_CUDA_ENTRY (fv_vj_chunked_execute), NULL,
  FV_CUDA_ENTRY (fv_vj_chunked_destroy), NULL
};

fv_status
fv_vj_plan_create (fv_vj_plan **out, const fv_cascade *c, const fv_vj_params *p,
    fv_backend backend, int device, void *stream)
{
  return fv_vj_plan_create_part (out, c, p, NULL, backend, device, stream);
}

fv_status
fv_vj_plan_create_part (fv_vj_plan **out, const fv_cascade *c, const fv_vj_params *p,
    const fv_vj_part *part, fv_backend backend, int device, void *stream)
{
  *out = NULL;
  if (p && (p->frame.width < 1 || p->frame.height < 1 || p->frame.width > FV_VJ_MAX_SIDE
      || p->frame.height > FV_VJ_MAX_SIDE)) {
    fv_set_last_error ("a %dx%d frame: the detector takes sides of 1 to %d pixels", p->frame.width,
        p->frame.height, 1 << 15);
    return FV_ERR_INVALID;
  }
  if (!c || !p || !(p->scale_factor > 1.0) || p->scale_factor > 100.0 || p->min_neighbors < 0
      || p->min_width < 0 || p->min_height < 0 || p->max_width < 0 || p->max_height < 0
      || p->frame.threads < 0) {
    fv_set_last_error ("invalid detection parameters");
    return FV_ERR_INVALID;
  }
  if (fv_frame_check_gray (&p->frame, "the detector") != FV_OK)
    return FV_ERR_INVALID;
  fv_status bst = FV_PLAN_CHECK (backend, backends);
  if (bst != FV_OK)
    return bst;
  fv_vj_plan *pl = calloc (1, sizeof *pl);
  if (!pl)
    return FV_ERR_NOMEM;
  pl->p = *p;
  if (part)
    pl->part = *part;
  pl->backend = backend;
  pl->be = &backends[backend];
  pl->cascade = c;
  fv_status st = fv_vj_pyramid_init (&pl->py, c, p, &pl->part, backend == FV_BACKEND_CPU);
  /* offsets are 32-bit: the model (its offsets, and which planes the CPU's
   * sums need) only for sums that fit them */
  const int fits32 = pl->py.plane * 3 < INT32_MAX;
  if (st == FV_OK && fits32)
    st = fv_vj_model_init (&pl->mh, c, pl->py.stride, pl->py.plane);
  int chunked = 0;
  if (st == FV_OK) {
    /* plans whose level groups' sums need 32-bit offsets past 2^31 chunk too */
    if (backend == FV_BACKEND_CUDA && !fits32 && p->frame.spread.max_device_bytes != (size_t) -1
        && pl->p.frame.spread.min_chunks < 2)
      pl->p.frame.spread.min_chunks = 2;
    /* the order every kernel's planner keeps (fv_planner.h); the sums of
     * every level (the bulk, on the CPU) only after it */
    const size_t own = sizeof *pl + pl->py.table_bytes;
    char what[160];
    snprintf (what, sizeof what, "the detector's plan for %dx%d at scale factor %g (%d levels)",
        p->frame.width, p->frame.height, p->scale_factor, pl->py.nlevels);
    const fv_plan_choice choice = { backend, (const void *) pl->be->init, &pl->p.frame,
      backend == FV_BACKEND_CUDA ? pl->be->bytes (pl) : 0,
      { (double) (own + (backend == FV_BACKEND_CPU ? pl->be->bytes (pl) : 0)), (double) own },
      what };
    st = fv_plan_choose (&choice, device, &chunked);
    pl->host_bytes = (size_t) choice.host_bytes[chunked];
  }
  if (st == FV_OK && chunked) {   /* the groups' plans hold the model; this one only merges */
    fv_vj_model_clear (&pl->mh);
    pl->be = &chunked_backend;
  } else if (st == FV_OK && !fits32) {
    fv_set_last_error ("%dx%d at scale factor %g makes %d levels of %lld MB of sums: too many "
        "(raise the scale factor or the minimum size)", p->frame.width, p->frame.height,
            p->scale_factor,
        pl->py.nlevels, (long long) (pl->py.plane * 4 >> 20));
    st = FV_ERR_INVALID;
  }
  if (st == FV_OK)
    st = fv_vj_raw_reserve (pl, 64);
  if (st == FV_OK)
    st = pl->be->init (pl, device, stream);
  if (st != FV_OK) {
    fv_vj_plan_destroy (pl);
    return st;
  }
  *out = pl;
  return FV_OK;
}

void
fv_vj_rows_source (const fv_vj_plan *pl, const fv_vj_rows *rows, int nrows, int *s0, int *s1)
{
  const fv_vj_pyramid *py = &pl->py;
  *s0 = 0;
  *s1 = pl->p.frame.height;
  if (pl->backend != FV_BACKEND_CPU || pl->part.band_rows != 0 || nrows <= 0)
    return;
  unsigned char *keep = malloc ((size_t) py->rows + 1);   /* any level's window rows */
  if (!keep)
    return;
  int lo = pl->p.frame.height, hi = 0;
  for (int l = 0; l < py->nlevels; l++) {
    int ya, yb, a, b;
    fv_vj_rows_of_level (py, pl->cascade, l, rows, nrows, keep, &ya, &yb);
    if (ya == yb)
      continue;
    fv_vj_level_source_rows (py, l, ya, yb, &a, &b);
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  free (keep);
  *s0 = lo < hi ? lo : 0;
  *s1 = lo < hi ? hi : 0;
}

fv_status
fv_vj_execute_rows (fv_vj_plan *pl, const fv_image *g, const fv_vj_rows *rows, int nrows)
{
  if (!pl || !g || nrows < 0)
    return FV_ERR_INVALID;
  if (!g->data || g->width != pl->p.frame.width || g->height != pl->p.frame.height
      || g->channels != 1
      || g->sample != FV_U8 || g->stride < (size_t) g->width) {
    fv_set_last_error ("image does not match the plan (%dx%d GRAY8)", pl->p.frame.width,
        pl->p.frame.height);
    return FV_ERR_INVALID;
  }
  /* only a whole plan of the CPU takes rows (a band part has its own) */
  const int takes = pl->backend == FV_BACKEND_CPU && pl->part.band_rows == 0;
  pl->rows = takes ? rows : NULL;
  pl->nrows = takes ? nrows : 0;
  fv_status st = pl->be->execute (pl, g, NULL);
  pl->rows = NULL;
  pl->nrows = 0;
  return st;
}

fv_status
fv_vj_execute (fv_vj_plan *pl, const fv_image *g, const fv_detection **det, int *n)
{
  if (!pl || !g || !det || !n)
    return FV_ERR_INVALID;
  *det = NULL;
  *n = 0;
  fv_status st = fv_vj_execute_rows (pl, g, NULL, 0);
  if (st != FV_OK)
    return st;
  int k = fv_vj_group (pl->raw, pl->nraw, pl->p.min_neighbors, FV_VJ_GROUP_EPS, pl->det);
  if (k < 0)
    return FV_ERR_NOMEM;
  pl->ndet = k;
  *det = pl->det;
  *n = k;
  return FV_OK;
}

size_t
fv_vj_plan_bytes (const fv_vj_plan *pl)
{
  return pl ? pl->host_bytes : 0;
}

const fv_rect *
fv_vj_raw (const fv_vj_plan *pl, int *n)
{
  *n = pl ? pl->nraw : 0;
  return pl ? pl->raw : NULL;
}

void
fv_vj_plan_destroy (fv_vj_plan *pl)
{
  if (!pl)
    return;
  if (pl->be)
    pl->be->free (pl);
  fv_vj_model_clear (&pl->mh);
  fv_vj_pyramid_clear (&pl->py);
  free (pl->raw);
  free (pl->det);
  free (pl);
}
