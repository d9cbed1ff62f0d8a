/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Arithmetic shared by the CPU and CUDA box filters, so that both give the
 * same integers: border extension of prefix sums, window sizes, and the
 * exact rounding of means and standard deviations. */
#ifndef FV_BOX_MATH_H
#define FV_BOX_MATH_H

#include <math.h>
#include <stdint.h>
#include "fv_box.h"

/* The prefix sum of the border-extended sequence, F(k) = sum e(j) over
 * 0 <= j <= k (and -sum over k < j < 0 for negative k), written as a sum of
 * coef[i] * P(idx[i]) where P is the prefix sum of the n real samples and
 * P(-1) = 0. At most 7 terms (callers keep room for 8). This is what lets a SAT serve any border in
 * O(1) per pixel, whatever the radius. */
FV_HD int
fv_border_terms (long k, int n, int border, int *idx, int64_t *coef)
{
  if (k >= 0 && k < n) {
    idx[0] = (int) k; coef[0] = 1;
    return 1;
  }
  if (border == FV_BORDER_RENORMALIZE || border == FV_BORDER_ZERO) {
    if (k < 0)
      return 0;
    idx[0] = n - 1; coef[0] = 1;
    return 1;
  }
  if (border == FV_BORDER_REPLICATE || n == 1) {
    if (k < 0) {
      idx[0] = 0; coef[0] = k + 1;
      return 1;
    }
    /* P(n-1) + (k-n+1) * (P(n-1) - P(n-2)) */
    idx[0] = n - 1; coef[0] = k - n + 2;
    idx[1] = n - 2; coef[1] = -(k - n + 1);
    return 2;
  }
  /* mirror, period t = 2n-2; e is symmetric about 0: F(k) = e0 - F(-k-1) */
  int sign = 1, c = 0;
  if (k < 0) {
    idx[c] = 0; coef[c++] = 1;
    k = -k - 1;
    sign = -1;
  }
  long t = 2L * n - 2, cnt = k + 1, q = cnt / t, rr = cnt % t;
  if (q) {  /* q whole periods: P(n-1) - P(0) + P(n-2) each */
    idx[c] = n - 1; coef[c++] = sign * q;
    idx[c] = 0; coef[c++] = -sign * q;
    idx[c] = n - 2; coef[c++] = sign * q;
  }
  if (rr > 0 && rr <= n) {
    idx[c] = (int) rr - 1; coef[c++] = sign;
  } else if (rr > n) {  /* P(n-1) + P(n-2) - P(t-rr) */
    idx[c] = n - 1; coef[c++] = sign;
    idx[c] = n - 2; coef[c++] = sign;
    idx[c] = (int) (t - rr); coef[c++] = -sign;
  }
  return c;
}

/* Samples of the window along one axis that count for the divisor. */
FV_HD int
fv_window_count (int x, int r, int n, int border)
{
  if (border != FV_BORDER_RENORMALIZE)
    return 2 * r + 1;
  int lo = x - r < 0 ? 0 : x - r;
  int hi = x + r > n - 1 ? n - 1 : x + r;
  return hi - lo + 1;
}

/* floor(sum/n + 1/2), exactly, for sum/n <= 65535 and n <= 2^30: the
 * double error of sum*inv_n + 1/2 (< 2^-34) stays below the guard 2^-33,
 * and guard plus error stay below 1/(2n), the smallest non-zero distance of
 * the true value to the next integer. Truncation is floor: all positive. */
#define FV_HALF_UP (0.5 + 0x1p-33)

FV_HD uint32_t
fv_round_mean (uint64_t sum, double inv_n)
{
  return (uint32_t) ((double) sum * inv_n + FV_HALF_UP);
}

/* Rounded standard deviation: the q with (2q-1)^2 n^2 <= 4v < (2q+1)^2 n^2
 * for v = n*sumsq - sum^2, found from a double guess and fixed exactly. */
FV_HD uint32_t
fv_round_stddev (uint64_t sum, uint64_t sumsq, uint64_t n)
{
  typedef unsigned __int128 u128;
  u128 v = (u128) n * sumsq - (u128) sum * sum;
  u128 v4 = v * 4, n2 = (u128) n * n;
  double guess = sqrt ((double) v) / (double) n + 0.5;
  uint64_t q = (uint64_t) guess;
  while (q > 0 && (u128) (2 * q - 1) * (2 * q - 1) * n2 > v4)
    q--;
  while ((u128) (2 * q + 1) * (2 * q + 1) * n2 <= v4)
    q++;
  return (uint32_t) q;
}

/* Adaptive threshold test, p > (sum/n) * k with k = 1 - sensitivity,
 * multiplied through by n so both backends round identically. */
FV_HD int
fv_threshold_above (uint32_t p, uint64_t sum, uint64_t n, double k)
{
  return (double) p * (double) n > (double) sum * k;
}

#endif
