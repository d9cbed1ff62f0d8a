/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the convolution's back ends and its planner share: transform sizes,
 * kernel checks, the memory estimate (the planner, fv_conv_planner.c, calls
 * the back ends; they call nothing of it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_config.h"
#include "fv_conv_plan.h"
#include "fv_conv_cuda.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "../common/fv_parallel.h"

int
fv_conv_smooth_size (int n, int max_prime)
{
  for (int m = n > 1 ? n : 1;; m++) {
    int r = m;
    for (int f = 2; f <= max_prime; f++)
      while (r % f == 0)
        r /= f;
    if (r == 1)
      return m;
  }
}

int
fv_conv_fast_size (int n)
{
#if FV_FFT_FFTW
  return fv_conv_smooth_size (n, 7);
#else
  /* GStreamer's FFT library: even lengths, fastest with factors 2, 3, 5 */
  int m = fv_conv_smooth_size (n, 5);
  while (m % 2)
    m = fv_conv_smooth_size (m + 1, 5);
  return m;
#endif
}

fv_status
fv_conv_kernel_check (const float *k, int kw, int kh, int normalize)
{
  double sum = 0, mag = 0;
  for (size_t i = 0; i < (size_t) kw * kh; i++) {
    if (!isfinite (k[i])) {
      fv_set_last_error ("kernel tap %zu is not a finite number", i);
      return FV_ERR_INVALID;
    }
    sum += k[i];
    mag += fabs (k[i]);
  }
  if (normalize && fabs (sum) <= 1e-9 * mag) {
    fv_set_last_error ("the kernel sums to zero and cannot be normalized (set normalize=false)");
    return FV_ERR_INVALID;
  }
  /* sums of taps this large (or normalizing factors this large) leave
   * float's range on real frames: no meaningful output, so refused */
  if (mag > FV_CONV_MAX_TAP_SUM || (normalize && fabs (sum) * FV_CONV_MAX_TAP_SUM < 1.0)) {
    fv_set_last_error ("the kernel's taps are out of range (magnitudes summing to %g, sum %g: "
        "at most %g, and at least %g when normalized)", mag, sum, FV_CONV_MAX_TAP_SUM,
        1.0 / FV_CONV_MAX_TAP_SUM);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

double
fv_conv_plan_estimate (const fv_conv_params *p)
{
  double ow = p->frame.roi_width ? p->frame.roi_width : p->frame.width, oh = p->frame.roi_width
      ? p->frame.roi_height : p->frame.height;
  double pw = fv_conv_fast_size ((int) ow + p->kernel_width - 1);
  double ph = fv_conv_fast_size ((int) oh + p->kernel_height - 1);
  int kmax = p->kernel_width > p->kernel_height ? p->kernel_width : p->kernel_height;
  double P = fv_conv_fast_size (p->tile > 0 ? p->tile + kmax - 1 : kmax * 4 > 512 ? kmax * 4 : 512);
  /* kernel copy, four padded planes (frame, two spectra, kernel), scale,
   * and a tile pair a thread */
  return 4.0 * p->kernel_width * p->kernel_height + 16.0 * pw * ph + 4.0 * ow * oh
      + (fv_threads_resolve (p->frame.threads) + 1.0) * 8.0 * P * (P + 2);
}

void
fv_conv_batch_tiles (const fv_conv_params *p, int width, int height, int *tw, int *th)
{
  const int kmax = p->kernel_width > p->kernel_height ? p->kernel_width : p->kernel_height;
  int side = 1024;
  while (side < 2 * kmax)
    side *= 2;
  *tw = side - p->kernel_width + 1 < width ? side - p->kernel_width + 1 : width;
  *th = side - p->kernel_height + 1 < height ? side - p->kernel_height + 1 : height;
}

fv_status
fv_conv_separable_check (const float *k, int kw, int kh, double rounding)
{
  float *col = malloc (sizeof (float) * kh), *row = malloc (sizeof (float) * kw);
  int separable = col && row && fv_conv_separate_within (k, kw, kh, rounding, col, row);
  free (col);
  free (row);
  if (!col || !row)
    return FV_ERR_NOMEM;
  if (!separable) {
    fv_set_last_error ("the %dx%d kernel is not separable (not the outer product of a column "
        "and a row): use method auto, direct or fft", kw, kh);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}
