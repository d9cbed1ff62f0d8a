/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_fft.h from GStreamer's FFT library (gst-plugins-base's libgstfft, a
 * kissfft under the LGPL), for builds that must not link FFTW (GPL): the
 * 2D real transforms FFTW would compute, from 1D real ones.
 *
 * Forward, n0 x n1 reals to n0 x (n1/2 + 1) complex numbers: each row's
 * real transform, then each column of those spectra, a complex sequence
 * z = a + ib of n0 values, by two real transforms: Z = A + iB, where A and
 * B (the transforms of a and b) are completed from their halves by
 * A[n0 - j] = conj A[j]. Inverse: each column's complex inverse, by the
 * same split backwards (A[j] = (Z[j] + conj Z[-j]) / 2, B[j] =
 * (Z[j] - conj Z[-j]) / 2i, then a and b by real inverses), then each
 * row's real inverse. Unnormalised both ways, as FFTW. The library's real
 * transforms need even lengths: fv_conv_fast_size gives even, 5-smooth
 * sizes in this build.
 *
 * The library's transform objects keep scratch, so each thread makes its
 * own for each execution (cheap against the transform: O(n) twiddles);
 * nothing is shared between executions, so plans may be executed from
 * several threads at once, as the tiles do. */
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <gst/fft/gstfftf32.h>
#include "fv_conv.h"
#include "fv_fft.h"
#include "../common/fv_parallel.h"

struct fv_fft_plan_s {
  int inverse, n0, n1, nthreads;
  int refs;
};

/* Plans hold only their sizes, but are kept and shared like FFTW's (a new
 * kernel of the same padded size plans nothing): the idle ones stay, up to
 * MAX_IDLE. */
#define MAX_IDLE 16
static GMutex lock;
static GPtrArray *plans;
static long planner_calls;

fv_fft_plan
fv_fft_plan_2d (int inverse, int n0, int n1, int nthreads, int measure, float *r,
    fv_fft_complex *c)
{
  (void) measure;
  (void) r;
  (void) c;
  if (n0 < 2 || n1 < 2 || n0 % 2 || n1 % 2)
    return NULL;   /* the library's real transforms take even lengths */
  nthreads = nthreads > 0 ? nthreads : 1;
  g_mutex_lock (&lock);
  if (!plans)
    plans = g_ptr_array_new_with_free_func (g_free);
  fv_fft_plan p = NULL;
  for (guint i = 0; i < plans->len && !p; i++) {
    fv_fft_plan e = g_ptr_array_index (plans, i);
    if (e->inverse == inverse && e->n0 == n0 && e->n1 == n1 && e->nthreads == nthreads)
      p = e;
  }
  if (!p) {
    p = g_new0 (struct fv_fft_plan_s, 1);
    *p = (struct fv_fft_plan_s) { inverse, n0, n1, nthreads, 0 };
    g_ptr_array_add (plans, p);
    planner_calls++;
  }
  p->refs++;
  g_mutex_unlock (&lock);
  return p;
}

void
fv_fft_release (fv_fft_plan plan)
{
  if (!plan)
    return;
  g_mutex_lock (&lock);
  plan->refs--;
  guint idle = 0;
  for (guint i = 0; i < plans->len; i++)
    idle += ((fv_fft_plan) g_ptr_array_index (plans, i))->refs == 0;
  for (guint i = 0; i < plans->len && idle > MAX_IDLE;) {
    if (((fv_fft_plan) g_ptr_array_index (plans, i))->refs == 0) {
      g_ptr_array_remove_index (plans, i);
      idle--;
    } else {
      i++;
    }
  }
  g_mutex_unlock (&lock);
}

int
fv_fft_wisdom_covers (int inverse, int n0, int n1, int nthreads)
{
  return 1;   /* nothing is measured */
}

long
fv_fft_planner_calls (void)
{
  g_mutex_lock (&lock);
  long n = planner_calls;
  g_mutex_unlock (&lock);
  return n;
}

void
fv_conv_wisdom_use (const char *dir)
{
  (void) dir;   /* no wisdom in this build */
}

float *
fv_fft_alloc_real (size_t n)
{
  return g_malloc_n (n ? n : 1, sizeof (float));
}

fv_fft_complex *
fv_fft_alloc_complex (size_t n)
{
  return g_malloc_n (n ? n : 1, sizeof (fv_fft_complex));
}

void
fv_fft_free (void *p)
{
  g_free (p);
}

/* full[j], j in [0, n), of a real sequence's transform from its half h */
static inline void
full_at (const GstFFTF32Complex *h, int n, int j, float *re, float *im)
{
  if (j <= n / 2) {
    *re = h[j].r;
    *im = h[j].i;
  } else {
    *re = h[n - j].r;
    *im = -h[n - j].i;
  }
}

/* The transforms' passes, each part a contiguous range of rows or columns
 * with its own GstFFT state. */
typedef struct {
  fv_fft_plan p;
  float *r;
  fv_fft_complex *c;
  gboolean inverse;
  int pass;   /* 0: rows, 1: columns */
} fft_job;

/* Rows: each part transforms a contiguous range of them. */
static void
rows (const fft_job *j, int me, int parts, gboolean inverse)
{
  const int n0 = j->p->n0, n1 = j->p->n1, cw = n1 / 2 + 1;
  int y0, y1;
  fv_split_range (n0, parts, me, &y0, &y1);
  GstFFTF32 *row = gst_fft_f32_new (n1, inverse);
  for (int y = y0; y < y1; y++) {
    GstFFTF32Complex *z = (GstFFTF32Complex *) (j->c + (size_t) y * cw);
    if (inverse)
      gst_fft_f32_inverse_fft (row, z, j->r + (size_t) y * n1);
    else
      gst_fft_f32_fft (row, j->r + (size_t) y * n1, z);
  }
  gst_fft_f32_free (row);
}

/* A column pass's state: two real columns a, b transformed at once as the
 * complex column Z = A + iB. */
typedef struct {
  GstFFTF32 *col;
  float *a, *b;
  GstFFTF32Complex *A, *B;
  int n0, cw, ch;
} col_work;

static void
forward_column (const col_work *w, fv_fft_complex *c, int u)
{
  const int n0 = w->n0, cw = w->cw;
  for (int j = 0; j < n0; j++) {
    w->a[j] = c[(size_t) j * cw + u][0];
    w->b[j] = c[(size_t) j * cw + u][1];
  }
  gst_fft_f32_fft (w->col, w->a, w->A);
  gst_fft_f32_fft (w->col, w->b, w->B);
  for (int j = 0; j < n0; j++) {   /* Z = A + iB */
    float ar, ai, br, bi;
    full_at (w->A, n0, j, &ar, &ai);
    full_at (w->B, n0, j, &br, &bi);
    c[(size_t) j * cw + u][0] = ar - bi;
    c[(size_t) j * cw + u][1] = ai + br;
  }
}

static void
inverse_column (const col_work *w, fv_fft_complex *c, int u)
{
  const int n0 = w->n0, cw = w->cw;
  for (int j = 0; j < w->ch; j++) {   /* the halves of A and B from Z */
    const float *z = c[(size_t) j * cw + u], *m = c[(size_t) ((n0 - j) % n0) * cw + u];
    const float dr = z[0] - m[0], di = z[1] + m[1];   /* Z[j] - conj Z[-j] */
    w->A[j].r = 0.5f * (z[0] + m[0]);
    w->A[j].i = 0.5f * (z[1] - m[1]);
    w->B[j].r = 0.5f * di;
    w->B[j].i = -0.5f * dr;
  }
  gst_fft_f32_inverse_fft (w->col, w->A, w->a);
  gst_fft_f32_inverse_fft (w->col, w->B, w->b);
  for (int j = 0; j < n0; j++) {
    c[(size_t) j * cw + u][0] = w->a[j];
    c[(size_t) j * cw + u][1] = w->b[j];
  }
}

/* Columns: each part transforms a contiguous range of them. */
static void
columns (const fft_job *j, int me, int parts, gboolean inverse)
{
  col_work w;
  w.n0 = j->p->n0;
  w.cw = j->p->n1 / 2 + 1;
  w.ch = w.n0 / 2 + 1;
  int u0, u1;
  fv_split_range (w.cw, parts, me, &u0, &u1);
  w.col = gst_fft_f32_new (w.n0, inverse);
  w.a = g_new (float, 2 * (size_t) w.n0);
  w.b = w.a + w.n0;
  w.A = g_new (GstFFTF32Complex, 2 * (size_t) w.ch);
  w.B = w.A + w.ch;
  for (int u = u0; u < u1; u++)
    (inverse ? inverse_column : forward_column) (&w, j->c, u);
  g_free (w.a);
  g_free (w.A);
  gst_fft_f32_free (w.col);
}

/* One pass of a transform as a team's part: j->pass 0 rows, 1 columns. */
static void
one_pass (void *ctx, int me, int parts)
{
  const fft_job *j = ctx;
  (j->pass ? columns : rows) (j, me, parts, j->inverse);
}

/* Forward: rows, then columns; inverse: columns, then rows. */
static void
transform (fv_fft_plan p, float *r, fv_fft_complex *c, gboolean inverse)
{
  fft_job j = { p, r, c, inverse, inverse ? 1 : 0 };
  fv_team team = fv_team_begin (p->nthreads);
  fv_team_run (team, one_pass, &j);
  j.pass = !j.pass;
  fv_team_run (team, one_pass, &j);
  fv_team_end (team);
}

void
fv_fft_r2c (fv_fft_plan p, float *r, fv_fft_complex *c)
{
  transform (p, r, c, FALSE);
}

void
fv_fft_c2r (fv_fft_plan p, fv_fft_complex *c, float *r)
{
  transform (p, r, c, TRUE);
}
