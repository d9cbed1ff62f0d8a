/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunked CUDA back end: a frame beyond the device budget, or spread
 * over several devices, runs as chunks (fv_chunk_run.h), each a plain CUDA
 * plan of the chunk's size. The halo is the kernel's reach from its centre,
 * kw/2 by kh/2; a wrapping border gathers its halo from the far side. The
 * FFT size differs from the whole frame's, so results agree within the
 * transform's rounding (the accuracy bound), bit for bit by direct sums. */
#include <stdlib.h>
#include "fv_conv_plan.h"
#include "fv_conv_cuda.h"

typedef struct {
  fv_conv_params sub;   /* the whole frame's, spread off: sizes set per chunk */
  fv_chunk_run *run;
} ConvChunks;

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  fv_conv_params q = ((ConvChunks *) user)->sub;
  q.width = width;
  q.height = height;
  return fv_conv_plan_create ((fv_conv_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
}

static fv_status
sub_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  (void) user;
  return fv_conv_execute (plan, src, dst);
}

static void
sub_destroy (void *plan, void *user)
{
  (void) user;
  fv_conv_plan_destroy (plan);
}

static size_t
sub_bytes (int width, int height, void *user)
{
  const fv_conv_params *q = &((ConvChunks *) user)->sub;
  return fv_conv_cuda_bytes (q, fv_conv_cuda_direct (q), width, height);
}

static const fv_chunk_kernel conv_chunk_kernel = {
  sub_create, sub_execute, sub_destroy, sub_bytes, NULL, NULL
};

static fv_status
chunked_init (fv_conv_plan *pl, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_conv_params *p = &pl->p;
  ConvChunks *c = calloc (1, sizeof *c);
  if (!c)
    return FV_ERR_NOMEM;
  pl->cuda = c;
  pl->gpu_method = fv_conv_cuda_direct (p) ? FV_CONV_DIRECT : FV_CONV_FFT;
  c->sub = *p;
  fv_spread_whole (&c->sub.spread);
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->spread, device, p->width, p->height, p->channels, p->sample,
      p->kernel_width / 2, p->kernel_height / 2, &rp);
  rp.wrap = p->border == FV_BORDER_WRAP;
  return fv_chunk_run_create (&c->run, &rp, &conv_chunk_kernel, c);
}

static fv_status
chunked_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  return fv_chunk_run_execute (((ConvChunks *) pl->cuda)->run, src, dst, NULL);
}

static void
chunked_free (fv_conv_plan *pl)
{
  ConvChunks *c = pl->cuda;
  if (c)
    fv_chunk_run_destroy (c->run);
  free (c);
  pl->cuda = NULL;
}

/* the runner's lanes have budgets of their own: no whole-plan bytes */
const fv_conv_backend fv_conv_chunked_backend = { chunked_init, chunked_execute, NULL,
  chunked_free, NULL };

const fv_chunk_plan *
fv_conv_chunked_plan (const fv_conv_plan *pl)
{
  return fv_chunk_run_plan (((ConvChunks *) pl->cuda)->run);
}
