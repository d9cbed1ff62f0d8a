/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the fill's back ends share (the planner, fv_fill_planner.c, calls
 * them; they call nothing of it). */
#include <limits.h>
#include <stdlib.h>
#include "fv_fill_plan.h"
#include "../common/fv_memory.h"

fv_status
fv_fill_over_budget (const fv_fill_plan *pl, const char *what)
{
  fv_set_last_error ("%s of this %dx%d frame would need more than the %.0f MB allowed "
      "(FASTVISION_MAX_MEMORY_MB raises the limit)", what, pl->p.width, pl->p.height,
      fv_memory_limit () / 1048576.0);
  return FV_ERR_INVALID;
}

int
fv_fill_regions_reserve (fv_fill_region **list, int *have, size_t n)
{
  if (n <= (size_t) *have)
    return 1;
  size_t cap = *have ? 2 * (size_t) *have : 64;
  while (cap < n)
    cap *= 2;
  if (cap > INT_MAX)
    return 0;
  fv_fill_region *r = realloc (*list, cap * sizeof *r);
  if (!r)
    return 0;
  *list = r;
  *have = (int) cap;
  return 1;
}

