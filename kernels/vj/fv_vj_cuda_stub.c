/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Built without CUDA: CUDA detection plans cannot be made. */
#include "fv_vj_plan.h"
#include "fv_luma.h"
#include "fv_rotate.h"

fv_status
fv_vj_cuda_init (fv_vj_plan *pl, int device, void *stream)
{
  (void) pl;
  (void) device;
  (void) stream;
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_vj_cuda_execute (fv_vj_plan *pl, const fv_image *gray)
{
  (void) pl;
  (void) gray;
  return FV_ERR_NO_CUDA;
}

void
fv_vj_cuda_destroy (fv_vj_plan *pl)
{
  (void) pl;
}

size_t
fv_vj_cuda_workspace_bytes (const fv_vj_plan *pl)
{
  (void) pl;
  return 0;
}

void
fv_vj_cuda_set_workspace (fv_vj_plan *pl, void *workspace)
{
  (void) pl;
  (void) workspace;
}

fv_status
fv_luma_from_rgb_cuda (const fv_image *rgb, int r, int g, int b, const fv_image *gray,
    void *stream)
{
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_rotate_u8_cuda (const fv_image *src, const fv_image *dst, fv_rotation r, void *stream)
{
  (void) src;
  (void) dst;
  (void) r;
  (void) stream;
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}
