/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include "fvboxroi.h"
#include "fv_cuda.h"
#include "fv_window.h"

#define MAX_PLANS 16
/* Region windows are rounded up to these sizes so that plans are reused
 * as faces move and grow: on the GPU coarser, since a new plan's device
 * memory (cudaMalloc, and cudaFree of the plan it evicts) makes every
 * stream of the device wait — many cameras in one process then take turns
 * (docs/benchmarks.md) — while a larger window costs the GPU nothing
 * measurable. Any size gives the same pixels: a window is the region grown
 * by the radius. */
#define ROUND_CPU 32
#define ROUND_CUDA 128

typedef struct {
  gint plane, width, height;
  fv_box_plan *plan;
  guint64 used;
} RoiPlan;

/* A plan for a sub-image of plane p of at least *w x *h: on the GPU the
 * smallest kept one that is large enough and fits the plane (max_w x
 * max_h; the window then grows to its size, which gives the same pixels:
 * no new plan, no cudaMalloc and cudaFree that stall every stream of the
 * device, as tracked boxes change size), on the CPU one of exactly that size
 * (a larger window costs the CPU its area); else made, the least recently
 * used dropped past MAX_PLANS. *w and *h become the plan's size. */
static fv_box_plan *
plan_for (FvBoxRoi *roi, gint p, const fv_box_params *params, gint *w, gint *h, gint max_w,
    gint max_h, fv_backend backend, gint device, gpointer stream)
{
  if (!roi->plans)
    roi->plans = g_array_new (FALSE, FALSE, sizeof (RoiPlan));
  const gboolean larger = backend == FV_BACKEND_CUDA;
  guint oldest = 0;
  RoiPlan *best = NULL;
  for (guint i = 0; i < roi->plans->len; i++) {
    RoiPlan *e = &g_array_index (roi->plans, RoiPlan, i);
    const gboolean fits = e->plane == p && (larger ? e->width >= *w && e->height >= *h
        && e->width <= max_w && e->height <= max_h : e->width == *w && e->height == *h);
    if (fits && (!best || (gint64) e->width * e->height < (gint64) best->width * best->height))
      best = e;
    if (e->used < g_array_index (roi->plans, RoiPlan, oldest).used)
      oldest = i;
  }
  if (best) {
    best->used = ++roi->tick;
    *w = best->width;
    *h = best->height;
    return best->plan;
  }
  fv_box_params bp = *params;
  bp.width = *w;
  bp.height = *h;
  RoiPlan e = { p, *w, *h, NULL, ++roi->tick };
  if (fv_box_plan_create (&e.plan, &bp, backend, device, stream) != FV_OK)
    return NULL;
  if (roi->plans->len >= MAX_PLANS) {
    fv_box_plan_destroy (g_array_index (roi->plans, RoiPlan, oldest).plan);
    g_array_remove_index_fast (roi->plans, oldest);
  }
  g_array_append_val (roi->plans, e);
  return e.plan;
}

/* The length of the span [lo, hi) grown by r, rounded up to `round`
 * samples, at most size. */
static gint
span_length (gint lo, gint hi, gint r, gint size, gint round)
{
  return MIN ((fv_window_length (lo, hi, r, size) + round - 1) / round * round, size);
}

gboolean
fv_box_roi_filter (FvBoxRoi *roi, const FvPlaneLayout *layout, const fv_box_params *params,
    fv_backend backend, gint device, gpointer stream, GstVideoFrame *in, GstVideoFrame *out,
    gint x, gint y, gint w, gint h)
{
  const gint round = backend == FV_BACKEND_CUDA ? ROUND_CUDA : ROUND_CPU;
  for (gint p = 0; p < layout->n_planes; p++) {
    const FvPlaneDesc *d = &layout->plane[p];
    gint x0, y0, x1, y1;   /* the region's samples in this plane */
    if (!fv_plane_span (layout, p, x, y, w, h, &x0, &y0, &x1, &y1))
      continue;
    gint sw = span_length (x0, x1, params[p].radius_x, d->width, round);
    gint sh = span_length (y0, y1, params[p].radius_y, d->height, round);
    fv_box_plan *plan = plan_for (roi, p, &params[p], &sw, &sh, d->width, d->height, backend,
        device, stream);
    if (!plan)
      return FALSE;
    const gint sx = fv_window_start (x0, params[p].radius_x, sw, d->width);
    const gint sy = fv_window_start (y0, params[p].radius_y, sh, d->height);
    const gsize px = (gsize) d->channels * d->sample, row = GST_ROUND_UP_64 (sw * px);
    /* the filtered sub-image lands in scratch beside the frames: on the
     * device for CUDA frames, where it never visits the host */
    const gboolean on_device = fv_frame_mem (out) == FV_MEM_DEVICE;
    if (!(on_device ? fv_scratch_ensure_device (&roi->scratch, row * sh)
            : fv_scratch_ensure (&roi->scratch, row * sh, backend == FV_BACKEND_CUDA))) {
      fv_set_last_error ("cannot allocate %" G_GSIZE_FORMAT " bytes for a region", row * sh);
      return FALSE;
    }
    fv_image whole = fv_plane_image (layout, in, p);
    fv_image src = fv_image_make ((guint8 *) whole.data + (gsize) sy * whole.stride + sx * px,
        whole.stride, sw, sh, d->channels, d->sample, whole.mem);
    fv_image dst = fv_image_make (roi->scratch.data, row, sw, sh, d->channels, d->sample,
        on_device ? FV_MEM_DEVICE : FV_MEM_HOST);
    if (fv_box_execute (plan, &src, &dst) != FV_OK)
      return FALSE;
    guint8 *o = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    gint ostride = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    const guint8 *filtered = roi->scratch.data + (gsize) (y0 - sy) * row + (x0 - sx) * px;
    o += (gsize) y0 * ostride + x0 * px;
    if (on_device) {
      if (fv_cuda_copy_rows (o, ostride, filtered, row, (x1 - x0) * px, y1 - y0, stream) != FV_OK)
        return FALSE;
      continue;
    }
    for (gint r = 0; r < y1 - y0; r++)
      memcpy (o + (gsize) r * ostride, filtered + (gsize) r * row, (x1 - x0) * px);
  }
  return TRUE;
}

void
fv_box_roi_clear (FvBoxRoi *roi)
{
  for (guint i = 0; roi->plans && i < roi->plans->len; i++)
    fv_box_plan_destroy (g_array_index (roi->plans, RoiPlan, i).plan);
  if (roi->plans)
    g_array_free (roi->plans, TRUE);
  fv_scratch_free (&roi->scratch);
  memset (roi, 0, sizeof *roi);
}
