/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Index and weight arithmetic shared by the CPU and CUDA convolutions. */
#ifndef FV_CONV_MATH_H
#define FV_CONV_MATH_H

#include <math.h>
#include "fv_conv.h"
#include "../common/fv_border.h"

/* Bilinear weight of grid cell i of n along an axis of `size` pixels at
 * pixel x: cells belong to their centres; beyond the outer centres the
 * nearest cell alone. Weights of all cells sum to 1. */
FV_HD float
fv_conv_cell_weight (int x, int size, int n, int i)
{
  if (n == 1)
    return 1.0f;
  double f = (x + 0.5) * n / size - 0.5;
  f = f < 0 ? 0 : f > n - 1 ? n - 1 : f;
  int i0 = (int) floor (f);
  if (i0 > n - 2)
    i0 = n - 2;
  double t = f - i0;
  return (float) (i == i0 ? 1.0 - t : i == i0 + 1 ? t : 0.0);
}

/* A result rounded to the sample range; NaN (never expected: kernels whose
 * sums could leave float's range are refused) gives 0, never an undefined
 * conversion. */
FV_HD uint32_t
fv_conv_round (float v, float maxv)
{
  return v > 0.0f ? (v < maxv ? (uint32_t) (v + 0.5f) : (uint32_t) maxv) : 0u;
}

#endif
