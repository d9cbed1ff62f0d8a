/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU fill: union-find labelling of the background, then a flag on every
 * component that touches the border, then one write pass.
 *   1. each 32x32 tile labels its background in shared memory (union-find
 *      with shared atomics) and writes, per pixel, the global index of its
 *      tile-local root;
 *   2. pixels on tile edges join their neighbours in other tiles with the
 *      global atomicMin union of Playne and Hawick (roots only decrease, so
 *      concurrent unions never undo each other);
 *   3. border background pixels set bit 31 of their root's entry;
 *   4. each pixel follows its tree to the root and is written from its bit.
 * No step depends on the shape of the components: one background spanning
 * the whole frame costs what many small ones do (unlike a flood fill). */
#include <cstdlib>
#include "fv_fill_plan.h"
#include "../common/fv_cuda_check.cuh"

namespace {

constexpr int T = 32;                   /* tile side */
constexpr int OUTSIDE = (int) 0x80000000;
constexpr int WALL = -1;

struct fv_fill_cuda {
  fv::PlanStream ps;
  int *labels;
  unsigned char *d_src, *d_dst;
  size_t d_pitch;
};

struct Frame {
  const unsigned char *src;
  size_t sstride;
  int w, h, thr;
  bool conn8;
};

__device__ __forceinline__ bool
bg (const Frame &f, int x, int y)
{
  return f.src[(size_t) y * f.sstride + x] <= f.thr;
}

template <typename P>
__device__ __forceinline__ int
root_of (P L, int p)
{
  int q;
  while ((q = L[p]) != p)
    p = q;
  return p;
}

/* union by smaller index; L volatile so every read sees other threads' writes */
template <typename P>
__device__ void
unite (P L, int a, int b)
{
  bool done = false;
  while (!done) {
    a = root_of (L, a);
    b = root_of (L, b);
    if (a < b) {
      int old = atomicMin ((int *) &L[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      int old = atomicMin ((int *) &L[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  }
}

__global__ void __launch_bounds__ (T * 8)
label_tiles (Frame f, int *L)
{
  __shared__ int s[T * T];
  __shared__ int root[T * T];   /* filled at run starts only */
  const int x0 = blockIdx.x * T, y0 = blockIdx.y * T;
  const int lx = threadIdx.x, ly0 = threadIdx.y;
  volatile int *vs = s;
  int starts_at[T / 8];
  /* a warp per row: each pixel starts out pointing at the first pixel of its
   * run of background (found with one ballot), so trees start one deep */
  for (int ly = ly0; ly < T; ly += 8) {
    const int x = x0 + lx, y = y0 + ly;
    const bool b = x < f.w && y < f.h && bg (f, x, y);
    const unsigned m = __ballot_sync (0xffffffffu, b);
    const unsigned upto = lx == 31 ? 0xffffffffu : (2u << lx) - 1;
    const unsigned zeros = ~m & upto;
    const int start = zeros ? 32 - __clz (zeros) : 0;
    s[ly * T + lx] = b ? ly * T + start : WALL;
    starts_at[ly / 8] = b ? ly * T + start : WALL;
  }
  __syncthreads ();
  /* join runs of neighbouring rows, once per pair of touching runs: where
   * either run starts inside the other (and, 8-connected, at the corners) */
  for (int ly = ly0 + (ly0 == 0 ? 8 : 0); ly < T; ly += 8) {
    const int i = ly * T + lx;
    if (s[i] == WALL)
      continue;
    const bool starts = lx == 0 || s[i - 1] == WALL;
    const bool ends = lx == T - 1 || s[i + 1] == WALL;
    if (s[i - T] != WALL && (starts || lx == 0 || s[i - T - 1] == WALL))
      unite (vs, i, i - T);
    if (f.conn8) {
      if (starts && lx > 0 && s[i - T - 1] != WALL)
        unite (vs, i, i - T - 1);
      if (ends && lx < T - 1 && s[i - T + 1] != WALL)
        unite (vs, i, i - T + 1);
    }
  }
  __syncthreads ();
  /* unions only ever change run starts, so the other pixels still point at
   * their run's start: find the roots of the starts alone, then look up */
  for (int ly = ly0; ly < T; ly += 8)
    if (starts_at[ly / 8] == ly * T + lx)
      root[ly * T + lx] = root_of (vs, ly * T + lx);
  __syncthreads ();
  for (int ly = ly0; ly < T; ly += 8) {
    const int x = x0 + lx, y = y0 + ly;
    if (x >= f.w || y >= f.h)
      continue;
    const int st = starts_at[ly / 8];
    int r = st == WALL ? WALL : root[st];
    L[(size_t) y * f.w + x] = r == WALL ? WALL : (y0 + r / T) * f.w + x0 + r % T;
  }
}

/* One thread per pixel on a tile edge: grid.y < ncols runs down the tile
 * columns (x = multiple of T and the column before it), the rest along the
 * tile rows (y = multiple of T). Inside a tile every backward neighbour is
 * in the same tile, already joined. */
__global__ void
join_tiles (Frame f, int *L, int ncols)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x, y;
  if ((int) blockIdx.y < ncols) {
    const int c = blockIdx.y;   /* between tile columns c and c+1: their facing columns */
    if (i >= 2 * f.h)
      return;
    x = i < f.h ? (c + 1) * T : c * T + T - 1;
    y = i < f.h ? i : i - f.h;
  } else {
    const int r = blockIdx.y - ncols + 1;   /* tile rows 1.. */
    x = i;
    y = r * T;
    if (x >= f.w)
      return;
  }
  if (x >= f.w || y >= f.h)
    return;
  const int tx = x % T, ty = y % T;
  const int p = y * f.w + x;
  if (L[p] == WALL)
    return;
  volatile int *vL = L;
  if (tx == 0 && x > 0 && L[p - 1] != WALL)
    unite (vL, p, p - 1);
  if (y > 0) {
    /* across a tile's top edge, once per pair of touching runs */
    if (ty == 0 && L[p - f.w] != WALL
        && (x == 0 || L[p - 1] == WALL || L[p - f.w - 1] == WALL))
      unite (vL, p, p - f.w);
    if (f.conn8) {
      if (x > 0 && (tx == 0 || ty == 0) && L[p - f.w - 1] != WALL)
        unite (vL, p, p - f.w - 1);
      if (x + 1 < f.w && (tx == T - 1 || ty == 0) && L[p - f.w + 1] != WALL)
        unite (vL, p, p - f.w + 1);
    }
  }
}

/* Root of p once roots may carry the OUTSIDE bit. */
__device__ __forceinline__ int
root_masked (const int *L, int p)
{
  int q;
  while ((q = L[p] & ~OUTSIDE) != p)
    p = q;
  return p;
}

__global__ void
mark_border (Frame f, int *L)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, W = f.w, H = f.h;
  int x, y;
  if (i < W) { x = i; y = 0; }
  else if (i < 2 * W) { x = i - W; y = H - 1; }
  else if (i < 2 * W + H) { x = 0; y = i - 2 * W; }
  else if (i < 2 * W + 2 * H) { x = W - 1; y = i - 2 * W - H; }
  else return;
  const int p = y * W + x;
  if (L[p] != WALL)
    atomicOr (&L[root_masked (L, p)], OUTSIDE);
}

__global__ void
write_output (Frame f, const int *L, unsigned char *dst, size_t dstride, unsigned char fv,
    unsigned char on_contour)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= f.w || y >= f.h)
    return;
  const int p = y * f.w + x;
  unsigned char v;
  if (L[p] == WALL)
    v = on_contour;
  else
    v = (L[root_masked (L, p)] & OUTSIDE) ? 0 : fv;
  dst[(size_t) y * dstride + x] = v;
}

}  // namespace

extern "C" fv_status
fv_fill_cuda_init (fv_fill_plan *pl, int device, void *stream)
{
  const fv_fill_params *p = &pl->p;
  fv_fill_cuda *c = (fv_fill_cuda *) calloc (1, sizeof (fv_fill_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  pl->cuda = c;
  FV_CUDA_TRY (c->ps.open (device, stream));
  FV_CUDA_TRY (cudaMalloc (&c->labels, sizeof (int) * (size_t) p->width * p->height));
  FV_CUDA_TRY (cudaMallocPitch (&c->d_src, &c->d_pitch, p->width, p->height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch (&c->d_dst, &pitch2, p->width, p->height));
  return FV_OK;
}

extern "C" fv_status
fv_fill_cuda_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst, int wait)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->cuda;
  const fv_fill_params *p = &pl->p;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  Frame f = { (const unsigned char *) src->data, src->stride, p->width, p->height,
    (int) p->threshold, p->connectivity == 8 };
  if (src->mem == FV_MEM_HOST) {
    FV_CUDA_TRY (cudaMemcpy2DAsync (c->d_src, c->d_pitch, src->data, src->stride, p->width,
        p->height, cudaMemcpyHostToDevice, c->ps.stream));
    f.src = c->d_src;
    f.sstride = c->d_pitch;
  }
  unsigned char *out = dst->mem == FV_MEM_HOST ? c->d_dst : (unsigned char *) dst->data;
  size_t ostride = dst->mem == FV_MEM_HOST ? c->d_pitch : dst->stride;
  dim3 tiles ((p->width + T - 1) / T, (p->height + T - 1) / T);
  dim3 block (32, 8), grid ((p->width + 31) / 32, (p->height + 7) / 8);
  label_tiles<<<tiles, dim3 (T, 8), 0, c->ps.stream>>> (f, c->labels);
  const int ncols = tiles.x - 1, nrows = tiles.y - 1;   /* inner tile edges */
  const int edge_len = 2 * p->height > p->width ? 2 * p->height : p->width;
  if (ncols + nrows > 0)
    join_tiles<<<dim3 ((edge_len + 255) / 256, ncols + nrows), 256, 0, c->ps.stream>>> (f,
        c->labels, ncols);
  const int nb = 2 * p->width + 2 * p->height;
  mark_border<<<(nb + 255) / 256, 256, 0, c->ps.stream>>> (f, c->labels);
  const unsigned char fv = (unsigned char) p->fill_value;
  write_output<<<grid, block, 0, c->ps.stream>>> (f, c->labels, out, ostride, fv,
      p->output == FV_FILL_FILLED ? fv : 0);
  FV_CUDA_TRY (cudaGetLastError ());
  if (dst->mem == FV_MEM_HOST)
    FV_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->stride, c->d_dst, c->d_pitch, p->width,
        p->height, cudaMemcpyDeviceToHost, c->ps.stream));
  if (wait)
    FV_CUDA_TRY (cudaStreamSynchronize (c->ps.stream));
  return FV_OK;
}

extern "C" fv_status
fv_fill_cuda_wait (fv_fill_plan *pl)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->cuda;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  FV_CUDA_TRY (cudaStreamSynchronize (c->ps.stream));
  return FV_OK;
}

extern "C" void
fv_fill_cuda_free (fv_fill_plan *pl)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->cuda;
  if (!c)
    return;
  fv_cuda_use_device (c->ps.device);
  cudaFree (c->labels);
  cudaFree (c->d_src);
  cudaFree (c->d_dst);
  c->ps.close ();
  free (c);
  pl->cuda = nullptr;
}
