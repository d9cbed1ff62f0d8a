/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure on the GPU: the holes and parts of the frame just filled,
 * labelled and summed on the device from the bit planes the fill leaves
 * (fv_fill_cuda.cu); only the table of regions comes back, through pinned
 * memory. The same integers as fv_fill_measure.c's on the host (every sum
 * is exact), so the same features to the last bit.
 *   1. init: each set pixel's label is the first pixel of its run inside
 *      its 32-bit word;
 *   2. merge: runs joined with the atomicMin union of Playne and Hawick,
 *      once per pair of runs that touch (at a word's edge, and vertically
 *      where either run starts: two overlapping runs overlap from one of
 *      their starts; corners at a run's ends when 8-connected); roots only
 *      decrease, so a region's root is its first pixel in raster order;
 *   3. compress: every label points at its root;
 *   4. roots: listed, sorted (CUB radix sort: raster order), numbered: the
 *      root's label becomes -(number + 1);
 *   5. sums: a warp a row of 32 pixels, lanes of one region reduced
 *      together (shuffles; squares split in halves so that 32-bit
 *      sums cannot overflow), one set of 64-bit atomics a region a warp;
 *      pairs of pixels of one region (right, down and both diagonals)
 *      counted from the upper or left pixel;
 *   6. holes name their part: the part under their first pixel. */
#include <climits>
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include "fv_fill_plan.h"
#include "fv_fill_measure_cuda.h"
#include "../common/fv_cuda_check.cuh"

namespace {

constexpr unsigned ALL = 0xffffffffu;

/* A region as the device sums it. */
struct DevRegion {
  unsigned long long area, sx, sy, sxx, syy, sxy, ph, pv, pd, pa;
  int xmin, ymin, xmax, ymax;
  int first;   /* its first pixel, y * width + x */
  int part;    /* a hole's part */
};

struct Bits {
  const unsigned *w;
  int width, height, tiles_x;

  __device__ __forceinline__ unsigned word (int tx, int y) const
  {
    return w[((size_t) (y / 32) * tiles_x + tx) * 32 + y % 32];
  }
  /* pixel (x, y), 0 outside the frame */
  __device__ __forceinline__ bool at (int x, int y) const
  {
    if (x < 0 || y < 0 || x >= width || y >= height)
      return false;
    return word (x / 32, y) >> (x % 32) & 1;
  }
};

__device__ __forceinline__ int
find (const int *L, int a)
{
  while (L[a] != a)
    a = L[a];
  return a;
}

__device__ void
unite (int *L, int a, int b)
{
  bool done = false;
  while (!done) {
    a = find (L, a);
    b = find (L, b);
    if (a < b) {
      const int old = atomicMin (&L[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const int old = atomicMin (&L[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  }
}

/* the frame's bits in valid columns only (the last word's tail is not) */
__device__ __forceinline__ unsigned
row_word (const Bits &b, int tx, int y)
{
  const unsigned w = b.word (tx, y);
  const int valid = b.width - tx * 32;
  return valid >= 32 ? w : w & ((1u << valid) - 1);
}

__global__ void
ccl_init (Bits b, int *L)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= b.width || y >= b.height)
    return;
  const int k = threadIdx.x;
  const unsigned w = row_word (b, blockIdx.x, y);
  if (!(w >> k & 1))
    return;   /* never read */
  /* the run's first pixel inside this word: past the last gap below k */
  const unsigned gaps = ~w & ((1u << k) - 1);
  const int start = gaps ? 32 - __clz (gaps) : 0;
  L[y * b.width + x] = y * b.width + blockIdx.x * 32 + start;
}

__global__ void
ccl_merge (Bits b, int *L, bool conn8)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= b.width || y >= b.height)
    return;
  const int k = threadIdx.x, W = b.width, p = y * W + x;
  const unsigned w = row_word (b, blockIdx.x, y);
  if (!(w >> k & 1))
    return;
  const bool left = b.at (x - 1, y), right = b.at (x + 1, y);
  if (k == 0 && left)
    unite (L, p, p - 1);
  if (y == 0)
    return;
  const unsigned u = row_word (b, blockIdx.x, y - 1);
  const bool starts = k == 0 || !(w >> (k - 1) & 1);
  const bool up_starts = k == 0 || !(u >> (k - 1) & 1);
  if ((u >> k & 1) && (starts || up_starts))
    unite (L, p, p - W);
  if (conn8 && !left && b.at (x - 1, y - 1))
    unite (L, p, p - W - 1);
  if (conn8 && !right && b.at (x + 1, y - 1))
    unite (L, p, p - W + 1);
}

/* compress, and list the roots */
__global__ void
ccl_roots (Bits b, int *L, int *roots, int *count)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= b.width || y >= b.height)
    return;
  const int p = y * b.width + x;
  if (!(row_word (b, blockIdx.x, y) >> threadIdx.x & 1))
    return;
  const int r = find (L, p);
  if (r == p)
    roots[atomicAdd (count, 1)] = p;
  else
    L[p] = r;
}

__global__ void
name_roots (int *L, const int *sorted, int n, DevRegion *t)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  L[sorted[i]] = -(i + 1);
  DevRegion z = {};
  z.xmin = INT_MAX; z.ymin = INT_MAX; z.xmax = -1; z.ymax = -1;
  z.first = sorted[i];
  z.part = -1;
  t[i] = z;
}

/* the root of p (a pixel index) and its region's number */
__device__ __forceinline__ int
root_of (const int *L, int p)
{
  const int v = L[p];
  return v < 0 ? p : v;
}

__device__ __forceinline__ int
number_of (const int *L, int p)
{
  const int v = L[p];
  return v < 0 ? -v - 1 : -L[v] - 1;
}

/* Sums, least and most over the lanes of `group` (all of them call it,
 * with the same group): a butterfly over the warp when the whole warp is
 * one region, else a shuffle from each lane of the group in turn. (The
 * warp reductions of sm_80, __reduce_*_sync, returned wrong sums for these
 * partial groups on the H200 with nvcc 13: shuffles, whose result is
 * defined, instead.) */
template <typename Op>
__device__ __forceinline__ unsigned
reduce (unsigned group, unsigned v, Op op)
{
  if (group == ALL) {
    for (int o = 16; o; o >>= 1)
      v = op (v, __shfl_xor_sync (ALL, v, o));
    return v;
  }
  unsigned s = __shfl_sync (group, v, __ffs (group) - 1);
  for (unsigned m = group & (group - 1); m; m &= m - 1)
    s = op (s, __shfl_sync (group, v, __ffs (m) - 1));
  return s;
}

__device__ __forceinline__ unsigned
red_add (unsigned group, unsigned v)
{
  return reduce (group, v, [] (unsigned a, unsigned b) { return a + b; });
}

__device__ __forceinline__ unsigned
red_min (unsigned group, unsigned v)
{
  return reduce (group, v, [] (unsigned a, unsigned b) { return min (a, b); });
}

__device__ __forceinline__ unsigned
red_max (unsigned group, unsigned v)
{
  return reduce (group, v, [] (unsigned a, unsigned b) { return max (a, b); });
}

__global__ void
sums (Bits b, const int *L, DevRegion *t)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y >= b.height)
    return;   /* a whole warp: its row is past the frame */
  const int W = b.width, p = y * W + x;
  const bool on = x < W && (row_word (b, blockIdx.x, y) >> threadIdx.x & 1);
  const int idx = on ? number_of (L, p) : -1;
  const unsigned group = __match_any_sync (ALL, idx);
  if (!on)
    return;
  const int r = root_of (L, p);
  auto same = [&] (int qx, int qy) {
    return qx >= 0 && qy < b.height && qx < W && b.at (qx, qy) && root_of (L, qy * W + qx) == r;
  };
  const unsigned ph = red_add (group, same (x + 1, y));
  const unsigned pv = red_add (group, same (x, y + 1));
  const unsigned pd = red_add (group, same (x + 1, y + 1));
  const unsigned pa = red_add (group, same (x - 1, y + 1));
  const unsigned sx = red_add (group, (unsigned) x);
  const unsigned long long xx = (unsigned long long) x * x;
  const unsigned hi = red_add (group, (unsigned) (xx >> 16));
  const unsigned lo = red_add (group, (unsigned) (xx & 0xffff));
  const unsigned xmin = red_min (group, (unsigned) x);
  const unsigned xmax = red_max (group, (unsigned) x);
  if ((int) threadIdx.x != __ffs (group) - 1)
    return;
  const unsigned long long n = __popc (group), yy = (unsigned long long) y;
  DevRegion *g = &t[idx];
  atomicAdd (&g->area, n);
  atomicAdd (&g->sx, (unsigned long long) sx);
  atomicAdd (&g->sy, n * yy);
  atomicAdd (&g->sxx, ((unsigned long long) hi << 16) + lo);
  atomicAdd (&g->syy, n * yy * yy);
  atomicAdd (&g->sxy, (unsigned long long) sx * yy);
  if (ph) atomicAdd (&g->ph, (unsigned long long) ph);
  if (pv) atomicAdd (&g->pv, (unsigned long long) pv);
  if (pd) atomicAdd (&g->pd, (unsigned long long) pd);
  if (pa) atomicAdd (&g->pa, (unsigned long long) pa);
  atomicMin (&g->xmin, (int) xmin);
  atomicMax (&g->xmax, (int) xmax);
  atomicMin (&g->ymin, y);
  atomicMax (&g->ymax, y);
}

__global__ void
holes_in_parts (DevRegion *holes, int n, const int *part_labels)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    holes[i].part = number_of (part_labels, holes[i].first);
}

constexpr int ROWS = 8;   /* rows a block: 32 x 8 threads */

}  // namespace

struct fv_fill_measure_dev {
  int width, height, tiles_x;
  int *labels[2];           /* holes, parts */
  int *roots, *sorted;      /* up to width x height / 2 + 1 each */
  int *count;               /* two counters */
  int *host_count;          /* pinned */
  void *temp;               /* CUB's */
  size_t temp_bytes;
  DevRegion *table[2];      /* on the device */
  DevRegion *host_table[2]; /* pinned */
  int cap[2];
  int end_bit;              /* bits a pixel index takes */
};

namespace {

size_t
most_roots (int w, int h)
{
  /* 4-connected regions of one pixel on a checkerboard: half, rounded up */
  return (size_t) w * h / 2 + 1;
}

fv_status
grow (fv_fill_measure_dev *m, fv_fill_plan *pl, int k, int n)
{
  if (n <= m->cap[k])
    return FV_OK;
  int cap = m->cap[k] ? m->cap[k] : 1024;
  while (cap < n)
    cap = cap > INT_MAX / 2 ? n : cap * 2;
  /* the pinned copy counts against the plan's host budget, as the CPU's
   * runs do */
  if (!fv_fill_grow (pl, sizeof (DevRegion) * (size_t) (cap - m->cap[k])))
    return fv_fill_over_budget (pl, "the measured regions");
  cudaFree (m->table[k]);
  cudaFreeHost (m->host_table[k]);
  m->table[k] = nullptr;
  m->host_table[k] = nullptr;
  m->cap[k] = 0;
  FV_CUDA_TRY (cudaMalloc (&m->table[k], sizeof (DevRegion) * cap));
  FV_CUDA_TRY (cudaMallocHost (&m->host_table[k], sizeof (DevRegion) * cap));
  m->cap[k] = cap;
  return FV_OK;
}

/* Labels one bit plane and sums its regions into table k; n: how many. */
fv_status
label_and_sum (fv_fill_measure_dev *m, fv_fill_plan *pl, int k, const unsigned *bits,
    bool conn8, cudaStream_t s, int *n)
{
  const Bits b = { bits, m->width, m->height, m->tiles_x };
  const dim3 block (32, ROWS), grid (m->tiles_x, (m->height + ROWS - 1) / ROWS);
  int *L = m->labels[k];
  ccl_init<<<grid, block, 0, s>>> (b, L);
  ccl_merge<<<grid, block, 0, s>>> (b, L, conn8);
  FV_CUDA_TRY (cudaMemsetAsync (&m->count[k], 0, sizeof (int), s));
  ccl_roots<<<grid, block, 0, s>>> (b, L, m->roots, &m->count[k]);
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (cudaMemcpyAsync (&m->host_count[k], &m->count[k], sizeof (int),
      cudaMemcpyDeviceToHost, s));
  FV_CUDA_TRY (fv_cuda_sync (s));
  *n = m->host_count[k];
  fv_status st = grow (m, pl, k, *n);
  if (st != FV_OK || *n == 0)
    return st;
  size_t bytes = m->temp_bytes;
  FV_CUDA_TRY (cub::DeviceRadixSort::SortKeys (m->temp, bytes, m->roots, m->sorted, *n, 0,
      m->end_bit, s));
  name_roots<<<(*n + 255) / 256, 256, 0, s>>> (L, m->sorted, *n, m->table[k]);
  sums<<<grid, block, 0, s>>> (b, L, m->table[k]);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

/* The device's region to the host's: crossings from the pairs inside */
void
to_region (const DevRegion *d, fv_fill_region *r)
{
  const int64_t a = (int64_t) d->area;
  *r = (fv_fill_region) { d->xmin, d->ymin, d->xmax - d->xmin + 1, d->ymax - d->ymin + 1, a,
    (int64_t) d->sx, (int64_t) d->sy, (int64_t) d->sxx, (int64_t) d->syy, (int64_t) d->sxy,
    2 * a - 2 * (int64_t) d->ph, 2 * a - 2 * (int64_t) d->pv, 2 * a - 2 * (int64_t) d->pd,
    2 * a - 2 * (int64_t) d->pa, d->part, 0, 0 };
}

}  // namespace

extern "C" size_t
fv_fill_measure_dev_bytes (int width, int height, int parts)
{
  const size_t px = (size_t) width * height, roots = most_roots (width, height);
  size_t temp = 0;
  cub::DeviceRadixSort::SortKeys ((void *) nullptr, temp, (int *) nullptr, (int *) nullptr,
      (int) roots, 0, 32);
  return px * sizeof (int) * (parts ? 2 : 1) + 2 * roots * sizeof (int) + temp
      + 2 * 1024 * sizeof (DevRegion);
}

extern "C" fv_status
fv_fill_measure_dev_init (fv_fill_measure_dev **out, int width, int height, int parts)
{
  fv_fill_measure_dev *m = (fv_fill_measure_dev *) calloc (1, sizeof *m);
  *out = m;
  if (!m)
    return FV_ERR_NOMEM;
  m->width = width;
  m->height = height;
  m->tiles_x = (width + 31) / 32;
  const size_t px = (size_t) width * height, roots = most_roots (width, height);
  m->end_bit = 1;
  while (m->end_bit < 32 && (1ull << m->end_bit) < px)
    m->end_bit++;
  FV_CUDA_TRY (cudaMalloc (&m->labels[0], px * sizeof (int)));
  if (parts)
    FV_CUDA_TRY (cudaMalloc (&m->labels[1], px * sizeof (int)));
  FV_CUDA_TRY (cudaMalloc (&m->roots, roots * sizeof (int)));
  FV_CUDA_TRY (cudaMalloc (&m->sorted, roots * sizeof (int)));
  FV_CUDA_TRY (cudaMalloc (&m->count, 2 * sizeof (int)));
  FV_CUDA_TRY (cudaMallocHost (&m->host_count, 2 * sizeof (int)));
  FV_CUDA_TRY (cub::DeviceRadixSort::SortKeys ((void *) nullptr, m->temp_bytes, m->roots,
      m->sorted, (int) roots, 0, m->end_bit));
  FV_CUDA_TRY (cudaMalloc (&m->temp, m->temp_bytes));
  return FV_OK;
}

extern "C" fv_status
fv_fill_measure_dev_run (fv_fill_measure_dev *m, fv_fill_plan *pl, const unsigned *hole_bits,
    const unsigned *filled_bits, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  const bool conn8 = pl->p.connectivity == 8;
  int nh = 0, np = 0;
  fv_status st = label_and_sum (m, pl, 0, hole_bits, conn8, s, &nh);
  if (st == FV_OK && filled_bits)
    st = label_and_sum (m, pl, 1, filled_bits, !conn8, s, &np);
  if (st != FV_OK)
    return st;
  if (filled_bits && nh)
    holes_in_parts<<<(nh + 255) / 256, 256, 0, s>>> (m->table[0], nh, m->labels[1]);
  if (nh)
    FV_CUDA_TRY (cudaMemcpyAsync (m->host_table[0], m->table[0], sizeof (DevRegion) * nh,
        cudaMemcpyDeviceToHost, s));
  if (np)
    FV_CUDA_TRY (cudaMemcpyAsync (m->host_table[1], m->table[1], sizeof (DevRegion) * np,
        cudaMemcpyDeviceToHost, s));
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv_cuda_sync (s));
  if (!fv_fill_regions_reserve (&pl->regions, &pl->regions_cap, (size_t) nh)
      || !fv_fill_regions_reserve (&pl->parts, &pl->parts_cap, (size_t) np)) {
    fv_set_last_error ("out of memory for %d measured regions", nh + np);
    return FV_ERR_NOMEM;
  }
  for (int i = 0; i < nh; i++)
    to_region (&m->host_table[0][i], &pl->regions[i]);
  for (int i = 0; i < np; i++) {
    to_region (&m->host_table[1][i], &pl->parts[i]);
    pl->parts[i].part = -1;
  }
  for (int i = 0; i < nh && filled_bits; i++) {
    fv_fill_region *part = &pl->parts[pl->regions[i].part];
    part->holes++;
    part->hole_area += pl->regions[i].area;
  }
  pl->nregions = nh;
  pl->nparts = np;
  return FV_OK;
}

extern "C" void
fv_fill_measure_dev_free (fv_fill_measure_dev *m)
{
  if (!m)
    return;
  for (int k = 0; k < 2; k++) {
    cudaFree (m->labels[k]);
    cudaFree (m->table[k]);
    cudaFreeHost (m->host_table[k]);
  }
  cudaFree (m->roots);
  cudaFree (m->sorted);
  cudaFree (m->count);
  cudaFreeHost (m->host_count);
  cudaFree (m->temp);
  free (m);
}
