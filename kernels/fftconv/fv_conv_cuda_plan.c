/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA back end's host side: direct summation in shared memory for
 * small kernels and FFT above, cuFFT's fastest size, the scale
 * (fv_conv_scale.c: no CPU plan), then the device half (fv_conv_cuda.cu).
 * Built with CUDA only; the chunked back end over such plans is the
 * planner's (fv_conv_planner.c). */
#include <stdlib.h>
#include "fv_conv_plan.h"
#include "fv_conv_cuda.h"

static fv_status
cuda_init (fv_conv_plan *pl, int device, void *stream)
{
  const fv_conv_params *p = &pl->p;
  pl->gpu_method = fv_conv_cuda_direct (p) ? FV_CONV_DIRECT : FV_CONV_FFT;
  if (pl->gpu_method == FV_CONV_FFT)   /* cuFFT's fastest size, not FFTW's */
    fv_conv_cuda_pick_size (pl->ew, pl->eh, device, &pl->pw, &pl->ph);
  fv_status st = fv_conv_plan_scale (pl);
  if (st != FV_OK)
    return st;
  return fv_conv_cuda_init (&pl->state, &pl->p, pl->gpu_method == FV_CONV_DIRECT, pl->pw, pl->ph,
      pl->scale, pl->uniform_scale, device, stream);
}

static fv_status
cuda_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  return fv_conv_cuda_execute (pl->state, &pl->p, src, dst);
}

static void
cuda_free (fv_conv_plan *pl)
{
  fv_conv_cuda_free (pl->state);
  pl->state = NULL;
  free (pl->scale);
  pl->scale = NULL;
}

static size_t
cuda_bytes (const fv_conv_plan *pl)
{
  return fv_conv_cuda_bytes (&pl->p, fv_conv_cuda_direct (&pl->p), pl->p.frame.width,
      pl->p.frame.height);
}

const fv_conv_backend fv_conv_cuda_backend = { cuda_init, cuda_execute, NULL, cuda_free,
  cuda_bytes };

size_t
fv_conv_cuda_bytes (const fv_conv_params *p, int direct, int width, int height)
{
  const size_t row = ((size_t) width * p->frame.channels * p->frame.sample + 511) / 512 * 512;
  size_t n = 2 * row * height + sizeof (float) * p->kernel_width * p->kernel_height;
  if (p->border == FV_BORDER_RENORMALIZE)
    n += sizeof (float) * width * height;
  if (direct)
    return n + sizeof (float) * width * height;
  if (p->batch_rows > 0 && !p->frame.roi_width) {
    /* rows of tiles at a time (fv_conv_cuda.cu): the batch's real buffer
     * and spectra, a spectrum's worth of work area for each of cuFFT's two
     * plans, and the kernel's spectrum */
    int tw, th;
    fv_conv_batch_tiles (p, width, height, &tw, &th);
    const size_t px = (size_t) tw + p->kernel_width - 1, py = (size_t) th + p->kernel_height - 1;
    const size_t ny = ((size_t) height + th - 1) / th;
    const size_t tiles = ((size_t) width + tw - 1) / tw
        * (ny < (size_t) p->batch_rows ? ny : (size_t) p->batch_rows);
    const size_t nc = (px / 2 + 1) * py;
    return n + sizeof (float) * px * py * tiles + 3 * 8 * nc * tiles + 8 * nc;
  }
  /* the largest size fv_conv_cuda_pick_size may choose (3-smooth) */
  const size_t pw = fv_conv_smooth_size (width + p->kernel_width - 1, 3);
  const size_t ph = fv_conv_smooth_size (height + p->kernel_height - 1, 3);
  const size_t nc = (pw / 2 + 1) * ph;
  /* real buffer, two spectra, and a spectrum's worth of work area for
   * each of cuFFT's two plans; overlap-save tiles may hold a quarter more
   * samples (fv_conv_cuda.cu's layout_limit) */
  return n + (sizeof (float) * pw * ph + 4 * 8 * nc) * 5 / 4;
}

/* GPU by direct summation (auto: small kernels; separable, a CPU method,
 * is taken as auto). */
int
fv_conv_cuda_direct (const fv_conv_params *p)
{
  return p->method == FV_CONV_DIRECT
      || ((p->method == FV_CONV_AUTO || p->method == FV_CONV_SEPARABLE)
          && p->kernel_width * p->kernel_height <= FV_CONV_GPU_DIRECT_TAPS);
}
