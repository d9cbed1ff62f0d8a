/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RGB to luma on the device, for frames that stay in GPU memory: the same
 * fixed-point weights as the CPU (OpenCV's), one thread per pixel. */
#include "fv_luma.h"
#include "../common/fv_cuda_check.cuh"

__global__ void
luma_kernel (const uint8_t *rgb, size_t rgb_stride, int cn, int r, int g, int b, uint8_t *gray,
    size_t gray_stride, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const uint8_t *s = rgb + (size_t) y * rgb_stride + (size_t) x * cn;
  gray[(size_t) y * gray_stride + x] =
      (uint8_t) ((9798u * s[r] + 19235u * s[g] + 3735u * s[b] + (1u << 14)) >> 15);
}

extern "C" fv_status
fv_luma_from_rgb_cuda (const fv_image *rgb, int r, int g, int b, const fv_image *gray,
    void *stream)
{
  fv_status st = fv_luma_check (rgb, r, g, b, gray, FV_MEM_DEVICE);
  if (st != FV_OK)
    return st;
  const dim3 block (32, 8), grid ((rgb->width + 31) / 32, (rgb->height + 7) / 8);
  luma_kernel<<<grid, block, 0, (cudaStream_t) stream>>> ((const uint8_t *) rgb->data,
      rgb->stride, rgb->channels, r, g, b, (uint8_t *) gray->data, gray->stride, rgb->width,
      rgb->height);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}
