/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Spatially varying convolution: a grid of kernels blended bilinearly, each
 * kernel convolved over the window where its weight is not zero (the
 * overlap-add scheme of Kepner's fast convolver), accumulated in floats and
 * rounded once. */
#include "fv_config.h"   /* FV_HAVE_CUDA: the device grid */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_conv.h"
#include "fv_conv_cuda.h"
#include "fv_conv_math.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "fv_plan.h"

typedef FV_PLAN_BACKEND (fv_conv_grid) fv_conv_grid_backend;

struct fv_conv_grid {
  fv_conv_params p;
  int cols, rows;
  const fv_conv_grid_backend *be;
  /* while init runs: the cells' kernels (fv_conv_grid_create's) */
  const float *const *kernels;
  const int *kw, *kh;
  fv_conv_plan **plans;        /* one window plan per cell */
  int *x0, *x1, *y0, *y1;      /* each cell's window */
  float *acc, *tmp;
  void *cuda;                  /* GPU grids: the device frame and float sum */
  void **cells;                /* GPU grids: each cell plan's GPU half */
};

float
fv_conv_grid_weight (int x, int size, int n, int i)
{
  return fv_conv_cell_weight (x, size, n, i);
}

/* [*a, *b): where cell i's weight is not zero. */
static void
span (int size, int n, int i, int *a, int *b)
{
  *a = size;
  *b = 0;
  for (int x = 0; x < size; x++)
    if (fv_conv_grid_weight (x, size, n, i) > 0.0f) {
      if (x < *a)
        *a = x;
      *b = x + 1;
    }
}

/* Each cell's window plan (a window that no pixel weighs is left out),
 * on `stream` for a CUDA grid (the cells run in order on it). */
static fv_status
make_cells (fv_conv_grid *g, fv_backend backend, int device, void *stream)
{
  const fv_conv_params *base = &g->p;
  for (int j = 0; j < g->rows; j++)
    for (int i = 0; i < g->cols; i++) {
      int c = j * g->cols + i;
      span (base->frame.width, g->cols, i, &g->x0[c], &g->x1[c]);
      span (base->frame.height, g->rows, j, &g->y0[c], &g->y1[c]);
      if (g->x1[c] <= g->x0[c] || g->y1[c] <= g->y0[c])
        continue;   /* more cells than pixels: this one never counts */
      fv_conv_params p = *base;
      p.kernel = g->kernels[c];
      p.kernel_width = g->kw[c];
      p.kernel_height = g->kh[c];
      p.bias = 0;
      p.frame.roi_x = g->x0[c];
      p.frame.roi_y = g->y0[c];
      p.frame.roi_width = g->x1[c] - g->x0[c];
      p.frame.roi_height = g->y1[c] - g->y0[c];
      fv_status st = fv_conv_plan_create (&g->plans[c], &p, backend, device, stream);
      if (st != FV_OK)
        return st;
      g->cells[c] = fv_conv_plan_cuda (g->plans[c]);
    }
  return FV_OK;
}

/* The grid's back ends (fv_plan.h's shape): the CPU's blends on the host;
 * CUDA's shares one device frame and float sum between its cells (the
 * cells' own CUDA halves, fv_conv_plan_cuda, run on the grid's stream). */
static fv_status cpu_execute (fv_conv_grid *g, const fv_image *src, const fv_image *dst);

static fv_status
cpu_init (fv_conv_grid *g, int device, void *stream)
{
  return make_cells (g, FV_BACKEND_CPU, device, stream);
}

#if FV_HAVE_CUDA
static fv_status
cuda_init (fv_conv_grid *g, int device, void *stream)
{
  fv_status st = fv_conv_cuda_grid_init (&g->cuda, &g->p, device, stream);
  if (st == FV_OK)
    st = make_cells (g, FV_BACKEND_CUDA, device, fv_conv_cuda_grid_stream (g->cuda));
  return st == FV_OK ? fv_conv_cuda_grid_share (g->cuda, &g->p, g->cells, g->cols, g->rows)
      : st;
}

static fv_status
cuda_execute (fv_conv_grid *g, const fv_image *src, const fv_image *dst)
{
  return fv_conv_cuda_grid_execute (g->cuda, &g->p, g->cells, g->cols, g->rows, src, dst);
}

static void
cuda_free (fv_conv_grid *g)
{
  fv_conv_cuda_grid_free (g->cuda);
  g->cuda = NULL;
}
#endif

/* bytes: the grid's memory is checked before it is made (create) */
static const fv_conv_grid_backend grid_backends[] = {
  [FV_BACKEND_CPU] = { cpu_init, cpu_execute, NULL, NULL, NULL },
  [FV_BACKEND_CUDA] = { FV_CUDA_ENTRY (cuda_init), FV_CUDA_ENTRY (cuda_execute), NULL,
    FV_CUDA_ENTRY (cuda_free), NULL },
};

fv_status
fv_conv_grid_create (fv_conv_grid **out, const fv_conv_params *base, int cols, int rows,
    const float *const *kernels, const int *kw, const int *kh, fv_backend backend, int device,
    void *stream)
{
  *out = NULL;
  if (!base || cols < 1 || rows < 1 || cols > 64 || rows > 64 || !kernels) {
    fv_set_last_error ("invalid kernel grid");
    return FV_ERR_INVALID;
  }
  /* every cell's plan and the two float frames, before anything is allocated */
  double need = 8.0 * base->frame.width * base->frame.height;
  for (int j = 0; j < rows; j++)
    for (int i = 0; i < cols; i++) {
      fv_conv_params p = *base;
      int c = j * cols + i;
      span (base->frame.width, cols, i, &p.frame.roi_x, &p.frame.roi_width);
      span (base->frame.height, rows, j, &p.frame.roi_y, &p.frame.roi_height);
      p.frame.roi_width = p.frame.roi_width > p.frame.roi_x ? p.frame.roi_width - p.frame.roi_x : 1;
      p.frame.roi_height = p.frame.roi_height > p.frame.roi_y ? p.frame.roi_height - p.frame.roi_y
          : 1;
      p.kernel_width = kw[c];
      p.kernel_height = kh[c];
      need += fv_conv_plan_estimate (&p);
    }
  if (!fv_memory_check (need, "the kernel grid's plans"))
    return FV_ERR_NOMEM;
  if (backend == FV_BACKEND_CUDA && (base->frame.spread.ndevices > 1
      || base->frame.spread.min_chunks > 1)) {
    fv_set_last_error ("a kernel grid runs on one device, whole: list one device");
    return FV_ERR_INVALID;
  }
  fv_status st = FV_PLAN_CHECK (backend, grid_backends);
  if (st != FV_OK)
    return st;
  fv_conv_grid *g = calloc (1, sizeof *g);
  if (!g)
    return FV_ERR_NOMEM;
  g->p = *base;
  g->cols = cols;
  g->rows = rows;
  g->be = &grid_backends[backend];
  g->kernels = kernels;
  g->kw = kw;
  g->kh = kh;
  int n = cols * rows;
  g->plans = calloc (n, sizeof *g->plans);
  g->x0 = malloc (sizeof (int) * n);
  g->x1 = malloc (sizeof (int) * n);
  g->y0 = malloc (sizeof (int) * n);
  g->y1 = malloc (sizeof (int) * n);
  g->acc = malloc (sizeof (float) * base->frame.width * base->frame.height);
  g->tmp = malloc (sizeof (float) * base->frame.width * base->frame.height);
  g->cells = calloc (n, sizeof *g->cells);
  st = FV_ERR_NOMEM;
  if (g->plans && g->x0 && g->x1 && g->y0 && g->y1 && g->acc && g->tmp && g->cells)
    st = g->be->init (g, device, stream);
  g->kernels = NULL;
  g->kw = g->kh = NULL;
  if (st != FV_OK) {
    fv_conv_grid_destroy (g);
    return st;
  }
  *out = g;
  return FV_OK;
}

fv_status
fv_conv_grid_execute (fv_conv_grid *g, const fv_image *src, const fv_image *dst)
{
  const fv_conv_params *p = &g->p;
  const int W = p->frame.width, H = p->frame.height, C = p->frame.channels;
  if (!src || !dst || src->width != W || src->height != H || dst->width != W
      || dst->height != H || src->channels != C || dst->channels != C
      || src->sample != p->frame.sample || dst->sample != p->frame.sample) {
    fv_set_last_error ("images do not match the kernel grid");
    return FV_ERR_INVALID;
  }
  return g->be->execute (g, src, dst);
}

/* The CPU grid: each cell's window plan into floats, blended, rounded. */
static fv_status
cpu_execute (fv_conv_grid *g, const fv_image *src, const fv_image *dst)
{
  const fv_conv_params *p = &g->p;
  const int W = p->frame.width, H = p->frame.height, C = p->frame.channels;
  const float maxv = p->frame.sample == FV_U8 ? 255.0f : 65535.0f, bias = (float) p->bias;
  for (int c = 0; c < C; c++) {
    for (int y = 0; y < H; y++) {
      const char *s = (const char *) src->data + (size_t) y * src->stride;
      char *d = (char *) dst->data + (size_t) y * dst->stride;
      if (!(p->channel_mask & (1u << c)))
        for (int x = 0; x < W; x++)
          memcpy (d + ((size_t) x * C + c) * p->frame.sample,
              s + ((size_t) x * C + c) * p->frame.sample,
              p->frame.sample);
    }
    if (!(p->channel_mask & (1u << c)))
      continue;
    memset (g->acc, 0, sizeof (float) * W * H);
    for (int k = 0; k < g->cols * g->rows; k++) {
      if (!g->plans[k])
        continue;
      const int i = k % g->cols, j = k / g->cols, ww = g->x1[k] - g->x0[k];
      fv_status st = fv_conv_execute_float (g->plans[k], src, c, g->tmp, ww);
      if (st != FV_OK)
        return st;
      for (int y = g->y0[k]; y < g->y1[k]; y++) {
        const float wy = fv_conv_grid_weight (y, H, g->rows, j);
        const float *t = g->tmp + (size_t) (y - g->y0[k]) * ww;
        float *a = g->acc + (size_t) y * W;
        for (int x = g->x0[k]; x < g->x1[k]; x++)
          a[x] += wy * fv_conv_grid_weight (x, W, g->cols, i) * t[x - g->x0[k]];
      }
    }
    for (int y = 0; y < H; y++) {
      char *d = (char *) dst->data + (size_t) y * dst->stride;
      for (int x = 0; x < W; x++) {
        float v = g->acc[(size_t) y * W + x] + bias;
        uint32_t q = fv_conv_round (v, maxv);
        size_t i = (size_t) x * C + c;
        if (p->frame.sample == FV_U8)
          ((uint8_t *) d)[i] = (uint8_t) q;
        else
          fv_store_u16 ((char *) d + 2 * i, (uint16_t) q);
      }
    }
  }
  return FV_OK;
}

int
fv_conv_grid_shared_pairs (const fv_conv_grid *g)
{
#if FV_HAVE_CUDA
  if (g->cuda)
    return fv_conv_cuda_grid_pairs (g->cuda);
#endif
  return 0;
}

void
fv_conv_grid_destroy (fv_conv_grid *g)
{
  if (!g)
    return;
  if (g->plans)
    for (int k = 0; k < g->cols * g->rows; k++)
      fv_conv_plan_destroy (g->plans[k]);
  if (g->be && g->be->free)
    g->be->free (g);
  free (g->plans);
  free (g->cells);
  free (g->x0);
  free (g->x1);
  free (g->y0);
  free (g->y1);
  free (g->acc);
  free (g->tmp);
  free (g);
}
