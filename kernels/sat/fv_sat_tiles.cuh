/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bandwidth-efficient tiled summed-area table on the GPU.
 *
 * The frame is cut into square TILE x TILE tiles (one block of 8 warps each).
 *   pass 1 reads each tile once and writes its row sums (one per row, into a
 *          [y][tile column] array), the column sums of each warp's band of
 *          16 rows ([band][x]) and the tile's total;
 *   pass 2 scans those partial sums across tiles: row sums become the carry
 *          from the tiles to the left (one warp scan per row), band column
 *          sums the carry from every row above the band, and tile totals the
 *          corner pivots (the sum of every tile above and to the left);
 *   pass 3 reads each tile again: each warp forms the table row above its
 *          band from the carries and the pivot, then in one sweep scans its
 *          rows with warp shuffles, adds the row carries, accumulates down
 *          the columns and writes the table once — no shared memory, no
 *          barrier.
 * Global traffic is about 2 reads of the image, 1 write of the table and
 * 8wh/TILE for the partial sums, instead of the 6wh of scan-transpose-scan. */
#ifndef FV_SAT_TILES_CUH
#define FV_SAT_TILES_CUH

#include <cstdint>
#include <cuda_runtime.h>

namespace fv {

constexpr int TILE = 128;
constexpr int WARPS = 8;
constexpr int ROWS_PER_WARP = TILE / WARPS;  /* 16 */
constexpr int COLS_PER_LANE = TILE / 32;     /* 4 */

struct SatSrc {
  const char *data;
  size_t stride;   /* bytes */
  int width, height, channels, channel;
  bool vec4;       /* one 8-bit channel, rows 4-byte aligned: load 4 at once */
  bool vec16;      /* ... and 16-byte aligned with a width a multiple of 4: 16 at once */
};

/* Device scratch for one table of w x h. */
struct SatWork {
  void *rowsum, *colsum, *tiles;
  int ntx, nty;
};

template <typename TACC>
__device__ __forceinline__ TACC
warp_inclusive_scan (TACC v, int lane)
{
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    TACC u = __shfl_up_sync (0xffffffffu, v, d);
    if (lane >= d)
      v += u;
  }
  return v;
}

template <typename TACC>
__device__ __forceinline__ TACC
warp_sum (TACC v)
{
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
}

/* Four consecutive samples of the chosen channel (zero outside the image),
 * squared when SQ. */
template <typename TIN, typename TACC, bool SQ>
__device__ __forceinline__ void
load4 (const SatSrc &s, int x, int y, TACC v[4])
{
  if (y >= s.height) {
    v[0] = v[1] = v[2] = v[3] = 0;
    return;
  }
  const TIN *row = (const TIN *) (s.data + (size_t) y * s.stride);
  if (sizeof (TIN) == 1 && s.vec4 && x + 3 < s.width) {
    uchar4 q = __ldg ((const uchar4 *) (row + x));
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] = x + k < s.width ? (TACC) __ldg (row + (size_t) (x + k) * s.channels + s.channel) : 0;
  }
  if (SQ) {
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] *= v[k];
  }
}

/* Inclusive scan of 128 values held 4 per lane, in lane order. */
template <typename TACC>
__device__ __forceinline__ void
row_scan (TACC v[4], int lane)
{
  v[1] += v[0]; v[2] += v[1]; v[3] += v[2];
  TACC incl = warp_inclusive_scan (v[3], lane);
  TACC excl = incl - v[3];
#pragma unroll
  for (int k = 0; k < 4; k++)
    v[k] += excl;
}

/* The tile's total from each warp's (in lane 0); every thread must call. */
template <typename TACC>
__device__ __forceinline__ void
tile_total (TACC *part, int w, int lane, TACC warp_total, TACC *out)
{
  if (lane == 0)
    part[w] = warp_total;
  __syncthreads ();
  if (threadIdx.x == 0) {
    TACC tot = 0;
#pragma unroll
    for (int q = 0; q < WARPS; q++)
      tot += part[q];
    *out = tot;
  }
}

template <typename TIN, typename TACC, bool SQ>
__global__ void __launch_bounds__ (WARPS * 32)
sat_pass1 (SatSrc s, TACC *rowsum, TACC *colsum, TACC *tiles, int ntx)
{
  const int tx = blockIdx.x, ty = blockIdx.y;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int x = tx * TILE + lane * 4, yb = ty * TILE + w * ROWS_PER_WARP;
  __shared__ TACC part[WARPS];
  if (sizeof (TIN) == 1 && sizeof (TACC) == 4 && !SQ && s.vec16
      && (tx + 1) * TILE <= s.width && (ty + 1) * TILE <= s.height) {
    /* whole 8-bit tile: 16 bytes a lane, four rows a step */
    const int seg = lane & 7, grp = lane >> 3, xs = tx * TILE + seg * 16;
    uint32_t c16[16];
#pragma unroll
    for (int j = 0; j < 16; j++)
      c16[j] = 0;
#pragma unroll
    for (int it = 0; it < ROWS_PER_WARP / 4; it++) {
      const int y = yb + it * 4 + grp;
      const uint4 q = __ldg ((const uint4 *) (s.data + (size_t) y * s.stride + xs));
      const uint32_t wd[4] = { q.x, q.y, q.z, q.w };
      uint32_t r = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) {
        r = __dp4a (wd[j], 0x01010101u, r);
#pragma unroll
        for (int b = 0; b < 4; b++)
          c16[j * 4 + b] += (wd[j] >> (8 * b)) & 0xff;
      }
      r += __shfl_xor_sync (0xffffffffu, r, 4);
      r += __shfl_xor_sync (0xffffffffu, r, 2);
      r += __shfl_xor_sync (0xffffffffu, r, 1);
      if (seg == 0)
        rowsum[(size_t) y * ntx + tx] = r;
    }
    uint32_t t = 0;
#pragma unroll
    for (int j = 0; j < 16; j++) {
      c16[j] += __shfl_xor_sync (0xffffffffu, c16[j], 8);
      c16[j] += __shfl_xor_sync (0xffffffffu, c16[j], 16);
      t += c16[j];
    }
    if (grp == 0) {
      uint4 *cs = (uint4 *) (colsum + (size_t) (ty * WARPS + w) * s.width + xs);
#pragma unroll
      for (int j = 0; j < 4; j++)
        cs[j] = make_uint4 (c16[4 * j], c16[4 * j + 1], c16[4 * j + 2], c16[4 * j + 3]);
    }
    t += __shfl_xor_sync (0xffffffffu, t, 4);
    t += __shfl_xor_sync (0xffffffffu, t, 2);
    t += __shfl_xor_sync (0xffffffffu, t, 1);
    tile_total<TACC> (part, w, lane, t, tiles + (size_t) ty * ntx + tx);
    return;
  }
  TACC col[4] = { 0, 0, 0, 0 };
#pragma unroll 4
  for (int i = 0; i < ROWS_PER_WARP; i++) {
    TACC v[4];
    load4<TIN, TACC, SQ> (s, x, yb + i, v);
    TACC r = warp_sum<TACC> (v[0] + v[1] + v[2] + v[3]);
#pragma unroll
    for (int k = 0; k < 4; k++)
      col[k] += v[k];
    if (lane == 0 && yb + i < s.height)
      rowsum[(size_t) (yb + i) * ntx + tx] = r;
  }
  /* column sums of this warp's band of rows: pass 2 turns them into what
   * each band has above it, so pass 3 needs no exchange between warps */
  TACC *cs = colsum + (size_t) (ty * WARPS + w) * s.width;
  if (sizeof (TACC) == 4 && (s.width & 3) == 0 && x + 3 < s.width) {
    *(uint4 *) (cs + x) = make_uint4 ((uint32_t) col[0], (uint32_t) col[1],
        (uint32_t) col[2], (uint32_t) col[3]);
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (x + k < s.width)
        cs[x + k] = col[k];
  }
  tile_total<TACC> (part, w, lane, warp_sum<TACC> (col[0] + col[1] + col[2] + col[3]),
      tiles + (size_t) ty * ntx + tx);
}

/* Exclusive running sum of n values spaced `step` apart, in place. Up to
 * 64 values are loaded before the first is used, so one round trip to
 * memory serves a whole column of tiles. */
template <typename TACC>
__device__ __forceinline__ void
exclusive_run (TACC *p, int n, size_t step)
{
  TACC run = 0;
  for (int i = 0; i < n; i += 64) {
    TACC v[64];
#pragma unroll
    for (int k = 0; k < 64; k++)
      v[k] = i + k < n ? p[(size_t) (i + k) * step] : 0;
#pragma unroll
    for (int k = 0; k < 64; k++) {
      if (i + k < n)
        p[(size_t) (i + k) * step] = run;
      run += v[k];
    }
  }
}

/* Exclusive scan of n contiguous values by one warp, in place. */
template <typename TACC>
__device__ __forceinline__ void
warp_exclusive_run (TACC *r, int n, int lane)
{
  TACC carry = 0;
  for (int t0 = 0; t0 < n; t0 += 64) {
    TACC a = t0 + lane < n ? r[t0 + lane] : 0;
    TACC b = t0 + 32 + lane < n ? r[t0 + 32 + lane] : 0;
    TACC ia = warp_inclusive_scan (a, lane), ib = warp_inclusive_scan (b, lane);
    TACC ta = __shfl_sync (0xffffffffu, ia, 31), tb = __shfl_sync (0xffffffffu, ib, 31);
    if (t0 + lane < n)
      r[t0 + lane] = carry + ia - a;
    if (t0 + 32 + lane < n)
      r[t0 + 32 + lane] = carry + ta + ib - b;
    carry += ta + tb;
  }
}

/* Pass 2, one launch: a warp per row turns row sums into carries from the
 * left; a thread per column turns column sums into carries from above; the
 * last block turns tile totals into corner pivots (the sum of every tile
 * above and to the left). */
template <typename TACC>
__global__ void __launch_bounds__ (256)
sat_pass2 (TACC *rowsum, TACC *colsum, TACC *tiles, int width, int height, int ntx, int nty,
    int row_blocks, int col_blocks)
{
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.x;
  if (b < row_blocks) {
    const int y = b * 8 + w;
    if (y < height)
      warp_exclusive_run (rowsum + (size_t) y * ntx, ntx, lane);
  } else if (b < row_blocks + col_blocks) {
    /* 32 columns a block, a lane each; the 8 warps take a segment of the
     * bands each, sum it, and the segments are scanned in shared memory,
     * so each column costs two round trips to memory, not one per band */
    __shared__ TACC seg[8][32];
    const int x = (b - row_blocks) * 32 + lane, nb = nty * WARPS;
    const int per = (nb + 7) / 8, b0 = w * per, b1 = b0 + per < nb ? b0 + per : nb;
    TACC sum = 0;
    if (x < width) {
#pragma unroll 8
      for (int i = b0; i < b1; i++)
        sum += colsum[(size_t) i * width + x];
    }
    seg[w][lane] = sum;
    __syncthreads ();
    TACC run = 0;
    for (int q = 0; q < w; q++)
      run += seg[q][lane];
    if (x < width)
      for (int i = b0; i < b1; i++) {
        TACC v = colsum[(size_t) i * width + x];
        colsum[(size_t) i * width + x] = run;
        run += v;
      }
  } else {
    for (int ty = w; ty < nty; ty += 8)          /* along x within each tile row */
      warp_exclusive_run (tiles + (size_t) ty * ntx, ntx, lane);
    __syncthreads ();
    for (int tx = threadIdx.x; tx < ntx; tx += 256)   /* then down the tile rows */
      exclusive_run (tiles + tx, nty, (size_t) ntx);
  }
}

template <typename TIN, typename TACC, bool SQ>
__global__ void __launch_bounds__ (WARPS * 32)
sat_pass3 (SatSrc s, const TACC *rowcarry, const TACC *bandcarry, const TACC *pivots,
    TACC *out, size_t ostride, bool vec_store, int ntx)
{
  const int tx = blockIdx.x, ty = blockIdx.y;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int x = tx * TILE + lane * 4, y0 = ty * TILE, yb = y0 + w * ROWS_PER_WARP;
  /* the table row above this warp's band, S(x, yb-1): the columns of the
   * tile summed over all rows above (scanned along x), plus everything left
   * of the tile above the band: the tile's pivot and the row carries of the
   * tile's rows above the band */
  TACC acc[4];
  const TACC *bc = bandcarry + (size_t) (ty * WARPS + w) * s.width;
#pragma unroll
  for (int k = 0; k < 4; k++)
    acc[k] = x + k < s.width ? bc[x + k] : 0;
  row_scan (acc, lane);
  TACC left = 0;
#pragma unroll
  for (int j = lane; j < WARPS * ROWS_PER_WARP; j += 32)
    if (j < w * ROWS_PER_WARP && y0 + j < s.height)
      left += rowcarry[(size_t) (y0 + j) * ntx + tx];
  left = warp_sum<TACC> (left) + pivots[(size_t) ty * ntx + tx];
#pragma unroll
  for (int k = 0; k < 4; k++)
    acc[k] += left;
  /* one sweep down the band: scan each row, add its carry, accumulate */
#pragma unroll 4
  for (int i = 0; i < ROWS_PER_WARP; i++) {
    const int y = yb + i;
    TACC v[4];
    load4<TIN, TACC, SQ> (s, x, y, v);
    row_scan (v, lane);
    const TACC rc = y < s.height ? rowcarry[(size_t) y * ntx + tx] : 0;
#pragma unroll
    for (int k = 0; k < 4; k++)
      acc[k] += v[k] + rc;
    if (y >= s.height)
      continue;
    TACC *o = out + (size_t) y * ostride + x;
    if (sizeof (TACC) == 4 && vec_store && x + 3 < s.width) {
      /* streaming store: the table is not read again by this pass */
      __stcs ((uint4 *) o, make_uint4 ((uint32_t) acc[0], (uint32_t) acc[1],
          (uint32_t) acc[2], (uint32_t) acc[3]));
    } else {
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (x + k < s.width)
          o[k] = acc[k];
    }
  }
}

}  // namespace fv
#endif

#ifndef FV_SAT_TILES_LAUNCH
#define FV_SAT_TILES_LAUNCH
namespace fv {

/* The bytes sat_work_alloc below takes for w x h. */
static inline size_t
sat_work_bytes (int w, int h, size_t acc)
{
  const size_t ntx = (w + TILE - 1) / TILE, nty = (h + TILE - 1) / TILE;
  return acc * (ntx * (size_t) h + nty * WARPS * (size_t) w + nty * ntx);
}

/* Scratch for tables up to w x h with accumulator size acc. */
static inline cudaError_t
sat_work_alloc (SatWork *wk, int w, int h, size_t acc)
{
  wk->ntx = (w + TILE - 1) / TILE;
  wk->nty = (h + TILE - 1) / TILE;
  wk->rowsum = wk->colsum = wk->tiles = nullptr;
  cudaError_t e = cudaMalloc (&wk->rowsum, acc * wk->ntx * (size_t) h);
  if (e == cudaSuccess)
    e = cudaMalloc (&wk->colsum, acc * wk->nty * WARPS * (size_t) w);
  if (e == cudaSuccess)
    e = cudaMalloc (&wk->tiles, acc * wk->nty * (size_t) wk->ntx);
  return e;
}

static inline void
sat_work_free (SatWork *wk)
{
  cudaFree (wk->rowsum);
  cudaFree (wk->colsum);
  cudaFree (wk->tiles);
  wk->rowsum = wk->colsum = wk->tiles = nullptr;
}

/* Three launches on `stream`; out is a device table of ostride elements
 * per row. */
template <typename TIN, typename TACC>
static cudaError_t
sat_launch (const SatWork &wk, SatSrc s, bool squared, TACC *out, size_t ostride,
    cudaStream_t stream)
{
  s.vec4 = sizeof (TIN) == 1 && s.channels == 1 && ((uintptr_t) s.data & 3) == 0
      && (s.stride & 3) == 0;
  s.vec16 = s.vec4 && ((uintptr_t) s.data & 15) == 0 && (s.stride & 15) == 0
      && (s.width & 3) == 0 && ((uintptr_t) wk.colsum & 15) == 0;
  bool vstore = ((uintptr_t) out & 15) == 0 && (ostride * sizeof (TACC)) % 16 == 0;
  dim3 grid (wk.ntx, wk.nty);
  TACC *rs = (TACC *) wk.rowsum, *cs = (TACC *) wk.colsum, *ts = (TACC *) wk.tiles;
  if (squared)
    sat_pass1<TIN, TACC, true><<<grid, WARPS * 32, 0, stream>>> (s, rs, cs, ts, wk.ntx);
  else
    sat_pass1<TIN, TACC, false><<<grid, WARPS * 32, 0, stream>>> (s, rs, cs, ts, wk.ntx);
  const int row_blocks = (s.height + 7) / 8, col_blocks = (s.width + 31) / 32;
  sat_pass2<TACC><<<row_blocks + col_blocks + 1, 256, 0, stream>>> (rs, cs, ts, s.width,
      s.height, wk.ntx, wk.nty, row_blocks, col_blocks);
  if (squared)
    sat_pass3<TIN, TACC, true><<<grid, WARPS * 32, 0, stream>>> (s, rs, cs, ts, out, ostride,
        vstore, wk.ntx);
  else
    sat_pass3<TIN, TACC, false><<<grid, WARPS * 32, 0, stream>>> (s, rs, cs, ts, out, ostride,
        vstore, wk.ntx);
  return cudaGetLastError ();
}

}  // namespace fv
#endif
