/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU benchmark of fftconvolve's kernel (not run by CI): 1080p/4K GRAY8 with
 * box-like kernels of 7, 31 and 101 taps a side, FFT and direct where
 * sensible; a Gaussian of sigma 3 (19 x 19, gaussian-sigma=3) at 720p,
 * 1080p and 4K by every method. Prints "fastvision SIZE kK METHOD MS" and
 * "fastvision SIZE gauss3 METHOD MS" (medians). --quick: 1080p (gauss3:
 * 720p and 1080p); --gauss: the gauss3 rows alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "bench_time.h"
#include "fv_conv.h"

static const char *method_names[] = { "auto", "fft", "direct", "separable" };

/* Median ms of 5 runs of plan on a w x h frame of a hash pattern. */
static double
time_plan (fv_conv_plan *plan, int w, int h)
{
  unsigned char *a = malloc ((size_t) w * h), *b = malloc ((size_t) w * h);
  for (size_t i = 0; i < (size_t) w * h; i++)
    a[i] = (unsigned char) (i * 2654435761u >> 24);
  fv_image A = fv_image_make (a, w, w, h, 1, FV_U8, FV_MEM_HOST), B = A;
  B.data = b;
  fv_conv_execute (plan, &A, &B);
  double t[5];
  for (int i = 0; i < 5; i++) {
    double t0 = now_ms ();
    fv_conv_execute (plan, &A, &B);
    t[i] = now_ms () - t0;
  }
  qsort (t, 5, sizeof (double), cmp_double);
  free (a);
  free (b);
  return t[2];
}

/* gaussian-sigma=3's kernel (fv_kernel_gaussian's formula) by each method. */
static void
gaussian_rows (int nsizes)
{
  struct { const char *name; int w, h; } sizes[] = { {"720p", 1280, 720}, {"1080p", 1920, 1080},
    {"4K", 3840, 2160} };
  const int r = 9, k = 2 * r + 1;
  float kern[19 * 19];
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++)
      kern[j * k + i] = (float) exp (-((i - r) * (i - r) + (j - r) * (j - r)) / 18.0);
  for (int si = 0; si < nsizes; si++)
    for (int m = FV_CONV_AUTO; m <= FV_CONV_SEPARABLE; m++) {
      fv_conv_params p = { .frame.width = sizes[si].w, .frame.height = sizes[si].h,
          .frame.channels = 1, .channel_mask = 1, .frame.sample = FV_U8, .kernel = kern,
          .kernel_width = k, .kernel_height = k, .normalize = 1, .border = FV_BORDER_MIRROR,
          .method = m, .measure = 1 };
      fv_conv_plan *plan;
      if (fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) != FV_OK)
        exit (1);
      printf ("fastvision %s gauss3 %s %.3f\n", sizes[si].name, method_names[m],
          time_plan (plan, sizes[si].w, sizes[si].h));
      fflush (stdout);
      fv_conv_plan_destroy (plan);
    }
}


int
main (int argc, char **argv)
{
  struct { const char *name; int w, h; } sizes[] = { {"1080p", 1920, 1080}, {"4K", 3840, 2160},
    {"8K", 7680, 4320} };
  int ks[] = { 7, 31, 101 };
  int nsizes = argc > 1 && !strcmp (argv[1], "--quick") ? 1 : 3;
  gaussian_rows (nsizes == 1 ? 2 : 3);
  if (argc > 1 && !strcmp (argv[1], "--gauss"))   /* the gauss3 rows alone */
    return 0;
  for (int si = 0; si < nsizes; si++)
    for (int ki = 0; ki < 3; ki++)
      for (int m = FV_CONV_FFT; m <= FV_CONV_DIRECT; m++) {
        int w = sizes[si].w, h = sizes[si].h, k = ks[ki];
        if (m == FV_CONV_DIRECT && (k > 31 || si == 2))
          continue;   /* minutes per frame */
        float *kern = malloc (sizeof (float) * k * k);
        for (int i = 0; i < k * k; i++)
          kern[i] = 1.0f + (i % 7) * 0.1f;
        unsigned char *a = malloc ((size_t) w * h), *b = malloc ((size_t) w * h);
        for (size_t i = 0; i < (size_t) w * h; i++)
          a[i] = (unsigned char) (i * 2654435761u >> 24);
        fv_conv_params p = { .frame.width = w, .frame.height = h, .frame.channels = 1,
            .channel_mask = 1, .frame.sample = FV_U8, .kernel = kern, .kernel_width = k,
            .kernel_height = k, .normalize = 1, .border = FV_BORDER_MIRROR, .method = m,
            .measure = 1 };
        fv_conv_plan *plan;
        if (fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) != FV_OK)
          return 1;
        fv_image A = fv_image_make (a, w, w, h, 1, FV_U8, FV_MEM_HOST), B = A;
        B.data = b;
        fv_conv_execute (plan, &A, &B);
        double t[9];
        int reps = 5;
        for (int i = 0; i < reps; i++) {
          double t0 = now_ms ();
          fv_conv_execute (plan, &A, &B);
          t[i] = now_ms () - t0;
        }
        qsort (t, reps, sizeof (double), cmp_double);
        printf ("fastvision %s k%d %s %.3f\n", sizes[si].name, k, m == FV_CONV_FFT ? "fft" : "direct",
            t[reps / 2]);
        fflush (stdout);
        fv_conv_plan_destroy (plan);
        free (kern); free (a); free (b);
      }
  /* a 3x3 grid of 101x101 kernels */
  for (int si = 0; si < (nsizes < 2 ? nsizes : 2); si++) {
    int w = sizes[si].w, h = sizes[si].h, k = 101;
    float *kern = malloc (sizeof (float) * k * k);
    for (int i = 0; i < k * k; i++)
      kern[i] = 1.0f + (i % 5) * 0.1f;
    const float *ks[9];
    int kws[9], khs[9];
    for (int i = 0; i < 9; i++) { ks[i] = kern; kws[i] = khs[i] = k; }
    unsigned char *a = malloc ((size_t) w * h), *b = malloc ((size_t) w * h);
    memset (a, 77, (size_t) w * h);
    fv_conv_params p = { .frame.width = w, .frame.height = h, .frame.channels = 1,
        .channel_mask = 1, .frame.sample = FV_U8, .kernel = kern, .kernel_width = k,
        .kernel_height = k, .normalize = 1, .border = FV_BORDER_MIRROR, .method = FV_CONV_FFT,
        .measure = 1 };
    fv_conv_grid *g;
    if (fv_conv_grid_create (&g, &p, 3, 3, ks, kws, khs, FV_BACKEND_CPU, 0, NULL) != FV_OK)
      return 1;
    fv_image A = fv_image_make (a, w, w, h, 1, FV_U8, FV_MEM_HOST), B = A;
    B.data = b;
    fv_conv_grid_execute (g, &A, &B);
    double t0 = now_ms ();
    for (int i = 0; i < 3; i++)
      fv_conv_grid_execute (g, &A, &B);
    printf ("fastvision %s grid3x3-k101 fft %.3f\n", sizes[si].name, (now_ms () - t0) / 3);
    fv_conv_grid_destroy (g);
    free (kern); free (a); free (b);
  }
  return 0;
}
