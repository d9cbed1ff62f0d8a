/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU threading: OpenMP underneath, so that nested elements share one pool
 * per streaming thread and "threads = 0" means every core. */
#ifndef FV_PARALLEL_H
#define FV_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Threads to use for a request: 0 = all cores, otherwise the number asked. */
int fv_threads_resolve (int requested);

/* Split [0, n) into `parts` nearly equal ranges; range i is [*lo, *hi). */
static inline void
fv_split_range (int n, int parts, int i, int *lo, int *hi)
{
  long q = n / parts, r = n % parts;
  *lo = (int) (i * q + (i < r ? i : r));
  *hi = *lo + (int) q + (i < r ? 1 : 0);
}

#ifdef __cplusplus
}
#endif
#endif
