/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include "fvboxroi.h"

#define MAX_PLANS 16
/* Region windows are rounded up to these sizes so that plans are reused
 * as faces move and grow: on the GPU coarser, since a new plan's device
 * memory (cudaMalloc, and cudaFree of the plan it evicts) makes every
 * stream of the device wait — many cameras in one process then take turns
 * (docs/benchmarks.md) — while a larger window costs the GPU nothing
 * measurable. Any size gives the same pixels. */
#define ROUND_CPU 32
#define ROUND_CUDA 128

typedef struct {
  gint plane, width, height;   /* the largest window the plan takes */
  fv_box_plan *plan;
  guint64 used;
} RoiPlan;

/* A window plan of plane p for windows of w x h: on the GPU the smallest
 * kept one that takes them (no new plan as tracked boxes change size), on
 * the CPU one of exactly that size (a larger window costs the CPU its
 * area); else made, the least recently used dropped past MAX_PLANS. */
static fv_box_plan *
plan_for (FvBoxRegions *roi, gint p, const FvPlaneDesc *d, const fv_box_params *params, gint w,
    gint h, fv_backend backend, gint device, gpointer stream)
{
  if (!roi->plans)
    roi->plans = g_array_new (FALSE, FALSE, sizeof (RoiPlan));
  const gboolean larger = backend == FV_BACKEND_CUDA;
  guint oldest = 0;
  RoiPlan *best = NULL;
  for (guint i = 0; i < roi->plans->len; i++) {
    RoiPlan *e = &g_array_index (roi->plans, RoiPlan, i);
    const gboolean fits = e->plane == p && (larger ? e->width >= w && e->height >= h
        : e->width == w && e->height == h);
    if (fits && (!best || (gint64) e->width * e->height < (gint64) best->width * best->height))
      best = e;
    if (e->used < g_array_index (roi->plans, RoiPlan, oldest).used)
      oldest = i;
  }
  if (best) {
    best->used = ++roi->tick;
    return best->plan;
  }
  fv_box_params bp = *params;
  bp.width = d->width;
  bp.height = d->height;
  bp.roi_x = bp.roi_y = 0;
  bp.roi_width = w;
  bp.roi_height = h;
  RoiPlan e = { p, w, h, NULL, ++roi->tick };
  if (fv_box_plan_create (&e.plan, &bp, backend, device, stream) != FV_OK)
    return NULL;
  if (roi->plans->len >= MAX_PLANS) {
    fv_box_plan_destroy (g_array_index (roi->plans, RoiPlan, oldest).plan);
    g_array_remove_index_fast (roi->plans, oldest);
  }
  g_array_append_val (roi->plans, e);
  return e.plan;
}

/* The largest window whose growth by r on both sides is len + 2r rounded
 * up to `round` (at least len). */
static gint
grown_round (gint len, gint r, gint round)
{
  const gint64 g = ((gint64) len + 2 * (gint64) r + round - 1) / round * round;
  return (gint) MIN (g - 2 * (gint64) r, G_MAXINT);
}

gboolean
fv_box_regions_filter (FvBoxRegions *roi, const FvPlaneLayout *layout,
    const fv_box_params *params, fv_backend backend, gint device, gpointer stream,
    GstVideoFrame *in, GstVideoFrame *out, gint x, gint y, gint w, gint h)
{
  const gint round = backend == FV_BACKEND_CUDA ? ROUND_CUDA : ROUND_CPU;
  for (gint p = 0; p < layout->n_planes; p++) {
    const FvPlaneDesc *d = &layout->plane[p];
    gint x0, y0, x1, y1;   /* the region's samples in this plane */
    if (!fv_plane_span (layout, p, x, y, w, h, &x0, &y0, &x1, &y1))
      continue;
    /* the window grown by the radius (the sub-image the plan filters) is
     * what is rounded: sub-images of whole tiles, as few sizes as can be */
    const gint ww = MIN (grown_round (x1 - x0, params[p].radius_x, round), d->width);
    const gint wh = MIN (grown_round (y1 - y0, params[p].radius_y, round), d->height);
    fv_box_plan *plan = plan_for (roi, p, d, &params[p], ww, wh, backend, device, stream);
    if (!plan)
      return FALSE;
    const fv_image src = fv_plane_image (layout, in, p), dst = fv_plane_image (layout, out, p);
    if (fv_box_execute_roi (plan, &src, &dst, x0, y0, x1 - x0, y1 - y0) != FV_OK)
      return FALSE;
  }
  return TRUE;
}

void
fv_box_regions_clear (FvBoxRegions *roi)
{
  for (guint i = 0; roi->plans && i < roi->plans->len; i++)
    fv_box_plan_destroy (g_array_index (roi->plans, RoiPlan, i).plan);
  if (roi->plans)
    g_array_free (roi->plans, TRUE);
  memset (roi, 0, sizeof *roi);
}
