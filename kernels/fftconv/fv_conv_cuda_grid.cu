/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convolution's CUDA grid plan: kernels varying across the frame, a
 * cell each, blended where cells meet; its cells are single plans
 * (fv_conv_cuda.cu), whose transforms it shares where it can. */
#include <cstdlib>
#include <vector>
#include "fv_conv_cuda_internal.cuh"
#include "../common/fv_cuda.h"

using namespace fvconv;

/* A grid's shared transforms: the frame's tiles transformed once for every
 * cell (for the largest kernel: a smaller one sits in it at the same
 * anchor), then for each (cell, tile) pair where the cell weighs on the
 * tile, the product with the cell's spectrum and its inverse, all pairs in
 * one batch; one pass blends the cells at each pixel. Each cell's own
 * window transforms (the other path) do the forward work about four times
 * over for a 3x3 grid. */
struct GridShared {
  Tiles t;
  int kw, kh, npairs;
  cufftHandle_t fwd, inv;
  bool have_fwd, have_inv;
  float *buf;          /* the tiles' samples, then the pairs' results */
  cplx *spec, *prod, *kspec;   /* tiles' spectra, pairs' products, cells' spectra */
  int *pair_of;        /* [cell * tiles + tile]: its pair, or -1 */
  int *pair_tile, *pair_cell;
  CellInfo *cells;
};

/* The grid's device side: the frame, the result and the float sum. */
struct GridCuda {
  fv::PlanStream ps;
  char *d_src, *d_dst;
  size_t pitch;
  float *acc;
  GridShared *shared;   /* NULL: each cell transforms its own window */
};

static void
shared_free (GridShared *sh)
{
  if (!sh)
    return;
  const CufftApi *api = cufft ();
  if (api && sh->have_fwd)
    api->destroy (sh->fwd);
  if (api && sh->have_inv)
    api->destroy (sh->inv);
  cudaFree (sh->buf);
  cudaFree (sh->spec);
  cudaFree (sh->prod);
  cudaFree (sh->kspec);
  cudaFree (sh->pair_of);
  cudaFree (sh->pair_tile);
  cudaFree (sh->pair_cell);
  cudaFree (sh->cells);
  free (sh);
}

/* Builds the shared path for cells that all go by FFT; leaves g->shared
 * NULL (the per-cell path) where they do not, or where its buffers do not
 * fit the device. */
static fv_status
shared_init (GridCuda *g, const fv_conv_params *p, void *const *cellv, int cols, int rows)
{
  const CufftApi *api = cufft ();
  const int n = cols * rows;
  int kw = 1, kh = 1;
  for (int k = 0; k < n; k++) {
    const ConvCuda *c = (const ConvCuda *) cellv[k];
    if (!c)
      continue;
    if (c->direct || !api)
      return FV_OK;
    kw = c->p.kernel_width > kw ? c->p.kernel_width : kw;
    kh = c->p.kernel_height > kh ? c->p.kernel_height : kh;
  }
  int pw = fv_conv_fast_size (p->frame.width + kw - 1),
      ph = fv_conv_fast_size (p->frame.height + kh - 1);
  fv_conv_cuda_pick_size (p->frame.width + kw - 1, p->frame.height + kh - 1, g->ps.device, &pw,
      &ph);
  GridShared *sh = (GridShared *) calloc (1, sizeof (GridShared));
  if (!sh)
    return FV_ERR_NOMEM;
  sh->kw = kw;
  sh->kh = kh;
  /* the pairs of a layout: every cell with the tiles its window meets */
  std::vector<int> pair_of, pair_tile, pair_cell;
  auto make_pairs = [&] (const Tiles &t) {
    pair_of.assign ((size_t) n * t.count (), -1);
    pair_tile.clear ();
    pair_cell.clear ();
    for (int k = 0; k < n; k++) {
      const ConvCuda *c = (const ConvCuda *) cellv[k];
      for (int ty = 0; c && ty < t.ny; ty++)
        for (int tx = 0; tx < t.nx; tx++)
          if (tx * t.tw < c->rx + c->ow && (tx + 1) * t.tw > c->rx
              && ty * t.th < c->ry + c->oh && (ty + 1) * t.th > c->ry) {
            pair_of[(size_t) k * t.count () + ty * t.nx + tx] = (int) pair_tile.size ();
            pair_tile.push_back (ty * t.nx + tx);
            pair_cell.push_back (k);
          }
    }
    return (int) pair_tile.size ();
  };
  /* forced, or timed by the grid's own cost: a forward batch of the tiles
   * and an inverse batch of the pairs (tiles of half a cell, whose edges
   * fall where the cells' weights start and stop, so that each meets at
   * most 2 x 2 cells, were timed too and never won: 100 pairs of 768x486
   * against 40 of 2048x640 at 4K 3x3) */
  sh->t = p->tile ? choose_layout (api, p->frame.width, p->frame.height, kw, kh, pw, ph, p->tile,
      g->ps.device) : fastest (api, layout_candidates (p->frame.width, p->frame.height, kw, kh,
          pw, ph),
      make_pairs);
  const Tiles &t = sh->t;
  const int tiles = t.count ();
  make_pairs (t);
  std::vector<CellInfo> info (n, CellInfo { nullptr, 0.0f, 0, 0, 1 });
  for (int k = 0; k < n; k++) {
    const ConvCuda *c = (const ConvCuda *) cellv[k];
    if (c)
      info[k] = CellInfo { c->scale, c->uniform, c->rx, c->ry, c->ow };
  }
  sh->npairs = (int) pair_tile.size ();
  const size_t nc = t.spectrum (), per = (size_t) t.px * t.py;
  const size_t nbuf = per * (size_t) (tiles > sh->npairs ? tiles : sh->npairs);
  bool ok = sh->npairs > 0
      && cudaMalloc (&sh->buf, sizeof (float) * nbuf) == cudaSuccess
      && cudaMalloc (&sh->spec, sizeof (cplx) * nc * tiles) == cudaSuccess
      && cudaMalloc (&sh->prod, sizeof (cplx) * nc * sh->npairs) == cudaSuccess
      && cudaMalloc (&sh->kspec, sizeof (cplx) * nc * n) == cudaSuccess
      && cudaMalloc (&sh->pair_of, sizeof (int) * pair_of.size ()) == cudaSuccess
      && cudaMalloc (&sh->pair_tile, sizeof (int) * sh->npairs) == cudaSuccess
      && cudaMalloc (&sh->pair_cell, sizeof (int) * sh->npairs) == cudaSuccess
      && cudaMalloc (&sh->cells, sizeof (CellInfo) * n) == cudaSuccess
      && (sh->have_fwd = cufft_plan_batch (api, &sh->fwd, t.px, t.py, tiles, CUFFT_R2C_) == 0)
      && (sh->have_inv = cufft_plan_batch (api, &sh->inv, t.px, t.py, sh->npairs, CUFFT_C2R_) == 0);
  if (!ok) {   /* too large for the device: the per-cell path */
    cudaGetLastError ();
    shared_free (sh);
    return FV_OK;
  }
  cudaStream_t st = g->ps.stream;
  CUFFT_TRY (api->set_stream (sh->fwd, st));
  CUFFT_TRY (api->set_stream (sh->inv, st));
  FV_CUDA_TRY (cudaMemcpyAsync (sh->pair_of, pair_of.data (), sizeof (int) * pair_of.size (),
      cudaMemcpyHostToDevice, st));
  FV_CUDA_TRY (cudaMemcpyAsync (sh->pair_tile, pair_tile.data (), sizeof (int) * sh->npairs,
      cudaMemcpyHostToDevice, st));
  FV_CUDA_TRY (cudaMemcpyAsync (sh->pair_cell, pair_cell.data (), sizeof (int) * sh->npairs,
      cudaMemcpyHostToDevice, st));
  FV_CUDA_TRY (cudaMemcpyAsync (sh->cells, info.data (), sizeof (CellInfo) * n,
      cudaMemcpyHostToDevice, st));
  /* each cell's spectrum, at the largest kernel's anchor */
  for (int k = 0; k < n; k++) {
    const ConvCuda *c = (const ConvCuda *) cellv[k];
    if (!c)
      continue;
    fv_status r = kernel_spectrum (api, sh->fwd, t, sh->buf, sh->spec, c->p.kernel,
        c->p.kernel_width, c->p.kernel_height, kw / 2 - c->p.kernel_width / 2,
        kh / 2 - c->p.kernel_height / 2, sh->kspec + nc * k, st);
    if (r != FV_OK)
      return r;
  }
  FV_CUDA_TRY (fv_cuda_sync (st));
  g->shared = sh;
  return FV_OK;
}

/* One channel of the frame through the shared transforms into dst. */
static fv_status
shared_channel (GridCuda *g, const fv_conv_params *p, int cols, int rows, const char *src,
    size_t sstride, int ch, char *dst, size_t dstride)
{
  GridShared *sh = g->shared;
  const CufftApi *api = cufft ();
  cudaStream_t st = g->ps.stream;
  const Tiles &t = sh->t;
  const size_t nc = t.spectrum ();
  const Geo geo = geo_make (p->frame.width, p->frame.height, p->frame.channels, ch, sh->kw, sh->kh,
      (int) p->border, 0, 0, p->frame.width, p->frame.height, t);
  dim3 blk (32, 8), gout ((p->frame.width + 31) / 32, (p->frame.height + 7) / 8);
  launch_extend (src, sstride, geo, p->frame.sample, sh->buf, st);
  CUFFT_TRY (api->r2c (sh->fwd, sh->buf, sh->spec));
  pair_multiply<<<dim3 ((unsigned) ((nc + 255) / 256), sh->npairs), 256, 0, st>>> (sh->spec,
      sh->kspec, sh->pair_tile, sh->pair_cell, sh->prod, nc, 1.0f / ((float) t.px * t.py));
  CUFFT_TRY (api->c2r (sh->inv, sh->prod, sh->buf));
  const float maxv = p->frame.sample == FV_U8 ? 255.0f : 65535.0f;
  if (p->frame.sample == FV_U8)
    blend<uint8_t><<<gout, blk, 0, st>>> (sh->buf, geo, sh->pair_of, sh->cells, cols, rows,
        (float) p->bias, maxv, dst, dstride);
  else
    blend<uint16_t><<<gout, blk, 0, st>>> (sh->buf, geo, sh->pair_of, sh->cells, cols, rows,
        (float) p->bias, maxv, dst, dstride);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

extern "C" fv_status
fv_conv_cuda_grid_share (void *grid, const fv_conv_params *p, void *const *cells, int cols,
    int rows)
{
  GridCuda *g = (GridCuda *) grid;
  FV_CUDA_TRY (fv_cuda_use_device (g->ps.device));
  return shared_init (g, p, cells, cols, rows);
}

extern "C" int
fv_conv_cuda_grid_pairs (void *grid)
{
  const GridCuda *g = (const GridCuda *) grid;
  return g && g->shared ? g->shared->npairs : 0;
}

extern "C" fv_status
fv_conv_cuda_grid_init (void **out, const fv_conv_params *p, int device, void *stream)
{
  GridCuda *g = (GridCuda *) calloc (1, sizeof (GridCuda));
  if (!g)
    return FV_ERR_NOMEM;
  *out = g;
  FV_CUDA_TRY (g->ps.open (device, stream));
  const size_t row = (size_t) p->frame.width * p->frame.channels * p->frame.sample;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &g->d_src, &g->pitch, row, p->frame.height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &g->d_dst, &pitch2, row, p->frame.height));
  FV_CUDA_TRY (cudaMalloc (&g->acc, sizeof (float) * p->frame.width * p->frame.height));
  return FV_OK;
}

extern "C" void *
fv_conv_cuda_grid_stream (void *grid)
{
  return (void *) ((GridCuda *) grid)->ps.stream;
}

extern "C" fv_status
fv_conv_cuda_grid_execute (void *grid, const fv_conv_params *p, void *const *cells, int cols,
    int rows, const fv_image *src, const fv_image *dst)
{
  GridCuda *g = (GridCuda *) grid;
  cudaStream_t st = g->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (g->ps.device));
  Staged f;
  fv_status sr = stage_frame (p, src, dst, g->d_src, g->d_dst, g->pitch, st, &f);
  if (sr != FV_OK)
    return sr;
  const float maxv = p->frame.sample == FV_U8 ? 255.0f : 65535.0f;
  dim3 blk (32, 8), gout ((p->frame.width + 31) / 32, (p->frame.height + 7) / 8);
  for (int ch = 0; ch < p->frame.channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    if (g->shared) {
      fv_status r = shared_channel (g, p, cols, rows, f.s, f.sstride, ch, f.d, f.dstride);
      if (r != FV_OK)
        return r;
      continue;
    }
    FV_CUDA_TRY (cudaMemsetAsync (g->acc, 0, sizeof (float) * p->frame.width * p->frame.height,
        st));
    for (int k = 0; k < cols * rows; k++) {
      if (!cells[k])
        continue;
      /* every cell plan shares the grid's stream, so they run in order */
      fv_status r = fv_conv_cuda_accumulate (cells[k], p, f.s, f.sstride, ch, g->acc, cols,
          rows, k % cols, k / cols);
      if (r != FV_OK)
        return r;
    }
    if (p->frame.sample == FV_U8)
      round_acc<uint8_t><<<gout, blk, 0, st>>> (g->acc, p->frame.width, p->frame.height,
          p->frame.channels, ch,
          (float) p->bias, maxv, f.d, f.dstride);
    else
      round_acc<uint16_t><<<gout, blk, 0,
          st>>> (g->acc, p->frame.width, p->frame.height, p->frame.channels, ch,
          (float) p->bias, maxv, f.d, f.dstride);
  }
  return unstage_frame (p, dst, &f, st);
}

extern "C" void
fv_conv_cuda_grid_free (void *grid)
{
  GridCuda *g = (GridCuda *) grid;
  if (!g)
    return;
  fv_cuda_use_device (g->ps.device);
  shared_free (g->shared);
  cudaFree (g->d_src);
  cudaFree (g->d_dst);
  cudaFree (g->acc);
  g->ps.close ();
  free (g);
}
