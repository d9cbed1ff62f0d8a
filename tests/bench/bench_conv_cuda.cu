/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GPU benchmark of fftconvolve's kernel (not run by CI): device images, CUDA
// events, median of runs, GRAY8 at 1080p, 4K and 8K with kernels of 7, 31
// and 101 taps a side; against a plain cuFFT convolution written here with
// one launch or call per step (convert, pad, FFT, product, inverse, scale,
// convert back), and against the device's copy bandwidth.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include "fv_conv.h"
#include "fv_conv_cuda.h"
#include "bench_cuda.cuh"

namespace plain {
__global__ void to_float (const unsigned char *a, float *f, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) f[i] = a[i]; }
__global__ void mul (cufftComplex *s, const cufftComplex *k, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { cufftComplex a = s[i], b = k[i];
  s[i].x = a.x * b.x - a.y * b.y; s[i].y = a.x * b.y + a.y * b.x; } }
__global__ void scale (float *f, int n, float c)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) f[i] *= c; }
__global__ void to_u8 (const float *f, int pw, unsigned char *a, int w, int h)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < w * h) {
  float v = f[(i / w) * pw + i % w]; a[i] = (unsigned char) fminf (fmaxf (v + 0.5f, 0.f), 255.f); } }
}

template <typename F>
static float
median_ms (cudaStream_t stream, F &&fn)
{
  return (float) event_median_ms (stream, fn, 20);
}

/* A GRAY8 frame, a k x k kernel of taps, normalized, mirrored, by FFT. */
static fv_conv_params
box_params (int w, int h, const float *taps, int k)
{
  fv_conv_params p = {};
  p.frame.width = w;
  p.frame.height = h;
  p.frame.channels = 1;
  p.frame.sample = FV_U8;
  p.channel_mask = 1;
  p.kernel = taps;
  p.kernel_width = p.kernel_height = k;
  p.normalize = 1;
  p.border = FV_BORDER_MIRROR;
  p.method = FV_CONV_FFT;
  return p;
}

int
main (int argc, char **argv)
{
  /* bench_conv_cuda [SIZE TAPS]: one frame of one case through the plan's
   * FFT, for profilers (ncu --profile-from-start off ./bench_conv_cuda 4K 101) */
  const char *only_size = argc > 2 ? argv[1] : nullptr;
  const int only_k = argc > 2 ? atoi (argv[2]) : 0;
  cudaStream_t stream;
  cudaSetDevice (0);
  cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320} };
  printf ("| size | kernel | FFT layout chosen | fastvision FFT ms | whole-frame FFT ms |"
      " fastvision direct ms | plain cuFFT ms | plain / ours (best) | copy-bound ms |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (auto &s : sizes)
    for (int k : {3, 5, 7, 31, 101}) {
      if (only_size && (strcmp (only_size, s.name) || k != only_k))
        continue;
      std::vector<float> kern ((size_t) k * k, 1.0f);
      unsigned char *a, *b;
      cudaMalloc (&a, (size_t) s.w * s.h);
      cudaMalloc (&b, (size_t) s.w * s.h);
      cudaMemset (a, 90, (size_t) s.w * s.h);
      fv_conv_params p = box_params (s.w, s.h, kern.data (), k);
      fv_conv_plan *plan;
      if (fv_conv_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
        fprintf (stderr, "plan: %s\n", fv_last_error ());
        return 1;
      }
      fv_image A = fv_image_make (a, s.w, s.w, s.h, 1, FV_U8, FV_MEM_DEVICE), B = A;
      B.data = b;
      if (only_size) {   /* one frame, planned (and timed) before the profiler starts */
        fv_conv_execute (plan, &A, &B);
        cudaProfilerStart ();
        fv_conv_execute (plan, &A, &B);
        cudaProfilerStop ();
        fv_conv_plan_destroy (plan);
        return 0;
      }
      float ours = median_ms (stream, [&] { fv_conv_execute (plan, &A, &B); });
      int lx, ly, ln;
      fv_conv_cuda_layout (fv_conv_plan_cuda (plan), &lx, &ly, &ln);
      float whole_ms = -1;   /* the whole-frame transform, forced */
      fv_conv_params pw1 = p;
      pw1.tile = -1;
      fv_conv_plan *wplan;
      if (fv_conv_plan_create (&wplan, &pw1, FV_BACKEND_CUDA, 0, stream) == FV_OK) {
        whole_ms = median_ms (stream, [&] { fv_conv_execute (wplan, &A, &B); });
        fv_conv_plan_destroy (wplan);
      }
      float direct = -1;
      if (k <= 31) {   /* shared-memory direct summation */
        fv_conv_params pd = p;
        pd.method = FV_CONV_DIRECT;
        fv_conv_plan *dplan;
        if (fv_conv_plan_create (&dplan, &pd, FV_BACKEND_CUDA, 0, stream) == FV_OK) {
          direct = median_ms (stream, [&] { fv_conv_execute (dplan, &A, &B); });
          fv_conv_plan_destroy (dplan);
        }
      }
      /* the plain version: zero border, the FFT size the plan picks */
      int pw = fv_conv_fast_size (s.w + k - 1), ph = fv_conv_fast_size (s.h + k - 1);
      fv_conv_cuda_pick_size (s.w + k - 1, s.h + k - 1, 0, &pw, &ph);
      const int n = s.w * s.h, nr = pw * ph, nc = (pw / 2 + 1) * ph;
      float *f, *fp, *kf;
      cufftComplex *spec, *kspec;
      cudaMalloc (&f, sizeof (float) * n);
      cudaMalloc (&fp, sizeof (float) * nr);
      cudaMalloc (&kf, sizeof (float) * nr);
      cudaMalloc (&spec, sizeof (cufftComplex) * nc);
      cudaMalloc (&kspec, sizeof (cufftComplex) * nc);
      cufftHandle fwd, inv;
      cufftPlan2d (&fwd, ph, pw, CUFFT_R2C);
      cufftPlan2d (&inv, ph, pw, CUFFT_C2R);
      cufftSetStream (fwd, stream);
      cufftSetStream (inv, stream);
      cudaMemset (kf, 0, sizeof (float) * nr);
      cudaMemcpy2D (kf, sizeof (float) * pw, kern.data (), sizeof (float) * k, sizeof (float) * k, k,
          cudaMemcpyHostToDevice);
      cufftExecR2C (fwd, kf, kspec);
      float plain_ms = median_ms (stream, [&] {
        plain::to_float<<<(n + 255) / 256, 256, 0, stream>>> (a, f, n);
        cudaMemsetAsync (fp, 0, sizeof (float) * nr, stream);
        cudaMemcpy2DAsync (fp, sizeof (float) * pw, f, sizeof (float) * s.w, sizeof (float) * s.w, s.h,
            cudaMemcpyDeviceToDevice, stream);
        cufftExecR2C (fwd, fp, spec);
        plain::mul<<<(nc + 255) / 256, 256, 0, stream>>> (spec, kspec, nc);
        cufftExecC2R (inv, spec, fp);
        plain::scale<<<(nr + 255) / 256, 256, 0, stream>>> (fp, nr, 1.0f / ((float) nr * k * k));
        plain::to_u8<<<(n + 255) / 256, 256, 0, stream>>> (fp, pw, b, s.w, s.h);
      });
      /* the floor: read the frame once and write it once */
      float copy = median_ms (stream, [&] {
        cudaMemcpyAsync (b, a, (size_t) n, cudaMemcpyDeviceToDevice, stream);
      });
      float best = direct > 0 && direct < ours ? direct : ours;
      printf ("| %s | %d x %d | %dx%d x %d | %.4f | %.4f | %.4f | %.4f | %.1fx | %.4f |\n", s.name,
          k, k, lx, ly, ln, ours, whole_ms, direct, plain_ms, plain_ms / best, copy);
      cufftDestroy (fwd);
      cufftDestroy (inv);
      cudaFree (f); cudaFree (fp); cudaFree (kf); cudaFree (spec); cudaFree (kspec);
      fv_conv_plan_destroy (plan);
      cudaFree (a);
      cudaFree (b);
    }
  /* a 3x3 grid of 101x101 kernels at 4K */
  {
    const int w = 3840, h = 2160, k = 101;
    std::vector<float> kern ((size_t) k * k, 1.0f);
    const float *ks[9];
    int kws[9], khs[9];
    for (int i = 0; i < 9; i++) { ks[i] = kern.data (); kws[i] = khs[i] = k; }
    unsigned char *a, *b;
    cudaMalloc (&a, (size_t) w * h);
    cudaMalloc (&b, (size_t) w * h);
    cudaMemset (a, 90, (size_t) w * h);
    fv_conv_params p = box_params (w, h, kern.data (), k);
    fv_image A = fv_image_make (a, w, w, h, 1, FV_U8, FV_MEM_DEVICE), B = A;
    B.data = b;
    printf ("\n| size | grid | layout | ms |\n|---|---|---|---|\n");
    for (int tile : { 0, -1 }) {   /* the plan's choice, and the whole frame forced */
      p.tile = tile;
      fv_conv_grid *g;
      if (fv_conv_grid_create (&g, &p, 3, 3, ks, kws, khs, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
        fprintf (stderr, "grid: %s\n", fv_last_error ());
        return 1;
      }
      float ms = median_ms (stream, [&] { fv_conv_grid_execute (g, &A, &B); });
      printf ("| 4K | 3x3 of 101 x 101 | %s, %d shared pairs | %.4f |\n",
          tile ? "whole frame" : "chosen", fv_conv_grid_shared_pairs (g), ms);
      fv_conv_grid_destroy (g);
    }
    cudaFree (a);
    cudaFree (b);
  }
  return 0;
}
