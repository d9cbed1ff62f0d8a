/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <omp.h>
#include "fv_parallel.h"

int
fv_threads_resolve (int requested)
{
  if (requested > 0)
    return requested;
  int n = omp_get_num_procs ();
  return n > 0 ? n : 1;
}
