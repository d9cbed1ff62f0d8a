/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Convolution on the GPU with cuFFT (real-to-complex and back), cuFFT opened
 * with dlopen so the plugin loads where no CUDA toolkit is installed. Each
 * channel takes five launches: one kernel converts the 8/16-bit samples to
 * float, extends the border and zero-pads in one pass; the forward FFT; one
 * kernel multiplies by the kernel's (conjugated) spectrum and scales; the
 * inverse FFT; one kernel rescales (renormalize), adds the bias, rounds,
 * clamps and writes the samples. The kernel's spectrum stays on the device.
 *
 * The transforms run over the whole window or, overlap-save, over a batch
 * of tiles: each tile's transform holds its outputs and the kernel's
 * reach around them, so no tile's correlation wraps into its outputs, and
 * tiles that fit the L2 cache transform faster than one large frame (8K:
 * 2048x1024 tiles 0.54 ms a pair against 0.90 for 8192x4608, H100). The
 * plan times the candidates once per size and process and keeps the
 * fastest; the whole window is one of them. */
#include <algorithm>
#include <cstdlib>
#include <vector>
#include <map>
#include <mutex>
#include <cstring>
#include <dlfcn.h>
#include "fv_conv_cuda.h"
#include "fv_conv_math.h"
#include "../common/fv_cuda_check.cuh"
#include "../common/fv_cuda.h"

namespace {

typedef int cufftHandle_t;
typedef struct { float x, y; } cplx;
enum { CUFFT_R2C_ = 0x2a, CUFFT_C2R_ = 0x2c };
struct CufftApi {
  int (*plan_many) (cufftHandle_t *, int, int *, int *, int, int, int *, int, int, int, int);
  int (*r2c) (cufftHandle_t, float *, cplx *);
  int (*c2r) (cufftHandle_t, cplx *, float *);
  int (*set_stream) (cufftHandle_t, cudaStream_t);
  int (*destroy) (cufftHandle_t);
  bool ok;
};

/* libcufft opened once per process; a static local's initialisation is
 * thread-safe, so plans made at once on several threads (the chunk
 * runner's lanes) all see it loaded, never half-way. */
CufftApi
load_cufft (void)
{
  CufftApi api = {};
  const char *names[] = { "libcufft.so.12", "libcufft.so.13", "libcufft.so" };
  void *h = nullptr;
  for (const char *n : names)
    if ((h = dlopen (n, RTLD_NOW)))
      break;
  if (h) {
    api.plan_many = (int (*) (cufftHandle_t *, int, int *, int *, int, int, int *, int, int,
        int, int)) dlsym (h, "cufftPlanMany");
    api.r2c = (int (*) (cufftHandle_t, float *, cplx *)) dlsym (h, "cufftExecR2C");
    api.c2r = (int (*) (cufftHandle_t, cplx *, float *)) dlsym (h, "cufftExecC2R");
    api.set_stream = (int (*) (cufftHandle_t, cudaStream_t)) dlsym (h, "cufftSetStream");
    api.destroy = (int (*) (cufftHandle_t)) dlsym (h, "cufftDestroy");
    api.ok = api.plan_many && api.r2c && api.c2r && api.set_stream && api.destroy;
  }
  return api;
}

const CufftApi *
cufft (void)
{
  static const CufftApi api = load_cufft ();
  return api.ok ? &api : nullptr;
}

/* batch transforms of py rows by px columns, contiguous */
int
plan_batch (const CufftApi *api, cufftHandle_t *h, int px, int py, int batch, int type)
{
  int n[2] = { py, px };
  return api->plan_many (h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}

/* The transforms' layout: tiles of px x py samples, each computing tw x th
 * outputs of the window, nx across and ny down (one tile: the whole
 * window's padded transform). */
struct Tiles {
  int px, py, tw, th, nx, ny;
  __host__ __device__ int count () const { return nx * ny; }
  __host__ __device__ size_t reals () const { return (size_t) px * py * count (); }
  __host__ __device__ size_t spectrum () const { return (size_t) (px / 2 + 1) * py; }
};

struct ConvCuda {
  fv::PlanStream ps;
  Tiles t;
  int rx, ry, ow, oh;   /* the window computed */
  bool direct;          /* summed in shared memory, no FFT */
  float *kern;          /* direct: the taps on the device */
  fv_conv_params p;     /* the plan's own (kernel size, border) */
  cufftHandle_t fwd, inv;
  bool have_fwd, have_inv;
  float *buf, *scale;
  cplx *spec, *kspec;
  float uniform;
  char *d_src, *d_dst;
  size_t pitch;
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

Geo
geo_make (int w, int h, int channels, int channel, int kw, int kh, int border, int rx, int ry,
    int fw, int fh, const Tiles &t)
{
  return Geo { w, h, channels, channel, kw, kh, border, rx, ry, fw, fh, t, rx - kw / 2,
    ry - kh / 2, 1.0f / (float) t.tw, 1.0f / (float) t.th, 1.0f / (float) t.nx };
}

Geo
plan_geo (const ConvCuda *c, int w, int h, int channels, int channel, int rx, int ry)
{
  const fv_conv_params &p = c->p;
  return geo_make (w, h, channels, channel, p.kernel_width, p.kernel_height, (int) p.border, rx,
      ry, p.width, p.height, c->t);
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
bool
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

#define CUFFT_TRY(call)                                                         \
  do {                                                                          \
    int r_ = (call);                                                            \
    if (r_ != 0) {                                                              \
      fv_set_last_error ("%s failed: cuFFT error %d", #call, r_);              \
      return FV_ERR_CUDA;                                                       \
    }                                                                           \
  } while (0)

/* The extended window of one channel into buf, as g.t's tiles */
static void
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

/* A kernel's conjugated spectrum at the layout t into out: the kernel at
 * (ox, oy) of buf's first tile, zeros elsewhere, through fwd (a forward
 * batch of t's tiles writing spec). */
static fv_status
kernel_spectrum (const CufftApi *api, cufftHandle_t fwd, const Tiles &t, float *buf, cplx *spec,
    const float *kernel, int kw, int kh, int ox, int oy, cplx *out, cudaStream_t st)
{
  const size_t nc = t.spectrum ();
  FV_CUDA_TRY (cudaMemsetAsync (buf, 0, sizeof (float) * t.reals (), st));
  FV_CUDA_TRY (cudaMemcpy2DAsync (buf + (size_t) oy * t.px + ox, sizeof (float) * t.px, kernel,
      sizeof (float) * kw, sizeof (float) * kw, kh, cudaMemcpyHostToDevice, st));
  CUFFT_TRY (api->r2c (fwd, buf, spec));
  FV_CUDA_TRY (cudaMemcpyAsync (out, spec, sizeof (cplx) * nc, cudaMemcpyDeviceToDevice, st));
  conjugate<<<(unsigned) ((nc + 255) / 256), 256, 0, st>>> (out, nc);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

/* The raw correlation of one channel into c->buf (laid out as c->t),
 * directly or through the spectra. */
static fv_status
correlate (ConvCuda *c, const CufftApi *api, const char *src, size_t stride, const Geo &g,
    fv_sample sample, float norm)
{
  cudaStream_t st = c->ps.stream;
  if (c->direct) {
    dim3 blk (32, 8), grid ((g.w + 31) / 32, (g.h + 7) / 8);
    const size_t smem = sizeof (float) * (32 + g.kw - 1) * (8 + g.kh - 1);
    if (sample == FV_U8)
      direct_sum<uint8_t><<<grid, blk, smem, st>>> (src, stride, g, c->kern, c->buf);
    else
      direct_sum<uint16_t><<<grid, blk, smem, st>>> (src, stride, g, c->kern, c->buf);
    FV_CUDA_TRY (cudaGetLastError ());
    return FV_OK;
  }
  const Tiles &t = c->t;
  const size_t nc = t.spectrum ();
  launch_extend (src, stride, g, sample, c->buf, st);
  CUFFT_TRY (api->r2c (c->fwd, c->buf, c->spec));
  multiply<<<dim3 ((unsigned) ((nc + 255) / 256), t.count ()), 256, 0, st>>> (c->spec, c->kspec,
      nc, norm);
  CUFFT_TRY (api->c2r (c->inv, c->spec, c->buf));
  return FV_OK;
}

/* Median time (ms) of what a channel costs in cuFFT's part for the layout
 * t: the forward transforms, then `inverses` products and inverse ones
 * (the tiles' count for one kernel, the (cell, tile) pairs for a grid);
 * negative when it cannot be measured. */
static float
time_layout (const CufftApi *api, const Tiles &t, int inverses)
{
  const int n = inverses > t.count () ? inverses : t.count ();
  const size_t nr = (size_t) t.px * t.py * n, nc = t.spectrum ();
  float *buf = nullptr, best = -1.f;
  cplx *spec = nullptr, *kspec = nullptr;
  cufftHandle_t fwd = 0, inv = 0;
  cudaEvent_t a = nullptr, b = nullptr;
  bool ok = cudaMalloc (&buf, sizeof (float) * nr) == cudaSuccess
      && cudaMalloc (&spec, sizeof (cplx) * nc * n) == cudaSuccess
      && cudaMalloc (&kspec, sizeof (cplx) * nc) == cudaSuccess
      && cudaMemset (buf, 0, sizeof (float) * nr) == cudaSuccess
      && cudaMemset (kspec, 0, sizeof (cplx) * nc) == cudaSuccess
      && plan_batch (api, &fwd, t.px, t.py, t.count (), CUFFT_R2C_) == 0
      && plan_batch (api, &inv, t.px, t.py, inverses, CUFFT_C2R_) == 0
      && cudaEventCreate (&a) == cudaSuccess && cudaEventCreate (&b) == cudaSuccess;
  for (int i = 0; ok && i < 4; i++) {   /* the first run warms up */
    float ms;
    ok = cudaEventRecord (a) == cudaSuccess && api->r2c (fwd, buf, spec) == 0;
    multiply<<<dim3 ((unsigned) ((nc + 255) / 256), inverses), 256>>> (spec, kspec, nc, 1.f);
    ok = ok && api->c2r (inv, spec, buf) == 0 && cudaEventRecord (b) == cudaSuccess
        && cudaEventSynchronize (b) == cudaSuccess && cudaEventElapsedTime (&ms, a, b) == cudaSuccess;
    if (ok && i > 0 && (best < 0 || ms < best))
      best = ms;
  }
  if (fwd)
    api->destroy (fwd);
  if (inv)
    api->destroy (inv);
  if (a)
    cudaEventDestroy (a);
  if (b)
    cudaEventDestroy (b);
  cudaFree (buf);
  cudaFree (spec);
  cudaFree (kspec);
  cudaGetLastError ();   /* a failed candidate leaves no error behind */
  return ok ? best : -1.f;
}

static Tiles
whole (int w, int h, int pw, int ph)
{
  return Tiles { pw, ph, w, h, 1, 1 };
}

/* tw x th outputs a tile over a w x h window */
static Tiles
tiled (int w, int h, int kw, int kh, int tw, int th)
{
  tw = tw < w ? tw : w;
  th = th < h ? th : h;
  return Tiles { tw + kw - 1, th + kh - 1, tw, th, (w + tw - 1) / tw, (h + th - 1) / th };
}

/* The samples a layout may hold: the estimate fv_conv_cuda_bytes makes
 * room for (a quarter more than the largest whole-window transform). */
static double
layout_limit (int w, int h, int kw, int kh)
{
  return 1.25 * fv_conv_smooth_size (w + kw - 1, 3) * (double) fv_conv_smooth_size (h + kh - 1, 3);
}

/* The layouts worth timing for a w x h window: the whole window's
 * transform first, then the eight tiled layouts with the fewest samples
 * (transform sides cuFFT does well, at least twice the kernel, within
 * layout_limit). */
static std::vector<Tiles>
layout_candidates (int w, int h, int kw, int kh, int pw, int ph)
{
  static const int sides[] = { 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072,
    4096 };
  std::vector<Tiles> cands;
  for (int sx : sides)
    for (int sy : sides) {
      if (sx < 2 * kw || sy < 2 * kh || sx >= pw || sy >= ph)
        continue;
      Tiles t = tiled (w, h, kw, kh, sx - kw + 1, sy - kh + 1);
      if ((double) t.reals () <= layout_limit (w, h, kw, kh))
        cands.push_back (t);
    }
  std::stable_sort (cands.begin (), cands.end (),
      [] (const Tiles &a, const Tiles &b) { return a.reals () < b.reals (); });
  if (cands.size () > 8)
    cands.resize (8);
  cands.insert (cands.begin (), whole (w, h, pw, ph));
  return cands;
}

/* The fastest of cands, each timed with inverses (t) inverse transforms;
 * the first when none can be timed. */
template <typename F>
static Tiles
fastest (const CufftApi *api, const std::vector<Tiles> &cands, F inverses)
{
  Tiles best = cands[0];
  float best_ms = -1.f;
  for (const Tiles &t : cands) {
    const float ms = time_layout (api, t, inverses (t));
    if (ms >= 0 && (best_ms < 0 || ms < best_ms)) {
      best_ms = ms;
      best = t;
    }
  }
  return best;
}

/* The layout for a w x h window: tile forces tiles of that many outputs
 * a side, -1 the whole window; 0 times the candidates and keeps the
 * fastest, once per window, kernel size and device in the process. */
static Tiles
choose_layout (const CufftApi *api, int w, int h, int kw, int kh, int pw, int ph, int tile,
    int device)
{
  if (tile < 0)
    return whole (w, h, pw, ph);
  if (tile > 0)
    return tiled (w, h, kw, kh, tile, tile);
  static std::mutex lock;
  static std::map<std::vector<int>, Tiles> chosen;
  std::lock_guard<std::mutex> guard (lock);
  const std::vector<int> key { w, h, kw, kh, pw, ph, device };
  auto it = chosen.find (key);
  if (it != chosen.end ())
    return it->second;
  const Tiles best = fastest (api, layout_candidates (w, h, kw, kh, pw, ph),
      [] (const Tiles &t) { return t.count (); });
  chosen.emplace (key, best);
  return best;
}

/* cuFFT is much slower at some sizes than at nearby others (factors of 7,
 * and 5, cost; measured on the H100: 3969x2268 0.32 ms, 4096x2304 0.24 ms),
 * so the smallest sizes whose factors stop at 7, 5 and 3 are timed and the
 * fastest kept, once per extended size in the process. */
extern "C" void
fv_conv_cuda_pick_size (int ew, int eh, int device, int *pw, int *ph)
{
  static std::mutex lock;
  static std::map<std::pair<int, int>, std::pair<int, int>> chosen;
  const CufftApi *api = cufft ();
  if (!api || fv_cuda_use_device (device) != cudaSuccess)
    return;
  std::lock_guard<std::mutex> guard (lock);
  auto key = std::make_pair (ew * 64 + device, eh);
  auto it = chosen.find (key);
  if (it == chosen.end ()) {
    std::pair<int, int> best (*pw, *ph);
    float best_t = -1.f;
    for (int maxp : { 7, 5, 3 }) {
      int w = fv_conv_smooth_size (ew, maxp), h = fv_conv_smooth_size (eh, maxp);
      float t = time_layout (api, whole (w, h, w, h), 1);
      if (t >= 0 && (best_t < 0 || t < best_t)) {
        best_t = t;
        best = std::make_pair (w, h);
      }
    }
    it = chosen.emplace (key, best).first;
  }
  *pw = it->second.first;
  *ph = it->second.second;
}

extern "C" fv_status
fv_conv_cuda_init (void **out, const fv_conv_params *p, int direct, int pw, int ph,
    const float *scale, float uniform_scale, int device, void *stream)
{
  const CufftApi *api = cufft ();
  if (!api && !direct) {
    fv_set_last_error ("cuFFT (libcufft) is not installed");
    return FV_ERR_NO_CUDA;
  }
  ConvCuda *c = (ConvCuda *) calloc (1, sizeof (ConvCuda));
  if (!c)
    return FV_ERR_NOMEM;
  *out = c;
  c->uniform = uniform_scale;
  c->p = *p;
  c->rx = p->roi_width ? p->roi_x : 0;
  c->ry = p->roi_width ? p->roi_y : 0;
  c->ow = p->roi_width ? p->roi_width : p->width;
  c->oh = p->roi_width ? p->roi_height : p->height;
  FV_CUDA_TRY (c->ps.open (device, stream));
  c->direct = direct;
  /* direct: results straight into a window-sized buffer */
  c->t = direct ? whole (c->ow, c->oh, c->ow, c->oh)
      : choose_layout (api, c->ow, c->oh, p->kernel_width, p->kernel_height, pw, ph, p->tile,
          device);
  const Tiles &t = c->t;
  const size_t nr = t.reals (), nc = t.spectrum ();
  FV_CUDA_TRY (cudaMalloc (&c->buf, sizeof (float) * nr));
  if (!direct) {
    FV_CUDA_TRY (cudaMalloc (&c->spec, sizeof (cplx) * nc * t.count ()));
    FV_CUDA_TRY (cudaMalloc (&c->kspec, sizeof (cplx) * nc));
  }
  const size_t row = (size_t) p->width * p->channels * p->sample;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &c->d_src, &c->pitch, row, p->height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &c->d_dst, &pitch2, row, p->height));
  if (scale) {
    FV_CUDA_TRY (cudaMalloc (&c->scale, sizeof (float) * c->ow * c->oh));
    FV_CUDA_TRY (cudaMemcpy (c->scale, scale, sizeof (float) * c->ow * c->oh,
        cudaMemcpyHostToDevice));
  }
  if (direct) {
    const size_t nk = (size_t) p->kernel_width * p->kernel_height;
    FV_CUDA_TRY (cudaMalloc (&c->kern, sizeof (float) * nk));
    FV_CUDA_TRY (cudaMemcpy (c->kern, p->kernel, sizeof (float) * nk, cudaMemcpyHostToDevice));
    const size_t smem = sizeof (float) * (32 + p->kernel_width - 1) * (8 + p->kernel_height - 1);
    if (smem > 48 * 1024) {
      int dev_max = 0;
      FV_CUDA_TRY (cudaDeviceGetAttribute (&dev_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      if (smem > (size_t) dev_max) {
        fv_set_last_error ("kernel too large for direct summation on this GPU: use method=fft");
        return FV_ERR_INVALID;
      }
      FV_CUDA_TRY (cudaFuncSetAttribute (direct_sum<uint8_t>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
      FV_CUDA_TRY (cudaFuncSetAttribute (direct_sum<uint16_t>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
    }
    return FV_OK;
  }
  CUFFT_TRY (plan_batch (api, &c->fwd, t.px, t.py, t.count (), CUFFT_R2C_));
  c->have_fwd = true;
  CUFFT_TRY (plan_batch (api, &c->inv, t.px, t.py, t.count (), CUFFT_C2R_));
  c->have_inv = true;
  CUFFT_TRY (api->set_stream (c->fwd, c->ps.stream));
  CUFFT_TRY (api->set_stream (c->inv, c->ps.stream));
  /* the kernel's spectrum, once */
  fv_status r = kernel_spectrum (api, c->fwd, t, c->buf, c->spec, p->kernel, p->kernel_width,
      p->kernel_height, 0, 0, c->kspec, c->ps.stream);
  if (r != FV_OK)
    return r;
  FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  return FV_OK;
}

extern "C" fv_status
fv_conv_cuda_execute (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst)
{
  ConvCuda *c = (ConvCuda *) cuda;
  const CufftApi *api = cufft ();
  cudaStream_t st = c->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  const size_t row = fv_image_row_bytes (src);
  fv::DevView in, out = fv::stage_target (dst, dst->data, c->d_dst, c->pitch);
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->height, row, c->d_src, c->pitch, st, &in));
  const char *s = in.data;
  const size_t sstride = in.stride;
  char *d = out.data;
  const size_t dstride = out.stride;
  if (p->channel_mask != (1u << p->channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (d, dstride, s, sstride, row, p->height,
        cudaMemcpyDeviceToDevice, st));
  const float norm = 1.0f / ((float) c->t.px * (float) c->t.py);
  const float maxv = p->sample == FV_U8 ? 255.0f : 65535.0f;
  dim3 blk (32, 8), gout ((p->width + 32 * SPAN - 1) / (32 * SPAN), (p->height + 7) / 8);
  for (int ch = 0; ch < p->channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    const Geo g = plan_geo (c, p->width, p->height, p->channels, ch, 0, 0);
    fv_status r = correlate (c, api, s, sstride, g, p->sample, norm);
    if (r != FV_OK)
      return r;
    const bool words = words_ok (d, dstride, p->channels, p->sample) && c->t.tw % 4 == 0
        && c->t.px % 4 == 0;
    if (p->sample == FV_U8)
      finish<uint8_t><<<gout, blk, 0, st>>> (c->buf, g, words, c->scale, c->uniform,
          (float) p->bias, maxv, d, dstride);
    else
      finish<uint16_t><<<gout, blk, 0, st>>> (c->buf, g, words, c->scale, c->uniform,
          (float) p->bias, maxv, d, dstride);
  }
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv::stage_out (dst, dst->data, p->height, row, c->d_dst, c->pitch, st));
  return fv_cuda_finish (st, dst->mem != FV_MEM_HOST);
}

extern "C" void
fv_conv_cuda_layout (void *cuda, int *px, int *py, int *tiles)
{
  const ConvCuda *c = (const ConvCuda *) cuda;
  *px = c->direct ? 0 : c->t.px;
  *py = c->direct ? 0 : c->t.py;
  *tiles = c->direct ? 0 : c->t.count ();
}

extern "C" fv_status
fv_conv_cuda_accumulate (void *cuda, const fv_conv_params *grid_params, const void *src,
    size_t stride, int channel, float *acc, int cols, int rows, int ci, int cj)
{
  ConvCuda *c = (ConvCuda *) cuda;
  const fv_conv_params *p = &c->p;   /* this cell's kernel, not the grid's first */
  (void) grid_params;
  const CufftApi *api = cufft ();
  cudaStream_t st = c->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  const float norm = 1.0f / ((float) c->t.px * (float) c->t.py);
  const Geo g = plan_geo (c, c->ow, c->oh, p->channels, channel, c->rx, c->ry);
  dim3 blk (32, 8), gout ((c->ow + 31) / 32, (c->oh + 7) / 8);
  fv_status r = correlate (c, api, (const char *) src, stride, g, p->sample, norm);
  if (r != FV_OK)
    return r;
  accumulate<<<gout, blk, 0, st>>> (c->buf, g, c->scale, c->uniform, acc, cols, rows, ci, cj);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

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
  int pw = fv_conv_fast_size (p->width + kw - 1), ph = fv_conv_fast_size (p->height + kh - 1);
  fv_conv_cuda_pick_size (p->width + kw - 1, p->height + kh - 1, g->ps.device, &pw, &ph);
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
  sh->t = p->tile ? choose_layout (api, p->width, p->height, kw, kh, pw, ph, p->tile,
      g->ps.device) : fastest (api, layout_candidates (p->width, p->height, kw, kh, pw, ph),
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
      && (sh->have_fwd = plan_batch (api, &sh->fwd, t.px, t.py, tiles, CUFFT_R2C_) == 0)
      && (sh->have_inv = plan_batch (api, &sh->inv, t.px, t.py, sh->npairs, CUFFT_C2R_) == 0);
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
  const Geo geo = geo_make (p->width, p->height, p->channels, ch, sh->kw, sh->kh,
      (int) p->border, 0, 0, p->width, p->height, t);
  dim3 blk (32, 8), gout ((p->width + 31) / 32, (p->height + 7) / 8);
  launch_extend (src, sstride, geo, p->sample, sh->buf, st);
  CUFFT_TRY (api->r2c (sh->fwd, sh->buf, sh->spec));
  pair_multiply<<<dim3 ((unsigned) ((nc + 255) / 256), sh->npairs), 256, 0, st>>> (sh->spec,
      sh->kspec, sh->pair_tile, sh->pair_cell, sh->prod, nc, 1.0f / ((float) t.px * t.py));
  CUFFT_TRY (api->c2r (sh->inv, sh->prod, sh->buf));
  const float maxv = p->sample == FV_U8 ? 255.0f : 65535.0f;
  if (p->sample == FV_U8)
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
  const size_t row = (size_t) p->width * p->channels * p->sample;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &g->d_src, &g->pitch, row, p->height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &g->d_dst, &pitch2, row, p->height));
  FV_CUDA_TRY (cudaMalloc (&g->acc, sizeof (float) * p->width * p->height));
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
  const size_t row = fv_image_row_bytes (src);
  fv::DevView in, out = fv::stage_target (dst, dst->data, g->d_dst, g->pitch);
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->height, row, g->d_src, g->pitch, st, &in));
  const char *s = in.data;
  const size_t sstride = in.stride;
  char *d = out.data;
  const size_t dstride = out.stride;
  if (p->channel_mask != (1u << p->channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (d, dstride, s, sstride, row, p->height,
        cudaMemcpyDeviceToDevice, st));
  const float maxv = p->sample == FV_U8 ? 255.0f : 65535.0f;
  dim3 blk (32, 8), gout ((p->width + 31) / 32, (p->height + 7) / 8);
  for (int ch = 0; ch < p->channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    if (g->shared) {
      fv_status r = shared_channel (g, p, cols, rows, s, sstride, ch, d, dstride);
      if (r != FV_OK)
        return r;
      continue;
    }
    FV_CUDA_TRY (cudaMemsetAsync (g->acc, 0, sizeof (float) * p->width * p->height, st));
    for (int k = 0; k < cols * rows; k++) {
      if (!cells[k])
        continue;
      /* every cell plan shares the grid's stream, so they run in order */
      fv_status r = fv_conv_cuda_accumulate (cells[k], p, s, sstride, ch, g->acc, cols, rows,
          k % cols, k / cols);
      if (r != FV_OK)
        return r;
    }
    if (p->sample == FV_U8)
      round_acc<uint8_t><<<gout, blk, 0, st>>> (g->acc, p->width, p->height, p->channels, ch,
          (float) p->bias, maxv, d, dstride);
    else
      round_acc<uint16_t><<<gout, blk, 0, st>>> (g->acc, p->width, p->height, p->channels, ch,
          (float) p->bias, maxv, d, dstride);
  }
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv::stage_out (dst, dst->data, p->height, row, g->d_dst, g->pitch, st));
  return fv_cuda_finish (st, dst->mem != FV_MEM_HOST);
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

extern "C" void
fv_conv_cuda_free (void *cuda)
{
  ConvCuda *c = (ConvCuda *) cuda;
  if (!c)
    return;
  const CufftApi *api = cufft ();
  fv_cuda_use_device (c->ps.device);
  if (api && c->have_fwd)
    api->destroy (c->fwd);
  if (api && c->have_inv)
    api->destroy (c->inv);
  cudaFree (c->buf);
  cudaFree (c->kern);
  cudaFree (c->scale);
  cudaFree (c->spec);
  cudaFree (c->kspec);
  cudaFree (c->d_src);
  cudaFree (c->d_dst);
  c->ps.close ();
  free (c);
}
