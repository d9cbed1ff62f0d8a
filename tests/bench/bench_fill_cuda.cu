/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GPU benchmark of autofill's kernel (not run by CI): device images, CUDA
// events, median of runs; against NPP's nppiFloodFill (from the corner of a
// padded frame, then invert, as the CPU baseline) and nppiLabelMarkersUF
// when libnppif/libnppc are present (opened with dlopen).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <vector>
#include <cuda_runtime.h>
#include "fv_fill.h"
#include "fill_frames.h"
#include "bench_cuda.cuh"

static cudaStream_t stream;

template <typename F>
static double
median_ms (F &&fn, int reps)
{
  return event_median_ms (stream, fn, reps);
}

struct NppPoint { int x, y; };
struct NppRect { int x, y, width, height; };
struct NppRegion { NppRect box; unsigned int count; unsigned char value[3]; unsigned char pad[61]; };
typedef int (*ff_size_fn) (NppSize, int *);
typedef int (*ff_fn) (unsigned char *, int, NppPoint, unsigned char, int, NppSize, NppRegion *,
    unsigned char *, NppCtx);
typedef int (*lm_size_fn) (NppSize, int *);
typedef int (*lm_fn) (const unsigned char *, int, unsigned int *, int, NppSize, int,
    unsigned char *, NppCtx);

int
main (int argc, char **argv)
{
  /* bench_fill_cuda [SIZE KIND]: one frame only, without NPP (for profilers) */
  const char *only_size = argc > 2 ? argv[1] : nullptr, *only_kind = argc > 2 ? argv[2] : nullptr;
  cudaSetDevice (0);
  cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  cudaDeviceProp prop;
  cudaGetDeviceProperties (&prop, 0);
  NppCtx ctx = npp_context (stream);
  ff_size_fn ffs = (ff_size_fn) npp_sym ("nppiFloodFillGetBufferSize");
  ff_fn ff = (ff_fn) npp_sym ("nppiFloodFill_8u_C1IR_Ctx");
  lm_size_fn lms = (lm_size_fn) npp_sym ("nppiLabelMarkersUFGetBufferSize_32u_C1R");
  lm_fn lm = (lm_fn) npp_sym ("nppiLabelMarkersUF_8u32u_C1R_Ctx");
  printf ("# %s; NPP floodFill %s, labelMarkersUF %s\n", prop.name, ff && ffs ? "found" : "not found",
      lm && lms ? "found" : "not found");
  printf ("| size | frame | fastvision ms | NPP floodFill ms | NPP labelMarkersUF ms | floodFill / ours "
      "| fill + holes ms | fill + parts and holes ms | the same in 4 chunks ms | holes | parts |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|\n");
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320}, {"", 0, 0} };
  /* SIZE as WIDTHxHEIGHT: that size (a chunk's shape, for the spread path) */
  if (only_size && sscanf (only_size, "%dx%d", &sizes[3].w, &sizes[3].h) == 2)
    sizes[3].name = only_size;
  for (auto &s : sizes)
    for (int k = 0; k < FF_KINDS; k++) {
      if (!s.w || (only_size && (strcmp (only_size, s.name) || strcmp (only_kind, ff_kind_names[k]))))
        continue;
      const int w = s.w, h = s.h;
      std::vector<unsigned char> host ((size_t) w * h);
      ff_make (host.data (), w, h, k);
      unsigned char *din, *dout, *dpad;
      cudaMalloc (&din, (size_t) w * h);
      cudaMalloc (&dout, (size_t) w * h);
      cudaMalloc (&dpad, (size_t) (w + 2) * (h + 2));
      cudaMemcpy (din, host.data (), host.size (), cudaMemcpyHostToDevice);
      fv_fill_params p = {};
      p.frame.width = w;
      p.frame.height = h;
      p.threshold = 127;
      p.fill_value = 255;
      p.connectivity = 4;
      p.output = FV_FILL_FILLED;
      fv_fill_plan *plan;
      if (fv_fill_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
        fprintf (stderr, "plan: %s\n", fv_last_error ());
        return 1;
      }
      fv_image a = fv_image_make (din, w, w, h, 1, FV_U8, FV_MEM_DEVICE), b = a;
      b.data = dout;
      double ours = median_ms ([&] { fv_fill_execute (plan, &a, &b); }, 20);
      double nff = -1, nlm = -1;
      if (only_size)
        ff = nullptr, lm = nullptr;
      if (ff && ffs) {
        int bs = 0;
        NppSize sz = { w + 2, h + 2 };
        ffs (sz, &bs);
        unsigned char *buf;
        cudaMalloc (&buf, bs > 0 ? bs : 1);
        NppRegion reg;
        nff = median_ms ([&] {
          cudaMemset2DAsync (dpad, w + 2, 0, w + 2, h + 2, stream);
          cudaMemcpy2DAsync (dpad + w + 3, w + 2, din, w, w, h, cudaMemcpyDeviceToDevice, stream);
          ff (dpad, w + 2, NppPoint { 0, 0 }, 128, 1, sz, &reg, buf, ctx);
        }, 5);
        cudaFree (buf);
      }
      if (lm && lms) {
        int bs = 0;
        NppSize sz = { w, h };
        lms (sz, &bs);
        unsigned char *buf;
        unsigned int *lab;
        cudaMalloc (&buf, bs > 0 ? bs : 1);
        cudaMalloc (&lab, sizeof (unsigned int) * w * h);
        nlm = median_ms ([&] { lm (din, w, lab, w * 4, sz, 1, buf, ctx); }, 5);
        cudaFree (buf);
        cudaFree (lab);
      }
      /* measure: the fill, then labels and sums on the device, the table of
       * regions back (holes; parts and holes; parts and holes in four
       * chunks, each measured alone and the regions joined on the host) */
      double meas[3] = { -1, -1, -1 };
      int nreg = -1, nparts = -1;
      for (int m = 0; m < 3; m++) {
        fv_fill_params pm = p;
        pm.measure = m ? FV_FILL_MEASURE_BOTH : FV_FILL_MEASURE_HOLES;
        pm.frame.spread.min_chunks = m == 2 ? 4 : 0;
        if (m == 2 && only_size)   /* one frame for profilers: the whole-frame plan's */
          continue;
        fv_fill_plan *mplan;
        if (fv_fill_plan_create (&mplan, &pm, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
          fprintf (stderr, "measure plan: %s\n", fv_last_error ());
          continue;
        }
        const fv_fill_region *r;
        meas[m] = median_ms ([&] {
          fv_fill_execute (mplan, &a, &b);
          if (fv_fill_regions (mplan, &r, &nreg) != FV_OK)
            fprintf (stderr, "measure: %s\n", fv_last_error ());
          if (m)
            fv_fill_parts (mplan, &r, &nparts);
        }, 20);
        fv_fill_plan_destroy (mplan);
      }
      printf ("| %s | %s | %.4f | %.3f | %.3f | %.1fx | %.3f | %.3f | %.3f | %d | %d |\n",
          s.name, ff_kind_names[k], ours, nff, nlm, nff > 0 ? nff / ours : 0.0, meas[0], meas[1],
          meas[2], nreg, nparts);
      fv_fill_plan_destroy (plan);
      cudaFree (din); cudaFree (dout); cudaFree (dpad);
    }
  return 0;
}
