/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every fastvision element owes a GStreamer user when things go
 * wrong, checked on all four: a device memory limit refused with the
 * element's size in the error, a rebuild that fails while PLAYING keeping
 * the old plans running with a warning, and file errors with GStreamer's
 * resource error codes. */
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fv_cuda.h"
#include "fvtest.h"
#include "fvgstcheck.h"
#include "fvtest-gst.h"

/* FASTVISION_MAX_MEMORY_MB binds every element, not only fftconvolve: a
 * plan and the frames it needs past the limit are refused with the figures
 * before they are allocated, and the same element runs under a limit it
 * fits. */
static void
check_memory_limit (const char *element, const char *props, int w, int h, const char *mb,
    const char *size_said, const char *fits_props)
{
  gchar *el = fvt_element_desc (element);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 pattern=ball ! "
      "video/x-raw,format=GRAY8,width=%d,height=%d ! %s backend=cpu %s ! fakesink", w, h, el,
      props);
  g_setenv ("FASTVISION_MAX_MEMORY_MB", mb, TRUE);
  gchar *err = fvt_run_pipeline (desc, NULL);
  gchar *limit = g_strdup_printf ("more than the %s MB allowed (FASTVISION_MAX_MEMORY_MB", mb);
  fail_unless (err && strstr (err, limit) && strstr (err, size_said), "%s under %s MB: %s",
      element, mb, err ? err : "ran");
  g_free (err);
  g_free (limit);
  /* the same pipeline within the default limit runs; or, where that is
   * minutes of work on one core (the detector's thousands of levels), the
   * same element under the same limit with settings that fit it */
  if (fits_props) {
    g_free (desc);
    desc = g_strdup_printf ("videotestsrc num-buffers=1 pattern=ball ! "
        "video/x-raw,format=GRAY8,width=%d,height=%d ! %s backend=cpu %s ! fakesink", w, h, el,
        fits_props);
  } else {
    g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  }
  err = fvt_run_pipeline (desc, NULL);
  fail_unless (err == NULL, "%s within the limit: %s", element, err);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  g_free (desc);
  g_free (el);
}

GST_START_TEST (test_memory_limit_satfilter)
{
  check_memory_limit ("satfilter", "radius=5", 8192, 8192, "16", "8192x8192 GRAY8", NULL);
}
GST_END_TEST;

GST_START_TEST (test_memory_limit_autofill)
{
  check_memory_limit ("autofill", "", 8192, 8192, "16", "8192x8192 GRAY8", NULL);
  /* what grows with the content (runs of background) is held to the limit
   * too: a 1024x1024 checkerboard has half a million runs, a black frame
   * one a row */
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "3", TRUE);
  gchar *err = fvt_run_pipeline ("videotestsrc num-buffers=1 pattern=checkers-1 ! video/x-raw,"
      "format=GRAY8,width=1024,height=1024 ! autofill backend=cpu threads=1 ! fakesink", NULL);
  fail_unless (err && strstr (err, "runs of background of this 1024x1024 frame would need "
          "more than the 3 MB allowed"), "%s", err ? err : "ran");
  g_free (err);
  err = fvt_run_pipeline ("videotestsrc num-buffers=1 pattern=black ! video/x-raw,"
      "format=GRAY8,width=1024,height=1024 ! autofill backend=cpu threads=1 ! fakesink", NULL);
  fail_unless (err == NULL, "%s", err);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  /* what measure=true lists is held to it too: a checkerboard's half a
   * million regions with max-regions unbounded lists what fits 48 MB, says
   * so, and counts the rest as unlisted (before: a meta and a message entry
   * for each, gigabytes at 4K) */
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "48", TRUE);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 pattern=checkers-1 ! "
      "video/x-raw,format=GRAY8,width=1024,height=1024 ! autofill backend=cpu measure=true "
      "max-regions=2147483647 ! fakesink", NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  guint count = 0, unlisted = 0;
  gchar *warned = NULL;
  GstMessage *m;
  while ((m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT))) {
    const GstMessageType t = GST_MESSAGE_TYPE (m);
    const GstStructure *st = gst_message_get_structure (m);
    if (t == GST_MESSAGE_ELEMENT && gst_structure_has_name (st, "autofill")) {
      gst_structure_get_uint (st, "count", &count);
      gst_structure_get_uint (st, "unlisted", &unlisted);
    } else if (t == GST_MESSAGE_WARNING && !warned) {
      GError *e = NULL;
      gst_message_parse_warning (m, &e, NULL);
      warned = g_strdup (e->message);
      g_error_free (e);
    }
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
  fail_unless (count > 400000 && count - unlisted <= 48u * 1048576 / 2048 && unlisted > 0,
      "%u regions, %u unlisted", count, unlisted);
  fail_unless (warned && strstr (warned, "more than the 48.0 MB allowed"), "%s", warned);
  g_free (warned);
}
GST_END_TEST;

GST_START_TEST (test_memory_limit_vjdetect)
{
  /* thousands of levels: gigabytes of sums on the CPU */
  check_memory_limit ("vjdetect", "scale-factor=1.001", 1280, 720, "256",
      "1280x720 at scale factor 1.001", "scale-factor=1.1");
}
GST_END_TEST;


/* One rule for a rebuild that fails while PLAYING, on all four: new settings
 * whose plans cannot be made (here: past FASTVISION_MAX_MEMORY_MB, set once
 * the element runs) leave the plans in use running, with a warning that
 * names the cause and no error; the frame comes out as under the old
 * settings; the next change, within the limit, is used. */
GST_START_TEST (test_failed_rebuild_keeps_running)
{
  /* each element, a setting that changes this photo's output, its old and
   * new values */
  const struct { const char *element, *props, *prop, *old_value, *new_value; } cases[] = {
    { "satfilter", "", "radius", "2", "6" },
    { "fftconvolve", "", "gaussian-sigma", "1.0", "2.5" },
    { "vjdetect", "draw=true", "min-neighbors", "3", "0" },
    { "autofill", "", "threshold", "128", "60" },
  };
  GstVideoInfo info;
  GstBuffer *in = fvt_photo_2x2 (&info);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *el = fvt_element_desc (cases[i].element);
    gchar *launch = g_strdup_printf ("%s backend=cpu %s %s=%s", el, cases[i].props,
        cases[i].prop, cases[i].old_value);
    g_free (el);
    GstHarness *h = gst_harness_new_parse (launch);
    g_free (launch);
    GstElement *f = gst_harness_find_element (h, cases[i].element);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);   /* the bin the element posts through */
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    GstBuffer *old_out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (old_out != NULL, "%s", cases[i].element);

    g_setenv ("FASTVISION_MAX_MEMORY_MB", "1", TRUE);
    gst_util_set_object_arg (G_OBJECT (f), cases[i].prop, cases[i].new_value);
    GstBuffer *kept = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
    fail_unless (kept != NULL, "%s: no frame after the refused change", cases[i].element);
    fail_unless (fvt_same_bytes (old_out, kept), "%s: the frame is not the old settings' one",
        cases[i].element);
    /* (popping one type drops the others: both at once) */
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "%s: no warning", cases[i].element);
    GError *err = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      fail ("%s: error %s", cases[i].element, err->message);
    }
    gst_message_parse_warning (m, &err, NULL);
    fail_unless (strstr (err->message, "1 MB allowed") && strstr (err->message,
            "The settings in use stay until the next change"), "%s: %s", cases[i].element,
        err->message);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL, "%s: an error too",
        cases[i].element);
    g_error_free (err);
    gst_message_unref (m);

    /* the next change, within the limit, is used */
    gst_util_set_object_arg (G_OBJECT (f), cases[i].prop, cases[i].new_value);
    GstBuffer *changed = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (changed != NULL && !fvt_same_bytes (old_out, changed),
        "%s: the new setting was not used once it fitted", cases[i].element);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING) == NULL);
    gst_buffer_unref (old_out);
    gst_buffer_unref (kept);
    gst_buffer_unref (changed);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_object_unref (f);
    gst_harness_teardown (h);
  }
  gst_buffer_unref (in);
}
GST_END_TEST;


/* Files an element was told to read or write fail as filesrc's and
 * filesink's do (applications switch on the code), with the path in the
 * debug part: missing NOT_FOUND, not openable OPEN_READ / OPEN_WRITE, a
 * content refused READ (cascade) or SETTINGS (kernel). */
GST_START_TEST (test_file_error_codes)
{
  gchar *dir = g_dir_make_tmp ("fvcodesXXXXXX", NULL);
  gchar *junk = g_build_filename (dir, "junk.txt", NULL);
  fail_unless (g_file_set_contents (junk, "not a cascade, not a kernel\n", -1, NULL));
  const struct { const char *fmt; const char *path; gint code; } cases[] = {
    { "vjdetect cascade=%s", "/nonexistent/cascade.xml", GST_RESOURCE_ERROR_NOT_FOUND },
    { "vjdetect cascade=%s", dir, GST_RESOURCE_ERROR_OPEN_READ },
    { "vjdetect cascade=%s", junk, GST_RESOURCE_ERROR_READ },
    { "fftconvolve kernel=%s", "/nonexistent/psf.txt", GST_RESOURCE_ERROR_NOT_FOUND },
    { "fftconvolve kernel=%s", dir, GST_RESOURCE_ERROR_OPEN_READ },
    { "fftconvolve kernel=%s", junk, GST_RESOURCE_ERROR_SETTINGS },
    { "fftconvolve kernel-grid=%s", "/nonexistent/grid.txt", GST_RESOURCE_ERROR_NOT_FOUND },
    { "metapublish location=%s", "/nonexistent/dir/docs.jsonl", GST_RESOURCE_ERROR_OPEN_WRITE },
    { "metapublish location=%s", dir, GST_RESOURCE_ERROR_OPEN_WRITE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *el = g_strdup_printf (cases[i].fmt, cases[i].path);
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,"
        "width=64,height=48 ! %s ! fakesink", el);
    GstElement *pipe = gst_parse_launch (desc, NULL);
    fail_unless (pipe != NULL, "%s", desc);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "%s: no error", el);
    GError *err = NULL;
    gchar *debug = NULL;
    gst_message_parse_error (m, &err, &debug);
    fail_unless (err->domain == GST_RESOURCE_ERROR && err->code == cases[i].code,
        "%s: %s error %d (%s), want %d", el, g_quark_to_string (err->domain), err->code,
        err->message, cases[i].code);
    fail_unless (debug && strstr (debug, cases[i].path), "%s: debug %s", el, debug);
    g_error_free (err);
    g_free (debug);
    gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    g_free (desc);
    g_free (el);
  }
  g_unlink (junk);
  g_rmdir (dir);
  g_free (junk);
  g_free (dir);
}
GST_END_TEST;

static Suite *
conventions_errors_suite (void)
{
  Suite *s = suite_create ("conventions-errors");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_memory_limit_satfilter);
  tcase_add_test (tc, test_memory_limit_autofill);
  tcase_add_test (tc, test_memory_limit_vjdetect);
  tcase_add_test (tc, test_failed_rebuild_keeps_running);
  tcase_add_test (tc, test_file_error_codes);
  return s;
}

GST_CHECK_MAIN (conventions_errors);
