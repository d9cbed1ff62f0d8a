/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Box-filter plans: the back end chosen once per plan (the planner: it calls
 * the back ends; what they share is in fv_box.c). */
#include "fv_config.h"   /* FV_HAVE_CUDA, for the tables' CUDA entries */
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "../common/fv_file.h"
#include "../common/fv_planner.h"
#if FV_HAVE_CUDA
#include "../common/fv_chunked.h"
#endif

/* Host images whose 16-bit samples sit at odd addresses (any stride is
 * allowed): the CPU kernels read whole samples, so they run on aligned
 * copies. */
static fv_status
execute_staged (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  const size_t row = fv_image_row_bytes (src), n = row * src->height;
  fv_image s = *src, d = *dst;
  s.data = malloc (n ? n : 1);
  d.data = malloc (n ? n : 1);
  s.stride = d.stride = row;
  fv_status st = FV_ERR_NOMEM;
  if (s.data && d.data) {
    for (int y = 0; y < src->height; y++)
      memcpy ((char *) s.data + y * row, (const char *) src->data + y * src->stride, row);
    st = fv_box_cpu_execute (plan, &s, &d);
    for (int y = 0; st == FV_OK && y < dst->height; y++)
      memcpy ((char *) dst->data + y * dst->stride, (const char *) d.data + y * row, row);
  }
  free (s.data);
  free (d.data);
  return st;
}

/* The CPU back end: host images, any stride. */
static fv_status
cpu_init (fv_box_plan *plan, int device, void *stream)
{
  return fv_box_cpu_init (plan);
}

static fv_status
cpu_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  fv_status st = fv_require_host (src, dst);
  if (st != FV_OK)
    return st;
  if (!fv_box_aligned (src) || !fv_box_aligned (dst))
    return execute_staged (plan, src, dst);
  return fv_box_cpu_execute (plan, src, dst);
}

static size_t
cpu_bytes (const fv_box_plan *plan)
{
  return fv_box_cpu_bytes (&plan->p);
}

static const fv_box_backend backends[] = {
  [FV_BACKEND_CPU] = { cpu_init, cpu_execute, NULL, fv_box_cpu_free, cpu_bytes },
  [FV_BACKEND_CUDA] = { FV_CUDA_ENTRY (fv_box_cuda_init), FV_CUDA_ENTRY (fv_box_cuda_execute),
    NULL, FV_CUDA_ENTRY (fv_box_cuda_free), FV_CUDA_ENTRY (fv_box_cuda_plan_bytes) },
};
#if FV_HAVE_CUDA
/* Frames spread over devices or forced into chunks: the chunk runner over
 * whole-frame CUDA plans of the chunk's size (fv_chunked.h; `user` is the
 * frame's parameters, their spread a part of the frame). The halo is the
 * radius (the window reaches no farther); chunk inputs slide inside the
 * frame at its edges, so each border rule meets the frame's own edges
 * there: exact integers, as unchunked. */
static fv_status
chunk_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  fv_box_params q = *(const fv_box_params *) user;
  q.frame.width = width;
  q.frame.height = height;
  return fv_box_plan_create ((fv_box_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
}

static fv_status
chunk_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  return fv_box_execute (plan, src, dst);
}

static fv_status
chunk_rows (void *plan, const fv_image *src, const fv_image *dst, int row0, int rows,
    void *user)
{
  return fv_box_execute_rows (plan, src, dst, row0, rows);
}

static void
chunk_destroy (void *plan, void *user)
{
  fv_box_plan_destroy (plan);
}

static size_t
chunk_bytes (int width, int height, void *user)
{
  return fv_box_cuda_bytes (user, width, height);
}

static const fv_chunk_kernel box_chunks = {
  .create = chunk_create, .execute = chunk_execute, .destroy = chunk_destroy,
  .bytes = chunk_bytes, .execute_rows = chunk_rows
};

static fv_status
chunked_init (fv_box_plan *plan, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_box_params *p = &plan->p;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->frame.spread, device, p->frame.width, p->frame.height,
      p->frame.channels, p->frame.sample,
      p->radius_x, p->radius_y, &rp);
  fv_box_params q = *p;
  fv_spread_part (&q.frame.spread, p->frame.width, p->frame.height);
  return fv_chunked_create (&plan->state, &box_chunks, &q, sizeof q, &rp);
}

static fv_status
chunked_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  return fv_chunked_execute (plan->state, src, dst);
}

static void
chunked_free (fv_box_plan *plan)
{
  fv_chunked_destroy (plan->state);
  plan->state = NULL;
}
#endif

/* what a window plan's sub-plan is made and run with: this planner's own */
static const fv_box_whole_api whole_api = {
  fv_box_plan_create, fv_box_execute, fv_box_plan_destroy, fv_box_plan_bytes
};

static size_t
window_bytes (const fv_box_plan *plan)
{
  return fv_box_roi_bytes (&plan->p, plan->backend, &whole_api);
}

/* window plans (roi_width > 0), over a plan of either backend */
static const fv_box_backend window_backend = {
  fv_box_roi_init, fv_box_roi_execute, NULL, fv_box_roi_free, window_bytes
};

/* the chunk runner's lanes have budgets of their own: no whole-plan bytes */
static const fv_box_backend chunked_backend = {
  FV_CUDA_ENTRY (chunked_init), FV_CUDA_ENTRY (chunked_execute), NULL,
  FV_CUDA_ENTRY (chunked_free), NULL
};

size_t
fv_box_plan_bytes (const fv_box_params *params, fv_backend backend)
{
  /* a CUDA plan's host part is its descriptor; its device memory has its
   * own budget (spread.max_device_bytes) */
  const fv_box_plan probe = { .p = *params, .backend = backend };
  if (params->frame.roi_width)
    return sizeof (fv_box_plan) + window_backend.bytes (&probe);
  return sizeof (fv_box_plan) + (backend == FV_BACKEND_CPU
      ? backends[FV_BACKEND_CPU].bytes (&probe) : 0);
}

fv_status
fv_box_plan_create (fv_box_plan **out, const fv_box_params *params,
    fv_backend backend, int device, void *stream)
{
  fv_status st;
  *out = NULL;
  if ((st = fv_box_params_validate (params)) != FV_OK)
    return st;
  /* the order every kernel's planner keeps (fv_planner.h), with no
   * whole-frame device bytes: the budget is the whole-frame plan's to meet,
   * in bands of rows, and only when not even those fit (its init says
   * FV_ERR_NOMEM) do chunks take over below */
  const double host = (double) fv_box_plan_bytes (params, backend);
  const fv_plan_choice choice = { backend, FV_PLAN_INIT (backend, backends),
    &params->frame, 0, { host, host }, "the box filter's plan" };
  int chunked = 0;
  if ((st = fv_plan_choose (&choice, device, &chunked)) != FV_OK)
    return st;
  fv_box_plan *plan = calloc (1, sizeof *plan);
  if (!plan)
    return FV_ERR_NOMEM;
  plan->p = *params;
  plan->backend = backend;
  plan->whole = &whole_api;
  plan->be = params->frame.roi_width ? &window_backend : chunked ? &chunked_backend
      : &backends[backend];
  plan->acc64 = fv_box_needs_acc64 (params);
  st = plan->be->init (plan, device, stream);
  if (st == FV_ERR_NOMEM && plan->be == &backends[FV_BACKEND_CUDA]) {
    /* not even bands of whole rows fit the budget: tiles from the chunk runner */
    plan->be->free (plan);
    plan->be = &chunked_backend;
    st = plan->be->init (plan, device, stream);
  }
  if (st != FV_OK) {
    fv_box_plan_destroy (plan);
    return st;
  }
  *out = plan;
  return FV_OK;
}

/* A plan and two frames of its size. */
static fv_status
check_frames (const fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  fv_status st;
  if (!plan)
    return FV_ERR_INVALID;
  if ((st = fv_box_check_image (&plan->p, src, "source")) != FV_OK)
    return st;
  return fv_box_check_image (&plan->p, dst, "destination");
}

fv_status
fv_box_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  fv_status st = check_frames (plan, src, dst);
  return st == FV_OK ? plan->be->execute (plan, src, dst) : st;
}

fv_status
fv_box_execute_rows (fv_box_plan *plan, const fv_image *src, const fv_image *dst, int row0,
    int rows)
{
  fv_status st;
  if (!plan)
    return FV_ERR_INVALID;
  if ((st = fv_box_check_image (&plan->p, src, "source")) != FV_OK)
    return st;
  fv_box_params rp = plan->p;
  rp.frame.height = rows;
  if (row0 < 0 || rows < 1 || row0 + rows > plan->p.frame.height
      || (st = fv_box_check_image (&rp, dst, "destination")) != FV_OK) {
    if (st == FV_OK)
      fv_set_last_error ("rows [%d, %d) outside the plan's %d", row0, row0 + rows,
          plan->p.frame.height);
    return FV_ERR_INVALID;
  }
  if (plan->be != &backends[FV_BACKEND_CUDA] || !plan->be->init) {
    fv_set_last_error ("row windows are for whole-frame CUDA plans");
    return FV_ERR_INVALID;
  }
#if FV_HAVE_CUDA
  return fv_box_cuda_execute_rows (plan, src, dst, row0, rows);
#else
  return FV_ERR_NO_CUDA;   /* no CUDA plan can be made */
#endif
}

fv_status
fv_box_execute_roi (fv_box_plan *plan, const fv_image *src, const fv_image *dst, int x, int y,
    int w, int h)
{
  fv_status st = check_frames (plan, src, dst);
  if (st != FV_OK)
    return st;
  const fv_box_params *p = &plan->p;
  if (plan->be != &window_backend) {
    fv_set_last_error ("windows are for window plans (roi_width > 0)");
    return FV_ERR_INVALID;
  }
  if (w < 1 || h < 1 || x < 0 || y < 0 || w > p->frame.width - x || h > p->frame.height - y
      || w > p->frame.roi_width || h > p->frame.roi_height) {
    fv_set_last_error ("window %dx%d at (%d, %d): the plan takes windows of up to %dx%d "
        "inside the %dx%d frame", w, h, x, y, p->frame.roi_width, p->frame.roi_height,
            p->frame.width, p->frame.height);
    return FV_ERR_INVALID;
  }
  return fv_box_roi_run (plan, src, dst, x, y, w, h);
}

void
fv_box_plan_destroy (fv_box_plan *plan)
{
  if (!plan)
    return;
  if (plan->be)
    plan->be->free (plan);
  free (plan);
}
