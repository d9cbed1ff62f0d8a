/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Separable kernels (the outer product of a column and a row: Gaussians,
 * boxes, Sobel's) by direct summation in two passes, kh + kw taps a pixel
 * instead of kh * kw. Each thread takes bands of output rows: it sums the
 * extended rows down each column with the column's taps into a band of
 * its own (planned), then correlates each of the band's rows with the
 * row's taps. A whole frame's channel goes band by band from the samples
 * to the samples (fv_conv_separable_channel): the extended rows, the sums
 * and the results stay in the core's cache, where whole float frames
 * (fv_conv_separable_run, for windows of kernel grids and the edge
 * weights) leave the last-level cache from about 4K on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_conv_plan.h"
#include "../common/fv_parallel.h"

/* Output rows a band: the column pass runs down strips of a band's rows
 * (BAND + kh input rows of a strip stay in L1), the row pass along the
 * band's rows of column sums (in L2). */
#define BAND 16

int
fv_conv_separate_within (const float *k, int kw, int kh, double rounding, float *col,
    float *row)
{
  const size_t n = (size_t) kw * kh;
  size_t piv = 0;
  double kabs = 0;
  for (size_t i = 0; i < n; i++) {
    kabs += fabs (k[i]);
    if (fabs (k[i]) > fabs (k[piv]))
      piv = i;
  }
  const int pj = (int) (piv / kw), pi = (int) (piv % kw);
  for (int i = 0; i < kw; i++)
    row[i] = k[(size_t) pj * kw + i];
  for (int j = 0; j < kh; j++)   /* an all-zero kernel: zero column, zero row */
    col[j] = kabs > 0 ? (float) ((double) k[(size_t) j * kw + pi] / k[piv]) : 0.0f;
  /* what the product misses, against what the taps can add up to: float
   * rounding of a true outer product (exp(a + b) = exp(a) exp(b) for a
   * Gaussian) stays near 1e-7. Taps each off by up to e (a file's decimals)
   * make the product miss, to first order, e (the tap) + |r_i| e (1 + |c_j|)
   * / |pivot| (the column, taken from a column of taps over the pivot) +
   * |c_j| e (the row), a tap. */
  double off = 0, slack = 0;
  const double kp = fabs ((double) k[piv]);
  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++) {
      off += fabs ((double) k[(size_t) j * kw + i] - (double) col[j] * row[i]);
      if (rounding > 0 && kp > 0)
        slack += rounding * (1.0 + fabs (col[j]) + fabs (row[i]) * (1.0 + fabs (col[j])) / kp);
    }
  return off <= 1e-6 * kabs + slack;
}

int
fv_conv_separate (const float *k, int kw, int kh, float *col, float *row)
{
  return fv_conv_separate_within (k, kw, kh, 0.0, col, row);
}

/* Outputs a block: FV_CONV_BLOCK (fv_conv_plan.h), a fixed count, so that
 * the compiler keeps them in vector registers (four of AVX-512), every
 * multiply-add loading one input; the last columns by blocks of 16, then
 * one by one. */

/* Column sums of columns [u, u + B) for m output rows: t[r * n + u ...] =
 * sum_j col[j] * rows[(r + j) * stride + u ...]. */
static inline __attribute__ ((always_inline)) void
column_block (const float *restrict rows, size_t stride, int u, int m, const float *restrict col,
    int kh, float *restrict t, int n, const int B)
{
  for (int r = 0; r < m; r++) {
    const float *in = rows + (size_t) r * stride + u;
    float acc[FV_CONV_BLOCK];
    for (int b = 0; b < B; b++)
      acc[b] = col[0] * in[b];
    for (int j = 1; j < kh; j++) {
      const float c = col[j], *x = in + (size_t) j * stride;
      for (int b = 0; b < B; b++)
        acc[b] += c * x[b];
    }
    memcpy (t + (size_t) r * n + u, acc, sizeof (float) * B);
  }
}

/* The column pass of m output rows: n columns of sums into t (n apart). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void
column_pass (const float *restrict rows, size_t stride, int n, int m, const float *restrict col,
    int kh, float *restrict t)
{
  int u = 0;
  for (; u + FV_CONV_BLOCK <= n; u += FV_CONV_BLOCK)
    column_block (rows, stride, u, m, col, kh, t, n, FV_CONV_BLOCK);
  for (; u + 16 <= n; u += 16)
    column_block (rows, stride, u, m, col, kh, t, n, 16);
  for (; u < n; u++)
    column_block (rows, stride, u, m, col, kh, t, n, 1);
}

/* o[x ...] = sum_i row[i] * t[x + i ...] for B outputs. */
static inline __attribute__ ((always_inline)) void
row_block (const float *restrict t, int x, const float *restrict row, int kw,
    float *restrict o, const int B)
{
  float acc[FV_CONV_BLOCK];
  for (int b = 0; b < B; b++)
    acc[b] = row[0] * t[x + b];
  fv_conv_taps_add (acc, t + x + 1, row + 1, kw - 1, B);
  memcpy (o + x, acc, sizeof (float) * B);
}

/* The row pass of one row: n outputs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void
row_pass (const float *restrict t, int n, const float *restrict row, int kw, float *restrict o)
{
  int x = 0;
  for (; x + FV_CONV_BLOCK <= n; x += FV_CONV_BLOCK)
    row_block (t, x, row, kw, o, FV_CONV_BLOCK);
  for (; x + 16 <= n; x += 16)
    row_block (t, x, row, kw, o, 16);
  for (; x < n; x++)
    row_block (t, x, row, kw, o, 1);
}

/* The floats of sep_rows each thread takes: a band's extended rows and
 * its column sums (fv_conv_separable_channel), then one row of results. */
size_t
fv_conv_separable_scratch (const fv_conv_plan *pl)
{
  return (size_t) (BAND + pl->p.kernel_height - 1) * pl->ew + (size_t) BAND * pl->ew + pl->ow;
}

typedef struct {
  const fv_conv_plan *pl;
  const fv_image *src, *dst;
  int c;
  const float *buf;   /* fv_conv_separable_run's input, its stride, its output */
  int bstride;
  float *out;
} band_job;

/* One band of BAND output rows: extended, both passes, stored. */
static void
channel_band (void *ctx, long band, int me)
{
  const band_job *j = ctx;
  const fv_conv_plan *pl = j->pl;
  const fv_conv_params *p = &pl->p;
  const int W = pl->ow, H = pl->oh, ew = pl->ew;
  const int kw = p->kernel_width, kh = p->kernel_height, y0 = (int) band * BAND;
  const int m = H - y0 < BAND ? H - y0 : BAND;
  float *e = pl->sep_rows + (size_t) me * fv_conv_separable_scratch (pl);
  float *t = e + (size_t) (BAND + kh - 1) * ew, *r = t + (size_t) BAND * ew;
  fv_conv_extend (pl, j->src, j->c, 0, y0, ew, m + kh - 1, e, ew, 1);
  column_pass (e, ew, ew, m, pl->sep_col, kh, t);
  for (int i = 0; i < m; i++) {
    row_pass (t + (size_t) i * ew, W, pl->sep_row, kw, r);
    fv_conv_store_row (p, r, pl->scale ? pl->scale + (size_t) (y0 + i) * W : NULL,
        pl->uniform_scale, W, j->c, (char *) j->dst->data + (size_t) (y0 + i) * j->dst->stride);
  }
}

void
fv_conv_separable_channel (const fv_conv_plan *pl, const fv_image *src, int c,
    const fv_image *dst)
{
  band_job j = { pl, src, dst, c, NULL, 0, NULL };
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_for (team, (pl->oh + BAND - 1) / BAND, 0, channel_band, &j);
  fv_team_end (team);
}

static void
run_band (void *ctx, long band, int me)
{
  const band_job *j = ctx;
  const fv_conv_plan *pl = j->pl;
  const int W = pl->ow, H = pl->oh, ew = pl->ew;
  const int kw = pl->p.kernel_width, kh = pl->p.kernel_height, y0 = (int) band * BAND;
  const int m = H - y0 < BAND ? H - y0 : BAND;
  float *t = pl->sep_rows + (size_t) me * fv_conv_separable_scratch (pl)
      + (size_t) (BAND + kh - 1) * ew;
  column_pass (j->buf + (size_t) y0 * j->bstride, j->bstride, ew, m, pl->sep_col, kh, t);
  for (int r = 0; r < m; r++)
    row_pass (t + (size_t) r * ew, W, pl->sep_row, kw, j->out + (size_t) (y0 + r) * W);
}

void
fv_conv_separable_run (const fv_conv_plan *pl, const float *buf, int bstride, float *out)
{
  band_job j = { pl, NULL, NULL, 0, buf, bstride, out };
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_for (team, (pl->oh + BAND - 1) / BAND, 0, run_band, &j);
  fv_team_end (team);
}
