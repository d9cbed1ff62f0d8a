/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection plans: checks, dispatch and grouping. */
#include <stdlib.h>
#include <string.h>
#include "fv_vj_plan.h"

#define FV_VJ_GROUP_EPS 0.2   /* OpenCV's GROUP_EPS */

fv_status
fv_vj_raw_reserve (fv_vj_plan *pl, int n)
{
  if (n <= pl->raw_cap)
    return FV_OK;
  int cap = pl->raw_cap ? pl->raw_cap : 64;
  while (cap < n)
    cap *= 2;
  fv_rect *r = realloc (pl->raw, sizeof *r * cap);
  fv_detection *d = realloc (pl->det, sizeof *d * cap);
  if (r)
    pl->raw = r;
  if (d)
    pl->det = d;
  if (!r || !d)
    return FV_ERR_NOMEM;
  pl->raw_cap = cap;
  return FV_OK;
}

static int
cmp_key (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

void
fv_vj_keys_to_raw (fv_vj_plan *pl, uint64_t *keys, int n)
{
  qsort (keys, n, sizeof *keys, cmp_key);
  for (int i = 0; i < n; i++) {
    const fv_vj_level *lv = &pl->py.lv[fv_vj_key_level (keys[i])];
    fv_rect r = fv_vj_window_rect (lv, fv_vj_key_x (keys[i]), fv_vj_key_y (keys[i]));
    /* rounding can take a window past the frame's edge: OpenCV clips it */
    if (r.x + r.width > pl->p.width)
      r.width = pl->p.width - r.x;
    if (r.y + r.height > pl->p.height)
      r.height = pl->p.height - r.y;
    pl->raw[i] = r;
  }
  pl->nraw = n;
}

fv_status
fv_vj_plan_create (fv_vj_plan **out, const fv_cascade *c, const fv_vj_params *p,
    fv_backend backend, int device, void *stream)
{
  *out = NULL;
  if (!c || !p || p->width < 1 || p->height < 1 || p->width > (1 << 15) || p->height > (1 << 15)
      || !(p->scale_factor > 1.0) || p->scale_factor > 100.0 || p->min_neighbors < 0
      || p->min_width < 0 || p->min_height < 0 || p->max_width < 0 || p->max_height < 0
      || p->threads < 0) {
    fv_set_last_error ("invalid detection parameters");
    return FV_ERR_INVALID;
  }
  fv_vj_plan *pl = calloc (1, sizeof *pl);
  if (!pl)
    return FV_ERR_NOMEM;
  pl->p = *p;
  pl->backend = backend;
  pl->cascade = c;
  fv_status st = fv_vj_pyramid_init (&pl->py, c, p);
  if (st == FV_OK && pl->py.plane * 3 >= INT32_MAX) {   /* offsets are 32-bit */
    fv_set_last_error ("%dx%d at scale factor %g makes %d levels of %lld MB of sums: too many "
        "(raise the scale factor or the minimum size)", p->width, p->height, p->scale_factor,
        pl->py.nlevels, (long long) (pl->py.plane * 4 >> 20));
    st = FV_ERR_INVALID;
  }
  if (st == FV_OK)
    st = fv_vj_model_init (&pl->mh, c, pl->py.stride, pl->py.plane);
  if (st == FV_OK)
    st = fv_vj_raw_reserve (pl, 64);
  if (st == FV_OK)
    st = backend == FV_BACKEND_CUDA ? fv_vj_cuda_init (pl, device, stream) : fv_vj_cpu_init (pl);
  if (st != FV_OK) {
    fv_vj_plan_destroy (pl);
    return st;
  }
  *out = pl;
  return FV_OK;
}

fv_status
fv_vj_execute (fv_vj_plan *pl, const fv_image *g, const fv_detection **det, int *n)
{
  if (!pl || !g || !det || !n)
    return FV_ERR_INVALID;
  *det = NULL;
  *n = 0;
  if (!g->data || g->width != pl->p.width || g->height != pl->p.height || g->channels != 1
      || g->sample != FV_U8 || g->stride < (size_t) g->width) {
    fv_set_last_error ("image does not match the plan (%dx%d GRAY8)", pl->p.width, pl->p.height);
    return FV_ERR_INVALID;
  }
  fv_status st;
  if (pl->backend == FV_BACKEND_CUDA)
    st = fv_vj_cuda_execute (pl, g);
  else if (g->mem != FV_MEM_HOST) {
    fv_set_last_error ("a CPU plan needs a host image");
    st = FV_ERR_INVALID;
  } else
    st = fv_vj_cpu_execute (pl, g);
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
  if (pl->backend == FV_BACKEND_CUDA)
    fv_vj_cuda_destroy (pl);
  else
    fv_vj_cpu_destroy (pl);
  fv_vj_model_clear (&pl->mh);
  fv_vj_pyramid_clear (&pl->py);
  free (pl->raw);
  free (pl->det);
  free (pl);
}
