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
 *   4. roots: selected in raster order (CUB's DeviceSelect over the pixel
 *      indices), numbered: the root's label becomes -(number + 1);
 *   5. sums: a warp a row of 32 pixels at a time, the lanes of one region
 *      (__match_any_sync) summed from their mask alone (popcounts against
 *      constant masks of lane bits: no shuffles, no reductions), the pairs
 *      inside a region from one ballot a direction, then added in a block's
 *      shared table of
 *      regions (a block covers 32 x 128 pixels; rows of a warp wholly in one
 *      region add up in registers first), which goes to the global table
 *      once: a large region costs one set of 64-bit atomics a block, not a
 *      row;
 *      pairs of pixels of one region (right, down and both diagonals)
 *      counted from the upper or left pixel;
 *   6. the sums become fv_fill_region rows on the device (crossings from
 *      the pairs inside), holes name their part (the part under their
 *      first pixel) and parts count them, and the rows are copied into
 *      pinned memory that fv_fill_regions hands out as it is. */
#include <climits>
#include "../common/fv_clock.h"
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "fv_fill_plan.h"
#include "fv_fill_measure_cuda.h"
#include "fv_fill_measure_dev.cuh"

using namespace fv_measure;
#include "../common/fv_cuda_check.cuh"
#include "../common/fv_env.h"

namespace {

constexpr unsigned ALL = 0xffffffffu;


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

/* every label straight to its root */
__global__ void
ccl_compress (Bits b, int *L)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= b.width || y >= b.height)
    return;
  const int p = y * b.width + x;
  if (!(row_word (b, blockIdx.x, y) >> threadIdx.x & 1))
    return;
  const int r = find (L, p);
  if (r != p)
    L[p] = r;
}

/* a pixel that is set and its own root (labels of pixels not set are
 * left from earlier frames: the bit decides) */
struct IsRoot {
  Bits b;
  const int *L;
  __device__ __forceinline__ bool operator() (int p) const
  {
    const int y = p / b.width, x = p - y * b.width;
    return (row_word (b, x / 32, y) >> (x % 32) & 1) && L[p] == p;
  }
};

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

/* A region's partial sums: in a block's shared table, then added to the
 * region's row of the global one. */
constexpr int SLOTS = 32;        /* regions a block sums in shared memory */
constexpr int SUMS_ROWS = 8;     /* warps a block */
constexpr int ROWS_A_WARP = 16;  /* rows each warp sums: a block covers 32 x 128 */
constexpr int FIELDS = 10;       /* area, sx, sy, sxx, syy, sxy, ph, pv, pd, pa */

__device__ __forceinline__ void
add_global (DevRegion *g, const unsigned long long *v, int xmin, int xmax, int ymin, int ymax)
{
  unsigned long long *f = &g->area;
  for (int k = 0; k < FIELDS; k++)
    if (v[k])
      atomicAdd (&f[k], v[k]);
  atomicMin (&g->xmin, xmin);
  atomicMax (&g->xmax, xmax);
  atomicMin (&g->ymin, ymin);
  atomicMax (&g->ymax, ymax);
}

/* K_BITS[j]: the lanes k whose bit j is set; KK_BITS[j]: those whose k^2
 * has bit j set */
struct LaneBits {
  unsigned k[5], kk[10];
  constexpr LaneBits () : k (), kk ()
  {
    for (int l = 0; l < 32; l++) {
      for (int j = 0; j < 5; j++)
        k[j] |= (unsigned) (l >> j & 1) << l;
      for (int j = 0; j < 10; j++)
        kk[j] |= (unsigned) ((l * l) >> j & 1) << l;
    }
  }
};
constexpr LaneBits LANE_BITS {};
__constant__ unsigned K_BITS[5] = { LANE_BITS.k[0], LANE_BITS.k[1], LANE_BITS.k[2],
  LANE_BITS.k[3], LANE_BITS.k[4] };
__constant__ unsigned KK_BITS[10] = { LANE_BITS.kk[0], LANE_BITS.kk[1], LANE_BITS.kk[2],
  LANE_BITS.kk[3], LANE_BITS.kk[4], LANE_BITS.kk[5], LANE_BITS.kk[6], LANE_BITS.kk[7],
  LANE_BITS.kk[8], LANE_BITS.kk[9] };

/* A region's partial sums on their way to the block's table. */
struct Partial {
  unsigned long long v[FIELDS];
  int xmin, xmax, ymin, ymax;
};

/* Into the block's shared table, or the global one when the block has
 * more regions than slots. */
__device__ __forceinline__ void
add_slot (int *key, unsigned long long (*acc)[FIELDS], int (*box)[4], DevRegion *t, int idx,
    const Partial &q)
{
  int slot = -1;
  for (int k = 0, h = idx % SLOTS; k < SLOTS; k++, h = (h + 1) % SLOTS) {
    const int was = atomicCAS (&key[h], -1, idx);
    if (was == -1 || was == idx) {
      slot = h;
      break;
    }
  }
  if (slot < 0) {
    add_global (&t[idx], q.v, q.xmin, q.xmax, q.ymin, q.ymax);
    return;
  }
  for (int k = 0; k < FIELDS; k++)
    if (q.v[k])
      atomicAdd (&acc[slot][k], q.v[k]);
  atomicMin (&box[slot][0], q.xmin);
  atomicMax (&box[slot][1], q.xmax);
  atomicMin (&box[slot][2], q.ymin);
  atomicMax (&box[slot][3], q.ymax);
}

__global__ void __launch_bounds__ (32 * SUMS_ROWS)
sums (Bits b, const int *L, DevRegion *t)
{
  __shared__ int key[SLOTS];
  __shared__ unsigned long long acc[SLOTS][FIELDS];
  __shared__ int box[SLOTS][4];
  const int tid = threadIdx.y * 32 + threadIdx.x;
  for (int i = tid; i < SLOTS; i += blockDim.x * blockDim.y) {
    key[i] = -1;
    for (int k = 0; k < FIELDS; k++)
      acc[i][k] = 0;
    box[i][0] = box[i][2] = INT_MAX;
    box[i][1] = box[i][3] = -1;
  }
  __syncthreads ();
  const int x = blockIdx.x * 32 + threadIdx.x, W = b.width;
  const int y0 = (blockIdx.y * SUMS_ROWS + threadIdx.y) * ROWS_A_WARP;
  /* rows wholly in one region add up in registers (the same in every
   * lane) until the region changes: a large region costs the block's table
   * one addition a warp, not a row */
  Partial run;
  int run_idx = -1;
  for (int y = y0; y < y0 + ROWS_A_WARP && y < b.height; y++) {
    const int p = y * W + x;
    const unsigned word = row_word (b, blockIdx.x, y);
    if (!word) {   /* the warp's row is empty (the same in every lane) */
      if (run_idx >= 0 && threadIdx.x == 0)
        add_slot (key, acc, box, t, run_idx, run);
      run_idx = -1;
      continue;
    }
    const bool on = x < W && (word >> threadIdx.x & 1);
    const int idx = on ? number_of (L, p) : -1;
    const unsigned group = __match_any_sync (ALL, idx);
    if (group == ALL && run_idx >= 0 && idx != run_idx) {   /* the warp's run ends */
      if (threadIdx.x == 0)
        add_slot (key, acc, box, t, run_idx, run);
      run_idx = -1;
    }
    const int r = on ? root_of (L, p) : -1;
    auto same = [&] (int qx, int qy) {
      return on && qx >= 0 && qy < b.height && qx < W && b.at (qx, qy)
          && root_of (L, qy * W + qx) == r;
    };
    /* pairs inside the region, one ballot a direction for the warp */
    const unsigned bh = __ballot_sync (ALL, same (x + 1, y));
    const unsigned bv = __ballot_sync (ALL, same (x, y + 1));
    const unsigned bd = __ballot_sync (ALL, same (x + 1, y + 1));
    const unsigned ba = __ballot_sync (ALL, same (x - 1, y + 1));
    if (!on)
      continue;
    /* the group's sums from its mask alone: x = x0 + k over its lanes k,
     * sum k = sum over bits j of 2^j popc (group & lanes whose k has bit j),
     * the same for k^2 (ten bits) */
    const unsigned long long x0 = (unsigned long long) blockIdx.x * 32;
    const unsigned long long n = __popc (group), yy = (unsigned long long) y;
    unsigned long long sk = 0, skk = 0;
    for (int j = 0; j < 5; j++)
      sk += (unsigned long long) __popc (group & K_BITS[j]) << j;
    for (int j = 0; j < 10; j++)
      skk += (unsigned long long) __popc (group & KK_BITS[j]) << j;
    const unsigned long long sx = n * x0 + sk;
    const Partial q = { { n, sx, n * yy, n * x0 * x0 + 2 * x0 * sk + skk, n * yy * yy, sx * yy,
      (unsigned long long) __popc (bh & group), (unsigned long long) __popc (bv & group),
      (unsigned long long) __popc (bd & group), (unsigned long long) __popc (ba & group) },
      (int) x0 + __ffs (group) - 1, (int) x0 + 31 - __clz (group), y, y };
    if (group == ALL) {   /* the whole warp: the run goes on, or starts */
      if (run_idx == idx) {
        for (int k = 0; k < FIELDS; k++)
          run.v[k] += q.v[k];
        run.ymax = y;
      } else {
        run = q;
        run_idx = idx;
      }
      continue;
    }
    if ((int) threadIdx.x == __ffs (group) - 1)
      add_slot (key, acc, box, t, idx, q);
  }
  if (run_idx >= 0 && threadIdx.x == 0)
    add_slot (key, acc, box, t, run_idx, run);
  __syncthreads ();
  for (int i = tid; i < SLOTS; i += blockDim.x * blockDim.y)
    if (key[i] >= 0)
      add_global (&t[key[i]], acc[i], box[i][0], box[i][1], box[i][2], box[i][3]);
}

/* the sums as fv_fill_region rows; a hole's part is the one under its
 * first pixel (part_labels NULL: parts not measured), and counts it */
__global__ void
finish (const DevRegion *t, int n, fv_fill_region *out, const int *part_labels,
    fv_fill_region *parts)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const DevRegion d = t[i];
  const int64_t a = (int64_t) d.area;
  fv_fill_region r;
  r.x = d.xmin;
  r.y = d.ymin;
  r.width = d.xmax - d.xmin + 1;
  r.height = d.ymax - d.ymin + 1;
  r.area = a;
  r.sum_x = (int64_t) d.sx;
  r.sum_y = (int64_t) d.sy;
  r.sum_xx = (int64_t) d.sxx;
  r.sum_yy = (int64_t) d.syy;
  r.sum_xy = (int64_t) d.sxy;
  r.cross_h = 2 * a - 2 * (int64_t) d.ph;
  r.cross_v = 2 * a - 2 * (int64_t) d.pv;
  r.cross_d = 2 * a - 2 * (int64_t) d.pd;
  r.cross_a = 2 * a - 2 * (int64_t) d.pa;
  r.part = part_labels ? number_of (part_labels, d.first) : -1;
  r.holes = 0;
  r.hole_area = 0;
  out[i] = r;
  if (part_labels) {
    atomicAdd (&parts[r.part].holes, 1);
    atomicAdd ((unsigned long long *) &parts[r.part].hole_area, (unsigned long long) a);
  }
}


}  // namespace

namespace {

/* FASTVISION_FILL_MEASURE_PROFILE=1: each phase's time on stderr (the stream
 * waited for after each: for finding where the time goes, not for speed) */
struct Phases {
  bool on;
  cudaStream_t s;
  double t;
  void mark (const char *what)
  {
    if (!on)
      return;
    cudaStreamSynchronize (s);
    const double n = fv_now_ms ();
    fprintf (stderr, "measure: %-28s %.3f ms\n", what, n - t);
    t = fv_now_ms ();
  }
};

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
  if (!fv_fill_grow (pl, sizeof (fv_fill_region) * (size_t) (cap - m->cap[k])))
    return fv_fill_over_budget (pl, "the measured regions");
  cudaFree (m->table[k]);
  cudaFree (m->rows[k]);
  cudaFreeHost (m->host_rows[k]);
  m->table[k] = nullptr;
  m->rows[k] = m->host_rows[k] = nullptr;
  m->cap[k] = 0;
  FV_CUDA_TRY (cudaMalloc (&m->table[k], sizeof (DevRegion) * cap));
  FV_CUDA_TRY (cudaMalloc (&m->rows[k], sizeof (fv_fill_region) * cap));
  FV_CUDA_TRY (cudaMallocHost (&m->host_rows[k], sizeof (fv_fill_region) * cap));
  m->cap[k] = cap;
  return FV_OK;
}

/* Labels one bit plane (k: holes 0, parts 1) and selects its roots in
 * raster order, their count left on the device. */
fv_status
label (fv_fill_measure_dev *m, int k, const unsigned *bits, bool conn8, cudaStream_t s,
    Phases &ph)
{
  const Bits b = { bits, m->width, m->height, m->tiles_x };
  const dim3 block (32, ROWS), grid (m->tiles_x, (m->height + ROWS - 1) / ROWS);
  int *L = m->labels[k];
  ccl_init<<<grid, block, 0, s>>> (b, L);
  ph.mark ("init");
  ccl_merge<<<grid, block, 0, s>>> (b, L, conn8);
  ph.mark ("merge");
  ccl_compress<<<grid, block, 0, s>>> (b, L);
  ph.mark ("compress");
  size_t bytes = m->temp_bytes;
  FV_CUDA_TRY (cub::DeviceSelect::If (m->temp, bytes, thrust::counting_iterator<int> (0),
      m->roots[k], &m->count[k], m->width * m->height, IsRoot { b, L }, s));
  ph.mark ("roots");
  return FV_OK;
}

/* Numbers the n roots of plane k and sums its regions into table k. */
fv_status
sum (fv_fill_measure_dev *m, fv_fill_plan *pl, int k, const unsigned *bits, int n,
    cudaStream_t s, Phases &ph)
{
  fv_status st = grow (m, pl, k, n);
  if (st != FV_OK || n == 0)
    return st;
  const Bits b = { bits, m->width, m->height, m->tiles_x };
  int *L = m->labels[k];
  name_roots<<<(n + 255) / 256, 256, 0, s>>> (L, m->roots[k], n, m->table[k]);
  ph.mark ("name");
  const int tile_rows = SUMS_ROWS * ROWS_A_WARP;
  sums<<<dim3 (m->tiles_x, (m->height + tile_rows - 1) / tile_rows), dim3 (32, SUMS_ROWS), 0, s>>>
      (b, L, m->table[k]);
  ph.mark ("sums");
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

}  // namespace

extern "C" size_t
fv_fill_measure_dev_bytes (int width, int height, int parts)
{
  const size_t px = (size_t) width * height, roots = most_roots (width, height);
  size_t temp = 0;
  cub::DeviceSelect::If ((void *) nullptr, temp, thrust::counting_iterator<int> (0),
      (int *) nullptr, (int *) nullptr, (int) px, IsRoot {}, (cudaStream_t) 0);
  return (px + roots) * sizeof (int) * (parts ? 2 : 1) + temp
      + 2 * 1024 * (sizeof (DevRegion) + sizeof (fv_fill_region))
      + 2 * ((size_t) width + height) * sizeof (int);
}

extern "C" fv_status
fv_fill_measure_dev_init (fv_fill_measure_dev **out, int width, int height, int parts)
{
  fv_fill_measure_dev *m = (fv_fill_measure_dev *) calloc (1, sizeof *m);
  *out = m;
  if (!m)
    return FV_ERR_NOMEM;
  m->max_w = m->width = width;
  m->max_h = m->height = height;
  m->tiles_x = (width + 31) / 32;
  FV_CUDA_TRY (cudaMalloc (&m->edges, 2 * ((size_t) width + height) * sizeof (int)));
  const size_t px = (size_t) width * height, roots = most_roots (width, height);
  FV_CUDA_TRY (cudaMalloc (&m->labels[0], px * sizeof (int)));
  if (parts)
    FV_CUDA_TRY (cudaMalloc (&m->labels[1], px * sizeof (int)));
  FV_CUDA_TRY (cudaMalloc (&m->roots[0], roots * sizeof (int)));
  if (parts)
    FV_CUDA_TRY (cudaMalloc (&m->roots[1], roots * sizeof (int)));
  FV_CUDA_TRY (cudaMalloc (&m->count, 3 * sizeof (int)));   /* holes, parts, contacts */
  FV_CUDA_TRY (cudaMallocHost (&m->host_count, 3 * sizeof (int)));
  FV_CUDA_TRY (cub::DeviceSelect::If ((void *) nullptr, m->temp_bytes,
      thrust::counting_iterator<int> (0), m->roots[0], m->count, (int) px, IsRoot {},
      (cudaStream_t) 0));
  FV_CUDA_TRY (cudaMalloc (&m->temp, m->temp_bytes));
  return FV_OK;
}

extern "C" fv_status
fv_fill_measure_dev_run (fv_fill_measure_dev *m, fv_fill_plan *pl, int width, int height,
    const unsigned *hole_bits, const unsigned *filled_bits, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (width < 1 || height < 1 || width > m->max_w || height > m->max_h) {
    fv_set_last_error ("a %dx%d frame to measure in a %dx%d plan", width, height, m->max_w,
        m->max_h);
    return FV_ERR_INVALID;
  }
  m->width = width;
  m->height = height;
  m->tiles_x = (width + 31) / 32;
  m->bits[0] = hole_bits;
  m->bits[1] = filled_bits;
  const bool conn8 = pl->p.connectivity == 8;
  int nh = 0, np = 0;
  static const bool profile = fv_env_set (FV_ENV_FILL_MEASURE_PROFILE);
  Phases ph = { profile, s, fv_now_ms () };
  /* both planes labelled, then one wait for both counts */
  fv_status st = label (m, 0, hole_bits, conn8, s, ph);
  if (st == FV_OK && filled_bits)
    st = label (m, 1, filled_bits, !conn8, s, ph);
  if (st != FV_OK)
    return st;
  FV_CUDA_TRY (cudaMemcpyAsync (m->host_count, m->count, 2 * sizeof (int),
      cudaMemcpyDeviceToHost, s));
  FV_CUDA_TRY (fv_cuda_sync (s));
  ph.mark ("counts back");
  nh = m->host_count[0];
  np = filled_bits ? m->host_count[1] : 0;
  st = sum (m, pl, 0, hole_bits, nh, s, ph);
  if (st == FV_OK && filled_bits)
    st = sum (m, pl, 1, filled_bits, np, s, ph);
  if (st != FV_OK)
    return st;
  if (np) {
    finish<<<(np + 255) / 256, 256, 0, s>>> (m->table[1], np, m->rows[1], nullptr, nullptr);
    FV_CUDA_TRY (cudaGetLastError ());
  }
  if (nh) {
    finish<<<(nh + 255) / 256, 256, 0, s>>> (m->table[0], nh, m->rows[0],
        filled_bits ? m->labels[1] : nullptr, m->rows[1]);
    FV_CUDA_TRY (cudaGetLastError ());
    FV_CUDA_TRY (cudaMemcpyAsync (m->host_rows[0], m->rows[0], sizeof (fv_fill_region) * nh,
        cudaMemcpyDeviceToHost, s));
  }
  if (np)
    FV_CUDA_TRY (cudaMemcpyAsync (m->host_rows[1], m->rows[1], sizeof (fv_fill_region) * np,
        cudaMemcpyDeviceToHost, s));
  FV_CUDA_TRY (fv_cuda_sync (s));
  ph.mark ("rows back");
  pl->shown_regions = m->host_rows[0];
  pl->shown_parts = m->host_rows[1];
  pl->nregions = nh;
  pl->nparts = np;
  return FV_OK;
}

extern "C" void
fv_fill_measure_dev_free (fv_fill_measure_dev *m)
{
  if (!m)
    return;
  cudaFree (m->edges);
  cudaFree (m->touch);
  cudaFree (m->contacts);
  for (int k = 0; k < 2; k++) {
    cudaFree (m->labels[k]);
    cudaFree (m->roots[k]);
    cudaFree (m->table[k]);
    cudaFree (m->rows[k]);
    cudaFreeHost (m->host_rows[k]);
  }
  cudaFree (m->count);
  cudaFreeHost (m->host_count);
  cudaFree (m->temp);
  free (m);
}
