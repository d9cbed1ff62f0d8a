/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Convolution plans: parameters and kernels checked, true convolution
 * turned into correlation with a flipped kernel, memory estimated before
 * anything is allocated, sizes worked out, and the back end chosen once
 * (the planner: it calls the back ends; what they share is in fv_conv.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_config.h"
#include "fv_conv_plan.h"
#include "fv_conv_cuda.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "../common/fv_planner.h"
#include "../common/fv_parallel.h"
#if FV_HAVE_CUDA
#include "../common/fv_chunked.h"

/* The chunked back end: a frame beyond the device budget, or spread over
 * several devices, runs as chunks (fv_chunked.h; `user` is the frame's
 * parameters, their spread a part of the frame), each a plain CUDA plan of
 * the chunk's size. The halo is the kernel's reach from its centre, kw/2
 * by kh/2; a wrapping border gathers its halo from the far side. The FFT
 * size differs from the whole frame's, so results agree within the
 * transform's rounding (the accuracy bound), bit for bit by direct sums. */
static fv_status
chunk_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  fv_conv_params q = *(const fv_conv_params *) user;
  q.frame.width = width;
  q.frame.height = height;
  return fv_conv_plan_create ((fv_conv_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
}

static fv_status
chunk_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  return fv_conv_execute (plan, src, dst);
}

static fv_status
chunk_rows (void *plan, const fv_image *src, const fv_image *dst, int row0, int rows,
    void *user)
{
  return fv_conv_execute_rows (plan, src, dst, row0, rows);
}

static void
chunk_destroy (void *plan, void *user)
{
  fv_conv_plan_destroy (plan);
}

static size_t
chunk_bytes (int width, int height, void *user)
{
  const fv_conv_params *q = user;
  return fv_conv_cuda_bytes (q, fv_conv_cuda_direct (q), width, height);
}

static const fv_chunk_kernel conv_chunks = {
  .create = chunk_create, .execute = chunk_execute, .destroy = chunk_destroy,
  .bytes = chunk_bytes, .execute_rows = chunk_rows
};

static fv_status
chunked_init (fv_conv_plan *pl, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_conv_params *p = &pl->p;
  pl->gpu_method = fv_conv_cuda_direct (p) ? FV_CONV_DIRECT : FV_CONV_FFT;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->frame.spread, device, p->frame.width, p->frame.height,
      p->frame.channels, p->frame.sample,
      p->kernel_width / 2, p->kernel_height / 2, &rp);
  rp.wrap = p->border == FV_BORDER_WRAP;
  /* The chunks' sub-plans transform a row of tiles at a time (buffers for
   * one row, not the chunk's: bands under a budget are taller) in tiles of
   * 1024 a side (fv_conv_batch_tiles), and bands compute their own rows
   * only (fv_conv_execute_rows), so band edges on whole tile rows cost the
   * frame's own tiles and no more: a band's rows are a multiple of a
   * tile's. (A band cut anywhere cost a whole tile row more, and the
   * layouts timed for thin windows were slower: H200, 31x31, 32768 wide,
   * ms a megapixel, 0.0153 the whole frame, 0.0183 bands of 1,080 rows,
   * 0.03 a whole-window transform; probe_conv_bands.) */
  fv_conv_params q = *p;
  if (pl->gpu_method == FV_CONV_FFT) {
    q.batch_rows = 1;
    int tw, th;
    fv_conv_batch_tiles (&q, p->frame.width, p->frame.height, &tw, &th);
    rp.align_y = th;
    /* over several GPUs, no more chunks than rows of tiles */
    const int rows = (p->frame.height + th - 1) / th, entries = rp.ndevices * rp.lanes;
    if (rp.per_entry * entries > rows)
      rp.per_entry = rows / entries > 1 ? rows / entries : 1;
  }
  fv_spread_part (&q.frame.spread, p->frame.width, p->frame.height);
  return fv_chunked_create (&pl->state, &conv_chunks, &q, sizeof q, &rp);
}

static fv_status
chunked_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  return fv_chunked_execute (pl->state, src, dst);
}

static void
chunked_free (fv_conv_plan *pl)
{
  fv_chunked_destroy (pl->state);
  pl->state = NULL;
}

/* the runner's lanes have budgets of their own: no whole-plan bytes */
const fv_conv_backend fv_conv_chunked_backend = { chunked_init, chunked_execute, NULL,
  chunked_free, NULL };

const fv_chunk_plan *
fv_conv_chunked_plan (const fv_conv_plan *pl)
{
  return fv_chunked_plan (pl->state);
}
#endif

/* True convolution is correlation with the kernel flipped. Its centre
 * (kw/2 in the flipped frame of reference) then sits at kw-1-kw/2, one tap
 * left of the correlator's kw/2 for even sizes: a leading zero column (row)
 * puts it back. */
static fv_status
plan_flipped (fv_conv_plan **out, const fv_conv_params *p, fv_backend backend, int device,
    void *stream)
{
  const int kw = p->kernel_width, kh = p->kernel_height;
  const int ew = kw % 2 == 0, eh = kh % 2 == 0, fw = kw + ew, fh = kh + eh;
  float *f = calloc ((size_t) fw * fh, sizeof *f);
  if (!f)
    return FV_ERR_NOMEM;
  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++)
      f[(size_t) (kh - 1 - j + eh) * fw + (kw - 1 - i + ew)] = p->kernel[(size_t) j * kw + i];
  fv_conv_params q = *p;
  q.kernel = f;
  q.kernel_width = fw;
  q.kernel_height = fh;
  q.convolve = 0;
  fv_status st = fv_conv_plan_create (out, &q, backend, device, stream);
  free (f);
  return st;
}

static int
params_valid (const fv_conv_params *p, fv_backend backend)
{
  return p && p->frame.width >= 1 && p->frame.height >= 1 && p->frame.channels >= 1
      && p->frame.channels <= 4
      && (p->frame.sample == FV_U8 || p->frame.sample == FV_U16) && p->kernel
      && p->kernel_width >= 1 && p->kernel_height >= 1
      && p->kernel_rounding >= 0 && p->kernel_rounding < 1e30
      && p->kernel_width <= FV_CONV_MAX_KERNEL + 1 && p->kernel_height <= FV_CONV_MAX_KERNEL + 1
      && (unsigned) p->border <= FV_BORDER_WRAP && (unsigned) p->method <= FV_CONV_SEPARABLE
      && p->frame.threads >= 0 && isfinite (p->bias)
      && (!p->frame.roi_width || (p->frame.roi_width >= 1 && p->frame.roi_height >= 1
          && p->frame.roi_x >= 0
          && p->frame.roi_y >= 0 && p->frame.roi_x + p->frame.roi_width <= p->frame.width
          && p->frame.roi_y + p->frame.roi_height <= p->frame.height));
}

/* The kernel's copy and sums, the threads, the window and padded sizes. */
static fv_status
plan_geometry (fv_conv_plan *pl, const fv_conv_params *p)
{
  size_t nk = (size_t) p->kernel_width * p->kernel_height;
  pl->p = *p;
  pl->kernel = malloc (sizeof (float) * nk);
  if (!pl->kernel)
    return FV_ERR_NOMEM;
  for (size_t i = 0; i < nk; i++) {
    pl->kernel[i] = p->kernel[i];
    pl->ksum += p->kernel[i];
    pl->kabs += fabs (p->kernel[i]);
  }
  pl->p.kernel = pl->kernel;
  /* more threads than cores only slow FFTW's planning and the transforms */
  pl->nthreads = fv_threads_resolve (p->frame.threads);
  if (pl->nthreads > fv_threads_resolve (0))
    pl->nthreads = fv_threads_resolve (0);
  pl->rx = p->frame.roi_width ? p->frame.roi_x : 0;
  pl->ry = p->frame.roi_width ? p->frame.roi_y : 0;
  pl->ow = p->frame.roi_width ? p->frame.roi_width : p->frame.width;
  pl->oh = p->frame.roi_width ? p->frame.roi_height : p->frame.height;
  pl->ew = pl->ow + p->kernel_width - 1;
  pl->eh = pl->oh + p->kernel_height - 1;
  pl->pw = fv_conv_fast_size (pl->ew);
  pl->ph = fv_conv_fast_size (pl->eh);
  pl->method = p->method;
  return FV_OK;
}

static const fv_conv_backend *const backends[] = {
  [FV_BACKEND_CPU] = &fv_conv_cpu_backend,
  [FV_BACKEND_CUDA] = FV_CUDA_ENTRY (&fv_conv_cuda_backend),
};
static const fv_conv_backend *const chunked_backend = FV_CUDA_ENTRY (&fv_conv_chunked_backend);

fv_status
fv_conv_plan_create (fv_conv_plan **out, const fv_conv_params *p, fv_backend backend,
    int device, void *stream)
{
  *out = NULL;
  if (!params_valid (p, backend)) {
    fv_set_last_error ("invalid convolution parameters");
    return FV_ERR_INVALID;
  }
  fv_status bst = FV_PLAN_CHECK_PTR (backend, backends);
  if (bst != FV_OK)
    return bst;
  if (p->convolve)
    return plan_flipped (out, p, backend, device, stream);
  if (fv_conv_kernel_check (p->kernel, p->kernel_width, p->kernel_height, p->normalize) != FV_OK
      || (p->method == FV_CONV_SEPARABLE
          && fv_conv_separable_check (p->kernel, p->kernel_width, p->kernel_height,
              p->kernel_rounding) != FV_OK))
    return FV_ERR_INVALID;
  /* the order every kernel's planner keeps (fv_planner.h); chunks: see
   * fv_conv_cuda_plan.c, whose sub-plans come back here at their size */
  const fv_conv_plan whole = { .p = *p };
  const fv_plan_choice choice = { backend, FV_PLAN_INIT_PTR (backend, backends), &p->frame,
    backend == FV_BACKEND_CUDA ? backends[backend]->bytes (&whole) : 0,
    { fv_conv_plan_estimate (p), 0 }, "the convolution plan" };
  int chunked = 0;
  fv_status cst = fv_plan_choose (&choice, device, &chunked);
  if (cst != FV_OK)
    return cst;
  const fv_conv_backend *be = chunked ? chunked_backend : backends[backend];
  fv_conv_plan *pl = calloc (1, sizeof *pl);
  if (!pl)
    return FV_ERR_NOMEM;
  pl->be = be;
  fv_status st = plan_geometry (pl, p);
  if (st == FV_OK)
    st = pl->be->init (pl, device, stream);
  if (st != FV_OK) {
    fv_conv_plan_destroy (pl);
    return st;
  }
  *out = pl;
  return FV_OK;
}

const fv_chunk_plan *
fv_conv_plan_chunks (const fv_conv_plan *pl)
{
#if FV_HAVE_CUDA
  if (pl->be == chunked_backend)
    return fv_conv_chunked_plan (pl);
#endif
  return NULL;
}

void *
fv_conv_plan_cuda (const fv_conv_plan *pl)
{
  return pl->state;
}

fv_conv_method
fv_conv_plan_method (const fv_conv_plan *pl)
{
  return pl->be != &fv_conv_cpu_backend ? pl->gpu_method : pl->method;
}

/* Whether src is a frame of the plan's and dst one `rows` high beside it. */
static int
images_match (const fv_conv_params *p, const fv_image *src, const fv_image *dst, int rows)
{
  return src && dst && src->data && dst->data && src->width == p->frame.width
      && src->height == p->frame.height && dst->width == p->frame.width && dst->height == rows
      && src->channels == p->frame.channels && dst->channels == p->frame.channels
      && src->sample == p->frame.sample && dst->sample == p->frame.sample;
}

fv_status
fv_conv_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  const fv_conv_params *p = &pl->p;
  if (!images_match (p, src, dst, p->frame.height)) {
    fv_set_last_error ("images do not match the convolution plan");
    return FV_ERR_INVALID;
  }
  if (p->frame.roi_width) {
    fv_set_last_error ("a window plan gives floats: fv_conv_execute_float");
    return FV_ERR_INVALID;
  }
  return pl->be->execute (pl, src, dst);
}

fv_status
fv_conv_execute_rows (fv_conv_plan *pl, const fv_image *src, const fv_image *dst, int row0,
    int rows)
{
  const fv_conv_params *p = &pl->p;
  if (!images_match (p, src, dst, rows) || row0 < 0 || rows < 1 || row0 + rows > p->frame.height) {
    fv_set_last_error ("images or rows [%d, %d) do not match the convolution plan", row0,
        row0 + rows);
    return FV_ERR_INVALID;
  }
  if (!backends[FV_BACKEND_CUDA] || pl->be != backends[FV_BACKEND_CUDA] || p->frame.roi_width) {
    fv_set_last_error ("row windows are for whole-frame CUDA plans");
    return FV_ERR_INVALID;
  }
#if FV_HAVE_CUDA
  return fv_conv_cuda_execute_rows (pl->state, p, src, dst, row0, rows);
#else
  return FV_ERR_NO_CUDA;
#endif
}

void
fv_conv_plan_destroy (fv_conv_plan *pl)
{
  if (!pl)
    return;
  if (pl->be)
    pl->be->free (pl);
  free (pl->kernel);
  free (pl);
}
