/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The border algebra the SAT filters rest on: prefix sums of the extended
 * sequence, and row multiplicities, against brute force. */
#include <stdlib.h>
#include "fvtest.h"
#include "../../kernels/sat/fv_box_math.h"
#include "../../kernels/sat/fv_sat_cpu_util.h"

static long
brute_map (long j, int n, int b)
{
  if (j >= 0 && j < n) return j;
  if (b == FV_BORDER_REPLICATE) return j < 0 ? 0 : n - 1;
  if (b == FV_BORDER_MIRROR) {
    if (n == 1) return 0;
    while (j < 0 || j >= n) j = j < 0 ? -j : 2L * (n - 1) - j;
    return j;
  }
  return -1;
}

int
main (void)
{
  fvt_rng rng = { 12345 };
  for (int n = 1; n <= 9; n++)
    for (int b = 0; b <= FV_BORDER_ZERO; b++) {
      long v[9], P[10];
      P[0] = 0;
      for (int i = 0; i < n; i++) {
        v[i] = fvt_next (&rng) % 100;
        P[i + 1] = P[i] + v[i];
      }
      for (long k = -4L * n - 7; k <= 4L * n + 7; k++) {
        /* F(k) = sum_{0..k} e(j), or -sum_{k+1..-1} e(j) for k < 0 */
        long want = 0;
        if (k >= 0)
          for (long j = 0; j <= k; j++) { long m = brute_map (j, n, b); want += m >= 0 ? v[m] : 0; }
        else
          for (long j = k + 1; j <= -1; j++) { long m = brute_map (j, n, b); want -= m >= 0 ? v[m] : 0; }
        int idx[8];
        int64_t coef[8];
        int c = fv_border_terms (k, n, b, idx, coef);
        long got = 0;
        for (int t = 0; t < c; t++)
          got += coef[t] * P[idx[t] + 1];
        FVT_CHECK (got == want, "terms n=%d border=%d k=%ld: %ld != %ld", n, b, k, got, want);
        FVT_CHECK (fv_border_map (k, n, b) == (b == FV_BORDER_RENORMALIZE || b == FV_BORDER_ZERO
                ? (k >= 0 && k < n ? k : -1) : brute_map (k, n, b)), "map n=%d b=%d k=%ld", n, b, k);
      }
      for (long lo = -3L * n; lo <= 2L * n; lo++)
        for (long hi = lo; hi <= lo + 3L * n + 2; hi++) {
          int m[9], want[9] = { 0 };
          fv_border_multiplicity (lo, hi, n, b, m);
          for (long j = lo; j <= hi; j++) {
            long s = brute_map (j, n, b);
            if (s >= 0 && (b != FV_BORDER_RENORMALIZE || (j >= 0 && j < n)))
              want[s]++;
          }
          for (int s = 0; s < n; s++)
            FVT_CHECK (m[s] == want[s], "mult n=%d b=%d [%ld,%ld] s=%d: %d != %d", n, b, lo, hi,
                s, m[s], want[s]);
        }
    }
  return fvt_summary ("test_border");
}
