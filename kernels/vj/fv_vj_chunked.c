/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection beyond the device budget, or over several devices: the
 * pyramid cut into groups of whole levels, each group a CUDA plan of its
 * own (fv_vj_params.first_level, levels) built from the whole frame.
 *
 * A window is evaluated on its level's image and integrals only, and each
 * level is made from the whole frame exactly as in one plan, so every
 * window gets the same verdict; each is evaluated once, in its level's
 * group. The groups' raw windows, each group in OpenCV's order (level, y,
 * x), are appended level by level: the merged list is the one plan's, and
 * grouping it gives the same boxes. Cutting by level rather than by rows
 * keeps each level's resampling whole (a band of a level would have to
 * resample at offsets); its limit is that one level with its sums must fit
 * the budget. Groups run one after another, on their devices; a frame on
 * another GPU is copied there once a frame. */
#include <stdlib.h>
#include <string.h>
#include "fv_vj_plan.h"
#include "../common/fv_cuda.h"

typedef struct {
  int n;                     /* level groups */
  fv_vj_plan **sub;
  int *device;
  int devices[FV_MAX_DEVICE_ENTRIES], ndevices;
  void *frame[FV_MAX_DEVICE_ENTRIES];   /* per device: the frame, when it lies elsewhere */
  size_t pitch[FV_MAX_DEVICE_ENTRIES];
} VjChunks;

/* Device bytes a CUDA plan of levels [first, first + count) takes (an upper
 * estimate: the frame, three planes of sums, two window queues, the
 * cascade and the keys). */
static fv_status
group_bytes (const fv_vj_plan *pl, int first, int count, size_t *bytes, int64_t *windows)
{
  fv_vj_params q = pl->p;
  q.first_level = first;
  q.levels = count;
  fv_vj_pyramid py;
  fv_status st = fv_vj_pyramid_init (&py, pl->cascade, &q);
  *bytes = (size_t) q.width * q.height + (size_t) py.plane * 12 + (size_t) py.windows * 8
      + ((size_t) 2 << 20);
  *windows = py.windows;
  fv_vj_pyramid_clear (&py);
  return st;
}

size_t
fv_vj_cuda_bytes (const fv_vj_plan *pl)
{
  size_t b = 0;
  int64_t w;
  group_bytes (pl, 0, 0, &b, &w);
  return b;
}

/* Groups of consecutive levels: each within the budget, about the same
 * number of windows each, at least one for every entry when the levels
 * allow. */
static fv_status
make_groups (const fv_vj_plan *pl, size_t budget, int want, int *first, int *n)
{
  const int L = pl->py.nlevels;
  const int64_t target = (pl->py.windows + want - 1) / (want > 0 ? want : 1);
  *n = 0;
  for (int a = 0; a < L;) {
    int b = a + 1;
    size_t bytes;
    int64_t win;
    fv_status st = group_bytes (pl, a, 1, &bytes, &win);
    if (st != FV_OK)
      return st;
    if (bytes > budget) {
      fv_set_last_error ("pyramid level %d of this %dx%d frame needs %zu bytes of device "
          "memory with its sums, over the budget of %zu (vjdetect splits the pyramid by "
          "whole levels)", a, pl->p.width, pl->p.height, bytes, budget);
      return FV_ERR_NOMEM;
    }
    while (b < L && win < target && L - b > want - *n - 1) {
      size_t nb;
      int64_t nw;
      if ((st = group_bytes (pl, a, b + 1 - a, &nb, &nw)) != FV_OK)
        return st;
      if (nb > budget)
        break;
      win = nw;
      b++;
    }
    first[(*n)++] = a;
    a = b;
  }
  first[*n] = L;
  return FV_OK;
}

fv_status
fv_vj_chunked_init (fv_vj_plan *pl, int device, void *stream)
{
  (void) stream;
  VjChunks *c = calloc (1, sizeof *c);
  if (!c)
    return FV_ERR_NOMEM;
  pl->impl = c;
  fv_chunk_run_params rp;
  fv_spread_run_params (&pl->p.spread, device, pl->p.width, pl->p.height, 1, FV_U8, 0, 0, &rp);
  size_t budget = (size_t) -1;
  for (int i = 0; i < rp.ndevices; i++) {
    size_t b;   /* the device's whole budget, given or free */
    fv_status st = fv_chunk_run_budget (&rp, i, &b);
    if (st != FV_OK)
      return st;
    int sharing = 0;
    for (int j = 0; j < rp.ndevices; j++)
      sharing += rp.devices[j] == rp.devices[i];
    budget = b / sharing < budget ? b / sharing : budget;
  }
  int want = rp.ndevices > pl->p.spread.min_chunks ? rp.ndevices : pl->p.spread.min_chunks;
  want = want < pl->py.nlevels ? want : pl->py.nlevels;
  int *first = malloc (sizeof (int) * (pl->py.nlevels + 1));
  if (!first)
    return FV_ERR_NOMEM;
  fv_status st = make_groups (pl, budget, want, first, &c->n);
  c->sub = calloc (c->n > 0 ? c->n : 1, sizeof *c->sub);
  c->device = calloc (c->n > 0 ? c->n : 1, sizeof *c->device);
  if (st == FV_OK && (!c->sub || !c->device))
    st = FV_ERR_NOMEM;
  memcpy (c->devices, rp.devices, sizeof c->devices);
  c->ndevices = rp.ndevices;
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  for (int k = 0; k < c->n && st == FV_OK; k++) {
    fv_vj_params q = pl->p;
    q.first_level = first[k];
    q.levels = first[k + 1] - first[k];
    fv_spread_whole (&q.spread);
    c->device[k] = rp.devices[(long) k * rp.ndevices / c->n];
    st = fv_cuda_place_enter (&here, c->device[k]);
    if (st == FV_OK)
      st = fv_vj_plan_create (&c->sub[k], pl->cascade, &q, FV_BACKEND_CUDA, c->device[k], NULL);
  }
  fv_cuda_place_restore (&here);
  free (first);
  return st;
}

/* The frame where group k's device can read it: in place, or copied once
 * a frame to that device (host frames are uploaded by the plan itself). */
static fv_status
frame_for (VjChunks *c, int k, const fv_image *g, unsigned *copied, fv_image *out)
{
  *out = *g;
  int d = 0;
  while (d < c->ndevices && c->devices[d] != c->device[k])
    d++;
  if (g->mem == FV_MEM_HOST || fv_cuda_image_on_device (g, c->device[k]))
    return FV_OK;
  if (!c->frame[d]) {
    c->pitch[d] = ((size_t) g->width + 255) & ~(size_t) 255;
    c->frame[d] = fv_cuda_malloc (c->pitch[d] * g->height);
    if (!c->frame[d])
      return FV_ERR_NOMEM;
  }
  if (!(*copied & (1u << d))) {
    fv_status st = fv_cuda_copy_rows (c->frame[d], c->pitch[d], g->data, g->stride, g->width,
        g->height, NULL);
    if (st != FV_OK)
      return st;
    *copied |= 1u << d;
  }
  out->data = c->frame[d];
  out->stride = c->pitch[d];
  return FV_OK;
}

fv_status
fv_vj_chunked_execute (fv_vj_plan *pl, const fv_image *g)
{
  VjChunks *c = pl->impl;
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  unsigned copied = 0;
  fv_status st = FV_OK;
  pl->nraw = 0;
  for (int k = 0; k < c->n && st == FV_OK; k++) {
    fv_image im;
    fv_vj_plan *s = c->sub[k];
    st = fv_cuda_place_enter (&here, c->device[k]);
    if (st == FV_OK)
      st = frame_for (c, k, g, &copied, &im);
    if (st == FV_OK)
      st = s->be->execute (s, &im);
    if (st == FV_OK)
      st = fv_vj_raw_reserve (pl, pl->nraw + s->nraw);
    if (st == FV_OK) {
      memcpy (pl->raw + pl->nraw, s->raw, sizeof (fv_rect) * s->nraw);
      pl->nraw += s->nraw;
    }
  }
  fv_cuda_place_restore (&here);
  return st;
}

void
fv_vj_chunked_destroy (fv_vj_plan *pl)
{
  VjChunks *c = pl->impl;
  if (!c)
    return;
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  for (int k = 0; k < c->n; k++)
    if (c->sub && c->sub[k] && fv_cuda_place_enter (&here, c->device[k]) == FV_OK)
      fv_vj_plan_destroy (c->sub[k]);
  for (int d = 0; d < c->ndevices; d++)
    if (c->frame[d] && fv_cuda_place_enter (&here, c->devices[d]) == FV_OK)
      fv_cuda_free (c->frame[d]);
  fv_cuda_place_restore (&here);
  free (c->sub);
  free (c->device);
  free (c);
  pl->impl = NULL;
}
