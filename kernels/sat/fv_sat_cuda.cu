/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SAT plans on the GPU: the tiled three-pass table of fv_sat_tiles.cuh. */
#include <cstdlib>
#include "fv_sat_plan.h"
#include "fv_sat_tiles.cuh"
#include "../common/fv_cuda_check.cuh"

struct fv_sat_cuda {
  fv::PlanStream ps;
  fv::SatWork work;
  void *d_src;        /* upload buffer for host sources */
  size_t d_pitch;
};

/* What fv_sat_cuda_init below allocates: the tiles' scratch and the upload
 * buffer (its pitch up to 512 bytes more a row). */
extern "C" size_t
fv_sat_cuda_bytes (const fv_sat_plan *pl)
{
  const fv_sat_params *p = &pl->p;
  const size_t row = (size_t) p->width * p->channels * p->sample;
  return fv::sat_work_bytes (p->width, p->height, p->type) + (row + 511) / 512 * 512 * p->height;
}

extern "C" fv_status
fv_sat_cuda_init (fv_sat_plan *pl, int device, void *stream)
{
  const fv_sat_params *p = &pl->p;
  fv_sat_cuda *c = (fv_sat_cuda *) calloc (1, sizeof (fv_sat_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  pl->state = c;
  FV_CUDA_TRY (c->ps.open (device, stream));
  FV_CUDA_TRY (fv::sat_work_alloc (&c->work, p->width, p->height, p->type));
  FV_CUDA_TRY (cudaMallocPitch (&c->d_src, &c->d_pitch,
      (size_t) p->width * p->channels * p->sample, p->height));
  return FV_OK;
}

extern "C" fv_status
fv_sat_cuda_execute (fv_sat_plan *pl, const fv_image *src, const fv_image *tab)
{
  void *table = tab->data;
  const size_t tstride = tab->stride;
  fv_sat_cuda *c = (fv_sat_cuda *) pl->state;
  const fv_sat_params *p = &pl->p;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  fv::DevView in;
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->height, fv_image_row_bytes (src), c->d_src,
      c->d_pitch, c->ps.stream, &in));
  fv::SatSrc s = { in.data, in.stride, p->width, p->height, p->channels, p->channel, false,
      false };
  if (tstride % p->type) {
    fv_set_last_error ("table stride not a multiple of the entry size");
    return FV_ERR_INVALID;
  }
  size_t os = tstride / p->type;
  cudaError_t e;
  if (p->sample == FV_U8)
    e = p->type == FV_SAT_U32
        ? fv::sat_launch<uint8_t, uint32_t> (c->work, s, p->squared, (uint32_t *) table, os, c->ps.stream)
        : fv::sat_launch<uint8_t, uint64_t> (c->work, s, p->squared, (uint64_t *) table, os, c->ps.stream);
  else
    e = p->type == FV_SAT_U32
        ? fv::sat_launch<uint16_t, uint32_t> (c->work, s, p->squared, (uint32_t *) table, os, c->ps.stream)
        : fv::sat_launch<uint16_t, uint64_t> (c->work, s, p->squared, (uint64_t *) table, os, c->ps.stream);
  FV_CUDA_TRY (e);
  /* stream-ordered like cuFFT when everything is on the device; a host
   * source is waited for, so the caller may reuse it at once */
  if (src->mem == FV_MEM_HOST)
    FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  return FV_OK;
}

extern "C" void
fv_sat_cuda_free (fv_sat_plan *pl)
{
  fv_sat_cuda *c = (fv_sat_cuda *) pl->state;
  if (!c)
    return;
  fv_cuda_use_device (c->ps.device);
  fv::sat_work_free (&c->work);
  cudaFree (c->d_src);
  c->ps.close ();
  free (c);
  pl->state = nullptr;
}
