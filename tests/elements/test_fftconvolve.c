/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fftconvolve in GstHarness: output against the double direct sum (luma of
 * YUV, colour channels of RGB, alpha untouched), kernels from text and PGM
 * files, a separable kernel by method=separable (and the method refusing
 * one that is not), every bad kernel file refused with file, line and reason, a bad
 * kernel set while playing keeping the old one, and no CUDA path yet. */
#include <math.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fvtest-gst.h"
#include "fvgstcheck.h"
#include "fv_conv.h"
#include "fv_cuda.h"

static gchar *tmpdir;

static gchar *
write_file (const char *name, const char *data, gssize len)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  fail_unless (g_file_set_contents (path, data, len, NULL));
  return path;
}

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("fvconvXXXXXX", NULL);
  /* plan with FFTW's wisdom in a private cache, not the user's */
  g_setenv ("XDG_CACHE_HOME", tmpdir, TRUE);
}

#define random_frame(info, seed) fvt_random_buffer ((info), 1000 + (seed))

/* Plane 0's colour channels within 1 of the reference; everything else
 * (alpha, chroma planes) unchanged. */
static void
check (GstVideoInfo *info, GstBuffer *in, GstBuffer *out, const float *k, int kw, int kh,
    gboolean normalize, double bias, fv_border border, unsigned mask, gboolean convolve)
{
  GstVideoFrame fi, fo;
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  int ch = GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, 0);
  fv_conv_params p = { .frame.width = GST_VIDEO_FRAME_WIDTH (&fi),
      .frame.height = GST_VIDEO_FRAME_HEIGHT (&fi), .frame.channels = ch, .channel_mask = mask,
      .frame.sample = FV_U8, .kernel = k, .kernel_width = kw, .kernel_height = kh,
      .normalize = normalize, .bias = bias, .border = border, .method = FV_CONV_AUTO };
  p.convolve = convolve;
  fv_image a = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (&fi, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0), p.frame.width, p.frame.height, ch, FV_U8, FV_MEM_HOST);
  fv_image b = a;
  b.data = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  b.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
  long bad = 0;
  for (int y = 0; y < p.frame.height; y++)
    for (int x = 0; x < p.frame.width; x++)
      for (int c = 0; c < ch; c++) {
        double want = (mask >> c & 1) ? fvt_ref_conv (&p, &a, x, y, c) : fvt_get (&a, x, y, c);
        bad += fabs (fvt_get (&b, x, y, c) - want) > 1.0;
      }
  for (guint pl = 1; pl < GST_VIDEO_FRAME_N_PLANES (&fi); pl++)
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fi, pl); y++)
      bad += memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, pl) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, pl),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, pl) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, pl),
          GST_VIDEO_FRAME_COMP_WIDTH (&fi, pl) * GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, pl)) != 0;
  fail_unless (bad == 0, "%ld samples off", bad);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
}

static GstHarness *
harness (const char *format, int w, int h, GstVideoInfo *info)
{
  GstHarness *hh = gst_harness_new ("fftconvolve");
  gst_video_info_set_format (info, gst_video_format_from_string (format), w, h);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (info));
  return hh;
}

/* Setting prop to path (and the element's other properties to props, a
 * launch-line fragment) must fail the state change with an error whose
 * message holds expect. */
static void
expect_refused_with (const char *props, const char *prop, const char *path, const char *expect)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=16 ! fftconvolve name=f %s ! fakesink", props);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  g_object_set (f, prop, path, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 5 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s accepted", path);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, expect) != NULL, "%s: %s", path, err->message);
  fail_unless (g_utf8_validate (err->message, -1, NULL));
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipe);
}

static void
expect_refused (const char *prop, const char *path, const char *expect)
{
  expect_refused_with ("", prop, path, expect);
}

GST_START_TEST (test_kernel_files_and_formats)
{
  const float k[6] = { 1, 2, 3, -1, 0.5f, 4 };
  gchar *txt = write_file ("k.txt", "# a 3x2 kernel\n1, 2 3\n-1 0.5 4  # end\n", -1);
  const char *formats[] = { "GRAY8", "I420", "RGBA", "NV12" };
  const unsigned masks[] = { 1, 1, 0x7, 1 };
  /* an asymmetric kernel of even height: convolved by default, correlated
   * (OpenCV's filter2D) with correlate=true */
  for (int f = 0; f < 4; f++)
    for (int border = 0; border <= FV_BORDER_WRAP; border++)
    for (int corr = 0; corr <= 1; corr++) {
      GstVideoInfo info;
      GstHarness *hh = harness (formats[f], 37, 21, &info);
      g_object_set (hh->element, "kernel", txt, "border", border, NULL);
      if (corr)
        g_object_set (hh->element, "correlate", TRUE, NULL);
      GstBuffer *in = random_frame (&info, f * 10 + border);
      GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
      fail_unless (out != NULL);
      check (&info, in, out, k, 3, 2, TRUE, 0, border, masks[f], !corr);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (hh);
    }
  /* a separable kernel (a column times a row) by method=separable, every
   * format and border; the same method refuses the 3x2 kernel above */
  const float ks[6] = { 1, 2, 1, -2, -4, -2 };
  gchar *sep = write_file ("sep.txt", "1 2 1\n-2 -4 -2\n", -1);
  for (int f = 0; f < 4; f++)
    for (int border = 0; border <= FV_BORDER_WRAP; border++) {
      GstVideoInfo info;
      GstHarness *hh = harness (formats[f], 37, 21, &info);
      g_object_set (hh->element, "kernel", sep, "border", border, "normalize", FALSE, "bias",
          300.0, NULL);
      gst_util_set_object_arg (G_OBJECT (hh->element), "method", "separable");
      GstBuffer *in = random_frame (&info, f * 10 + border + 5);
      GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
      fail_unless (out != NULL);
      check (&info, in, out, ks, 3, 2, FALSE, 300.0, border, masks[f], TRUE);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (hh);
    }
  expect_refused_with ("method=separable", "kernel", txt, "kernel is not separable");
  g_free (sep);
  /* a normalised 5x5 Gaussian written with 4 decimals is separable within
   * its own rounding (method=separable takes it, the output is the
   * kernel's within the usual bound); a 4-decimal kernel that is no outer
   * product (a Laplacian of Gaussian) is still refused */
  const float g4[25] = { 0.0030f, 0.0133f, 0.0219f, 0.0133f, 0.0030f, 0.0133f, 0.0596f, 0.0983f,
    0.0596f, 0.0133f, 0.0219f, 0.0983f, 0.1621f, 0.0983f, 0.0219f, 0.0133f, 0.0596f, 0.0983f,
    0.0596f, 0.0133f, 0.0030f, 0.0133f, 0.0219f, 0.0133f, 0.0030f };
  gchar *gauss4 = write_file ("gauss4.txt", "0.0030 0.0133 0.0219 0.0133 0.0030\n"
      "0.0133 0.0596 0.0983 0.0596 0.0133\n0.0219 0.0983 0.1621 0.0983 0.0219\n"
      "0.0133 0.0596 0.0983 0.0596 0.0133\n0.0030 0.0133 0.0219 0.0133 0.0030\n", -1);
  {
    GstVideoInfo info;
    GstHarness *hh = harness (formats[0], 41, 23, &info);
    g_object_set (hh->element, "kernel", gauss4, "border", FV_BORDER_MIRROR, NULL);
    gst_util_set_object_arg (G_OBJECT (hh->element), "method", "separable");
    GstBuffer *in = random_frame (&info, 77);
    GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
    fail_unless (out != NULL, "the 4-decimal Gaussian was refused by method=separable");
    check (&info, in, out, g4, 5, 5, TRUE, 0, FV_BORDER_MIRROR, masks[0], TRUE);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (hh);
  }
  gchar *log4 = write_file ("log4.txt", "0.0000 0.0000 -0.0100 0.0000 0.0000\n"
      "0.0000 -0.0100 -0.0200 -0.0100 0.0000\n-0.0100 -0.0200 0.1600 -0.0200 -0.0100\n"
      "0.0000 -0.0100 -0.0200 -0.0100 0.0000\n0.0000 0.0000 -0.0100 0.0000 0.0000\n", -1);
  expect_refused_with ("method=separable normalize=false", "kernel", log4,
      "kernel is not separable");
  g_free (gauss4);
  g_free (log4);
  /* a PGM kernel, unnormalized with a bias */
  const guint8 pgm[] = "P5\n2 2\n255\n\x01\x02\x03\x04";
  gchar *pgmf = write_file ("k.pgm", (const char *) pgm, sizeof pgm - 1);
  const float kp[4] = { 1, 2, 3, 4 };
  GstVideoInfo info;
  GstHarness *hh = harness ("GRAY8", 19, 11, &info);
  g_object_set (hh->element, "kernel", pgmf, "normalize", FALSE, "bias", -300.0, NULL);
  GstBuffer *in = random_frame (&info, 77);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, kp, 2, 2, FALSE, -300.0, FV_BORDER_RENORMALIZE, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  /* a bad kernel while playing: a warning, and the old kernel stays */
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hh->element, bus);
  gchar *ragged = write_file ("bad.txt", "1 2\n3\n", -1);
  g_object_set (hh->element, "kernel", ragged, NULL);
  in = random_frame (&info, 78);
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, kp, 2, 2, FALSE, -300.0, FV_BORDER_RENORMALIZE, 1, TRUE);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL);
  GError *err = NULL;
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "bad.txt:2") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_bus (hh->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
  g_free (txt);
  g_free (pgmf);
  g_free (ragged);
}
GST_END_TEST;

/* A new kernel and a new frame size mid-stream are both taken up at the
 * next frame. */
GST_START_TEST (test_changes_midstream)
{
  const float k1[3] = { 1, 2, 1 }, k2[4] = { 1, 0, 0, 3 };
  gchar *f1 = write_file ("m1.txt", "1 2 1\n", -1), *f2 = write_file ("m2.txt", "1 0\n0 3\n", -1);
  GstVideoInfo info;
  GstHarness *hh = harness ("GRAY8", 40, 30, &info);
  g_object_set (hh->element, "kernel", f1, NULL);
  GstBuffer *in = random_frame (&info, 11);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, k1, 3, 1, TRUE, 0, FV_BORDER_RENORMALIZE, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_object_set (hh->element, "kernel", f2, "border", FV_BORDER_WRAP, NULL);
  in = random_frame (&info, 12);
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, k2, 2, 2, TRUE, 0, FV_BORDER_WRAP, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 23, 57);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
  in = random_frame (&info, 13);
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, k2, 2, 2, TRUE, 0, FV_BORDER_WRAP, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
  g_free (f1);
  g_free (f2);
}
GST_END_TEST;

/* Each bad kernel fails the state change with an error naming the reason. */
GST_START_TEST (test_bad_kernels)
{
  struct { const char *name, *data, *expect; } cases[] = {
    { "ragged.txt", "1 2 3\n4 5\n", "ragged.txt:2: ragged rows" },
    { "nan.txt", "1 nan 2\n", "nan.txt:1" },
    { "words.txt", "1 two 3\n", "words.txt:1: not a number" },
    { "empty.txt", "# nothing\n", "no numbers" },
    { "zero.txt", "1 -2 1\n", "zero.txt: the kernel sums to zero" },
    { "short.pgm", "P5\n4 4\n255\nab", "truncated" },
    { "missing.txt", NULL, "missing.txt" },
    { "overflow.txt", "1 1e39 2\n", "overflow.txt:1: tap 2 (1e+39) overflows a float" },
    { "nanscale.pfm", "Pf\n1 1\nnan\n\0\0\x80\x3f", "bad PFM scale" },
    { "pgmmax.pgm", "P2\n2 1\n10\n3 11\n", "above the maximum value" },
    /* 15 two-byte characters: a cut after 20 bytes would split one */
    { "utf8.txt", "1 \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", "utf8.txt:1: not a number" },
    { "latin1.txt", "1 2\xe9\n", "unexpected" },
    /* taps whose sums leave float's range: output would be inf or NaN */
    { "huge.txt", "1e30 1\n", "huge.txt: the kernel's taps are out of range" },
    { "tiny.txt", "1e-30 1e-30\n", "tiny.txt: the kernel's taps are out of range" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *path = cases[i].data ? write_file (cases[i].name, cases[i].data, -1)
        : g_build_filename (tmpdir, cases[i].name, NULL);
    expect_refused ("kernel", path, cases[i].expect);
    g_free (path);
  }
  /* rows past the documented 2048 taps */
  GString *wide = g_string_new (NULL);
  for (gint i = 0; i < 2049; i++)
    g_string_append (wide, "1 ");
  gchar *p = write_file ("wide.txt", wide->str, -1);
  expect_refused ("kernel", p, "more than 2048 taps in a row");
  g_free (p);
  g_string_free (wide, TRUE);
  /* only regular files: /dev/zero would fill memory, a FIFO block forever */
  expect_refused ("kernel", "/dev/zero", "not a regular file");
  gchar *fifo = g_build_filename (tmpdir, "fifo.txt", NULL);
  fail_unless (mkfifo (fifo, 0600) == 0);
  expect_refused ("kernel", fifo, "not a regular file");
  expect_refused ("kernel-grid", fifo, "not a regular file");
  g_free (fifo);
}
GST_END_TEST;

/* A plan past the memory limit is refused before it is allocated, with
 * the figures and the variable that raises the limit. */
GST_START_TEST (test_memory_limit)
{
  /* a 2048x2048 PFM kernel (16 MB), named 4096 times by a 64x64 grid: 64 GB */
  gsize n = (gsize) 2048 * 2048;
  gchar *pfm = g_malloc (n * 4 + 32);
  gint head = g_snprintf (pfm, 32, "Pf\n2048 2048\n-1\n");
  for (gsize i = 0; i < n; i++)
    memcpy (pfm + head + 4 * i, &(gfloat) { 1.0f }, 4);
  gchar *big = write_file ("big.pfm", pfm, head + 4 * n);
  g_free (pfm);
  GString *grid = g_string_new ("64 64\n");
  for (gint i = 0; i < 64 * 64; i++)
    g_string_append (grid, "big.pfm ");
  gchar *gp = write_file ("big-grid.txt", grid->str, -1);
  g_string_free (grid, TRUE);
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "4096", TRUE);
  expect_refused ("kernel-grid", gp, "the grid's kernels would need up to 65536 MB, more than "
      "the 4096 MB allowed (FASTVISION_MAX_MEMORY_MB");
  /* one such kernel on a 4K frame needs ~0.5 GB of FFT planes */
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "64", TRUE);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,"
      "width=3840,height=2160 ! fftconvolve kernel=%s ! fakesink", big);
  gchar *err = fvt_run_pipeline (desc, NULL);
  fail_unless (err && strstr (err, "big.pfm") && strstr (err, "more than the 64 MB allowed"),
      "%s", err);
  g_free (err);
  g_free (desc);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  g_free (gp);
  g_free (big);
}
GST_END_TEST;

/* Any accepted threads value starts about as fast as one thread does (64
 * and 1024 threads on two cores once took minutes). The bounds scale with
 * the machine: they are set from the same pipeline with threads=1, timed
 * in the same run, so a loaded or slow host (the GPU host under load hit a
 * fixed 1 s bound) does not fail a sound build. */
GST_START_TEST (test_threads_start)
{
  const guint counts[] = { 1, 64, 1024 };
  gdouble ref_cold = 0, ref_warm = 0;
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,"
        "width=1280,height=720 ! fftconvolve gaussian-sigma=6 method=fft threads=%u ! fakesink",
        counts[i]);
    gdouble cold, warm;
    gchar *err = fvt_run_pipeline (desc, &cold);
    fail_unless (err == NULL, "%s", err);
    err = fvt_run_pipeline (desc, &warm);
    fail_unless (err == NULL, "%s", err);
    g_print ("fftconvolve threads=%u: starts and runs a frame in %.2f s cold, %.2f s warm\n",
        counts[i], cold, warm);
    if (counts[i] == 1) {
      ref_cold = cold;
      ref_warm = warm;
    } else {
      /* FFTW measures for at most 2 s a plan: cold starts are bounded too */
      fail_unless (cold < 15.0 + 4 * ref_cold, "threads=%u: %.2f s to run one frame (one "
          "thread: %.2f s)", counts[i], cold, ref_cold);
      fail_unless (warm < 0.5 + 4 * ref_warm, "threads=%u: %.2f s to run one frame with warm "
          "wisdom (one thread: %.2f s)", counts[i], warm, ref_warm);
    }
    g_free (desc);
  }
}
GST_END_TEST;

/* kernel-grid: identical kernels give the plain convolution (within 1);
 * a grid whose count is wrong, or that names a bad kernel, is refused. */
GST_START_TEST (test_kernel_grid)
{
  gchar *k = write_file ("g1.txt", "1 2 1\n2 4 2\n1 2 1\n", -1);
  gchar *grid = write_file ("grid.txt", "3 2\ng1.txt g1.txt g1.txt\ng1.txt g1.txt g1.txt\n", -1);
  const float taps[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  GstVideoInfo info;
  GstHarness *hh = harness ("GRAY8", 45, 31, &info);
  g_object_set (hh->element, "kernel-grid", grid, NULL);
  GstBuffer *in = random_frame (&info, 3);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, taps, 3, 3, TRUE, 0, FV_BORDER_RENORMALIZE, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
  /* a path with spaces, quoted as in the shell */
  gchar *spaced = write_file ("my kernel.txt", "1 2 1\n2 4 2\n1 2 1\n", -1);
  gchar *qgrid = write_file ("qgrid.txt", "2 1\n\"my kernel.txt\" 'my kernel.txt'\n", -1);
  hh = harness ("GRAY8", 45, 31, &info);
  g_object_set (hh->element, "kernel-grid", qgrid, NULL);
  in = random_frame (&info, 4);
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  check (&info, in, out, taps, 3, 3, TRUE, 0, FV_BORDER_RENORMALIZE, 1, TRUE);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
  g_free (spaced);
  g_free (qgrid);
  struct { const char *name, *data, *expect; } bad[] = {
    { "count.txt", "2 2\ng1.txt g1.txt g1.txt\n", "3 kernel paths for a 2x2 grid" },
    { "head.txt", "two 2\ng1.txt\n", "COLS ROWS" },
    { "nokernel.txt", "1 1\nnope.txt\n", "nope.txt" },
    /* a member that cannot be read: the grid file, its line, the member */
    { "missgrid.txt", "2 1\ng1.txt\n\nnope.txt\n", "missgrid.txt:4: kernel 2 of 2: " },
    /* a member that sums to zero: the grid, the member and the reason */
    { "zerogrid.txt", "2 1\ng1.txt zero.txt\n", "zerogrid.txt: kernel 2 of 2 (" },
    { "zerogrid2.txt", "2 1\ng1.txt zero.txt\n", "zero.txt): the kernel sums to zero" },
    { "quote.txt", "1 1\n\"unclosed.txt\n", "the kernel paths" },
  };
  gchar *zero = write_file ("zero.txt", "1 -2 1\n", -1);
  g_free (zero);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *path = write_file (bad[i].name, bad[i].data, -1);
    expect_refused ("kernel-grid", path, bad[i].expect);
    g_free (path);
  }
  /* a member path of 500 kB is cut in the message, with an ellipsis */
  gchar *huge = g_strnfill (500000, 'k'), *text = g_strdup_printf ("1 1\n%s\n", huge);
  gchar *hgrid = write_file ("hugegrid.txt", text, -1);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=16 ! fftconvolve name=f ! fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  g_object_set (f, "kernel-grid", hgrid, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 5 * GST_SECOND,
      GST_MESSAGE_ERROR);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strlen (err->message) < 1000 && strstr (err->message, "…")
      && strstr (err->message, "hugegrid.txt:2: kernel 1 of 1"), "%.300s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipe);
  g_free (hgrid);
  g_free (text);
  g_free (huge);
  g_free (k);
  g_free (grid);
}
GST_END_TEST;

/* A refusal names what was loaded and refused, whatever the properties
 * say by the time it is posted: here the kernel file is swapped for a
 * Gaussian (from the bus's sync handler, on the progress message posted
 * between loading the kernel and planning it), and planning then fails
 * the memory limit. */
static GstBusSyncReply
swap_kernel (GstBus *bus, GstMessage *m, gpointer f)
{
  GstProgressType type;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_PROGRESS && GST_MESSAGE_SRC (m) == f) {
    gst_message_parse_progress (m, &type, NULL, NULL);
    if (type == GST_PROGRESS_TYPE_START)
      g_object_set (f, "kernel", NULL, "gaussian-sigma", 7.5, NULL);
  }
  return GST_BUS_PASS;
}

GST_START_TEST (test_refusal_names_what_was_loaded)
{
  gchar *k = write_file ("loaded.txt", "1 2 1\n2 4 2\n1 2 1\n", -1);
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "1", TRUE);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=640,height=480 ! fftconvolve name=f method=fft ! "
      "fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  g_object_set (f, "kernel", k, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, swap_kernel, f, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "the plan was not refused");
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, "the kernel file") && strstr (err->message, "loaded.txt")
      && !strstr (err->message, "Gaussian"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (pipe);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  g_free (k);
}
GST_END_TEST;

/* backend=cuda: the state change fails without a GPU; with one, the output
 * matches the CPU's within 1. */
GST_START_TEST (test_cuda_backend)
{
  if (fv_cuda_device_count () == 0) {
    GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
        "video/x-raw,format=GRAY8,width=16,height=16 ! fftconvolve backend=cuda ! fakesink", NULL);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    return;
  }
  const char *formats[] = { "GRAY8", "I420", "RGBx" };
  for (int f = 0; f < 3; f++) {
    GstVideoInfo info;
    GstBuffer *res[2], *in = NULL;
    for (int b = 0; b < 2; b++) {
      GstHarness *hh = harness (formats[f], 301, 203, &info);
      gst_util_set_object_arg (G_OBJECT (hh->element), "backend", b ? "cuda" : "cpu");
      g_object_set (hh->element, "gaussian-sigma", 6.0, "method", FV_CONV_FFT, NULL);
      if (!in)
        in = random_frame (&info, 5 + f);
      res[b] = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
      gst_harness_teardown (hh);
    }
    GstMapInfo a, c;
    gst_buffer_map (res[0], &a, GST_MAP_READ);
    gst_buffer_map (res[1], &c, GST_MAP_READ);
    long bad = 0;
    for (gsize i = 0; i < a.size; i++)
      bad += abs ((int) a.data[i] - (int) c.data[i]) > 1;
    fail_unless (bad == 0, "%s: %ld samples differ by more than 1", formats[f], bad);
    gst_buffer_unmap (res[0], &a);
    gst_buffer_unmap (res[1], &c);
    gst_buffer_unref (res[0]);
    gst_buffer_unref (res[1]);
    gst_buffer_unref (in);
  }
}
GST_END_TEST;

static Suite *
fftconvolve_suite (void)
{
  Suite *s = suite_create ("fftconvolve");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_set_timeout (tc, 300);   /* a loaded GPU host took over 120 s for one case */
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kernel_files_and_formats);
  tcase_add_test (tc, test_bad_kernels);
  tcase_add_test (tc, test_kernel_grid);
  tcase_add_test (tc, test_refusal_names_what_was_loaded);
  tcase_add_test (tc, test_changes_midstream);
  tcase_add_test (tc, test_cuda_backend);
  tcase_add_test (tc, test_memory_limit);
  tcase_add_test (tc, test_threads_start);
  return s;
}

GST_CHECK_MAIN (fftconvolve);
