/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "fv_box_regions.h"

/* ---- the union ---- */

static int
cmp_int (const void *a, const void *b)
{
  const int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

/* Room for n items of `size` in *p (of *cap); 0 when out of memory. */
static int
reserve (void **p, int *cap, int n, size_t size)
{
  if (n <= *cap)
    return 1;
  int c = *cap ? *cap : 16;
  while (c < n)
    c *= 2;
  void *q = realloc (*p, (size_t) c * size);
  if (!q)
    return 0;
  *p = q;
  *cap = c;
  return 1;
}

fv_status
fv_box_rect_union (const fv_box_rect *in, int n, int width, int height, fv_box_rect **out,
    int *nout)
{
  *out = NULL;
  *nout = 0;
  fv_box_rect *clip = malloc (sizeof *clip * (size_t) (n > 0 ? n : 1));
  int *ys = malloc (sizeof (int) * 2 * (size_t) (n > 0 ? n : 1));
  int (*iv)[2] = malloc (sizeof *iv * (size_t) (n > 0 ? n : 1));
  fv_box_rect *open = NULL, *next = NULL, *res = NULL;
  int nopen = 0, copen = 0, cnext = 0, nres = 0, cres = 0, nclip = 0, nys = 0;
  fv_status st = clip && ys && iv ? FV_OK : FV_ERR_NOMEM;
  for (int i = 0; i < n && st == FV_OK; i++) {
    const fv_box_rect *r = &in[i];
    const int x0 = r->x > 0 ? r->x : 0, y0 = r->y > 0 ? r->y : 0;
    const long long rx1 = (long long) r->x + r->width, ry1 = (long long) r->y + r->height;
    const int x1 = rx1 < width ? (int) rx1 : width, y1 = ry1 < height ? (int) ry1 : height;
    if (x0 >= x1 || y0 >= y1)
      continue;
    clip[nclip++] = (fv_box_rect) { x0, y0, x1 - x0, y1 - y0 };
    ys[nys++] = y0;
    ys[nys++] = y1;
  }
  if (st == FV_OK)
    qsort (ys, (size_t) nys, sizeof (int), cmp_int);
  for (int k = 0; st == FV_OK && k + 1 < nys; k++) {
    const int y0 = ys[k], y1 = ys[k + 1];
    if (y0 == y1)
      continue;
    int niv = 0;
    for (int i = 0; i < nclip; i++)
      if (clip[i].y <= y0 && clip[i].y + clip[i].height >= y1) {
        iv[niv][0] = clip[i].x;
        iv[niv++][1] = clip[i].x + clip[i].width;
      }
    qsort (iv, (size_t) niv, sizeof *iv, cmp_int);   /* intervals by their start */
    int nnext = 0;
    for (int i = 0; i < niv && st == FV_OK;) {
      const int a = iv[i][0];
      int b = iv[i][1];
      for (i++; i < niv && iv[i][0] <= b; i++)
        b = iv[i][1] > b ? iv[i][1] : b;
      fv_box_rect r = { a, y0, b - a, y1 - y0 };
      for (int o = 0; o < nopen; o++)
        if (open[o].x == a && open[o].width == b - a) {   /* the same columns go on */
          r.y = open[o].y;
          r.height = y1 - open[o].y;
          open[o] = open[--nopen];
          break;
        }
      if (!reserve ((void **) &next, &cnext, nnext + 1, sizeof *next))
        st = FV_ERR_NOMEM;
      else
        next[nnext++] = r;
    }
    /* what did not go on is done */
    if (st == FV_OK && !reserve ((void **) &res, &cres, nres + nopen, sizeof *res))
      st = FV_ERR_NOMEM;
    if (st == FV_OK) {
      memcpy (res + nres, open, sizeof *open * (size_t) nopen);
      nres += nopen;
      fv_box_rect *t = open;
      const int ct = copen;
      open = next;
      nopen = nnext;
      copen = cnext;
      next = t;
      cnext = ct;
    }
  }
  if (st == FV_OK && !reserve ((void **) &res, &cres, nres + nopen + 1, sizeof *res))
    st = FV_ERR_NOMEM;
  if (st == FV_OK) {
    memcpy (res + nres, open, sizeof *open * (size_t) nopen);
    nres += nopen;
    *out = res;
    *nout = nres;
    res = NULL;
  }
  if (st != FV_OK)
    fv_set_last_error ("no memory for the union of %d regions", n);
  free (res);
  free (open);
  free (next);
  free (iv);
  free (ys);
  free (clip);
  return st;
}

/* ---- window plans kept by size ---- */

#define MAX_PLANS 16
#define ROUND_CPU 32
#define ROUND_CUDA 128

typedef struct {
  int width, height;   /* the largest window the plan takes */
  fv_box_plan *plan;
  unsigned long long used;
} WindowPlan;

struct fv_box_windows {
  fv_box_params params;
  fv_backend backend;
  int device;
  void *stream;
  WindowPlan plan[MAX_PLANS];
  int n;
  unsigned long long tick;
};

fv_status
fv_box_windows_create (fv_box_windows **out, const fv_box_params *params, fv_backend backend,
    int device, void *stream)
{
  *out = calloc (1, sizeof **out);
  if (!*out)
    return FV_ERR_NOMEM;
  (*out)->params = *params;
  (*out)->backend = backend;
  (*out)->device = device;
  (*out)->stream = stream;
  return FV_OK;
}

/* A window plan for windows of w x h: on the GPU the smallest kept one
 * that takes them (no new plan as tracked boxes change size), on the CPU
 * one of exactly that size (a larger window costs the CPU its area); else
 * made, the least recently used dropped past MAX_PLANS. */
static fv_status
plan_for (fv_box_windows *c, int w, int h, fv_box_plan **out)
{
  const int larger = c->backend == FV_BACKEND_CUDA;
  int oldest = 0;
  WindowPlan *best = NULL;
  for (int i = 0; i < c->n; i++) {
    WindowPlan *e = &c->plan[i];
    const int fits = larger ? e->width >= w && e->height >= h
        : e->width == w && e->height == h;
    if (fits && (!best || (long long) e->width * e->height < (long long) best->width * best->height))
      best = e;
    if (e->used < c->plan[oldest].used)
      oldest = i;
  }
  if (best) {
    best->used = ++c->tick;
    *out = best->plan;
    return FV_OK;
  }
  fv_box_params bp = c->params;
  bp.frame.roi_x = bp.frame.roi_y = 0;
  bp.frame.roi_width = w;
  bp.frame.roi_height = h;
  WindowPlan e = { w, h, NULL, ++c->tick };
  fv_status st = fv_box_plan_create (&e.plan, &bp, c->backend, c->device, c->stream);
  if (st != FV_OK)
    return st;
  if (c->n == MAX_PLANS) {
    fv_box_plan_destroy (c->plan[oldest].plan);
    c->plan[oldest] = c->plan[--c->n];
  }
  c->plan[c->n++] = e;
  *out = e.plan;
  return FV_OK;
}

/* The largest window whose growth by r on both sides is len + 2r rounded
 * up to `round` (at least len). */
static int
grown_round (int len, int r, int round)
{
  const long long g = ((long long) len + 2LL * r + round - 1) / round * round;
  return g - 2LL * r < INT_MAX ? (int) (g - 2LL * r) : INT_MAX;
}

fv_status
fv_box_windows_filter (fv_box_windows *c, const fv_image *src, const fv_image *dst, int x,
    int y, int w, int h)
{
  const fv_box_params *p = &c->params;
  const int round = c->backend == FV_BACKEND_CUDA ? ROUND_CUDA : ROUND_CPU;
  /* the window grown by the radius (the sub-image the plan filters) is what
   * is rounded: sub-images of whole tiles, as few sizes as can be */
  int ww = grown_round (w, p->radius_x, round), wh = grown_round (h, p->radius_y, round);
  ww = ww < p->frame.width ? ww : p->frame.width;
  wh = wh < p->frame.height ? wh : p->frame.height;
  fv_box_plan *plan;
  fv_status st = plan_for (c, ww, wh, &plan);
  return st == FV_OK ? fv_box_execute_roi (plan, src, dst, x, y, w, h) : st;
}

int
fv_box_windows_kept (const fv_box_windows *c)
{
  return c->n;
}

void
fv_box_windows_destroy (fv_box_windows *c)
{
  if (!c)
    return;
  for (int i = 0; i < c->n; i++)
    fv_box_plan_destroy (c->plan[i].plan);
  free (c);
}
