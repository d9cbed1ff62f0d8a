/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GPU benchmark of the tiled SAT and the box filter (not run by CI).
// Kernel times by CUDA events (median of many runs, inputs rotated so the
// 50 MB L2 does not hold them), against the device's copy bandwidth and
// NPP's nppiIntegral when libnppist is present.
//   bench_sat_cuda [--quick | --sat8k | --box8k]   (the last two for profilers)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>
#include <string>
#include <cuda_runtime.h>
#include "fv_sat.h"
#include "fv_box.h"
#include "bench_cuda.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s: %s\n", #x, cudaGetErrorString (e_)); exit (1); } } while (0)

static cudaStream_t stream;
static const int NSETS = 4;

template <typename F>
static double
median_ms (F &&fn, int reps)
{
  return event_median_ms (stream, fn, reps, 3);
}

typedef int (*npp_integral_fn) (const unsigned char *, int, int *, int, NppSize, int, NppCtx);

static npp_integral_fn
load_npp (NppCtx *ctx)
{
  *ctx = npp_context (stream);
  return (npp_integral_fn) npp_sym ("nppiIntegral_8u32s_C1R_Ctx");
}

/* --chunks: the box filter on frames of 16384^2 and 32768^2 GRAY8 (device
 * frames, r=15 mean) with a 1 GB device budget (bands of rows) against none
 * (the whole frame's tables at once). */
static int
bench_chunks (void)
{
  printf ("| frame | budget | ms | bands overhead |\n|---|---|---|---|\n");
  for (int side : {16384, 32768}) {
    const size_t px = (size_t) side * side;
    unsigned char *in, *out;
    CK (cudaMalloc (&in, px));
    CK (cudaMalloc (&out, px));
    CK (cudaMemset (in, 91, px));
    double whole = 0;
    for (size_t budget : {(size_t) 0, (size_t) 1 << 30}) {
      fv_box_params bp = {};
      bp.frame.width = bp.frame.height = side; bp.frame.channels = 1; bp.channel_mask = 1;
      bp.frame.sample = FV_U8;
      bp.radius_x = bp.radius_y = 15; bp.mode = FV_BOX_MEAN;
      bp.frame.spread.max_device_bytes = budget;
      fv_box_plan *plan;
      if (fv_box_plan_create (&plan, &bp, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
        printf ("| %d² | %s | plan failed: %s | |\n", side, budget ? "1 GB" : "none",
            fv_last_error ());
        continue;
      }
      fv_image a = fv_image_make (in, side, side, side, 1, FV_U8, FV_MEM_DEVICE);
      fv_image b = fv_image_make (out, side, side, side, 1, FV_U8, FV_MEM_DEVICE);
      double ms = median_ms ([&] (int) { fv_box_execute (plan, &a, &b); }, 10);
      if (!budget)
        whole = ms;
      printf ("| %d² | %s | %.3f | %s |\n", side, budget ? "1 GB" : "none", ms,
          budget && whole > 0 ? std::to_string ((ms / whole - 1) * 100).substr (0, 5).append ("%").c_str ()
              : "");
      fv_box_plan_destroy (plan);
    }
    cudaFree (in);
    cudaFree (out);
  }
  return 0;
}

/* The 8K box means alone, a few runs each, for a profiler to read. */
static int
box8k (void)
{
  CK (cudaSetDevice (0));
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (int ch : {1, 4}) {
    fv_box_params bp = {};
    bp.frame.width = 7680; bp.frame.height = 4320; bp.frame.channels = ch;
    bp.channel_mask = ch == 4 ? 0x7 : 1; bp.frame.sample = FV_U8;
    bp.radius_x = bp.radius_y = 15; bp.mode = FV_BOX_MEAN;
    fv_box_plan *plan;
    if (fv_box_plan_create (&plan, &bp, FV_BACKEND_CUDA, 0, stream) != FV_OK)
      return 1;
    const size_t bytes = (size_t) 7680 * 4320 * ch;
    unsigned char *in, *out;
    CK (cudaMalloc (&in, bytes));
    CK (cudaMalloc (&out, bytes));
    CK (cudaMemset (in, 77, bytes));
    fv_image a = fv_image_make (in, (size_t) 7680 * ch, 7680, 4320, ch, FV_U8, FV_MEM_DEVICE);
    fv_image b = fv_image_make (out, (size_t) 7680 * ch, 7680, 4320, ch, FV_U8, FV_MEM_DEVICE);
    for (int i = 0; i < 3; i++)
      fv_box_execute (plan, &a, &b);
    fv_box_plan_destroy (plan);
    cudaFree (in);
    cudaFree (out);
  }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "--chunks")) {
    CK (cudaSetDevice (0));
    CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
    return bench_chunks ();
  }
  bool quick = argc > 1 && !strcmp (argv[1], "--quick");
  bool only8k = argc > 1 && !strcmp (argv[1], "--sat8k");   // for profilers
  if (argc > 1 && !strcmp (argv[1], "--box8k"))   // for profilers: r=15 GRAY8 and RGBA, 3 runs
    return box8k ();
  const int reps = quick ? 20 : 100;
  CK (cudaSetDevice (0));
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("# device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
      prop.l2CacheSize >> 20);
  NppCtx npp_ctx;
  npp_integral_fn npp = load_npp (&npp_ctx);
  printf ("# NPP nppiIntegral: %s\n", npp ? "found" : "not found");
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320} };
  printf ("| size | op | fastvision ms | GB/s | copy-bound ms | %% of copy BW | NPP ms | NPP / ours |\n");
  printf ("|---|---|---|---|---|---|---|---|\n");
  for (auto &s : sizes) {
    if (only8k && s.w != 7680)
      continue;
    const size_t px = (size_t) s.w * s.h;
    // SAT: 8-bit in, 32-bit out; rotate inputs/outputs over NSETS buffers
    std::vector<unsigned char *> src (NSETS);
    std::vector<unsigned int *> tab (NSETS);
    std::vector<unsigned char> host (px);
    for (size_t i = 0; i < px; i++)
      host[i] = (unsigned char) (i * 2654435761u >> 24);
    for (int i = 0; i < NSETS; i++) {
      CK (cudaMalloc (&src[i], px));
      CK (cudaMalloc (&tab[i], px * 4));
      CK (cudaMemcpy (src[i], host.data (), px, cudaMemcpyHostToDevice));
    }
    fv_sat_params sp = { s.w, s.h, 1, 0, FV_U8, FV_SAT_U32, 0, 0 };
    fv_sat_plan *plan;
    if (fv_sat_plan_create (&plan, &sp, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
      fprintf (stderr, "plan failed: %s\n", fv_last_error ());
      return 1;
    }
    double sat_ms = median_ms ([&] (int i) {
      fv_image im = fv_image_make (src[i % NSETS], s.w, s.w, s.h, 1, FV_U8, FV_MEM_DEVICE);
      fv_sat_execute (plan, &im, tab[i % NSETS], (size_t) s.w * 4);
    }, only8k ? 3 : reps);
    if (only8k)
      return 0;
    // the floor: one read of the frame and one write of the table
    unsigned char *cbuf;
    CK (cudaMalloc (&cbuf, px * 5));
    double copy_ms = median_ms ([&] (int i) {
      CK (cudaMemcpyAsync (cbuf, tab[i % NSETS], px * 5 / 2, cudaMemcpyDeviceToDevice, stream));
    }, reps);
    double copy_gbs = px * 5 / (copy_ms * 1e6);   // read + write bytes per second
    double floor_ms = px * 5 / (copy_gbs * 1e6);
    double npp_ms = -1;
    if (npp) {
      int *ntab;
      CK (cudaMalloc (&ntab, (size_t) (s.w + 1) * (s.h + 1) * 4));
      npp_ms = median_ms ([&] (int i) {
        npp (src[i % NSETS], s.w, ntab, (s.w + 1) * 4, NppSize { s.w, s.h }, 0, npp_ctx);
      }, quick ? 5 : 20);
      cudaFree (ntab);
    }
    printf ("| %s | SAT u8->u32 | %.4f | %.0f | %.4f | %.0f%% |", s.name, sat_ms,
        px * 5 / (sat_ms * 1e6), floor_ms, 100.0 * floor_ms / sat_ms);
    if (npp)
      printf (" %.4f | %.1fx |\n", npp_ms, npp_ms / sat_ms);
    else
      printf (" - | - |\n");
    fv_sat_plan_destroy (plan);
    cudaFree (cbuf);
    // box filters, device images
    for (int path = 0; path < 2; path++)
    for (int ch : {1, 4})
      for (int r : {15, 100}) {
        /* each path forced (the plan's choice is the faster of the two) */
        setenv ("FASTVISION_BOX_PATH", path ? "table" : "two-pass", 1);
        fv_box_params bp = {};
        bp.frame.width = s.w; bp.frame.height = s.h; bp.frame.channels = ch;
        bp.channel_mask = ch == 4 ? 0x7 : 1; bp.frame.sample = FV_U8;
        bp.radius_x = bp.radius_y = r; bp.mode = FV_BOX_MEAN;
        fv_box_plan *bplan;
        if (fv_box_plan_create (&bplan, &bp, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
          fprintf (stderr, "box plan failed: %s\n", fv_last_error ());
          return 1;
        }
        unsigned char *bin, *bout;
        CK (cudaMalloc (&bin, px * ch));
        CK (cudaMalloc (&bout, px * ch));
        CK (cudaMemset (bin, 77, px * ch));
        fv_image a = fv_image_make (bin, (size_t) s.w * ch, s.w, s.h, ch, FV_U8, FV_MEM_DEVICE);
        fv_image b = fv_image_make (bout, (size_t) s.w * ch, s.w, s.h, ch, FV_U8, FV_MEM_DEVICE);
        double ms = median_ms ([&] (int) { fv_box_execute (bplan, &a, &b); }, reps / 2);
        // and from pinned host memory, as the element runs
        unsigned char *hin, *hout;
        CK (cudaMallocHost (&hin, px * ch));
        CK (cudaMallocHost (&hout, px * ch));
        memset (hin, 77, px * ch);
        fv_image ha = a, hb = b;
        ha.data = hin; ha.mem = FV_MEM_HOST;
        hb.data = hout; hb.mem = FV_MEM_HOST;
        double hms = median_ms ([&] (int) { fv_box_execute (bplan, &ha, &hb); }, reps / 4);
        printf ("| %s | box mean r=%d %s, %s | %.4f (device) / %.4f (pinned host in+out) | | | | | |\n",
            s.name, r, ch == 1 ? "GRAY8" : "RGBA", path ? "table" : "two passes", ms, hms);
        fv_box_plan_destroy (bplan);
        cudaFree (bin); cudaFree (bout); cudaFreeHost (hin); cudaFreeHost (hout);
        unsetenv ("FASTVISION_BOX_PATH");
      }
    for (int i = 0; i < NSETS; i++) {
      cudaFree (src[i]);
      cudaFree (tab[i]);
    }
  }
  return 0;
}
