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

const CufftApi *
cufft (void)
{
  static CufftApi api;
  static bool tried;
  if (!tried) {
    tried = true;
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
  }
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
  int count () const { return nx * ny; }
  size_t reals () const { return (size_t) px * py * count (); }
  size_t spectrum () const { return (size_t) (px / 2 + 1) * py; }
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
};

Geo
make_geo (const ConvCuda *c, int w, int h, int channels, int channel, int rx, int ry)
{
  const fv_conv_params &p = c->p;
  return Geo { w, h, channels, channel, p.kernel_width, p.kernel_height, (int) p.border, rx, ry,
    p.width, p.height, c->t };
}

/* The raw correlation at window pixel (x, y): in its tile's transform */
__device__ __forceinline__ float
raw_at (const float *buf, const Geo &g, int x, int y)
{
  const int tx = x / g.t.tw, ty = y / g.t.th;
  return buf[((size_t) (ty * g.t.nx + tx) * g.t.py + y - ty * g.t.th) * g.t.px + x - tx * g.t.tw];
}

/* grid.z: the tile. Its sample (u, v) is the window's extended input at
 * (tile's first output + u, + v), zero past the window's reach. */
template <typename TIN>
__global__ void
extend (const char *src, size_t stride, Geo g, float *buf)
{
  const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
  if (u >= g.t.px || v >= g.t.py)
    return;
  const int tile = blockIdx.z, wx = tile % g.t.nx * g.t.tw + u, wy = tile / g.t.nx * g.t.th + v;
  float val = 0.0f;
  if (wx < g.w + g.kw - 1 && wy < g.h + g.kh - 1) {
    const int sx = fv_border_map (g.rx + wx - g.kw / 2, g.fw, g.border);
    const int sy = fv_border_map (g.ry + wy - g.kh / 2, g.fh, g.border);
    if (sx >= 0 && sy >= 0)
      val = ((const TIN *) (src + (size_t) sy * stride))[(size_t) sx * g.channels + g.channel];
  }
  buf[((size_t) tile * g.t.py + v) * g.t.px + u] = val;
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
  for (int i = threadIdx.y * 32 + threadIdx.x; i < pw * ph; i += 256) {
    const int u = i % pw, v = i / pw;
    const int sx = fv_border_map (g.rx + bx + u - g.kw / 2, g.fw, g.border);
    const int sy = fv_border_map (g.ry + by + v - g.kh / 2, g.fh, g.border);
    patch[i] = sx >= 0 && sy >= 0
        ? (float) ((const TIN *) (src + (size_t) sy * stride))[(size_t) sx * g.channels + g.channel]
        : 0.0f;
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

/* grid.y: the tile; every tile's spectrum times the one kernel spectrum */
__global__ void
multiply (cplx *spec, const cplx *k, size_t n, float norm)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  cplx *s = spec + (size_t) blockIdx.y * n;
  const cplx a = s[i], b = k[i];
  s[i].x = (a.x * b.x - a.y * b.y) * norm;
  s[i].y = (a.x * b.y + a.y * b.x) * norm;
}

template <typename TIN>
__global__ void
finish (const float *buf, Geo g, const float *scale, float uniform, float bias, float maxv,
    char *dst, size_t stride)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.w || y >= g.h)
    return;
  float v = raw_at (buf, g, x, y) * (scale ? scale[(size_t) y * g.w + x] : uniform) + bias;
  v = fminf (fmaxf (v, 0.0f), maxv);
  ((TIN *) (dst + (size_t) y * stride))[(size_t) x * g.channels + g.channel] = (TIN) (v + 0.5f);
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

}  // namespace

#define CUFFT_TRY(call)                                                         \
  do {                                                                          \
    int r_ = (call);                                                            \
    if (r_ != 0) {                                                              \
      fv_set_last_error ("%s failed: cuFFT error %d", #call, r_);              \
      return FV_ERR_CUDA;                                                       \
    }                                                                           \
  } while (0)

/* The raw correlation of one channel into c->buf (laid out as c->t),
 * directly or through the spectra. */
static fv_status
correlate (ConvCuda *c, const CufftApi *api, const char *src, size_t stride, const Geo &g,
    fv_sample sample, float norm)
{
  cudaStream_t st = c->ps.stream;
  dim3 blk (32, 8);
  if (c->direct) {
    dim3 grid ((g.w + 31) / 32, (g.h + 7) / 8);
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
  dim3 gpad ((t.px + 31) / 32, (t.py + 7) / 8, t.count ());
  if (sample == FV_U8)
    extend<uint8_t><<<gpad, blk, 0, st>>> (src, stride, g, c->buf);
  else
    extend<uint16_t><<<gpad, blk, 0, st>>> (src, stride, g, c->buf);
  CUFFT_TRY (api->r2c (c->fwd, c->buf, c->spec));
  multiply<<<dim3 ((unsigned) ((nc + 255) / 256), t.count ()), 256, 0, st>>> (c->spec, c->kspec,
      nc, norm);
  CUFFT_TRY (api->c2r (c->inv, c->spec, c->buf));
  return FV_OK;
}

/* Median time (ms) of what a channel costs in cuFFT's part for the layout
 * t: the forward transforms, the product and the inverse ones; negative
 * when it cannot be measured. */
static float
time_layout (const CufftApi *api, const Tiles &t)
{
  const size_t nr = t.reals (), nc = t.spectrum ();
  float *buf = nullptr, best = -1.f;
  cplx *spec = nullptr, *kspec = nullptr;
  cufftHandle_t fwd = 0, inv = 0;
  cudaEvent_t a = nullptr, b = nullptr;
  bool ok = cudaMalloc (&buf, sizeof (float) * nr) == cudaSuccess
      && cudaMalloc (&spec, sizeof (cplx) * nc * t.count ()) == cudaSuccess
      && cudaMalloc (&kspec, sizeof (cplx) * nc) == cudaSuccess
      && cudaMemset (buf, 0, sizeof (float) * nr) == cudaSuccess
      && cudaMemset (kspec, 0, sizeof (cplx) * nc) == cudaSuccess
      && plan_batch (api, &fwd, t.px, t.py, t.count (), CUFFT_R2C_) == 0
      && plan_batch (api, &inv, t.px, t.py, t.count (), CUFFT_C2R_) == 0
      && cudaEventCreate (&a) == cudaSuccess && cudaEventCreate (&b) == cudaSuccess;
  for (int i = 0; ok && i < 4; i++) {   /* the first run warms up */
    float ms;
    ok = cudaEventRecord (a) == cudaSuccess && api->r2c (fwd, buf, spec) == 0;
    multiply<<<dim3 ((unsigned) ((nc + 255) / 256), t.count ()), 256>>> (spec, kspec, nc, 1.f);
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

/* The layout for a w x h window: tile forces tiles of that many outputs
 * a side, -1 the whole window; 0 times the whole window's transform
 * against the tiled layouts with the fewest samples (transform sides
 * cuFFT does well, at least twice the kernel) and keeps the fastest, once
 * per window, kernel size and device in the process. */
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
  static const int sides[] = { 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072,
    4096 };
  std::vector<std::pair<double, Tiles>> cands;
  for (int sx : sides)
    for (int sy : sides) {
      if (sx < 2 * kw || sy < 2 * kh || sx >= pw || sy >= ph)
        continue;
      Tiles t = tiled (w, h, kw, kh, sx - kw + 1, sy - kh + 1);
      if ((double) t.reals () <= layout_limit (w, h, kw, kh))
        cands.push_back (std::make_pair ((double) t.reals (), t));
    }
  std::stable_sort (cands.begin (), cands.end (),
      [] (const std::pair<double, Tiles> &a, const std::pair<double, Tiles> &b) {
        return a.first < b.first; });
  Tiles best = whole (w, h, pw, ph);
  float best_ms = time_layout (api, best);
  for (size_t i = 0; i < cands.size () && i < 8 && best_ms >= 0; i++) {
    const float ms = time_layout (api, cands[i].second);
    if (ms >= 0 && ms < best_ms) {
      best_ms = ms;
      best = cands[i].second;
    }
  }
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
      float t = time_layout (api, whole (w, h, w, h));
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
  /* the kernel's spectrum, once: the first tile's of a batch holding the
   * kernel there and zeros elsewhere */
  FV_CUDA_TRY (cudaMemsetAsync (c->buf, 0, sizeof (float) * nr, c->ps.stream));
  FV_CUDA_TRY (cudaMemcpy2DAsync (c->buf, sizeof (float) * t.px, p->kernel,
      sizeof (float) * p->kernel_width, sizeof (float) * p->kernel_width, p->kernel_height,
      cudaMemcpyHostToDevice, c->ps.stream));
  CUFFT_TRY (api->r2c (c->fwd, c->buf, c->spec));
  FV_CUDA_TRY (cudaMemcpyAsync (c->kspec, c->spec, sizeof (cplx) * nc, cudaMemcpyDeviceToDevice,
      c->ps.stream));
  conjugate<<<(unsigned) ((nc + 255) / 256), 256, 0, c->ps.stream>>> (c->kspec, nc);
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (cudaStreamSynchronize (c->ps.stream));
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
  const char *s = (const char *) src->data;
  size_t sstride = src->stride;
  if (src->mem == FV_MEM_HOST) {
    FV_CUDA_TRY (cudaMemcpy2DAsync (c->d_src, c->pitch, src->data, src->stride, row, p->height,
        cudaMemcpyHostToDevice, st));
    s = c->d_src;
    sstride = c->pitch;
  }
  char *d = dst->mem == FV_MEM_HOST ? c->d_dst : (char *) dst->data;
  size_t dstride = dst->mem == FV_MEM_HOST ? c->pitch : dst->stride;
  if (p->channel_mask != (1u << p->channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (d, dstride, s, sstride, row, p->height,
        cudaMemcpyDeviceToDevice, st));
  const float norm = 1.0f / ((float) c->t.px * (float) c->t.py);
  const float maxv = p->sample == FV_U8 ? 255.0f : 65535.0f;
  dim3 blk (32, 8), gout ((p->width + 31) / 32, (p->height + 7) / 8);
  for (int ch = 0; ch < p->channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    const Geo g = make_geo (c, p->width, p->height, p->channels, ch, 0, 0);
    fv_status r = correlate (c, api, s, sstride, g, p->sample, norm);
    if (r != FV_OK)
      return r;
    if (p->sample == FV_U8)
      finish<uint8_t><<<gout, blk, 0, st>>> (c->buf, g, c->scale, c->uniform, (float) p->bias,
          maxv, d, dstride);
    else
      finish<uint16_t><<<gout, blk, 0, st>>> (c->buf, g, c->scale, c->uniform, (float) p->bias,
          maxv, d, dstride);
  }
  FV_CUDA_TRY (cudaGetLastError ());
  if (dst->mem == FV_MEM_HOST)
    FV_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->stride, c->d_dst, c->pitch, row, p->height,
        cudaMemcpyDeviceToHost, st));
  FV_CUDA_TRY (cudaStreamSynchronize (st));
  return FV_OK;
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
  const Geo g = make_geo (c, c->ow, c->oh, p->channels, channel, c->rx, c->ry);
  dim3 blk (32, 8), gout ((c->ow + 31) / 32, (c->oh + 7) / 8);
  fv_status r = correlate (c, api, (const char *) src, stride, g, p->sample, norm);
  if (r != FV_OK)
    return r;
  accumulate<<<gout, blk, 0, st>>> (c->buf, g, c->scale, c->uniform, acc, cols, rows, ci, cj);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

/* The grid's device side: the frame, the result and the float sum. */
struct GridCuda {
  fv::PlanStream ps;
  char *d_src, *d_dst;
  size_t pitch;
  float *acc;
};

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
  const char *s = (const char *) src->data;
  size_t sstride = src->stride;
  if (src->mem == FV_MEM_HOST) {
    FV_CUDA_TRY (cudaMemcpy2DAsync (g->d_src, g->pitch, src->data, src->stride, row, p->height,
        cudaMemcpyHostToDevice, st));
    s = g->d_src;
    sstride = g->pitch;
  }
  char *d = dst->mem == FV_MEM_HOST ? g->d_dst : (char *) dst->data;
  size_t dstride = dst->mem == FV_MEM_HOST ? g->pitch : dst->stride;
  if (p->channel_mask != (1u << p->channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (d, dstride, s, sstride, row, p->height,
        cudaMemcpyDeviceToDevice, st));
  const float maxv = p->sample == FV_U8 ? 255.0f : 65535.0f;
  dim3 blk (32, 8), gout ((p->width + 31) / 32, (p->height + 7) / 8);
  for (int ch = 0; ch < p->channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
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
  if (dst->mem == FV_MEM_HOST)
    FV_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->stride, g->d_dst, g->pitch, row, p->height,
        cudaMemcpyDeviceToHost, st));
  FV_CUDA_TRY (cudaStreamSynchronize (st));
  return FV_OK;
}

extern "C" void
fv_conv_cuda_grid_free (void *grid)
{
  GridCuda *g = (GridCuda *) grid;
  if (!g)
    return;
  fv_cuda_use_device (g->ps.device);
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
