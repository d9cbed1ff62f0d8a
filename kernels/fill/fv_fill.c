/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the fill's back ends share (the planner, fv_fill_planner.c, calls
 * them; they call nothing of it). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "fv_fill_plan.h"
#include "../common/fv_memory.h"

fv_status
fv_fill_over_budget (const fv_fill_plan *pl, const char *what)
{
  fv_set_last_error ("%s of this %dx%d frame would need more than the %.0f MB allowed "
      "(FASTVISION_MAX_MEMORY_MB raises the limit)", what, pl->p.frame.width, pl->p.frame.height,
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

/* A region's features from its sums (any back end's). */
void
fv_fill_region_shape (const fv_fill_region *r, fv_fill_shape *s)
{
  *s = (fv_fill_shape) { 0 };
  if (!r || r->area <= 0)
    return;
  const double a = (double) r->area;
  s->cx = (double) r->sum_x / a;
  s->cy = (double) r->sum_y / a;
  /* central second moments, exact in integers before the one division:
   * mu20 = (A Σx² - (Σx)²) / A² */
  const __int128 A = r->area;
  const double a2 = a * a;
  const double mu20 = (double) (A * r->sum_xx - (__int128) r->sum_x * r->sum_x) / a2;
  const double mu02 = (double) (A * r->sum_yy - (__int128) r->sum_y * r->sum_y) / a2;
  const double mu11 = (double) (A * r->sum_xy - (__int128) r->sum_x * r->sum_y) / a2;
  const double half = (mu20 - mu02) / 2, root = sqrt (half * half + mu11 * mu11);
  const double l1 = (mu20 + mu02) / 2 + root, l2 = (mu20 + mu02) / 2 - root;
  s->major = 4 * sqrt (MAX (l1, 0.0));
  s->minor = 4 * sqrt (MAX (l2, 0.0));
  /* counter-clockwise as the image is shown (its y axis points down) */
  double o = -0.5 * atan2 (2 * mu11, mu20 - mu02) * (180.0 / M_PI);
  s->orientation = o <= -90.0 ? o + 180.0 : o + 0.0;
  /* Crofton: lines through the pixel centres in four directions, spaced 1
   * along rows and columns and 1/√2 along the diagonals, each crossing
   * counted; perimeter = (π/4)/2 Σ spacing × crossings */
  s->perimeter = M_PI / 8 * ((double) (r->cross_h + r->cross_v)
      + (double) (r->cross_d + r->cross_a) / M_SQRT2);
  s->equivalent_diameter = sqrt (4 * a / M_PI);
  s->circularity = 4 * M_PI * a / (s->perimeter * s->perimeter);
}
