/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Window plans of the box filter (roi_width > 0; satfilter's region mode):
 * a whole-frame plan of the window grown by the radius (fv_window.h) runs
 * on that sub-image of the frame into scratch, and the window's own samples
 * are copied to the output. Exact: an output sample's window reaches no
 * farther than the radius, so never past a cut edge of the sub-image, and
 * where the cut is the frame's edge the border rule applies as on the
 * whole frame. The scratch lives where the output does (device memory for
 * device frames: it never visits the host). */
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "../common/fv_cuda.h"
#include "../common/fv_window.h"

typedef struct {
  fv_box_plan *sub;     /* the grown window's plan, of the plan's backend */
  const fv_box_whole_api *whole;   /* how sub is made and run (the planner's) */
  void *stream;
  void *host, *device;  /* scratch of sub's size, made on first use */
  size_t row, bytes;    /* scratch row stride and size */
  int pinned;           /* host is page-locked (fv_cuda_host_alloc) */
} BoxWindow;

/* The sub-plan's side along an axis: a window of `len` grown by r, within
 * the frame. */
static int
grown (int len, int r, int size)
{
  return (long) len + 2L * r < size ? len + 2 * r : size;
}

/* The parameters of a window plan's sub-plan: the whole-frame filter of
 * the largest window grown by the radius. */
static fv_box_params
sub_params (const fv_box_params *p)
{
  fv_box_params q = *p;
  q.frame.width = grown (p->frame.roi_width, p->radius_x, p->frame.width);
  q.frame.height = grown (p->frame.roi_height, p->radius_y, p->frame.height);
  q.frame.roi_width = q.frame.roi_height = q.frame.roi_x = q.frame.roi_y = 0;
  return q;
}

size_t
fv_box_roi_bytes (const fv_box_params *p, fv_backend backend, const fv_box_whole_api *whole)
{
  const fv_box_params q = sub_params (p);
  /* the sub-plan and a host scratch of its size */
  return sizeof (BoxWindow) + whole->bytes (&q, backend)
      + (size_t) q.frame.width * q.frame.height * p->frame.channels * p->frame.sample;
}

fv_status
fv_box_roi_init (fv_box_plan *plan, int device, void *stream)
{
  const fv_box_params *p = &plan->p;
  BoxWindow *b = calloc (1, sizeof *b);
  plan->state = b;
  if (!b)
    return FV_ERR_NOMEM;
  const fv_box_params q = sub_params (p);
  b->stream = stream;
  b->row = ((size_t) q.frame.width * p->frame.channels * p->frame.sample + 63) / 64 * 64;
  b->bytes = b->row * q.frame.height;
  b->whole = plan->whole;
  return b->whole->create (&b->sub, &q, plan->backend, device, stream);
}

/* Scratch where dst lives: page-locked on the host for CUDA plans (plain
 * memory when that runs out). */
static void *
scratch_for (const fv_box_plan *plan, BoxWindow *b, int on_device)
{
  if (on_device) {
    if (!b->device)
      b->device = fv_cuda_malloc (b->bytes);
    return b->device;
  }
  if (!b->host && plan->backend == FV_BACKEND_CUDA && (b->host = fv_cuda_host_alloc (b->bytes)))
    b->pinned = 1;
  if (!b->host)
    b->host = malloc (b->bytes);
  return b->host;
}

fv_status
fv_box_roi_run (fv_box_plan *plan, const fv_image *src, const fv_image *dst, int x, int y,
    int w, int h)
{
  BoxWindow *b = plan->state;
  const fv_box_params *p = &plan->p;
  const int sw = b->sub->p.frame.width, sh = b->sub->p.frame.height;
  const int on_device = dst->mem == FV_MEM_DEVICE;
  void *scratch = scratch_for (plan, b, on_device);
  if (!scratch) {
    fv_set_last_error ("cannot allocate %zu bytes for a window of the box filter", b->bytes);
    return FV_ERR_NOMEM;
  }
  const int sx = fv_window_start (x, p->radius_x, sw, p->frame.width);
  const int sy = fv_window_start (y, p->radius_y, sh, p->frame.height);
  const size_t px = (size_t) p->frame.channels * p->frame.sample;
  const fv_image in = fv_image_make ((char *) src->data + (size_t) sy * src->stride + sx * px,
      src->stride, sw, sh, p->frame.channels, p->frame.sample, src->mem);
  const fv_image out = fv_image_make (scratch, b->row, sw, sh, p->frame.channels, p->frame.sample,
      on_device ? FV_MEM_DEVICE : FV_MEM_HOST);
  fv_status st = b->whole->execute (b->sub, &in, &out);
  if (st != FV_OK)
    return st;
  const char *from = (const char *) scratch + (size_t) (y - sy) * b->row + (x - sx) * px;
  char *to = (char *) dst->data + (size_t) y * dst->stride + x * px;
  if (on_device)
    return fv_cuda_copy_rows (to, dst->stride, from, b->row, w * px, h, b->stream);
  for (int r = 0; r < h; r++)
    memcpy (to + (size_t) r * dst->stride, from + (size_t) r * b->row, w * px);
  return FV_OK;
}

fv_status
fv_box_roi_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  const fv_box_params *p = &plan->p;
  return fv_box_roi_run (plan, src, dst, p->frame.roi_x, p->frame.roi_y, p->frame.roi_width,
      p->frame.roi_height);
}

void
fv_box_roi_free (fv_box_plan *plan)
{
  BoxWindow *b = plan->state;
  if (!b)
    return;
  if (b->sub)
    b->whole->destroy (b->sub);
  if (b->pinned)
    fv_cuda_host_free (b->host);
  else
    free (b->host);
  fv_cuda_free (b->device);
  free (b);
  plan->state = NULL;
}
