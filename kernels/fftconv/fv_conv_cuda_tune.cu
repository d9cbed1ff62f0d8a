/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The transform layouts of the convolution's CUDA plans, chosen by timing
 * cuFFT on the device: tiles that fit the L2 cache transform faster than
 * one large frame (8K: 2048x1024 tiles 0.54 ms a pair against 0.90 for
 * 8192x4608, H100), and cuFFT is much slower at some sizes than at nearby
 * others. Each choice is timed once per size and device in the process. */
#include <algorithm>
#include <map>
#include <mutex>
#include "fv_conv_cuda_internal.cuh"

namespace fvconv {

/* Median time (ms) of what a channel costs in cuFFT's part for the layout
 * t: the forward transforms, then `inverses` products and inverse ones
 * (the tiles' count for one kernel, the (cell, tile) pairs for a grid);
 * negative when it cannot be measured. */
float
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
      && cufft_plan_batch (api, &fwd, t.px, t.py, t.count (), CUFFT_R2C_) == 0
      && cufft_plan_batch (api, &inv, t.px, t.py, inverses, CUFFT_C2R_) == 0
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

Tiles
whole (int w, int h, int pw, int ph)
{
  return Tiles { pw, ph, w, h, 1, 1 };
}

/* tw x th outputs a tile over a w x h window */
Tiles
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
 * layout_limit), and the square power-of-two tiles of 512 to 2048 where
 * those eight miss them (at 16384² with a 31x31 kernel the eight held no
 * square tile and the plan took 1536x512 tiles, 5.7 ms, against 4.4 with
 * 1024x1024, H200). */
std::vector<Tiles>
layout_candidates (int w, int h, int kw, int kh, int pw, int ph)
{
  static const int sides[] = { 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072,
    4096 };
  std::vector<Tiles> cands, squares;
  for (int sx : sides)
    for (int sy : sides) {
      if (sx < 2 * kw || sy < 2 * kh || sx >= pw || sy >= ph)
        continue;
      Tiles t = tiled (w, h, kw, kh, sx - kw + 1, sy - kh + 1);
      if ((double) t.reals () > layout_limit (w, h, kw, kh))
        continue;
      cands.push_back (t);
      if (sx == sy && (sx == 512 || sx == 1024 || sx == 2048))
        squares.push_back (t);
    }
  std::stable_sort (cands.begin (), cands.end (),
      [] (const Tiles &a, const Tiles &b) { return a.reals () < b.reals (); });
  if (cands.size () > 8)
    cands.resize (8);
  for (const Tiles &t : squares)
    if (std::none_of (cands.begin (), cands.end (),
        [&] (const Tiles &c) { return c.px == t.px && c.py == t.py; }))
      cands.push_back (t);
  cands.insert (cands.begin (), whole (w, h, pw, ph));
  return cands;
}

/* The layout for a w x h window: tile forces tiles of that many outputs
 * a side, -1 the whole window; 0 times the candidates and keeps the
 * fastest, once per window, kernel size and device in the process. */
Tiles
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

}  // namespace fvconv

using namespace fvconv;

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
