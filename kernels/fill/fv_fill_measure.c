/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure: the enclosed runs of a filled frame joined into regions, for
 * every back end (the CPU hands over the runs its fill labelled, the GPU the
 * enclosed bits its last pass left). A union-find over the runs, row after
 * row in raster order, union by the smaller index, so that a region's root
 * is its first run and the roots come out in raster order of their first
 * pixel: one pass over the runs, none over the pixels. */
#include <stdlib.h>
#include "fv_fill_plan.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

typedef struct {
  fv_fill_plan *pl;       /* whose budget the tables grow in */
  int over;
  uint32_t *parent;       /* per enclosed run, in raster order */
  fv_fill_region *box;    /* per enclosed run, then per root */
  size_t n, cap, most;    /* most: the frame can hold no more (fv_fill_plan_bytes) */
} region_runs;


static int
add_run (region_runs *rr, const fv_fill_span *r, int y)
{
  if (rr->n == rr->cap) {
    size_t cap = rr->cap ? 2 * rr->cap : 1024;
    cap = cap < rr->most ? cap : rr->most;
    if (!fv_fill_grow (rr->pl, (cap - rr->cap) * (sizeof *rr->parent + sizeof *rr->box))) {
      rr->over = 1;
      return 0;
    }
    uint32_t *p = realloc (rr->parent, cap * sizeof *p);
    if (p)
      rr->parent = p;
    fv_fill_region *b = p ? realloc (rr->box, cap * sizeof *b) : NULL;
    if (!b)
      return 0;
    rr->box = b;
    rr->cap = cap;
  }
  rr->parent[rr->n] = (uint32_t) rr->n;
  rr->box[rr->n] = (fv_fill_region) { r->x0, y, r->x1 - r->x0, 1, r->x1 - r->x0 };
  rr->n++;
  return 1;
}

static void
merge_box (fv_fill_region *a, const fv_fill_region *b)
{
  const int x1 = MAX (a->x + a->width, b->x + b->width);
  const int y1 = MAX (a->y + a->height, b->y + b->height);
  a->x = MIN (a->x, b->x);
  a->y = MIN (a->y, b->y);
  a->width = x1 - a->x;
  a->height = y1 - a->y;
  a->area += b->area;
}

fv_status
fv_fill_measure_spans (fv_fill_plan *pl, int (*spans) (void *ctx, int y, fv_fill_span *out),
    void *ctx)
{
  const int H = pl->p.height, e = pl->p.connectivity == 8;
  const size_t most = (size_t) pl->p.width / 2 + 1;
  region_runs rr = { .pl = pl, .most = most * (size_t) H };
  fv_fill_span *prev = malloc (sizeof *prev * most), *cur = malloc (sizeof *cur * most);
  size_t first_prev = 0;   /* rr index of the last row's first run */
  int nprev = 0, ok = prev && cur;
  for (int y = 0; y < H && ok; y++) {
    const size_t first = rr.n;
    const int n = spans (ctx, y, cur);
    for (int k = 0; k < n && ok; k++)
      ok = add_run (&rr, &cur[k], y);
    /* two pointers over this row's and the last row's runs: runs that
     * touch (or touch at a corner, 8-connected) are one region */
    for (int i = 0, j = 0; ok && i < n && j < nprev;) {
      if (cur[i].x0 < prev[j].x1 + e && prev[j].x0 < cur[i].x1 + e)
        fv_fill_uf_union (rr.parent, (uint32_t) (first + i), (uint32_t) (first_prev + j));
      if (cur[i].x1 < prev[j].x1) i++; else j++;
    }
    fv_fill_span *t = prev; prev = cur; cur = t;
    nprev = n;
    first_prev = first;
  }
  free (prev);
  free (cur);
  size_t nroots = 0;
  for (size_t i = 0; ok && i < rr.n; i++) {
    const uint32_t r = fv_fill_uf_find (rr.parent, (uint32_t) i);
    if (r == i)
      nroots++;
    else
      merge_box (&rr.box[r], &rr.box[i]);
  }
  if (ok && !fv_fill_regions_reserve (pl, nroots))
    ok = 0;
  pl->nregions = 0;
  for (size_t i = 0; ok && i < rr.n; i++)
    if (rr.parent[i] == i)
      pl->regions[pl->nregions++] = rr.box[i];
  free (rr.parent);
  free (rr.box);
  __atomic_sub_fetch (&pl->held, rr.cap * (sizeof *rr.parent + sizeof *rr.box), __ATOMIC_RELAXED);
  if (rr.over)
    return fv_fill_over_budget (pl, "the enclosed regions");
  if (!ok) {
    fv_set_last_error ("out of memory measuring the regions");
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}

int
fv_fill_bits_spans (void *ctx, int y, fv_fill_span *out)
{
  const fv_fill_bits *e = ctx;
  int n = 0, open = -1;   /* where the run being read started, -1: none */
  for (int tx = 0; tx < e->tiles_x; tx++) {
    const int x0 = tx * 32, valid = MIN (e->width - x0, 32);
    const uint64_t mask = (1ull << valid) - 1;
    const uint64_t in = (uint64_t) e->bits[((size_t) (y / 32) * e->tiles_x + tx) * 32 + y % 32]
        & mask, gaps = ~in & mask;
    /* a word wholly inside or outside a run costs one test, otherwise one
     * step a transition */
    for (int k = 0; k < valid;) {
      const uint64_t rest = (open < 0 ? in : gaps) >> k;
      if (!rest)
        break;
      k += __builtin_ctzll (rest);
      if (open < 0) {
        open = x0 + k;
      } else {
        out[n++] = (fv_fill_span) { open, x0 + k };
        open = -1;
      }
    }
  }
  if (open >= 0)
    out[n++] = (fv_fill_span) { open, e->width };
  return n;
}
