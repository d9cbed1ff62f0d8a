/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Box filters spread over several devices (or forced into chunks): the
 * chunk runner (fv_chunk_run.h) over whole-frame CUDA plans of the chunk's
 * size. The halo is the radius (the window reaches no farther); chunk
 * inputs slide inside the frame at its edges, so each border rule meets
 * the frame's own edges there: exact integers, as unchunked. */
#include <stdlib.h>
#include "fv_box_plan.h"

typedef struct {
  fv_box_params sub;   /* the frame's, spread off: sizes set per chunk */
  fv_chunk_run *run;
} BoxChunks;

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  fv_box_params q = ((BoxChunks *) user)->sub;
  q.width = width;
  q.height = height;
  return fv_box_plan_create ((fv_box_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
}

static fv_status
sub_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  (void) user;
  return fv_box_execute (plan, src, dst);
}

static void
sub_destroy (void *plan, void *user)
{
  (void) user;
  fv_box_plan_destroy (plan);
}

static size_t
sub_bytes (int width, int height, void *user)
{
  return fv_box_cuda_bytes (&((BoxChunks *) user)->sub, width, height);
}

static fv_status
sub_execute_rows (void *plan, const fv_image *src, const fv_image *dst, int row0, int rows,
    void *user)
{
  (void) user;
  return fv_box_execute_rows (plan, src, dst, row0, rows);
}

static const fv_chunk_kernel box_chunk_kernel = {
  sub_create, sub_execute, sub_destroy, sub_bytes, NULL, NULL, sub_execute_rows
};

fv_status
fv_box_chunked_init (fv_box_plan *plan, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_box_params *p = &plan->p;
  BoxChunks *c = calloc (1, sizeof *c);
  if (!c)
    return FV_ERR_NOMEM;
  plan->cuda = c;
  c->sub = *p;
  fv_spread_whole (&c->sub.spread);
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->spread, device, p->width, p->height, p->channels, p->sample,
      p->radius_x, p->radius_y, &rp);
  return fv_chunk_run_create (&c->run, &rp, &box_chunk_kernel, c);
}

fv_status
fv_box_chunked_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  return fv_chunk_run_execute (((BoxChunks *) plan->cuda)->run, src, dst, NULL);
}

void
fv_box_chunked_free (fv_box_plan *plan)
{
  BoxChunks *c = plan->cuda;
  if (c)
    fv_chunk_run_destroy (c->run);
  free (c);
  plan->cuda = NULL;
}
