/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convolution's GPU kernels and the geometry they share (private to
 * kernels/fftconv: the single plan, fv_conv_cuda.cu; the grid plan,
 * fv_conv_cuda_grid.cu; the layout timing, fv_conv_cuda_tune.cu). Each
 * channel of a plan takes five launches: extend converts the 8/16-bit
 * samples to float, extends the border and zero-pads in one pass; the
 * forward FFT; multiply by the kernel's (conjugated) spectrum, scaled; the
 * inverse FFT; finish rescales (renormalize), adds the bias, rounds,
 * clamps and writes the samples. */
#ifndef FV_CONV_CUDA_KERNELS_CUH
#define FV_CONV_CUDA_KERNELS_CUH

#include <cstdint>
#include "fv_conv_math.h"
#include "../common/fv_cufft.cuh"

namespace fvconv {

using fv::cplx;

/* The transforms' layout: tiles of px x py samples, each computing tw x th
 * outputs of the window, nx across and ny down (one tile: the whole
 * window's padded transform). */
struct Tiles {
  int px, py, tw, th, nx, ny;
  __host__ __device__ int count () const { return nx * ny; }
  __host__ __device__ size_t reals () const { return (size_t) px * py * count (); }
  __host__ __device__ size_t spectrum () const { return (size_t) (px / 2 + 1) * py; }
};

struct Geo {
  int w, h, channels, channel, kw, kh, border;
  int rx, ry, fw, fh;   /* the window's place in the frame, and the frame's size */
  Tiles t;
  /* worked out once on the host: the frame position of the extended
   * window's first sample, and the inverses of the tile divisors (an
   * integer division a sample made the per-sample kernels compute-bound:
   * 185 us to extend an 8K frame's tiles at 29% of DRAM bandwidth) */
  int ox, oy;
  float inv_tw, inv_th, inv_nx;
};

inline Geo
geo_make (int w, int h, int channels, int channel, int kw, int kh, int border, int rx, int ry,
    int fw, int fh, const Tiles &t)
{
  return Geo { w, h, channels, channel, kw, kh, border, rx, ry, fw, fh, t, rx - kw / 2,
    ry - kh / 2, 1.0f / (float) t.tw, 1.0f / (float) t.th, 1.0f / (float) t.nx };
}

/* a / b for 0 <= a < 2^22 from b's inverse, made exact by one step */
__device__ __forceinline__ int
div_by (int a, int b, float inv)
{
  int q = (int) (((float) a + 0.5f) * inv);
  q -= q * b > a;
  q += (q + 1) * b <= a;
  return q;
}

/* Whether a frame's rows (8-bit, one channel) may be read or written as
 * aligned words */
inline bool
words_ok (const char *data, size_t stride, int channels, fv_sample sample)
{
  return sample == FV_U8 && channels == 1 && ((uintptr_t) data | stride) % 4 == 0;
}

/* Where window pixel (x, y) lies in the transforms: its tile, its column
 * in the tile's outputs, and its sample's offset in the tile */
struct TileAt {
  int tile, ux;
  size_t off;
};

__device__ __forceinline__ TileAt
tile_at (const Geo &g, int x, int y)
{
  const int tx = div_by (x, g.t.tw, g.inv_tw), ty = div_by (y, g.t.th, g.inv_th);
  const int ux = x - tx * g.t.tw;
  return TileAt { ty * g.t.nx + tx, ux, (size_t) (y - ty * g.t.th) * g.t.px + ux };
}

/* The raw correlation at window pixel (x, y): in its tile's transform */
__device__ __forceinline__ float
raw_at (const float *buf, const Geo &g, int x, int y)
{
  const TileAt a = tile_at (g, x, y);
  return buf[(size_t) a.tile * g.t.px * g.t.py + a.off];
}

/* Samples a thread of extend and finish handles, neighbours along a row:
 * one sample a thread left both kernels compute-bound on their index
 * arithmetic (8K: 170 and 127 us at 31% and 38% of DRAM bandwidth). */
constexpr int SPAN = 4;

/* Samples a thread of extend takes: eight 8-bit ones come from three
 * aligned words (one load instruction for eight samples' four). */
constexpr int EXT_SPAN = 8;

/* The kernels: private to each file that includes them */
namespace {

/* grid.z: the tile. Its sample (u, v) is the window's extended input at
 * (tile's first output + u, + v), zero past the window's reach. */
template <typename TIN>
__global__ void
extend (const char *src, size_t stride, Geo g, bool words, float *buf)
{
  const int u0 = (blockIdx.x * blockDim.x + threadIdx.x) * EXT_SPAN;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  if (u0 >= g.t.px || v >= g.t.py)
    return;
  const int tile = blockIdx.z, ty = div_by (tile, g.t.nx, g.inv_nx);
  const int wx0 = (tile - ty * g.t.nx) * g.t.tw + u0, wy = ty * g.t.th + v;
  const int sy = wy < g.h + g.kh - 1 ? fv_border_map (g.oy + wy, g.fh, g.border) : -1;
  const char *line = src + (size_t) (sy < 0 ? 0 : sy) * stride;
  const TIN *row = (const TIN *) line + g.channel;
  const int x0 = g.ox + wx0;
  const bool inside = x0 >= 0 && x0 + EXT_SPAN <= g.fw && wx0 + EXT_SPAN <= g.w + g.kw - 1;
  float val[EXT_SPAN];
  const int a = x0 & ~3;
  if (sizeof (TIN) == 1 && words && inside && sy >= 0 && a + 12 <= g.fw) {
    const uint32_t *w = (const uint32_t *) (line + a);
    const uint32_t w0 = w[0], w1 = w[1], w2 = w[2], sh = (x0 & 3) * 8;
    const uint32_t lo = __funnelshift_r (w0, w1, sh), hi = __funnelshift_r (w1, w2, sh);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      val[k] = (float) ((lo >> (8 * k)) & 0xffu);
      val[k + 4] = (float) ((hi >> (8 * k)) & 0xffu);
    }
  } else {
#pragma unroll
    for (int k = 0; k < EXT_SPAN; k++) {
      int sx = x0 + k;
      if (!inside)
        sx = wx0 + k < g.w + g.kw - 1 ? fv_border_map (sx, g.fw, g.border) : -1;
      val[k] = sy >= 0 && sx >= 0 ? (float) row[(size_t) sx * g.channels] : 0.0f;
    }
  }
  float *out = buf + ((size_t) tile * g.t.py + v) * g.t.px + u0;
  if (u0 + EXT_SPAN <= g.t.px && (g.t.px % 4) == 0) {
    ((float4 *) out)[0] = make_float4 (val[0], val[1], val[2], val[3]);
    ((float4 *) out)[1] = make_float4 (val[4], val[5], val[6], val[7]);
  } else {
#pragma unroll
    for (int k = 0; k < EXT_SPAN; k++)
      if (u0 + k < g.t.px)
        out[k] = val[k];
  }
}

/* Direct summation: a 32x8 block of outputs reads its (32+kw-1) x (8+kh-1)
 * input patch (border extended) into shared memory once; each thread then
 * sums the kernel over its pixel's window from there. Writes the raw sum
 * into buf (row stride g.pw) for the same finishing kernels as the FFT. */
template <typename TIN>
__global__ void
direct_sum (const char *src, size_t stride, Geo g, const float *kern, float *buf)
{
  extern __shared__ float patch[];
  const int bx = blockIdx.x * 32, by = blockIdx.y * 8;
  const int pw = 32 + g.kw - 1, ph = 8 + g.kh - 1;
  for (int v = threadIdx.y; v < ph; v += 8) {   /* rows, then columns: no division */
    const int sy = fv_border_map (g.oy + by + v, g.fh, g.border);
    const TIN *row = (const TIN *) (src + (size_t) (sy < 0 ? 0 : sy) * stride);
    for (int u = threadIdx.x; u < pw; u += 32) {
      const int sx = fv_border_map (g.ox + bx + u, g.fw, g.border);
      patch[v * pw + u] = sx >= 0 && sy >= 0 ? (float) row[(size_t) sx * g.channels + g.channel]
          : 0.0f;
    }
  }
  __syncthreads ();
  const int x = bx + threadIdx.x, y = by + threadIdx.y;
  if (x >= g.w || y >= g.h)
    return;
  float acc = 0.0f;
  for (int j = 0; j < g.kh; j++) {
    const float *row = patch + (threadIdx.y + j) * pw + threadIdx.x;
    const float *k = kern + j * g.kw;
    for (int i = 0; i < g.kw; i++)
      acc += __ldg (k + i) * row[i];
  }
  buf[(size_t) y * g.t.px + x] = acc;
}

/* a times b, scaled: the one product of spectra, so that every path
 * rounds it alike */
__device__ __forceinline__ cplx
cmul_norm (cplx a, cplx b, float norm)
{
  return cplx { (a.x * b.x - a.y * b.y) * norm, (a.x * b.y + a.y * b.x) * norm };
}

/* grid.y: the tile; every tile's spectrum times the one kernel spectrum */
__global__ void
multiply (cplx *spec, const cplx *k, size_t n, float norm)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  cplx *s = spec + (size_t) blockIdx.y * n;
  s[i] = cmul_norm (s[i], k[i], norm);
}

template <typename TIN>
__global__ void
finish (const float *buf, Geo g, bool words, const float *scale, float uniform, float bias,
    float maxv, char *dst, size_t stride)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * SPAN;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 >= g.w || y >= g.h)
    return;
  const TileAt at = tile_at (g, x0, y);
  const int ux = at.ux;
  const float *r = buf + (size_t) at.tile * g.t.px * g.t.py + at.off;
  TIN *d = (TIN *) (dst + (size_t) y * stride) + g.channel;
  if (sizeof (TIN) == 1 && words && !scale && ux + SPAN <= g.t.tw && x0 + SPAN <= g.w) {
    /* four outputs of one tile row: one 16-byte load, one 4-byte store
     * (words: tile sides, dst and its stride multiples of 4, 8-bit, one
     * channel) */
    const float4 q = *(const float4 *) r;
    const float raw[4] = { q.x, q.y, q.z, q.w };
    uint32_t word = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const float v = fminf (fmaxf (raw[k] * uniform + bias, 0.0f), maxv);
      word |= (uint32_t) (uint8_t) (v + 0.5f) << (8 * k);
    }
    *(uint32_t *) (d + x0) = word;
    return;
  }
#pragma unroll
  for (int k = 0; k < SPAN; k++) {
    const int x = x0 + k;
    if (x >= g.w)
      break;
    /* past the tile's last output: the next tile's first */
    const float raw = ux + k < g.t.tw ? r[k] : raw_at (buf, g, x, y);
    float v = raw * (scale ? scale[(size_t) y * g.w + x] : uniform) + bias;
    v = fminf (fmaxf (v, 0.0f), maxv);
    d[(size_t) x * g.channels] = (TIN) (v + 0.5f);
  }
}

/* acc (frame sized) += weight * scaled result over the window */
__global__ void
accumulate (const float *buf, Geo g, const float *scale, float uniform, float *acc, int cols,
    int rows, int ci, int cj)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.w || y >= g.h)
    return;
  const float v = raw_at (buf, g, x, y) * (scale ? scale[(size_t) y * g.w + x] : uniform);
  const float wt = fv_conv_cell_weight (g.rx + x, g.fw, cols, ci) * fv_conv_cell_weight (g.ry + y, g.fh, rows, cj);
  acc[(size_t) (g.ry + y) * g.fw + g.rx + x] += wt * v;
}

template <typename TIN>
__global__ void
round_acc (const float *acc, int w, int h, int channels, int channel, float bias, float maxv,
    char *dst, size_t stride)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float v = fminf (fmaxf (acc[(size_t) y * w + x] + bias, 0.0f), maxv);
  ((TIN *) (dst + (size_t) y * stride))[(size_t) x * channels + channel] = (TIN) (v + 0.5f);
}

__global__ void
conjugate (cplx *k, size_t n)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    k[i].y = -k[i].y;
}

/* A grid cell as the blending pass sees it: its edge factors and window. */
struct CellInfo {
  const float *scale;   /* per window pixel (renormalize), or NULL */
  float uniform;
  int rx, ry, ow;
};

/* grid.y: the (cell, tile) pair; the tile's spectrum times the cell's */
__global__ void
pair_multiply (const cplx *spec, const cplx *kspec, const int *pair_tile, const int *pair_cell,
    cplx *prod, size_t n, float norm)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int pr = blockIdx.y;
  prod[(size_t) pr * n + i] = cmul_norm (spec[(size_t) pair_tile[pr] * n + i],
      kspec[(size_t) pair_cell[pr] * n + i], norm);
}

/* Each pixel: the weighted sum of the (at most 2 x 2) cells that weigh on
 * it, each read from its pair's result in the pixel's tile, in the cells'
 * order (the per-cell path's order); then bias, rounding, clamping. */
template <typename TIN>
__global__ void
blend (const float *raw, Geo g, const int *pair_of, const CellInfo *cells, int cols, int rows,
    float bias, float maxv, char *dst, size_t stride)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.w || y >= g.h)
    return;
  const TileAt at = tile_at (g, x, y);
  const size_t per = (size_t) g.t.px * g.t.py;
  float acc = 0.0f;
  for (int j = 0; j < rows; j++) {
    const float wy = fv_conv_cell_weight (y, g.h, rows, j);
    if (wy <= 0.0f)
      continue;
    for (int i = 0; i < cols; i++) {
      const float wx = fv_conv_cell_weight (x, g.w, cols, i);
      if (wx <= 0.0f)
        continue;
      const int c = j * cols + i, pr = pair_of[(size_t) c * g.t.count () + at.tile];
      const CellInfo ci = cells[c];
      const float s = ci.scale ? ci.scale[(size_t) (y - ci.ry) * ci.ow + x - ci.rx] : ci.uniform;
      acc += wx * wy * (raw[pr * per + at.off] * s);
    }
  }
  const float v = fminf (fmaxf (acc + bias, 0.0f), maxv);
  ((TIN *) (dst + (size_t) y * stride))[(size_t) x * g.channels + g.channel] = (TIN) (v + 0.5f);
}


}  // namespace

/* The extended window of one channel into buf, as g.t's tiles */
inline void
launch_extend (const char *src, size_t stride, const Geo &g, fv_sample sample, float *buf,
    cudaStream_t st)
{
  dim3 blk (32, 8), grid ((g.t.px + 32 * EXT_SPAN - 1) / (32 * EXT_SPAN), (g.t.py + 7) / 8,
      g.t.count ());
  const bool words = words_ok (src, stride, g.channels, sample);
  if (sample == FV_U8)
    extend<uint8_t><<<grid, blk, 0, st>>> (src, stride, g, words, buf);
  else
    extend<uint16_t><<<grid, blk, 0, st>>> (src, stride, g, words, buf);
}

}  // namespace fvconv

#endif
