/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Box-filter plans: parameter checks and dispatch to a backend. */
#include "fv_config.h"   /* FV_HAVE_CUDA, for the tables' CUDA entries */
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "../common/fv_file.h"
#include "../common/fv_memory.h"
#if FV_HAVE_CUDA
#include "../common/fv_chunked.h"
#endif

fv_status
fv_box_params_validate (const fv_box_params *p)
{
  if (!p) {
    fv_set_last_error ("no parameters");
    return FV_ERR_INVALID;
  }
  if (p->width < 1 || p->height < 1 || p->width > FV_BOX_MAX_SIDE || p->height > FV_BOX_MAX_SIDE) {
    fv_set_last_error ("a %dx%d frame: the box filter takes sides of 1 to %d pixels", p->width,
        p->height, 1 << 20);
    return FV_ERR_INVALID;
  }
  if (p->channels < 1 || p->channels > 4) {
    fv_set_last_error ("channels %d out of range 1..4", p->channels);
    return FV_ERR_INVALID;
  }
  if (p->sample != FV_U8 && p->sample != FV_U16) {
    fv_set_last_error ("sample type must be 8 or 16 bit");
    return FV_ERR_INVALID;
  }
  if (p->radius_x < 0 || p->radius_y < 0 || p->radius_x > FV_BOX_MAX_RADIUS
      || p->radius_y > FV_BOX_MAX_RADIUS) {
    fv_set_last_error ("radius %dx%d out of range 0..%d", p->radius_x, p->radius_y,
        FV_BOX_MAX_RADIUS);
    return FV_ERR_INVALID;
  }
  if ((unsigned) p->mode > FV_BOX_THRESHOLD || (unsigned) p->border > FV_BORDER_ZERO) {
    fv_set_last_error ("unknown mode or border");
    return FV_ERR_INVALID;
  }
  if (!(p->sensitivity >= 0.0 && p->sensitivity <= 1.0)) {
    fv_set_last_error ("sensitivity %g out of range 0..1", p->sensitivity);
    return FV_ERR_INVALID;
  }
  if (p->threads < 0) {
    fv_set_last_error ("threads %d negative", p->threads);
    return FV_ERR_INVALID;
  }
  if (p->roi_width && (p->roi_width < 1 || p->roi_height < 1 || p->roi_x < 0 || p->roi_y < 0
          || p->roi_width > p->width - p->roi_x || p->roi_height > p->height - p->roi_y)) {
    fv_set_last_error ("window %dx%d at (%d, %d) outside the %dx%d frame", p->roi_width,
        p->roi_height, p->roi_x, p->roi_y, p->width, p->height);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

int
fv_box_needs_acc64 (const fv_box_params *p)
{
  unsigned long long nx = 2ULL * p->radius_x + 1, ny = 2ULL * p->radius_y + 1;
  if (p->border == FV_BORDER_RENORMALIZE || p->border == FV_BORDER_ZERO) {
    /* only samples inside the frame are summed */
    if (nx > (unsigned long long) p->width) nx = p->width;
    if (ny > (unsigned long long) p->height) ny = p->height;
  }
  unsigned long long maxv = p->sample == FV_U8 ? 255 : 65535;
  unsigned long long big = nx * ny * maxv;
  if (p->mode == FV_BOX_STDDEV)
    big *= maxv;
  /* 31 bits, so that CPU sums convert to double as signed 32-bit integers */
  return big > 0x7fffffffULL;
}

fv_status
fv_box_check_image (const fv_box_params *p, const fv_image *im, const char *what)
{
  if (!im || !im->data) {
    fv_set_last_error ("%s image missing", what);
    return FV_ERR_INVALID;
  }
  if (im->width != p->width || im->height != p->height || im->channels != p->channels
      || im->sample != p->sample) {
    fv_set_last_error ("%s image %dx%dx%d (%d-bit) does not match the plan %dx%dx%d (%d-bit)",
        what, im->width, im->height, im->channels, im->sample * 8, p->width,
        p->height, p->channels, p->sample * 8);
    return FV_ERR_INVALID;
  }
  if (im->stride < fv_image_row_bytes (im)) {
    fv_set_last_error ("%s stride %zu smaller than a row", what, im->stride);
    return FV_ERR_INVALID;
  }
  if (im->mem == FV_MEM_DEVICE && !fv_box_aligned (im)) {
    fv_set_last_error ("%s device image: 16-bit samples at an odd address or stride", what);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

int
fv_box_aligned (const fv_image *im)
{
  return im->stride % im->sample == 0 && (uintptr_t) im->data % im->sample == 0;
}

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
 * whole-frame CUDA plans of the chunk's size (fv_chunked.h). The halo is
 * the radius (the window reaches no farther); chunk inputs slide inside the
 * frame at its edges, so each border rule meets the frame's own edges
 * there: exact integers, as unchunked. */
static fv_status
chunk_rows (void *plan, const fv_image *src, const fv_image *dst, int row0, int rows)
{
  return fv_box_execute_rows (plan, src, dst, row0, rows);
}

FV_CHUNKED_BACKEND (box_chunks, fv_box_plan, fv_box_params, fv_box_plan_create, fv_box_execute,
    fv_box_plan_destroy, fv_box_cuda_bytes, chunk_rows)

static fv_status
chunked_init (fv_box_plan *plan, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_box_params *p = &plan->p;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->spread, device, p->width, p->height, p->channels, p->sample,
      p->radius_x, p->radius_y, &rp);
  return fv_chunked_create (&plan->state, &box_chunks, p, &rp);
}
#endif

static size_t
window_bytes (const fv_box_plan *plan)
{
  return fv_box_roi_bytes (&plan->p, plan->backend);
}

/* window plans (roi_width > 0), over a plan of either backend */
static const fv_box_backend window_backend = {
  fv_box_roi_init, fv_box_roi_execute, NULL, fv_box_roi_free, window_bytes
};

/* the chunk runner's lanes have budgets of their own: no whole-plan bytes */
static const fv_box_backend chunked_backend = {
  FV_CUDA_ENTRY (chunked_init), FV_CUDA_ENTRY (box_chunks_execute), NULL,
  FV_CUDA_ENTRY (box_chunks_free), NULL
};

size_t
fv_box_plan_bytes (const fv_box_params *params, fv_backend backend)
{
  /* a CUDA plan's host part is its descriptor; its device memory has its
   * own budget (spread.max_device_bytes) */
  const fv_box_plan probe = { .p = *params, .backend = backend };
  if (params->roi_width)
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
  if ((st = FV_PLAN_CHECK (backend, backends)) != FV_OK)
    return st;
  if (!fv_memory_check ((double) fv_box_plan_bytes (params, backend), "the box filter's plan"))
    return FV_ERR_INVALID;
  fv_box_plan *plan = calloc (1, sizeof *plan);
  if (!plan)
    return FV_ERR_NOMEM;
  plan->p = *params;
  plan->backend = backend;
  /* chunks by the rule every kernel follows (fv_spread_chunked: several
   * device entries, another device, forced chunks); the budget itself is
   * the whole-frame plan's to meet, in bands of rows, and only when not even
   * those fit (its init says FV_ERR_NOMEM) do chunks take over below */
  int chunked = 0;
  if (backend == FV_BACKEND_CUDA && !params->roi_width
      && (st = fv_spread_chunked (&params->spread, device, 0, &chunked)) != FV_OK) {
    free (plan);
    return st;
  }
  plan->be = params->roi_width ? &window_backend : chunked ? &chunked_backend
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
  rp.height = rows;
  if (row0 < 0 || rows < 1 || row0 + rows > plan->p.height
      || (st = fv_box_check_image (&rp, dst, "destination")) != FV_OK) {
    if (st == FV_OK)
      fv_set_last_error ("rows [%d, %d) outside the plan's %d", row0, row0 + rows,
          plan->p.height);
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
  if (w < 1 || h < 1 || x < 0 || y < 0 || w > p->width - x || h > p->height - y
      || w > p->roi_width || h > p->roi_height) {
    fv_set_last_error ("window %dx%d at (%d, %d): the plan takes windows of up to %dx%d "
        "inside the %dx%d frame", w, h, x, y, p->roi_width, p->roi_height, p->width, p->height);
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
