/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The probe behind fftconvolve's GPU tiles (not run by CI): cuFFT's R2C and
// C2R pair over the whole padded 4K and 8K frame against batches of tile
// transforms (overlap-save with a 101-tap kernel), all tiles in one batch
// and in groups of about 16 MB, for tile sides from 256 to 2304.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cufft.h>
#include <cuda_runtime.h>
static cudaStream_t st;
template <typename F> float med (F &&fn) {
  cudaEvent_t a, b; cudaEventCreate (&a); cudaEventCreate (&b); fn (); fn ();
  std::vector<float> t;
  for (int i = 0; i < 15; i++) { cudaEventRecord (a, st); fn (); cudaEventRecord (b, st); cudaEventSynchronize (b);
    float ms; cudaEventElapsedTime (&ms, a, b); t.push_back (ms); }
  std::sort (t.begin (), t.end ()); return t[t.size () / 2]; }
int main () {
  cudaStreamCreate (&st);
  float *buf; cufftComplex *spec;
  cudaMalloc (&buf, 600u << 20); cudaMalloc (&spec, 600u << 20); cudaMemset (buf, 0, 600u << 20);
  struct { const char *n; int w, h, pw, ph; } fr[] = { {"4K", 3840, 2160, 4096, 2304}, {"8K", 7680, 4320, 8192, 4608} };
  const int k = 101;
  for (auto &f : fr) {
    cufftHandle a, b; cufftPlan2d (&a, f.ph, f.pw, CUFFT_R2C); cufftPlan2d (&b, f.ph, f.pw, CUFFT_C2R);
    cufftSetStream (a, st); cufftSetStream (b, st);
    float t = med ([&] { cufftExecR2C (a, buf, spec); cufftExecC2R (b, spec, buf); });
    printf ("%s whole %dx%d pair %.4f ms (%.1f Mpt)\n", f.n, f.pw, f.ph, t, f.pw * (double) f.ph / 1e6);
    cufftDestroy (a); cufftDestroy (b);
    int Ps[] = { 256, 320, 384, 448, 512, 640, 768, 1024, 1280, 1536, 2048, 2304 };
    for (int px : Ps) for (int py : Ps) {
      if (px < 2 * (k - 1) || py < 2 * (k - 1) || px > f.pw || py > f.ph) continue;
      int tw = px - k + 1, th = py - k + 1, nx = (f.w + tw - 1) / tw, ny = (f.h + th - 1) / th, nb = nx * ny;
      double pts = (double) nb * px * py;
      if (pts > 1.6 * f.pw * (double) f.ph) continue;
      int n[2] = { py, px };
      size_t per = (size_t) px * py;
      // all tiles in one batch, and groups of ~16 MB
      int gsz = std::max (1, (int) ((16u << 20) / (per * 4)));
      gsz = std::min (gsz, nb);
      cufftHandle fa, fb, ga, gb;
      if (cufftPlanMany (&fa, 2, n, 0, 1, 0, 0, 1, 0, CUFFT_R2C, nb) || cufftPlanMany (&fb, 2, n, 0, 1, 0, 0, 1, 0, CUFFT_C2R, nb)) { printf ("plan fail\n"); continue; }
      cufftPlanMany (&ga, 2, n, 0, 1, 0, 0, 1, 0, CUFFT_R2C, gsz); cufftPlanMany (&gb, 2, n, 0, 1, 0, 0, 1, 0, CUFFT_C2R, gsz);
      for (cufftHandle h : { fa, fb, ga, gb }) cufftSetStream (h, st);
      float t1 = med ([&] { cufftExecR2C (fa, buf, spec); cufftExecC2R (fb, spec, buf); });
      int ng = (nb + gsz - 1) / gsz;
      float t2 = med ([&] { for (int g = 0; g < ng; g++) { cufftExecR2C (ga, buf + g * gsz * per, spec + g * gsz * (px / 2 + 1) * py);
        cufftExecC2R (gb, spec + g * gsz * (px / 2 + 1) * py, buf + g * gsz * per); } });
      printf ("%s tiles %4dx%-4d x%3d (%.1f Mpt): one batch %.4f ms, groups of %d: %.4f ms\n", f.n, px, py, nb, pts / 1e6, t1, gsz, t2);
      cufftDestroy (fa); cufftDestroy (fb); cufftDestroy (ga); cufftDestroy (gb);
    }
  }
}
