/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to kernels/fftconv: the plan, and its two back ends. The front
 * file (fv_conv.c) checks parameters, copies the kernel, works out the
 * window and padded sizes, and picks the back end once; fv_conv_cpu.c
 * plans the FFTs (fv_fft.h: FFTW or GStreamer's FFT library); fv_conv_scale.c
 * the scale both back ends apply (the renormalized border's edge weights);
 * fv_conv_cuda.cu runs on the GPU. */
#ifndef FV_CONV_PLAN_H
#define FV_CONV_PLAN_H

#include "fv_fft.h"
#include "fv_conv.h"

/* GPU: kernels up to this many taps go by direct summation (auto) */
#define FV_CONV_GPU_DIRECT_TAPS 25   /* calibrated on the H100 against the tiled FFT: see docs/benchmarks.md */

/* A back end: chosen once per plan (FFTW's way), never tested per call. */
/* A back end (fv_plan.h), chosen once per plan; each is defined in its
 * own file (fv_conv_cpu.c, fv_conv_cuda_plan.c, also the chunked one). */
typedef FV_PLAN_BACKEND (fv_conv_plan) fv_conv_backend;

struct fv_conv_plan {
  fv_conv_params p;
  const fv_conv_backend *be;
  float *kernel;               /* copy, kh x kw */
  double ksum, kabs;
  fv_conv_method method;       /* on the CPU */
  /* the valid correlation of an extended channel in buf into out, by
   * method (CPU): chosen once */
  void (*correlate) (const struct fv_conv_plan *pl, float *buf, float *out);
  fv_conv_method gpu_method;   /* CUDA plans: what runs on the GPU */
  int nthreads;
  int rx, ry, ow, oh;          /* the window computed (the whole frame by default) */
  int ew, eh;                  /* extended window: ow + kw - 1 by oh + kh - 1 */
  int pw, ph;                  /* FFT size */
  float *buf;                  /* pw x ph real (FFT) or ew x eh (direct) */
  fv_fft_complex *spec, *kspec; /* image spectrum, kernel spectrum (conjugated) */
  fv_fft_plan fwd, inv;
  float *scale;                /* per pixel (renormalize), else NULL */
  float uniform_scale;
  void *state;                 /* the back end's own: the GPU half of CUDA plans */
  /* overlap-add tiles (CPU FFT): tw x th outputs a tile, P x P transforms,
   * one buffer pair a thread, tiles handed out dynamically */
  int tiles, tw, th, P;
  fv_fft_plan tfwd, tinv;
  fv_fft_complex *tkspec;
  float **tbuf;
  fv_fft_complex **tspec;
  /* separable kernels: the column (kh taps), the row (kw taps), and each
   * thread's rows (fv_conv_separable_scratch) */
  float *sep_col, *sep_row, *sep_rows;
};

extern const fv_conv_backend fv_conv_cpu_backend, fv_conv_cuda_backend, fv_conv_chunked_backend;
/* The chunk plan of a chunked plan (fv_conv_cuda_plan.c). */
const fv_chunk_plan *fv_conv_chunked_plan (const fv_conv_plan *pl);

/* The CPU plan: the method where it is auto, the FFTW buffers and
 * transforms (tiles where they pay), the scale. tiles_allowed: plans of the
 * whole frame only. */
fv_status fv_conv_cpu_plan (fv_conv_plan *pl, int tiles_allowed);
/* pl->uniform_scale, and pl->scale (ow x oh) for the renormalize border
 * (fv_conv_scale.c); every back end's. */
fv_status fv_conv_plan_scale (fv_conv_plan *pl);
void fv_conv_cpu_free (fv_conv_plan *pl);
/* Rows in and out (fv_conv_rows.c). Channel c of source row `row`,
 * columns x .. x + n - 1 extended at the frame's sides, as floats into o: */
void fv_conv_extend_row (const fv_conv_params *p, const char *row, long x, int n, int c,
    float *o);
/* the extended window of channel c for the output window at (x0, y0), n x m
 * samples (the window grown by the kernel), rows bstride floats apart (rows
 * outside a zero border are zeros), over `threads` threads: */
void fv_conv_extend (const fv_conv_plan *pl, const fv_image *src, int c, int x0, int y0, int n,
    int m, float *buf, int bstride, int threads);
/* n results r, scaled (by sc[x], or by s where sc is NULL), biased,
 * rounded and clamped, into channel c of the samples at d. */
void fv_conv_store_row (const fv_conv_params *p, const float *r, const float *sc, float s, int n,
    int c, char *d);

/* The CPU's sums of taps, a block of B outputs (B <= FV_CONV_BLOCK, a
 * constant where it is inlined, so that the compiler keeps the block in
 * vector registers and each multiply-add loads one input):
 * acc[b] += sum_i taps[i] * in[i + b] for b < B. The separable row pass
 * and the direct sums (a kernel row at a time) add with it. */
#define FV_CONV_BLOCK 64
static inline __attribute__ ((always_inline)) void
fv_conv_taps_add (float *restrict acc, const float *restrict in, const float *restrict taps,
    int n, const int B)
{
  for (int i = 0; i < n; i++) {
    const float c = taps[i], *x = in + i;
    for (int b = 0; b < B; b++)
      acc[b] += c * x[b];
  }
}

/* Method separable (fv_conv_separable.c): the correlation of an extended
 * window (buf holds ew-wide rows, bstride apart) into out; */
void fv_conv_separable_run (const fv_conv_plan *pl, const float *buf, int bstride, float *out);
/* a whole frame's channel c from src into dst, band by band; */
void fv_conv_separable_channel (const fv_conv_plan *pl, const fv_image *src, int c,
    const fv_image *dst);
/* the floats of sep_rows each thread takes for either. */
size_t fv_conv_separable_scratch (const fv_conv_plan *pl);

#endif
