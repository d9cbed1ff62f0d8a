/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Wall-clock timing shared by the CPU benchmarks. */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Median of n timings (sorts them). */
static inline double
median (double *t, int n)
{
  qsort (t, n, sizeof (double), cmp_double);
  return t[n / 2];
}

#endif
