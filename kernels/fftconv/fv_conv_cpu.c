/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU convolution: FFTW3 single precision (real-to-complex and back,
 * threaded, sizes padded to the next 2^a 3^b 5^c 7^d), or direct summation
 * where that is cheaper. Each channel is copied into a padded float buffer
 * that already holds the border extension, so both methods compute a plain
 * "valid" correlation; the kernel's spectrum and, for the renormalize
 * border, the in-frame kernel weight of every pixel are computed once per
 * plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_config.h"
#include "fv_conv_plan.h"
#include "../common/fv_parallel.h"
#include "fv_conv_math.h"
#include "fv_fft.h"


/* Direct valid correlation of buf (stride bstride) into out (W x H), row
 * by row. Outputs are summed a block at a time over every tap, in the
 * way of the separable passes (fv_conv_separable.c): a fixed count, so
 * that the compiler keeps the block in vector registers (four of
 * AVX-512, eight of AVX2) and each multiply-add loads one input; the
 * block is stored once. The last columns go by blocks of 16, then one by
 * one. Before, each tap added into the output row in memory: twice the
 * loads and a store a tap, and a speed that hung on where the output row
 * lay against the input rows (7-11% between two builds that placed the
 * plan's buffers differently, docs/benchmarks.md). */
typedef struct {
  const fv_conv_plan *pl;
  const float *buf;
  int bstride;
  float *out;
} direct_job;

/* o[x + b] = sum_j sum_i k[j * kw + i] * in[j * stride + x + i + b], b < B */
static inline __attribute__ ((always_inline)) void
direct_block (const float *restrict in, size_t stride, int x, const float *restrict k, int kw,
    int kh, float *restrict o, const int B)
{
  float acc[FV_CONV_BLOCK];
  for (int b = 0; b < B; b++)
    acc[b] = 0.0f;
  for (int j = 0; j < kh; j++)
    fv_conv_taps_add (acc, in + (size_t) j * stride + x, k + (size_t) j * kw, kw, B);
  memcpy (o + x, acc, sizeof (float) * B);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void
direct_row (void *ctx, long y, int me)
{
  (void) me;
  const direct_job *d = ctx;
  const fv_conv_plan *pl = d->pl;
  const int W = pl->ow, kw = pl->p.kernel_width, kh = pl->p.kernel_height;
  const float *in = d->buf + (size_t) y * d->bstride;
  float *o = d->out + (size_t) y * W;
  int x = 0;
  for (; x + FV_CONV_BLOCK <= W; x += FV_CONV_BLOCK)
    direct_block (in, d->bstride, x, pl->kernel, kw, kh, o, FV_CONV_BLOCK);
  for (; x + 16 <= W; x += 16)
    direct_block (in, d->bstride, x, pl->kernel, kw, kh, o, 16);
  for (; x < W; x++)
    direct_block (in, d->bstride, x, pl->kernel, kw, kh, o, 1);
}

static void
direct (const fv_conv_plan *pl, const float *buf, int bstride, float *out)
{
  direct_job d = { pl, buf, bstride, out };
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_for (team, pl->oh, 4, direct_row, &d);
  fv_team_end (team);
}

/* One row of the spectrum times the kernel's, scaled. */
static void
multiply_row (void *ctx, long v, int me)
{
  (void) me;
  const fv_conv_plan *pl = ctx;
  const int cw = pl->pw / 2 + 1;
  const float norm = 1.0f / ((float) pl->pw * (float) pl->ph);
  for (int u = 0; u < cw; u++) {
    size_t i = (size_t) v * cw + u;
    float a = pl->spec[i][0], b = pl->spec[i][1];
    float c = pl->kspec[i][0], d = pl->kspec[i][1];
    pl->spec[i][0] = (a * c - b * d) * norm;
    pl->spec[i][1] = (a * d + b * c) * norm;
  }
}

/* FFT valid correlation of buf (pw x ph, already extended) into out. */
static void
by_fft (const fv_conv_plan *pl, float *buf, float *out)
{
  const int W = pl->ow, H = pl->oh;
  fv_fft_r2c (pl->fwd, buf, pl->spec);
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_for (team, pl->ph, 0, multiply_row, (void *) pl);
  fv_team_end (team);
  fv_fft_c2r (pl->inv, pl->spec, buf);
  for (int y = 0; y < H; y++)
    memcpy (out + (size_t) y * W, buf + (size_t) y * pl->pw, sizeof (float) * W);
}

/* The three methods, as pl->correlate: buf holds the extended channel. */
static void
correlate_direct (const fv_conv_plan *pl, float *buf, float *out)
{
  direct (pl, buf, pl->ew, out);
}

static void
correlate_separable (const fv_conv_plan *pl, float *buf, float *out)
{
  fv_conv_separable_run (pl, buf, pl->ew, out);
}

/* Channel c of the plan's window, extended into the plan's buffer and
 * correlated into res (ow x oh floats, unscaled). */
static void
correlate_window (const fv_conv_plan *pl, const fv_image *src, int c, float *res)
{
  int bstride = pl->method == FV_CONV_FFT ? pl->pw : pl->ew;
  if (pl->method == FV_CONV_FFT)
    memset (pl->buf, 0, sizeof (float) * pl->pw * pl->ph);
  fv_conv_extend (pl, src, c, pl->rx, pl->ry, pl->ew, pl->eh, pl->buf, bstride, pl->nthreads);
  pl->correlate (pl, pl->buf, res);
}

typedef struct {
  const fv_conv_plan *pl;
  const float *res;
  int c;
  const fv_image *dst;
} store_job;

static void
store_row (void *ctx, long y, int me)
{
  (void) me;
  const store_job *j = ctx;
  const fv_conv_params *p = &j->pl->p;
  const int W = p->frame.width;
  fv_conv_store_row (p, j->res + (size_t) y * W, j->pl->scale ? j->pl->scale + (size_t) y * W
      : NULL, j->pl->uniform_scale, W, j->c, (char *) j->dst->data + (size_t) y * j->dst->stride);
}

/* A whole frame's channel: correlated into a frame of floats, stored. */
static fv_status
convolve_channel (const fv_conv_plan *pl, const fv_image *src, int c, const fv_image *dst)
{
  const fv_conv_params *p = &pl->p;
  const int W = p->frame.width, H = p->frame.height;
  float *res = malloc (sizeof (float) * W * H);
  if (!res)
    return FV_ERR_NOMEM;
  correlate_window (pl, src, c, res);
  store_job j = { pl, res, c, dst };
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_for (team, H, 0, store_row, &j);
  fv_team_end (team);
  free (res);
  return FV_OK;
}

/* One overlap-add tile: extend its input window, transform, multiply,
 * transform back, scale, round and write its outputs. */
static void
run_tile (const fv_conv_plan *pl, const fv_image *src, const fv_image *dst, int c, int tx,
    int ty, float *buf, fv_fft_complex *spec)
{
  const fv_conv_params *p = &pl->p;
  const int P = pl->P, cw = P / 2 + 1, W = p->frame.width, H = p->frame.height,
      C = p->frame.channels;
  const int kw = p->kernel_width, kh = p->kernel_height;
  const int x0 = tx * pl->tw, y0 = ty * pl->th;
  const int ow = W - x0 < pl->tw ? W - x0 : pl->tw, oh = H - y0 < pl->th ? H - y0 : pl->th;
  memset (buf, 0, sizeof (float) * P * P);
  fv_conv_extend (pl, src, c, x0, y0, ow + kw - 1, oh + kh - 1, buf, P, 1);
  fv_fft_r2c (pl->tfwd, buf, spec);
  const float norm = 1.0f / ((float) P * P);
  for (size_t i = 0; i < (size_t) cw * P; i++) {
    float a = spec[i][0], b = spec[i][1], cr = pl->tkspec[i][0], ci = pl->tkspec[i][1];
    spec[i][0] = (a * cr - b * ci) * norm;
    spec[i][1] = (a * ci + b * cr) * norm;
  }
  fv_fft_c2r (pl->tinv, spec, buf);
  for (int y = 0; y < oh; y++)
    fv_conv_store_row (p, buf + (size_t) y * P, pl->scale ? pl->scale + (size_t) (y0 + y) * W + x0 : NULL,
        pl->uniform_scale, ow, c, (char *) dst->data + (size_t) (y0 + y) * dst->stride
        + (size_t) x0 * C * p->frame.sample);
}

/* Tiles: P x P transforms planned once, single-threaded (the threads take
 * whole tiles), executed on each thread's own buffers. */
static fv_status
plan_tiles (fv_conv_plan *pl, int P)
{
  const int cw = P / 2 + 1;
  pl->P = P;
  pl->tw = P - pl->p.kernel_width + 1;
  pl->th = P - pl->p.kernel_height + 1;
  pl->tbuf = calloc (pl->nthreads, sizeof *pl->tbuf);
  pl->tspec = calloc (pl->nthreads, sizeof *pl->tspec);
  pl->tkspec = fv_fft_alloc_complex ((size_t) cw * P);
  if (!pl->tbuf || !pl->tspec || !pl->tkspec)
    return FV_ERR_NOMEM;
  for (int t = 0; t < pl->nthreads; t++) {
    pl->tbuf[t] = fv_fft_alloc_real ((size_t) P * P);
    pl->tspec[t] = fv_fft_alloc_complex ((size_t) cw * P);
    if (!pl->tbuf[t] || !pl->tspec[t])
      return FV_ERR_NOMEM;
  }
  /* the threads take whole tiles: each transform runs on one */
  pl->tfwd = fv_fft_plan_2d (0, P, P, 1, pl->p.measure, pl->tbuf[0], pl->tspec[0]);
  pl->tinv = fv_fft_plan_2d (1, P, P, 1, pl->p.measure, pl->tbuf[0], pl->tspec[0]);
  if (!pl->tfwd || !pl->tinv)
    return FV_ERR_INVALID;
  float *k = pl->tbuf[0];
  memset (k, 0, sizeof (float) * P * P);
  for (int j = 0; j < pl->p.kernel_height; j++)
    memcpy (k + (size_t) j * P, pl->kernel + (size_t) j * pl->p.kernel_width,
        sizeof (float) * pl->p.kernel_width);
  fv_fft_r2c (pl->tfwd, k, pl->tkspec);
  for (size_t i = 0; i < (size_t) cw * P; i++)
    pl->tkspec[i][1] = -pl->tkspec[i][1];
  int ntx = (pl->p.frame.width + pl->tw - 1) / pl->tw,
      nty = (pl->p.frame.height + pl->th - 1) / pl->th;
  pl->tiles = ntx * nty;
  return FV_OK;
}

static fv_status
plan_fft (fv_conv_plan *pl)
{
  const int cw = pl->pw / 2 + 1;
  size_t nr = (size_t) pl->pw * pl->ph, nc = (size_t) cw * pl->ph;
  pl->spec = fv_fft_alloc_complex (nc);
  pl->kspec = fv_fft_alloc_complex (nc);
  float *kbuf = fv_fft_alloc_real (nr);
  if (!pl->spec || !pl->kspec || !kbuf) {
    fv_fft_free (kbuf);
    return FV_ERR_NOMEM;
  }
  pl->fwd = fv_fft_plan_2d (0, pl->ph, pl->pw, pl->nthreads, pl->p.measure, pl->buf, pl->spec);
  pl->inv = fv_fft_plan_2d (1, pl->ph, pl->pw, pl->nthreads, pl->p.measure, pl->buf, pl->spec);
  if (!pl->fwd || !pl->inv) {
    fv_fft_free (kbuf);
    fv_set_last_error ("FFTW could not plan %dx%d", pl->pw, pl->ph);
    return FV_ERR_INVALID;
  }
  /* the kernel's spectrum, conjugated: multiplying by it correlates */
  memset (kbuf, 0, sizeof (float) * nr);
  for (int j = 0; j < pl->p.kernel_height; j++)
    memcpy (kbuf + (size_t) j * pl->pw, pl->kernel + (size_t) j * pl->p.kernel_width,
        sizeof (float) * pl->p.kernel_width);
  fv_fft_r2c (pl->fwd, kbuf, pl->kspec);
  for (size_t i = 0; i < nc; i++)
    pl->kspec[i][1] = -pl->kspec[i][1];
  fv_fft_free (kbuf);
  return FV_OK;
}

fv_status
fv_conv_execute_float (fv_conv_plan *pl, const fv_image *src, int channel, float *out,
    size_t out_stride)
{
  const fv_conv_params *p = &pl->p;
  if (pl->be != &fv_conv_cpu_backend || !src || !src->data || src->width != p->frame.width
      || src->height != p->frame.height
      || src->channels != p->frame.channels || src->sample != p->frame.sample
          || src->mem != FV_MEM_HOST
      || channel < 0 || channel >= p->frame.channels) {
    fv_set_last_error ("image does not match the convolution plan");
    return FV_ERR_INVALID;
  }
  float *res = malloc (sizeof (float) * pl->ow * pl->oh);
  if (!res)
    return FV_ERR_NOMEM;
  correlate_window (pl, src, channel, res);
  for (int y = 0; y < pl->oh; y++)
    for (int x = 0; x < pl->ow; x++)
      out[(size_t) y * out_stride + x] = res[(size_t) y * pl->ow + x]
          * (pl->scale ? pl->scale[(size_t) y * pl->ow + x] : pl->uniform_scale);
  free (res);
  return FV_OK;
}

/* The method where it is auto: cost model, calibrated on the development
 * machine (docs/benchmarks.md): direct ~ taps per pixel; separable ~ the
 * column's and the row's taps and two more; FFT ~ 7 log2(N) per padded
 * pixel for the pair of transforms and the product. Separable kernels get
 * their column and row (method separable took only those: fv_conv.c). */
static fv_status
choose_method (fv_conv_plan *pl)
{
  const fv_conv_params *p = &pl->p;
  const int kw = p->kernel_width, kh = p->kernel_height;
  int separable = 0;
  if (pl->method == FV_CONV_AUTO || pl->method == FV_CONV_SEPARABLE) {
    pl->sep_col = malloc (sizeof (float) * kh);
    pl->sep_row = malloc (sizeof (float) * kw);
    if (!pl->sep_col || !pl->sep_row)
      return FV_ERR_NOMEM;
    separable = fv_conv_separate_within (pl->kernel, kw, kh, p->kernel_rounding, pl->sep_col,
        pl->sep_row);
  }
  if (pl->method == FV_CONV_AUTO) {
    double n = (double) pl->pw * pl->ph;
    /* GStreamer's FFT library measured 4x slower than FFTW at 720p and
     * 1080p (docs/benchmarks.md): its crossover with direct sums is later */
    double fft = (FV_FFT_FFTW ? 7.0 : 28.0) * n * log2 (n);
    double dir = (double) pl->ow * pl->oh * kw * kh;
    double sep = separable ? (double) pl->ow * pl->oh * (kw + kh + 2) : INFINITY;
    pl->method = sep < dir && sep <= fft ? FV_CONV_SEPARABLE
        : dir <= fft ? FV_CONV_DIRECT : FV_CONV_FFT;
  }
  if (pl->method == FV_CONV_SEPARABLE) {
    pl->sep_rows = malloc (sizeof (float) * fv_conv_separable_scratch (pl) * pl->nthreads);
    if (!pl->sep_rows)
      return FV_ERR_NOMEM;
  }
  pl->correlate = pl->method == FV_CONV_FFT ? by_fft
      : pl->method == FV_CONV_SEPARABLE ? correlate_separable : correlate_direct;
  return FV_OK;
}

/* Overlap-add tiles where the cost model says so (CPU, whole frame). */
static fv_status
maybe_tiles (fv_conv_plan *pl)
{
  const fv_conv_params *p = &pl->p;
  if (pl->method != FV_CONV_FFT || p->frame.roi_width || p->tile < 0)
    return FV_OK;
  int kmax = p->kernel_width > p->kernel_height ? p->kernel_width : p->kernel_height;
  int P = p->tile > 0 ? fv_conv_fast_size (p->tile + kmax - 1)
      : fv_conv_fast_size (kmax * 4 > 512 ? kmax * 4 : 512);
  int tw = P - p->kernel_width + 1, th = P - p->kernel_height + 1;
  double ntiles = (double) ((p->frame.width + tw - 1) / tw) * ((p->frame.height + th - 1) / th);
  double full = (double) pl->pw * pl->ph * log2 ((double) pl->pw * pl->ph);
  double tiled = ntiles * P * P * log2 ((double) P * P);
  /* tiles stay in cache: measured twice as fast per transformed point */
  if (p->tile > 0 || (ntiles > 1 && 0.5 * tiled < full))
    return plan_tiles (pl, P);
  return FV_OK;
}

fv_status
fv_conv_cpu_plan (fv_conv_plan *pl, int tiles_allowed)
{
  fv_status st = choose_method (pl);
  if (st != FV_OK)
    return st;
  if (pl->method == FV_CONV_FFT) {
    pl->buf = fv_fft_alloc_real ((size_t) pl->pw * pl->ph);
    st = pl->buf ? plan_fft (pl) : FV_ERR_NOMEM;
  } else {
    pl->buf = fv_fft_alloc_real ((size_t) pl->ew * pl->eh);
    st = pl->buf ? FV_OK : FV_ERR_NOMEM;
  }
  if (st == FV_OK && tiles_allowed)
    st = maybe_tiles (pl);
  if (st == FV_OK)
    st = fv_conv_plan_scale (pl);
  return st;
}

static fv_status
cpu_init (fv_conv_plan *pl, int device, void *stream)
{
  return fv_conv_cpu_plan (pl, 1);
}

/* Channel c of a frame not convolved (channel_mask): copied. */
static void
copy_channel (const fv_conv_params *p, const fv_image *src, int c, const fv_image *dst)
{
  const int C = p->frame.channels;
  for (int y = 0; y < p->frame.height; y++) {
    const char *s = (const char *) src->data + (size_t) y * src->stride;
    char *d = (char *) dst->data + (size_t) y * dst->stride;
    for (int x = 0; x < p->frame.width; x++)
      memcpy (d + ((size_t) x * C + c) * p->frame.sample,
          s + ((size_t) x * C + c) * p->frame.sample,
          p->frame.sample);
  }
}

typedef struct {
  const fv_conv_plan *pl;
  const fv_image *src, *dst;
  const int *chans;
  int ntx;
} tiles_job;

static void
tile_job (void *ctx, long job, int me)
{
  const tiles_job *j = ctx;
  const fv_conv_plan *pl = j->pl;
  const int tile = (int) (job % pl->tiles);
  run_tile (pl, j->src, j->dst, j->chans[job / pl->tiles], tile % j->ntx, tile / j->ntx,
      pl->tbuf[me], pl->tspec[me]);
}

static fv_status
cpu_execute (fv_conv_plan *pl, const fv_image *src, const fv_image *dst)
{
  const fv_conv_params *p = &pl->p;
  fv_status st = fv_require_host (src, dst);
  if (st != FV_OK)
    return st;
  int nm = 0, chans[4];
  for (int c = 0; c < p->frame.channels; c++)
    if (p->channel_mask & (1u << c))
      chans[nm++] = c;
    else
      copy_channel (p, src, c, dst);
  if (pl->tiles) {   /* every (channel, tile) pair is one job for whichever thread is free */
    tiles_job j = { pl, src, dst, chans, (p->frame.width + pl->tw - 1) / pl->tw };
    fv_team team = fv_team_begin (pl->nthreads);
    fv_team_for (team, (long) nm * pl->tiles, 1, tile_job, &j);
    fv_team_end (team);
    return FV_OK;
  }
  for (int i = 0; i < nm && st == FV_OK; i++)
    if (pl->method == FV_CONV_SEPARABLE)   /* band by band, in cache */
      fv_conv_separable_channel (pl, src, chans[i], dst);
    else
      st = convolve_channel (pl, src, chans[i], dst);
  return st;
}

void
fv_conv_cpu_free (fv_conv_plan *pl)
{
  fv_fft_release (pl->fwd);
  fv_fft_release (pl->inv);
  fv_fft_release (pl->tfwd);
  fv_fft_release (pl->tinv);
  for (int t = 0; pl->tbuf && t < pl->nthreads; t++)
    fv_fft_free (pl->tbuf[t]);
  for (int t = 0; pl->tspec && t < pl->nthreads; t++)
    fv_fft_free (pl->tspec[t]);
  free (pl->tbuf);
  free (pl->tspec);
  fv_fft_free (pl->tkspec);
  fv_fft_free (pl->buf);
  fv_fft_free (pl->spec);
  fv_fft_free (pl->kspec);
  free (pl->scale);
  free (pl->sep_col);
  free (pl->sep_row);
  free (pl->sep_rows);
}

static size_t
cpu_bytes (const fv_conv_plan *pl)
{
  return (size_t) fv_conv_plan_estimate (&pl->p);
}

const fv_conv_backend fv_conv_cpu_backend = { cpu_init, cpu_execute, NULL, fv_conv_cpu_free,
  cpu_bytes };
