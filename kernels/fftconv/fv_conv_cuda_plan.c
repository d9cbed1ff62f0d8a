/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA back end's host side: direct summation in shared memory for
 * small kernels and FFT above, cuFFT's fastest size, the edge weights
 * worked out on the host with a quickly planned transform, then the device
 * half (fv_conv_cuda.cu, or its stub in builds without CUDA). */
#include "fv_conv_plan.h"
#include "fv_conv_cuda.h"

static fv_status
cuda_init (fv_conv_plan *pl, int device, void *stream)
{
  const fv_conv_params *p = &pl->p;
  const int taps = p->kernel_width * p->kernel_height;
  pl->gpu_method = p->method != FV_CONV_AUTO ? p->method
      : taps <= FV_CONV_GPU_DIRECT_TAPS ? FV_CONV_DIRECT : FV_CONV_FFT;
  pl->method = FV_CONV_FFT;
  pl->p.measure = 0;
  if (pl->gpu_method == FV_CONV_FFT)   /* cuFFT's fastest size, not FFTW's */
    fv_conv_cuda_pick_size (pl->ew, pl->eh, device, &pl->pw, &pl->ph);
  fv_status st = fv_conv_cpu_plan (pl, 0);
  if (st != FV_OK)
    return st;
  return fv_conv_cuda_init (&pl->cuda, &pl->p, pl->gpu_method == FV_CONV_DIRECT, pl->pw, pl->ph,
      pl->scale, pl->uniform_scale, device, stream);
}

static fv_status
cuda_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  return fv_conv_cuda_execute (pl->cuda, &pl->p, src, dst);
}

static void
cuda_free (fv_conv_plan *pl)
{
  fv_conv_cuda_free (pl->cuda);
  pl->cuda = NULL;
  fv_conv_cpu_free (pl);
}

const fv_conv_backend fv_conv_cuda_backend = { cuda_init, cuda_execute, cuda_free };
