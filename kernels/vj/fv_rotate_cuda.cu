/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turned frames on the device: the CPU's integer formula (fv_rotate.h), one
 * thread a pixel, so both give the same bytes. */
#include "fv_rotate.h"
#include "../common/fv_cuda_check.cuh"

__global__ void
rotate_kernel (const uint8_t *s, size_t ss, uint8_t *d, size_t ds, int w, int h, int64_t c,
    int64_t sn)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    d[(size_t) y * ds + x] = fv_rotate_px (s, ss, w, h, c, sn, x, y);
}

extern "C" fv_status
fv_rotate_u8_cuda (const fv_image *src, const fv_image *dst, fv_rotation r, void *stream)
{
  fv_status st = fv_rotate_check (src, dst, FV_MEM_DEVICE);
  if (st != FV_OK)
    return st;
  const dim3 block (32, 8), grid ((src->width + 31) / 32, (src->height + 7) / 8);
  rotate_kernel<<<grid, block, 0, (cudaStream_t) stream>>> ((const uint8_t *) src->data,
      src->stride, (uint8_t *) dst->data, dst->stride, src->width, src->height, r.c, r.s);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}
