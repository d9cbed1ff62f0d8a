/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How many times each source index appears in a border-extended window. */
#ifndef FV_SAT_CPU_UTIL_H
#define FV_SAT_CPU_UTIL_H

#include <string.h>
#include "fv_box.h"

static inline long
fv_floordiv (long a, long b)
{
  long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* mult[s] = number of j in [lo, hi] whose extended position reads s. */
static inline void
fv_border_multiplicity (long lo, long hi, int n, int border, int *mult)
{
  memset (mult, 0, sizeof (int) * n);
  long a = lo < 0 ? 0 : lo, b = hi > n - 1 ? n - 1 : hi;
  if (border == FV_BORDER_RENORMALIZE || border == FV_BORDER_ZERO) {
    for (long s = a; s <= b; s++)
      mult[s] = 1;
    return;
  }
  if (border == FV_BORDER_REPLICATE || n == 1) {
    for (long s = a; s <= b; s++)
      mult[s] = 1;
    if (lo < 0)
      mult[0] += (int) ((hi < -1 ? hi : -1) - lo + 1);
    if (hi > n - 1)
      mult[n - 1] += (int) (hi - (lo > n ? lo : n) + 1);
    return;
  }
  long t = 2L * n - 2;
  for (long r = 0; r < t; r++) {
    long cnt = fv_floordiv (hi - r, t) - fv_floordiv (lo - 1 - r, t);
    mult[r < n ? r : t - r] += (int) cnt;
  }
}

#endif
