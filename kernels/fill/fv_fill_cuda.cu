/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU fill on bit masks: a warp holds a 32x32 tile as 32 words, a row of
 * background bits a lane, and floods it with word operations (a row's runs
 * by carries, columns by doubling shifts across lanes), so no pixel needs
 * a label of its own; union-find runs only over the tiles' edge pixels.
 *   1. label_edges: each tile's background components that reach its edge,
 *      one flood from each: every edge pixel ("slot", 128 a tile) gets its
 *      component's first slot, or 0 when the component touches the frame's
 *      border (slot 0 is the outside, below every other slot);
 *   2. join_edges: facing edge pixels of neighbouring tiles united with the
 *      atomicMin union of Playne and Hawick (roots only decrease, so
 *      concurrent unions never undo each other, and the outside stays the
 *      root of whatever joins it);
 *   3. write_tiles: each tile floods again from its edge pixels whose root
 *      is the outside and writes every pixel from its bit.
 * Measured on the H100 (8K "shapes"): 0.66 ms with a label a pixel and
 * the tile labelled by 256 threads in shared memory, 0.156 ms this way;
 * see docs/benchmarks.md. */
#include "fv_fill_tiles.cuh"
#include "../common/fv_env.h"

extern "C" fv_status
fv_fill_cuda_regions (fv_fill_plan *pl)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  pl->nregions = pl->nparts = 0;
  if (!c || !c->measure)
    return FV_ERR_INVALID;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  return fv_fill_measure_dev_run (c->measure, pl, pl->p.frame.width, pl->p.frame.height, c->bits,
      c->filled, c->ps.stream);
}

/* What fv_fill_cuda_init below allocates on the device: the edge slots and
 * bits of every tile, the frame and the result at a pitch of up to 512
 * bytes, and room for the context's own allocations; measuring adds host
 * memory only. */
extern "C" size_t
fv_fill_cuda_bytes (int width, int height)
{
  const size_t pitch = ((size_t) width + 511) / 512 * 512;
  const size_t tiles = (size_t) ((width + T - 1) / T) * ((height + T - 1) / T);
  return sizeof (int) * (1 + tiles * SLOTS) + sizeof (unsigned) * tiles * T
      + sizeof (int) * 2 * ((size_t) width + height) + tiles + 2 * pitch * height
      + ((size_t) 1 << 20);
}

extern "C" size_t
fv_fill_cuda_plan_bytes (const fv_fill_plan *pl)
{
  const size_t tiles = (size_t) ((pl->p.frame.width + T - 1) / T)
      * ((pl->p.frame.height + T - 1) / T);
  const int parts = (pl->p.measure & FV_FILL_MEASURE_PARTS) != 0;
  return fv_fill_cuda_bytes (pl->p.frame.width, pl->p.frame.height)
      + (parts ? sizeof (unsigned) * tiles * T : 0)
      + (pl->p.measure ? fv_fill_measure_dev_bytes (pl->p.frame.width, pl->p.frame.height, parts)
          : 0);
}

extern "C" fv_status
fv_fill_cuda_init (fv_fill_plan *pl, int device, void *stream)
{
  const fv_fill_params *p = &pl->p;
  fv_fill_cuda *c = (fv_fill_cuda *) calloc (1, sizeof (fv_fill_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  pl->state = c;
  FV_CUDA_TRY (c->ps.open (device, stream));
  c->home_here = fv_env_int (FV_ENV_FILL_HOME_HERE, 0) != 0;
  const size_t tiles = (size_t) ((p->frame.width + T - 1) / T) * ((p->frame.height + T - 1) / T);
  FV_CUDA_TRY (cudaMalloc (&c->slots, sizeof (int) * (1 + tiles * SLOTS)));
  FV_CUDA_TRY (cudaMalloc (&c->bits, sizeof (unsigned) * tiles * T));
  FV_CUDA_TRY (cudaMalloc (&c->edge_roots,
      sizeof (int) * 2 * ((size_t) p->frame.width + p->frame.height)));
  FV_CUDA_TRY (cudaMalloc (&c->seamed, tiles));
  FV_CUDA_TRY (cudaMallocPitch (&c->d_src, &c->d_pitch, p->frame.width, p->frame.height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch (&c->d_dst, &pitch2, p->frame.width, p->frame.height));
  if (p->measure & FV_FILL_MEASURE_PARTS)
    FV_CUDA_TRY (cudaMalloc (&c->filled, sizeof (unsigned) * tiles * T));
  if (p->measure) {
    fv_status st = fv_fill_measure_dev_init (&c->measure, p->frame.width, p->frame.height,
        (p->measure & FV_FILL_MEASURE_PARTS) != 0);
    if (st != FV_OK)
      return st;
  }
  return FV_OK;
}


extern "C" fv_status
fv_fill_cuda_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  const fv_fill_params *p = &pl->p;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  fv::DevView in, target = fv::stage_target (dst, dst->data, c->d_dst, c->d_pitch);
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->frame.height, p->frame.width, c->d_src, c->d_pitch,
      c->ps.stream, &in));
  const Frame f = frame_of (pl, in.data, in.stride, p->frame.width, p->frame.height, ALL_SIDES);
  label (c, f);
  write (c, p, f, (unsigned char *) target.data, target.stride, WRITE_WHOLE);
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv::stage_out (dst, dst->data, p->frame.height, p->frame.width, c->d_dst, c->d_pitch,
      c->ps.stream));
  return FV_OK;   /* queued: fv_fill_cuda_wait */
}


extern "C" fv_status
fv_fill_cuda_wait (fv_fill_plan *pl)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  return FV_OK;
}

extern "C" void
fv_fill_cuda_free (fv_fill_plan *pl)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  if (!c)
    return;
  fv_cuda_use_device (c->ps.device);
  cudaFree (c->slots);
  cudaFree (c->bits);
  cudaFree (c->edge_roots);
  cudaFree (c->seamed);
  cudaFree (c->d_src);
  cudaFree (c->d_dst);
  cudaFree (c->filled);
  fv_fill_measure_dev_free (c->measure);
  fv_fill_home_close (c);
  c->ps.close ();
  free (c);
  pl->state = nullptr;
}
