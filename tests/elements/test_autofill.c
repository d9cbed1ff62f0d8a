/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* autofill in GstHarness: output against the breadth-first reference,
 * property changes and a resolution change mid-stream, refused caps, the
 * backend choice and the proposed pool. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fvtest.h"
#include "fv_cuda.h"

static gboolean have_gpu;

static void
setup (void)
{
  have_gpu = fv_cuda_device_count () > 0;   /* after check's fork, never before */
}

/* Rings and random specks on a padded-stride frame. */
static GstBuffer *
shapes_buffer (GstVideoInfo *info, guint seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fvt_rng rng = { 77 + seed };
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), 1, info->offset, info->stride);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  int w = GST_VIDEO_FRAME_WIDTH (&f), h = GST_VIDEO_FRAME_HEIGHT (&f);
  int s = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int r = (x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2);
      int ring = (r / 40) % 3 == 0;
      d[y * s + x] = ring || fvt_next (&rng) % 23 == 0 ? 180 + seed % 50 : 20;
    }
  gst_video_frame_unmap (&f);
  return buf;
}

static long
compare (GstVideoInfo *info, GstBuffer *in, GstBuffer *out, unsigned thr, int conn, int output,
    unsigned fv)
{
  GstVideoFrame fi, fo;
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  int w = GST_VIDEO_FRAME_WIDTH (&fi), h = GST_VIDEO_FRAME_HEIGHT (&fi);
  fv_image src = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (&fi, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0), w, h, 1, FV_U8, FV_MEM_HOST);
  guint8 *want = g_malloc ((gsize) w * h);
  fvt_ref_fill (&src, thr, conn, output, fv, want);
  long bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      bad += ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0) + x]
          != want[y * w + x];
  g_free (want);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return bad;
}

static GstHarness *
harness (const char *backend, int w, int h, GstVideoInfo *info)
{
  GstHarness *hh = gst_harness_new ("autofill");
  gst_util_set_object_arg (G_OBJECT (hh->element), "backend", backend);
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (info));
  return hh;
}

static long
push_check (GstHarness *hh, GstVideoInfo *info, guint seed, unsigned thr, int conn, int output,
    unsigned fv)
{
  GstBuffer *in = shapes_buffer (info, seed);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (out != NULL);
  long bad = compare (info, in, out, thr, conn, output, fv);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  return bad;
}

GST_START_TEST (test_matches_reference_and_changes)
{
  const char *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
    GstVideoInfo info;
    GstHarness *hh = harness (backends[b], 97, 61, &info);
    fail_unless (push_check (hh, &info, 1, 127, 4, 0, 255) == 0);
    g_object_set (hh->element, "threshold", 200, "fill-value", 9, NULL);
    gst_util_set_object_arg (G_OBJECT (hh->element), "connectivity", "8");
    gst_util_set_object_arg (G_OBJECT (hh->element), "output", "holes");
    fail_unless (push_check (hh, &info, 30, 200, 8, 1, 9) == 0);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 33, 129);
    gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
    fail_unless (push_check (hh, &info, 31, 200, 8, 1, 9) == 0);
    gint active;
    g_object_get (hh->element, "active-backend", &active, NULL);
    fail_unless_equals_int (active, b);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

GST_START_TEST (test_refuses_colour)
{
  GstHarness *hh = gst_harness_new ("autofill");
  gst_harness_set_src_caps_str (hh, "video/x-raw,format=RGB,width=16,height=16,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (hh, gst_buffer_new_allocate (NULL, 768, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (hh);
}
GST_END_TEST;

GST_START_TEST (test_backend_errors)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! autofill backend=cuda ! fakesink", NULL);
  GstStateChangeReturn ret = gst_element_set_state (pipe, GST_STATE_PAUSED);
  if (have_gpu) {
    fail_unless (ret != GST_STATE_CHANGE_FAILURE);
  } else {
    fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
    GstMessage *m = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail_unless (strstr (err->message, "GPU") != NULL);
    g_error_free (err);
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* backend=hybrid: frames alternate between GPU and CPU and come out one
 * frame late, in order, all exact; EOS brings out the last one. Without a
 * GPU it fails the state change like cuda. */
GST_START_TEST (test_hybrid)
{
  if (!have_gpu) {
    GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=32,height=16 ! autofill backend=hybrid ! fakesink", NULL);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    return;
  }
  GstVideoInfo info;
  GstHarness *hh = harness ("hybrid", 203, 117, &info);
  GstBuffer *in[5];
  for (int i = 0; i < 5; i++) {
    in[i] = shapes_buffer (&info, 40 + i);
    GST_BUFFER_PTS (in[i]) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (hh, gst_buffer_ref (in[i])), GST_FLOW_OK);
  }
  fail_unless_equals_int (gst_harness_buffers_received (hh), 4);
  fail_unless (gst_harness_push_event (hh, gst_event_new_eos ()));
  for (int i = 0; i < 5; i++) {
    GstBuffer *out = gst_harness_pull (hh);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
    fail_unless (compare (&info, in[i], out, 127, 4, 0, 255) == 0, "frame %d", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  gint active;
  g_object_get (hh->element, "active-backend", &active, NULL);
  fail_unless_equals_int (active, 2);
  gst_harness_teardown (hh);
}
GST_END_TEST;

/* I420, NV12 and Y444: the Y plane filled as GRAY8 would be, the chroma
 * planes passed through untouched; odd sizes; every backend there is. */
GST_START_TEST (test_yuv_formats)
{
  const char *formats[] = { "I420", "NV12", "Y444" };
  const char *backends[] = { "cpu", "cuda" };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
      GstVideoInfo info;
      GstHarness *hh = gst_harness_new ("autofill");
      gst_util_set_object_arg (G_OBJECT (hh->element), "backend", backends[b]);
      gst_video_info_set_format (&info, gst_video_format_from_string (formats[f]), 37, 23);
      gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
      GstBuffer *in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
      GstVideoFrame fi, fo;
      fvt_rng rng = { 5 + f };
      fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
      for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
        guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&fi, p);
        gint st = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p);
        gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p == 0 ? 0 : (p == 1 ? 1 : 2));
        for (gint y = 0; y < h; y++)
          for (gint x = 0; x < st; x++) {
            gint r = (x - 18) * (x - 18) + (y - 11) * (y - 11);
            d[y * st + x] = p ? fvt_next (&rng) & 0xff : (r / 30) % 3 == 0 ? 200 : 20;
          }
      }
      gst_video_frame_unmap (&fi);
      GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s", formats[f]);
      fail_unless (compare (&info, in, out, 127, 4, 0, 255) == 0, "%s %s: luma",
          formats[f], backends[b]);
      fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
      for (guint p = 1; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
        gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p), w = GST_VIDEO_FRAME_COMP_WIDTH (&fi, p)
            * GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, p);
        for (gint y = 0; y < h; y++)
          fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, p)
                  + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p),
                  (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, p)
                  + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p), w) == 0,
              "%s %s: chroma plane %u row %d changed", formats[f], backends[b], p, y);
      }
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fo);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (hh);
    }
}
GST_END_TEST;

static Suite *
autofill_suite (void)
{
  Suite *s = suite_create ("autofill");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_matches_reference_and_changes);
  tcase_add_test (tc, test_refuses_colour);
  tcase_add_test (tc, test_backend_errors);
  tcase_add_test (tc, test_hybrid);
  tcase_add_test (tc, test_yuv_formats);
  return s;
}

GST_CHECK_MAIN (autofill);
