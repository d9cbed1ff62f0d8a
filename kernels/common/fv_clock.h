/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one monotonic clock of the kernels (profiles, the chunk runner's
 * choice, the spin before a stream wait): milliseconds, any origin. */
#ifndef FV_CLOCK_H
#define FV_CLOCK_H

#include <time.h>

static inline double
fv_now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

#endif
