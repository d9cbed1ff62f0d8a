/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The box mean and threshold on the GPU without a table (private to
 * fv_box_cuda.cu): window sums of columns, then of rows, in two passes.
 *
 *  1. box_cols: one thread a sample column (every channel of interleaved
 *     frames at once) slides the window down a strip of rows and writes
 *     the column sums, 16-bit where they fit: 2 bytes a sample instead of
 *     the table's 4 written and read per channel;
 *  2. box_rows: one block a segment of a row loads the column sums of the
 *     segment and its halo into shared memory, takes their prefix sums per
 *     channel and writes each output from two of them, with the divisor,
 *     rounding and threshold of the table path (fv_box_math.h).
 *
 * The border is the table path's: the extended frame reads the sample that
 * fv_border_map names, or nothing (renormalize, zero), and is separable, so
 * the sums are the same integers and the output is bit for bit the same.
 * Sums are taken modulo 2^32: exact, since the plan takes this path only
 * where every window's sum is below 2^32 (no 64-bit accumulators). */
#ifndef FV_BOX_SEP_CUDA_CUH
#define FV_BOX_SEP_CUDA_CUH

#include <cstdint>
#include "fv_box_math.h"
#include "../common/fv_border.h"

namespace fv_sep {

constexpr int SEG_SAMPLES = 4096; /* output samples a row block writes (SEG_SAMPLES / C pixels) */
constexpr int ROW_THREADS = 256;
constexpr int COL_THREADS = 256;
constexpr size_t SHARED_MAX = 47 * 1024;   /* dynamic, under the 48 KB with the static part */

/* Pixels of a row segment, and the dynamic shared memory it takes. */
inline int seg_pixels (int channels) { return SEG_SAMPLES / channels; }
inline size_t
seg_shared (int channels, int rx)
{
  return (size_t) (seg_pixels (channels) + 2 * rx) * channels * sizeof (uint32_t);
}

/* Rows a column thread slides over: enough that the window's first sums
 * (2 ry + 1 reads) cost at most half again. */
inline int
strip_rows (int ry)
{
  const int s = 2 * (2 * ry + 1);
  return s > 64 ? s : 64;
}

/* Column sums of rows [row0, row0 + rows) into V (row y at V + (y - row0)
 * * vpitch). The pointers do not alias, so the loads of later rows are
 * issued ahead of the stores of earlier ones. */
template <typename TIN, typename TV>
__global__ void __launch_bounds__ (COL_THREADS)
box_cols (const char *__restrict__ src, size_t sstride, int height, int samples, int ry,
    int border, int row0, int rows, int strip, TV *__restrict__ V, size_t vpitch)
{
  const int s = blockIdx.x * COL_THREADS + threadIdx.x;
  if (s >= samples)
    return;
  const int y0 = row0 + blockIdx.y * strip;
  const int y1 = y0 + strip < row0 + rows ? y0 + strip : row0 + rows;
  const TIN *__restrict__ col = (const TIN *) src + s;
  const size_t step = sstride / sizeof (TIN);
  auto at = [&] (long j) -> uint32_t {
    const int m = fv_border_map (j, height, border);
    return m < 0 ? 0u : (uint32_t) __ldg (col + (size_t) m * step);
  };
  uint32_t sum = 0;
  for (long j = (long) y0 - ry; j <= (long) y0 + ry; j++)
    sum += at (j);
  TV *__restrict__ out = V + (size_t) (y0 - row0) * vpitch + s;
  int y = y0;
  /* rows whose window lies inside the frame: no border map */
  const int inner_end = height - ry - 1 < y1 ? height - ry - 1 : y1;
  for (; y < y1 && y - ry < 0; y++, out += vpitch) {
    *out = (TV) sum;
    sum += at ((long) y + ry + 1) - at ((long) y - ry);
  }
#pragma unroll 8
  for (; y < inner_end; y++, out += vpitch) {
    *out = (TV) sum;
    sum += (uint32_t) __ldg (col + (size_t) (y + ry + 1) * step)
        - (uint32_t) __ldg (col + (size_t) (y - ry) * step);
  }
  for (; y < y1; y++, out += vpitch) {
    *out = (TV) sum;
    sum += at ((long) y + ry + 1) - at ((long) y - ry);
  }
}

/* The same for 8-bit samples four at a time (rows 4-byte aligned, a
 * multiple of 4 samples long): one 32-bit load a row for four columns,
 * whole cache lines a warp. */
template <typename TV>
__global__ void __launch_bounds__ (COL_THREADS)
box_cols4 (const char *__restrict__ src, size_t sstride, int height, int samples, int ry,
    int border, int row0, int rows, int strip, TV *__restrict__ V, size_t vpitch)
{
  const int s = 4 * (blockIdx.x * COL_THREADS + threadIdx.x);
  if (s >= samples)
    return;
  const int y0 = row0 + blockIdx.y * strip;
  const int y1 = y0 + strip < row0 + rows ? y0 + strip : row0 + rows;
  const char *__restrict__ col = src + s;
  auto at = [&] (long j) -> uint32_t {
    const int m = fv_border_map (j, height, border);
    return m < 0 ? 0u : __ldg ((const uint32_t *) (col + (size_t) m * sstride));
  };
  /* four byte lanes summed apart: each fits 16 bits only for small radii, so
   * keep four 32-bit sums */
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  auto add = [&] (uint32_t w, int sign) {
    a0 += sign * (int) (w & 0xff);
    a1 += sign * (int) (w >> 8 & 0xff);
    a2 += sign * (int) (w >> 16 & 0xff);
    a3 += sign * (int) (w >> 24);
  };
  for (long j = (long) y0 - ry; j <= (long) y0 + ry; j++)
    add (at (j), 1);
  TV *__restrict__ out = V + (size_t) (y0 - row0) * vpitch + s;
  for (int y = y0; y < y1; y++, out += vpitch) {
    out[0] = (TV) a0; out[1] = (TV) a1; out[2] = (TV) a2; out[3] = (TV) a3;
    const bool inner = y - ry >= 0 && y + ry + 1 < height;
    const uint32_t in = inner ? __ldg ((const uint32_t *) (col + (size_t) (y + ry + 1) * sstride))
        : at ((long) y + ry + 1);
    const uint32_t outw = inner ? __ldg ((const uint32_t *) (col + (size_t) (y - ry) * sstride))
        : at ((long) y - ry);
    add (in, 1);
    add (outw, -1);
  }
}

/* Inclusive sum over the block of one value a thread, for each of c
 * channels (v[0..c)); returns through v the exclusive sums. */
__device__ __forceinline__ void
block_exclusive (uint32_t *v, int c, uint32_t (*warp_tot)[ROW_THREADS / 32])
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t incl[4];
  for (int k = 0; k < c; k++) {
    uint32_t x = v[k];
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t y = __shfl_up_sync (0xffffffffu, x, d);
      if (lane >= d)
        x += y;
    }
    incl[k] = x;
    if (lane == 31)
      warp_tot[k][warp] = x;
  }
  __syncthreads ();
  for (int k = 0; k < c; k++) {
    uint32_t before = 0;
    for (int w = 0; w < warp; w++)
      before += warp_tot[k][w];
    v[k] = before + incl[k] - v[k];
  }
}

/* One segment of one row: SEG_SAMPLES / C outputs from x0 of row a.row0 +
 * blockIdx.y, every one of the C channels (unfiltered ones copied). */
template <typename TIN, typename TV, int MODE, int C>
__global__ void __launch_bounds__ (ROW_THREADS)
box_rows (const TV *__restrict__ V, size_t vpitch, BoxArgs a, unsigned mask)
{
  extern __shared__ uint32_t sh[];
  __shared__ uint32_t warp_tot[4][ROW_THREADS / 32];
  const int W = a.width;
  const int yl = blockIdx.y, y = a.row0 + yl;
  const int seg = SEG_SAMPLES / C;
  const int x0 = blockIdx.x * seg;
  const int nout = W - x0 < seg ? W - x0 : seg;
  const int len = nout + 2 * a.rx;   /* pixels: the outputs and their halo */
  const TV *__restrict__ vrow = V + (size_t) yl * vpitch;
  if (x0 - a.rx >= 0 && x0 + nout + a.rx <= W) {   /* the halo inside the frame */
    const TV *__restrict__ v = vrow + (size_t) (x0 - a.rx) * C;
#pragma unroll 4
    for (int e = threadIdx.x; e < len * C; e += ROW_THREADS)
      sh[e] = (uint32_t) v[e];
  } else {
    for (int e = threadIdx.x; e < len * C; e += ROW_THREADS) {
      const int i = e / C, c = e - i * C;
      const int m = fv_border_map ((long) x0 - a.rx + i, W, a.border);
      sh[e] = m < 0 ? 0u : (uint32_t) vrow[(size_t) m * C + c];
    }
  }
  __syncthreads ();
  /* prefix sums per channel: a run of pixels a thread, then the runs */
  const int run = (len + ROW_THREADS - 1) / ROW_THREADS;
  const int p0 = threadIdx.x * run < len ? threadIdx.x * run : len;
  const int p1 = p0 + run < len ? p0 + run : len;
  uint32_t acc[4] = { 0, 0, 0, 0 };
  for (int i = p0; i < p1; i++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      acc[c] += sh[i * C + c];
      sh[i * C + c] = acc[c];
    }
  block_exclusive (acc, C, warp_tot);
  for (int i = p0; i < p1; i++)
#pragma unroll
    for (int c = 0; c < C; c++)
      sh[i * C + c] += acc[c];
  __syncthreads ();
  const uint32_t ny = (uint32_t) fv_window_count (y, a.ry, a.height, a.border);
  /* the divisor and its inverse, once a row: they change along the row only
   * near its ends, and only when renormalizing (a double division a pixel
   * would cost more than the rest of the pixel's work) */
  const uint64_t n_in = (uint64_t) (2 * a.rx + 1) * ny;
  const double inv_in = 1.0 / (double) n_in;
  const bool varies = a.border == FV_BORDER_RENORMALIZE;
  const TIN *__restrict__ srow = (const TIN *) (a.src + (size_t) y * a.src_stride) + (size_t) x0 * C;
  TIN *__restrict__ drow = (TIN *) (a.dst + (size_t) yl * a.dst_stride) + (size_t) x0 * C;
#pragma unroll 4
  for (int e = threadIdx.x; e < nout * C; e += ROW_THREADS) {
    const int j = e / C, c = e - j * C;
    if (!(mask >> c & 1)) {
      drow[e] = srow[e];
      continue;
    }
    const uint32_t s = sh[(j + 2 * a.rx) * C + c] - (j ? sh[(j - 1) * C + c] : 0u);
    const int x = x0 + j;
    uint64_t n = n_in;
    double inv = inv_in;
    if (varies && (x < a.rx || x + a.rx >= W)) {   /* a branch, not a select: rare */
      n = (uint64_t) fv_window_count (x, a.rx, W, FV_BORDER_RENORMALIZE) * ny;
      inv = 1.0 / (double) n;
    }
    if (MODE == FV_BOX_MEAN)
      drow[e] = (TIN) fv_round_mean (s, inv);
    else
      drow[e] = fv_threshold_above (srow[e], s, n, a.k_thr)
          ? (TIN) (sizeof (TIN) == 1 ? 255 : 65535) : (TIN) 0;
  }
}

}  // namespace fv_sep

#endif
