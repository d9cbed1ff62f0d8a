/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fftconvolve's kernel against a double-precision direct sum written from
 * the definition: every output within 1 (8-bit) or 2 (16-bit), for every
 * border, every method (separable for the kernels that are), true convolution and correlation, odd and even kernels, negative taps, kernels wider
 * than the frame, 1x1 kernels and frames, padded strides. */
#include <math.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_conv.h"
#include "fv_config.h"
#include "fv_fft.h"
#include "fv_conv_cuda.h"
#include "fv_env.h"
#include "fv_parallel.h"
#include "fv_cuda.h"

static fv_backend backend = FV_BACKEND_CPU;
static int force_tile;   /* CPU: overlap-add tiles of this side */

static int
separable (const float *k, int kw, int kh)
{
  return fv_conv_separable_check (k, kw, kh, 0.0) == FV_OK;
}

static void
run (int w, int h, int ch, unsigned mask, fv_sample s, const float *k, int kw, int kh,
    int normalize, double bias, fvt_rng *rng, const char *what)
{
  const int sep = separable (k, kw, kh);   /* before the plans: it sets the last error */
  for (int conv = 0; conv <= 1; conv++)
  for (int border = 0; border <= FV_BORDER_WRAP; border++)
    for (int method = FV_CONV_FFT; method <= FV_CONV_SEPARABLE; method++) {
      fv_conv_params p = { .frame.width = w, .frame.height = h, .frame.channels = ch,
          .channel_mask = mask, .frame.sample = s, .kernel = k, .kernel_width = kw,
          .kernel_height = kh, .normalize = normalize, .bias = bias, .border = border,
          .method = method };
      p.tile = force_tile;
      p.convolve = conv;   /* true convolution and filter2D's correlation */
      fv_conv_plan *plan;
      fv_status st = fv_conv_plan_create (&plan, &p, backend, 0, NULL);
      if (method == FV_CONV_SEPARABLE && !sep) {
        FVT_CHECK (st == FV_ERR_INVALID && strstr (fv_last_error (), "not separable"),
            "%s: method separable took a kernel that is not", what);
        if (st == FV_OK)
          fv_conv_plan_destroy (plan);
        continue;
      }
      FVT_CHECK (st == FV_OK, "%s: plan: %s", what, fv_last_error ());
      if (st != FV_OK)
        continue;
      fv_image src = fvt_image_new (w, h, ch, s, 3, rng);
      fv_image dst = fvt_image_new (w, h, ch, s, 5, NULL);
      FVT_CHECK (fv_conv_execute (plan, &src, &dst) == FV_OK, "%s: execute", what);
      double tol = s == FV_U8 ? 1.0 : 2.0, worst = 0;
      long bad = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          for (int c = 0; c < ch; c++) {
            double want = (mask >> c & 1) ? fvt_ref_conv (&p, &src, x, y, c) : fvt_get (&src, x, y, c);
            double d = fabs (fvt_get (&dst, x, y, c) - want);
            worst = d > worst ? d : worst;
            if (d > tol && bad++ < 3)
              fprintf (stderr, "  %s %dx%d %s border %d method %d (%d,%d,%d): got %u want %.3f\n",
                  what, w, h, conv ? "convolve" : "correlate", border, method, x, y, c,
                  fvt_get (&dst, x, y, c), want);
          }
      for (int y = 0; y < h; y++)
        for (size_t i = fv_image_row_bytes (&dst); i < dst.stride; i++)
          bad += ((uint8_t *) dst.data)[(size_t) y * dst.stride + i] != 0xA5;
      FVT_CHECK (bad == 0, "%s %dx%d %d-bit %s border %d method %d: %ld off (worst %.2f)", what,
          w, h, s * 8, conv ? "convolve" : "correlate", border, method, bad, worst);
      fvt_image_free (&src);
      fvt_image_free (&dst);
      fv_conv_plan_destroy (plan);
    }
}

#define WISDOM_W 1280
#define WISDOM_H 720

/* Plans a WISDOM_W x WISDOM_H FFT convolution with FFTW_MEASURE; ms taken. */
static double
plan_measured (const float *k, int kw)
{
  fv_conv_params p = { .frame.width = WISDOM_W, .frame.height = WISDOM_H, .frame.channels = 1,
      .channel_mask = 1, .frame.sample = FV_U8, .kernel = k, .kernel_width = kw,
      .kernel_height = kw, .normalize = 1, .border = FV_BORDER_MIRROR, .method = FV_CONV_FFT,
      .measure = 1 };
  p.tile = -1;
  fv_conv_plan *plan = NULL;
  gint64 t0 = g_get_monotonic_time ();
  fv_status st = fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL);
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  FVT_CHECK (st == FV_OK, "720p plan: %s", fv_last_error ());
  fv_conv_plan_destroy (plan);
  return ms;
}

/* In a child process (FFTW's state starts empty): loads the wisdom file,
 * plans, saves; exits 0 when, with need_wisdom, the loaded wisdom alone
 * planned both transforms (no measuring: what makes a restart instant). */
static int
child_plans (const char *wisdom, const float *k, int need_wisdom, double *ms)
{
  int fd[2];
  if (pipe (fd) != 0)
    return 0;
  pid_t pid = fork ();
  if (pid == 0) {
    close (fd[0]);
    /* measurements that finish whatever the machine's load: one cut short
     * by the time limit would save no wisdom, and the check be moot */
    setenv (FV_ENV_FFT_PLAN_SECONDS, "120", 1);
    fv_conv_wisdom_use (wisdom);
    int threads = fv_threads_resolve (0);
    int pw = fv_conv_fast_size (WISDOM_W + 14), ph = fv_conv_fast_size (WISDOM_H + 14);
    int covered = fv_fft_wisdom_covers (0, ph, pw, threads)
        && fv_fft_wisdom_covers (1, ph, pw, threads);
    double t = plan_measured (k, 15);
    (void) !write (fd[1], &t, sizeof t);
    _exit ((covered || !need_wisdom) && fvt_failures == 0 ? 0 : 1);
  }
  close (fd[1]);
  *ms = -1;
  (void) !read (fd[0], ms, sizeof *ms);
  close (fd[0]);
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* Wisdom accumulates and is reused: a second process plans the same size
 * in at most 50 ms and the file does not shrink; in one process, a new
 * kernel of the same padded size (a gaussian-sigma change) plans no FFT. */
/* Bytes and files of the wisdom store, and the inode of its first file. */
static gsize
store_bytes (const char *dir, int *files, guint64 *inode)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  gsize bytes = 0;
  const char *name;
  *files = 0;
  *inode = 0;
  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    GStatBuf st;
    if (g_stat (path, &st) == 0) {
      bytes += st.st_size;
      if (g_str_has_prefix (name, "r2c-"))
        *inode = st.st_ino;
    }
    (*files)++;
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  return bytes;
}

static void
store_clear (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

#if FV_FFT_FFTW
/* The store keeps at most FV_FFT_WISDOM_KEEP transforms, the last used:
 * a child plans more sizes than that, measured. */
static void
wisdom_bounded (const char *wisdom)
{
  const int sizes = FV_FFT_WISDOM_KEEP / 2 + 8;   /* each a forward and an inverse */
  pid_t pid = fork ();
  if (pid == 0) {
    fv_conv_wisdom_use (wisdom);
    for (int i = 0; i < sizes; i++) {
      const int n0 = 8, n1 = 8 + 2 * i;
      float *r = fv_fft_alloc_real ((size_t) n0 * n1);
      fv_fft_complex *c = fv_fft_alloc_complex ((size_t) n0 * (n1 / 2 + 1));
      for (int inv = 0; inv < 2; inv++)
        fv_fft_release (fv_fft_plan_2d (inv, n0, n1, 1, 1, r, c));
      fv_fft_free (r);
      fv_fft_free (c);
      g_usleep (G_USEC_PER_SEC / 100);   /* distinct modification times where they are fine */
    }
    _exit (0);
  }
  int status = 0;
  waitpid (pid, &status, 0);
  int files;
  guint64 inode;
  store_bytes (wisdom, &files, &inode);
  FVT_CHECK (files == FV_FFT_WISDOM_KEEP, "the store holds %d transforms after %d measured, "
      "not the %d kept", files, 2 * sizes, FV_FFT_WISDOM_KEEP);
  gchar *last = g_strdup_printf ("%s/c2r-8x%d-t1", wisdom, 8 + 2 * (sizes - 1));
  FVT_CHECK (g_file_test (last, G_FILE_TEST_EXISTS), "the last size used was dropped");
  g_free (last);
}
#endif

/* FFTW_MEASURE planning persists across processes: the first start measures
 * and saves the wisdom, a second one finds everything it needs there (no
 * measuring) and leaves the files as they were (nothing learnt, nothing
 * rewritten); in one process, a new kernel of the same padded size (a
 * gaussian-sigma change) plans no FFT. */
static void
planning_persists (const float *k15, const float *k13)
{
  gchar *wisdom = g_dir_make_tmp ("fvwisdomXXXXXX", NULL);
  double cold, warm;
  child_plans (wisdom, k15, 0, &cold);
  int files_before, files_after;
  guint64 inode_before, inode_after;
  gsize before = store_bytes (wisdom, &files_before, &inode_before);
#if FV_FFT_FFTW
  FVT_CHECK (before > 0 && files_before == 2, "%d wisdom files saved (%zu bytes), not one for "
      "each of the two transforms", files_before, before);
#endif
  int reused = child_plans (wisdom, k15, 1, &warm);
  printf ("%dx%d FFT plan: %.1f ms cold, %.1f ms with the saved wisdom (docs/benchmarks.md "
      "has the idle machine's 720p figures)\n", WISDOM_W, WISDOM_H, cold, warm);
#if FV_FFT_FFTW   /* FFTW's wisdom; GStreamer's FFT library measures nothing */
  FVT_CHECK (reused, "a second start measured again: the saved wisdom did not cover its "
      "transforms");
  gsize after = store_bytes (wisdom, &files_after, &inode_after);
  FVT_CHECK (after == before && files_after == files_before && inode_after == inode_before,
      "a start that learnt nothing rewrote the wisdom (%zu -> %zu bytes, inode %llu -> %llu)",
      before, after, (unsigned long long) inode_before, (unsigned long long) inode_after);
  store_clear (wisdom);
  wisdom_bounded (wisdom);
#else
  (void) reused;
  (void) files_after;
  (void) inode_after;
#endif
  store_clear (wisdom);
  g_free (wisdom);
  /* same padded size, another kernel: the transforms are reused */
  plan_measured (k15, 15);
  long calls = fv_fft_planner_calls ();
  plan_measured (k13, 13);
  FVT_CHECK (fv_fft_planner_calls () == calls, "a new kernel of the same padded size planned "
      "%ld transforms again", fv_fft_planner_calls () - calls);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "--cuda")) {
    if (fv_cuda_device_count () == 0) {
      printf ("test_conv --cuda: no GPU, skipped\n");
      return FVTEST_SKIP;
    }
    backend = FV_BACKEND_CUDA;
  }
  fvt_rng rng = { 99 };
  float one[1] = { 1.0f }, k33[9], k54[20], edge[9] = { -1, -1, -1, -1, 8, -1, -1, -1, -1 };
  float big[41 * 37], gauss[15 * 15];
  for (int i = 0; i < 9; i++) k33[i] = 0.1f + (fvt_next (&rng) % 100) / 100.0f;
  for (int i = 0; i < 20; i++) k54[i] = (fvt_next (&rng) % 100) / 50.0f - 0.4f;
  for (int i = 0; i < 41 * 37; i++) big[i] = 0.5f + (fvt_next (&rng) % 100) / 100.0f;
  for (int j = 0; j < 15; j++)
    for (int i = 0; i < 15; i++)
      gauss[j * 15 + i] = expf (-((i - 7) * (i - 7) + (j - 7) * (j - 7)) / (2 * 2.0f * 2.0f));
  /* separable: a derivative across times a smoothing down (zero sum,
   * negative taps, even height), a box; a Gaussian with one tap off by
   * 1e-4 of the largest is not */
  const float scol[4] = { 1, 3, 3, 1 }, srow[5] = { -1, -2, 0, 2, 1 };
  float sobel[4 * 5], box[7 * 3], near[15 * 15], col[15], row[15];
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 5; i++)
      sobel[j * 5 + i] = scol[j] * srow[i];
  for (int i = 0; i < 21; i++)
    box[i] = 1.0f;
  memcpy (near, gauss, sizeof near);
  near[3 * 15 + 9] += 1e-4f;
  FVT_CHECK (separable (gauss, 15, 15) && separable (sobel, 5, 4) && separable (box, 7, 3)
      && separable (one, 1, 1), "outer products not found separable");
  FVT_CHECK (!separable (near, 15, 15) && !separable (k33, 3, 3) && !separable (edge, 3, 3),
      "a kernel that is no outer product found separable");
  FVT_CHECK (fv_conv_separate (sobel, 5, 4, col, row) && fabsf (col[3] * row[4] - sobel[19]) < 1e-6f
      && fabsf (col[0] * row[1] - sobel[1]) < 1e-6f, "the column and row do not rebuild the kernel");
  {   /* a kernel file's rounding: a 4-decimal Gaussian is an outer product within it,
       * a 4-decimal Laplacian of Gaussian is not, and exact taps get no slack */
    const float g4[25] = { 0.0030f, 0.0133f, 0.0219f, 0.0133f, 0.0030f, 0.0133f, 0.0596f,
      0.0983f, 0.0596f, 0.0133f, 0.0219f, 0.0983f, 0.1621f, 0.0983f, 0.0219f, 0.0133f, 0.0596f,
      0.0983f, 0.0596f, 0.0133f, 0.0030f, 0.0133f, 0.0219f, 0.0133f, 0.0030f };
    const float log4[25] = { 0, 0, -0.01f, 0, 0, 0, -0.01f, -0.02f, -0.01f, 0, -0.01f, -0.02f,
      0.16f, -0.02f, -0.01f, 0, -0.01f, -0.02f, -0.01f, 0, 0, 0, -0.01f, 0, 0 };
    float c5[5], r5[5];
    FVT_CHECK (fv_conv_separate_within (g4, 5, 5, 5e-5, c5, r5)
        && !fv_conv_separate_within (g4, 5, 5, 0, c5, r5)
        && !fv_conv_separate_within (log4, 5, 5, 5e-5, c5, r5)
        && fv_conv_separable_check (g4, 5, 5, 5e-5) == FV_OK
        && fv_conv_separable_check (log4, 5, 5, 5e-5) == FV_ERR_INVALID,
        "separability within a file's rounding");
  }
  if (backend == FV_BACKEND_CPU) {
    float k13[13 * 13];
    for (int i = 0; i < 13 * 13; i++)
      k13[i] = 1.0f + (i % 7);
    planning_persists (gauss, k13);
  }
  if (backend == FV_BACKEND_CPU) {   /* auto's choice, pinned (after the forks
                                        above: worker threads do not survive one) */
    fv_conv_params p = { .frame.width = 129, .frame.height = 67, .frame.channels = 1,
        .channel_mask = 1, .frame.sample = FV_U8, .kernel = gauss, .kernel_width = 15,
        .kernel_height = 15, .normalize = 1, .border = FV_BORDER_MIRROR, .method = FV_CONV_AUTO };
    const struct { const float *k; fv_conv_method want; } cases[] = {
      /* the near-Gaussian: FFT with FFTW; direct sums with GStreamer's 4x slower
       * FFT (cost model: 28 n log2 n against 129 * 67 * 225 taps) */
      { gauss, FV_CONV_SEPARABLE }, { near, FV_FFT_FFTW ? FV_CONV_FFT : FV_CONV_DIRECT } };
    for (int c = 0; c < 2; c++) {
      fv_conv_plan *plan;
      p.kernel = cases[c].k;
      FVT_CHECK (fv_conv_plan_create (&plan, &p, backend, 0, NULL) == FV_OK, "auto plan");
      FVT_CHECK (fv_conv_plan_method (plan) == cases[c].want, "auto chose method %d for case "
          "%d, not %d", fv_conv_plan_method (plan), c, cases[c].want);
      fv_conv_plan_destroy (plan);
    }
  }
  int sizes[][2] = { {1, 1}, {3, 7}, {17, 1}, {1, 17}, {31, 19}, {64, 48}, {129, 67} };
  for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    int w = sizes[si][0], h = sizes[si][1];
    run (w, h, 1, 1, FV_U8, one, 1, 1, 1, 0, &rng, "1x1 kernel");
    run (w, h, 1, 1, FV_U8, k33, 3, 3, 1, 0, &rng, "3x3");
    run (w, h, 3, 0x5, FV_U8, k54, 5, 4, 1, 0, &rng, "5x4 even, negative taps");
    run (w, h, 1, 1, FV_U16, gauss, 15, 15, 1, 0, &rng, "gaussian 15, 16-bit");
    run (w, h, 1, 1, FV_U8, edge, 3, 3, 0, 128, &rng, "edge kernel, bias 128");
    run (w, h, 1, 1, FV_U8, sobel, 5, 4, 0, 128, &rng, "separable 5x4 even, zero sum, bias 128");
    run (w, h, 3, 0x6, FV_U16, sobel, 5, 4, 0, 30000, &rng, "separable 5x4, 16-bit");
    run (w, h, 1, 1, FV_U8, box, 7, 3, 1, 0, &rng, "box 7x3");
    if (w * h <= 2000)
      run (w, h, 1, 1, FV_U8, big, 41, 37, 1, 0, &rng, "kernel wider than the frame");
  }
  /* a real photo, every border and both methods, 8-bit grey and colour */
  {
    const char *data = getenv ("FV_TEST_DATA") ? getenv ("FV_TEST_DATA") : "tests/data";
    const char *names[] = { "astronaut-160x120.pgm", "astronaut-160x120.ppm" };
    for (int n = 0; n < 2; n++) {
      char path[512];
      snprintf (path, sizeof path, "%s/%s", data, names[n]);
      fv_image *im = fvt_load_pnm (path);
      FVT_CHECK (im != NULL, "cannot read %s", path);
      if (!im)
        continue;
      for (int border = 0; border <= FV_BORDER_WRAP; border++)
        for (int method = FV_CONV_FFT; method <= FV_CONV_SEPARABLE; method++) {
          fv_conv_params p = { .frame.width = im->width, .frame.height = im->height,
              .frame.channels = im->channels, .channel_mask = (1u << im->channels) - 1,
              .frame.sample = FV_U8, .kernel = gauss, .kernel_width = 15, .kernel_height = 15,
              .normalize = 1, .border = border, .method = method };
          fv_conv_plan *plan;
          FVT_CHECK (fv_conv_plan_create (&plan, &p, backend, 0, NULL) == FV_OK, "plan");
          fv_image dst = fvt_image_new (im->width, im->height, im->channels, FV_U8, 0, NULL);
          fv_conv_execute (plan, im, &dst);
          long bad = 0;
          for (int y = 0; y < im->height; y++)
            for (int x = 0; x < im->width; x++)
              for (int c = 0; c < im->channels; c++)
                bad += fabs (fvt_get (&dst, x, y, c) - fvt_ref_conv (&p, im, x, y, c)) > 1.0;
          FVT_CHECK (bad == 0, "%s border %d method %d: %ld off", names[n], border, method, bad);
          fvt_image_free (&dst);
          fv_conv_plan_destroy (plan);
        }
      fvt_image_free (im);
      free (im);
    }
  }
  /* tiles (CPU overlap-add, GPU overlap-save batches), forced small so
   * that frames hold many of them, and forced off */
  force_tile = 13;
  for (unsigned si = 4; si < sizeof sizes / sizeof sizes[0]; si++) {
    run (sizes[si][0], sizes[si][1], 1, 1, FV_U8, k33, 3, 3, 1, 0, &rng, "tiled 3x3");
    run (sizes[si][0], sizes[si][1], 3, 0x3, FV_U16, k54, 5, 4, 1, 0, &rng, "tiled 5x4, 16-bit");
    run (sizes[si][0], sizes[si][1], 1, 1, FV_U8, gauss, 15, 15, 1, 0, &rng, "tiled gaussian");
  }
  if (backend == FV_BACKEND_CUDA) {   /* tiles of a multiple of 4: the word loads and stores */
    force_tile = 12;
    for (unsigned si = 4; si < sizeof sizes / sizeof sizes[0]; si++) {
      run (sizes[si][0], sizes[si][1], 1, 1, FV_U8, k33, 3, 3, 1, 0, &rng, "tiled by 12, 3x3");
      run (sizes[si][0], sizes[si][1], 1, 1, FV_U8, gauss, 15, 15, 1, 0, &rng, "tiled by 12");
    }
  }
  force_tile = -1;
  run (64, 48, 1, 1, FV_U8, k33, 3, 3, 1, 0, &rng, "untiled");
  run (61, 47, 1, 1, FV_U8, gauss, 15, 15, 1, 0, &rng, "untiled gaussian");
  force_tile = 0;
  if (backend == FV_BACKEND_CUDA) {   /* the layouts those runs pinned */
    for (int t = -1; t <= 13; t += 14) {
      fv_conv_params p = { .frame.width = 61, .frame.height = 47, .frame.channels = 1,
          .channel_mask = 1, .frame.sample = FV_U8, .kernel = gauss, .kernel_width = 15,
          .kernel_height = 15, .normalize = 1, .border = FV_BORDER_MIRROR,
          .method = FV_CONV_FFT };
      p.tile = t;
      fv_conv_plan *plan;
      int px = 0, py = 0, n = 0;
      FVT_CHECK (fv_conv_plan_create (&plan, &p, backend, 0, NULL) == FV_OK, "plan: %s",
          fv_last_error ());
#if FV_HAVE_CUDA   /* with a plan made, this build has CUDA */
      fv_conv_cuda_layout (fv_conv_plan_cuda (plan), &px, &py, &n);
#endif
      FVT_CHECK (t < 0 ? n == 1 && px >= 61 + 14 && py >= 47 + 14
          : n == 5 * 4 && px == 13 + 14 && py == 13 + 14,
          "tile %d: layout %dx%d x %d", t, px, py, n);
      fv_conv_plan_destroy (plan);
    }
  }
  /* kernel grids: 1x1 equals the plain convolution; identical kernels equal
   * it within 1; a varying grid matches the blend of reference results */
  /* GPU: FFT cells share the frame's forward transforms; auto makes the
   * 3x3 and 1x1 kernels direct, and a grid with a direct cell transforms
   * each cell's window (both paths run, and are checked to be the ones) */
  for (int tile = 0; tile <= (backend == FV_BACKEND_CUDA ? 11 : 0); tile += 11)
  for (int method = FV_CONV_FFT; method >= FV_CONV_AUTO; method--) {   /* CPU auto: separable cells */
    for (int border = 0; border <= FV_BORDER_WRAP; border++) {
      int w = 53, h = 37;
      fv_image src = fvt_image_new (w, h, 1, FV_U8, 2, &rng);
      fv_image a = fvt_image_new (w, h, 1, FV_U8, 0, NULL), b = fvt_image_new (w, h, 1, FV_U8, 0, NULL);
      fv_conv_params p = { .frame.width = w, .frame.height = h, .frame.channels = 1,
          .channel_mask = 1, .frame.sample = FV_U8, .kernel = k33, .kernel_width = 3,
          .kernel_height = 3, .normalize = 1, .border = border, .method = method };
      p.tile = tile;   /* GPU: overlap-save tiles of the frame or of each window */
      fv_conv_plan *plain;
      FVT_CHECK (fv_conv_plan_create (&plain, &p, backend, 0, NULL) == FV_OK, "plan");
      fv_conv_execute (plain, &src, &a);
      const float *ks[12];
      int kws[12], khs[12];
      for (int i = 0; i < 12; i++) { ks[i] = k33; kws[i] = khs[i] = 3; }
      fv_conv_grid *g;
      FVT_CHECK (fv_conv_grid_create (&g, &p, 1, 1, ks, kws, khs, backend, 0, NULL) == FV_OK, "grid 1x1");
      fv_conv_grid_execute (g, &src, &b);
      /* bit for bit, except where the GPU times its layouts (tile 0, FFT):
       * the grid's choice, by its own cost, may differ from the plain
       * plan's, and with it the float rounding (within the bound of 1) */
      const int slack = backend == FV_BACKEND_CUDA && tile == 0 && method == FV_CONV_FFT ? 1 : 0;
      long bad = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          bad += abs ((int) fvt_get (&a, x, y, 0) - (int) fvt_get (&b, x, y, 0)) > slack;
      FVT_CHECK (bad == 0, "1x1 grid differs from the plain convolution by more than %d at %ld "
          "pixels", slack, bad);
      fv_conv_grid_destroy (g);
      FVT_CHECK (fv_conv_grid_create (&g, &p, 4, 3, ks, kws, khs, backend, 0, NULL) == FV_OK, "grid 4x3");
      fv_conv_grid_execute (g, &src, &b);
      bad = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          bad += abs ((int) fvt_get (&a, x, y, 0) - (int) fvt_get (&b, x, y, 0)) > 1;
      FVT_CHECK (bad == 0, "grid of identical kernels off by more than 1 at %ld pixels", bad);
      fv_conv_grid_destroy (g);
      /* 3x2 different kernels against the blend of references */
      const float *kv[6] = { k33, gauss, one, big, k33, one };
      int kvw[6] = { 3, 15, 1, 41, 3, 1 }, kvh[6] = { 3, 15, 1, 37, 3, 1 };
      FVT_CHECK (fv_conv_grid_create (&g, &p, 3, 2, kv, kvw, kvh, backend, 0, NULL) == FV_OK, "grid 3x2");
      if (backend == FV_BACKEND_CUDA)
        FVT_CHECK ((fv_conv_grid_shared_pairs (g) > 0) == (method == FV_CONV_FFT),
            "grid 3x2, method %d: %d shared pairs", method, fv_conv_grid_shared_pairs (g));
      fv_conv_grid_execute (g, &src, &b);
      bad = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
          double want = 0;
          for (int c = 0; c < 6; c++) {
            double wt = fv_conv_grid_weight (x, w, 3, c % 3) * fv_conv_grid_weight (y, h, 2, c / 3);
            if (wt <= 0)
              continue;
            fv_conv_params q = p;
            q.kernel = kv[c]; q.kernel_width = kvw[c]; q.kernel_height = kvh[c];
            want += wt * fvt_ref_conv (&q, &src, x, y, 0);
          }
          bad += fabs (fvt_get (&b, x, y, 0) - want) > 1.0;
        }
      FVT_CHECK (bad == 0, "varying grid, border %d, tile %d, method %d: %ld pixels off", border,
          tile, method, bad);
      /* weights sum to one everywhere */
      for (int x = 0; x < w; x++) {
        double s = 0;
        for (int i = 0; i < 3; i++)
          s += fv_conv_grid_weight (x, w, 3, i);
        FVT_CHECK (fabs (s - 1) < 1e-6, "weights at x=%d sum to %f", x, s);
      }
      fv_conv_grid_destroy (g);
      fv_conv_plan_destroy (plain);
      fvt_image_free (&src);
      fvt_image_free (&a);
      fvt_image_free (&b);
    }
  }
  /* bad kernels */
  float zero_sum[3] = { 1, -2, 1 }, nan_k[2] = { 1, NAN };
  fv_conv_params p = { .frame.width = 8, .frame.height = 8, .frame.channels = 1,
      .channel_mask = 1, .frame.sample = FV_U8, .kernel = zero_sum, .kernel_width = 3,
      .kernel_height = 1, .normalize = 1 };
  fv_conv_plan *plan;
  FVT_CHECK (fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "zero-sum kernel normalized");
  p.kernel = nan_k; p.kernel_width = 2; p.normalize = 0;
  FVT_CHECK (fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "NaN kernel accepted");
#if FV_FFT_FFTW   /* 7-smooth */
  FVT_CHECK (fv_conv_fast_size (97) == 98 && fv_conv_fast_size (1) == 1
      && fv_conv_fast_size (1081) == 1120, "fast sizes");
#else   /* even and 5-smooth, the least such size */
  FVT_CHECK (fv_conv_fast_size (97) == 100 && fv_conv_fast_size (1) == 2
      && fv_conv_fast_size (1081) == 1152, "fast sizes");
#endif
  return fvt_summary (backend == FV_BACKEND_CUDA ? "test_conv --cuda" : "test_conv");
}
