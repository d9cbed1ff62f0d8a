/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plan's raw windows, shared by the front and the back ends: the buffer
 * they are kept in, and window keys turned into rectangles in OpenCV's
 * order. (Its own file, so that the back ends do not call back into the
 * front.) */
#include <stdlib.h>
#include "fv_vj_plan.h"

fv_status
fv_vj_raw_reserve (fv_vj_plan *pl, int n)
{
  if (n <= pl->raw_cap)
    return FV_OK;
  int cap = pl->raw_cap ? pl->raw_cap : 64;
  while (cap < n)
    cap *= 2;
  fv_rect *r = realloc (pl->raw, sizeof *r * cap);
  fv_detection *d = realloc (pl->det, sizeof *d * cap);
  if (r)
    pl->raw = r;
  if (d)
    pl->det = d;
  if (!r || !d)
    return FV_ERR_NOMEM;
  pl->raw_cap = cap;
  return FV_OK;
}

static int
cmp_key (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

void
fv_vj_keys_to_raw (fv_vj_plan *pl, uint64_t *keys, int n)
{
  qsort (keys, n, sizeof *keys, cmp_key);
  for (int i = 0; i < n; i++) {
    const fv_vj_level *lv = &pl->py.lv[fv_vj_key_level (keys[i])];
    fv_rect r = fv_vj_window_rect (lv, fv_vj_key_x (keys[i]), lv->y0 + fv_vj_key_y (keys[i]));
    /* rounding can take a window past the frame's edge: OpenCV clips it */
    if (r.x + r.width > pl->p.frame.width)
      r.width = pl->p.frame.width - r.x;
    if (r.y + r.height > pl->p.frame.height)
      r.height = pl->p.frame.height - r.y;
    pl->raw[i] = r;
  }
  pl->nraw = n;
}

