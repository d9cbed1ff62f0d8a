/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds without CUDA: CUDA fill plans cannot be made. */
#include "fv_fill_plan.h"

fv_status
fv_fill_cuda_init (fv_fill_plan *plan, int device, void *stream)
{
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_fill_cuda_execute (fv_fill_plan *plan, const fv_image *s, const fv_image *d, int wait)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_fill_cuda_wait (fv_fill_plan *plan)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_fill_cuda_regions (fv_fill_plan *plan)
{
  return FV_ERR_NO_CUDA;
}

void fv_fill_cuda_free (fv_fill_plan *plan) { }

size_t fv_fill_cuda_bytes (int width, int height) { return 0; }
