/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scale every convolution plan applies, CPU and CUDA alike: 1/sum of
 * the kernel when normalizing, and for the renormalize border each window
 * pixel's own weight, the sum of the kernel taps that read samples inside
 * the frame. Those taps form a rectangle of the kernel (the frame is a
 * rectangle), so the weight is four lookups in the kernel's summed-area
 * table, in double precision: no transform of an indicator image, and no
 * host FFT plan for the GPU's plans. */
#include <math.h>
#include <stdlib.h>
#include "fv_conv_plan.h"

/* First tap (along one axis) whose sample lies inside [0, size) for the
 * output at `at`, the window's centre c, and one past the last. */
static void
taps_inside (int at, int c, int k, int size, int *lo, int *hi)
{
  *lo = c - at > 0 ? c - at : 0;
  *hi = size + c - at < k ? size + c - at : k;
  if (*hi < *lo)
    *hi = *lo;
}

fv_status
fv_conv_plan_scale (fv_conv_plan *pl)
{
  const fv_conv_params *p = &pl->p;
  const double base = p->normalize ? 1.0 / pl->ksum : 1.0;
  pl->uniform_scale = (float) base;
  if (p->border != FV_BORDER_RENORMALIZE || fabs (pl->ksum) <= 1e-9 * pl->kabs)
    return FV_OK;
  const int kw = p->kernel_width, kh = p->kernel_height, cx = kw / 2, cy = kh / 2;
  const size_t sw = (size_t) kw + 1;
  double *sat = calloc (sw * (kh + 1), sizeof *sat);   /* sat[j][i]: taps above and left */
  int *xlo = malloc (sizeof (int) * 2 * pl->ow);
  pl->scale = malloc (sizeof (float) * pl->ow * pl->oh);
  if (!sat || !xlo || !pl->scale) {
    free (sat);
    free (xlo);
    free (pl->scale);
    pl->scale = NULL;
    return FV_ERR_NOMEM;
  }
  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++)
      sat[(j + 1) * sw + i + 1] = pl->kernel[(size_t) j * kw + i] + sat[j * sw + i + 1]
          + sat[(j + 1) * sw + i] - sat[j * sw + i];
  int *xhi = xlo + pl->ow;
  for (int x = 0; x < pl->ow; x++)
    taps_inside (pl->rx + x, cx, kw, p->frame.width, &xlo[x], &xhi[x]);
  for (int y = 0; y < pl->oh; y++) {
    int j0, j1;
    taps_inside (pl->ry + y, cy, kh, p->frame.height, &j0, &j1);
    const double *top = sat + (size_t) j0 * sw, *bottom = sat + (size_t) j1 * sw;
    float *row = pl->scale + (size_t) y * pl->ow;
    for (int x = 0; x < pl->ow; x++) {
      const double w = bottom[xhi[x]] - bottom[xlo[x]] - top[xhi[x]] + top[xlo[x]];
      /* weight inside: sum(K)/w restores the full kernel's gain; where
       * almost none of the kernel is inside, fall back to the zero border */
      row[x] = (float) (fabs (w) > 1e-6 * pl->kabs ? (p->normalize ? 1.0 / w : pl->ksum / w)
          : base);
    }
  }
  free (sat);
  free (xlo);
  return FV_OK;
}
