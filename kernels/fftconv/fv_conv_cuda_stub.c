/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds without CUDA: no GPU convolution. */
#include "fv_conv_cuda.h"

void
fv_conv_cuda_pick_size (int ew, int eh, int device, int *pw, int *ph)
{
  (void) ew;
  (void) eh;
  (void) device;
  (void) pw;
  (void) ph;
}

fv_status
fv_conv_cuda_init (void **cuda, const fv_conv_params *p, int direct, int pw, int ph,
    const float *scale,
    float uniform_scale, int device, void *stream)
{
  *cuda = NULL;
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_conv_cuda_execute (void *cuda, const fv_conv_params *p, const fv_image *s, const fv_image *d)
{
  return FV_ERR_NO_CUDA;
}

void fv_conv_cuda_free (void *cuda) { }

void
fv_conv_cuda_layout (void *cuda, int *px, int *py, int *tiles)
{
  *px = *py = *tiles = 0;
}

fv_status
fv_conv_cuda_accumulate (void *cuda, const fv_conv_params *p, const void *src, size_t stride,
    int channel, float *acc, int cols, int rows, int ci, int cj)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_conv_cuda_grid_init (void **grid, const fv_conv_params *p, int device, void *stream)
{
  *grid = NULL;
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_conv_cuda_grid_execute (void *grid, const fv_conv_params *p, void *const *cells, int cols,
    int rows, const fv_image *src, const fv_image *dst)
{
  return FV_ERR_NO_CUDA;
}

void fv_conv_cuda_grid_free (void *grid) { }

void *fv_conv_cuda_grid_stream (void *grid) { return NULL; }

fv_status
fv_conv_cuda_grid_share (void *grid, const fv_conv_params *p, void *const *cells, int cols,
    int rows)
{
  return FV_ERR_NO_CUDA;
}

int fv_conv_cuda_grid_pairs (void *grid) { return 0; }
