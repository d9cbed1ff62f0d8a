/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roitrack failing closed: frames dropped upstream, an element between the
 * detector and the tracker that loses the metas (a test element, FvtNoMeta)
 * or the detection marks, and floods of detections; each covers the whole
 * frame (or says why) rather than letting a face through. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "roitracktest.h"
#include "../common/fvgstcheck.h"

/* The detector's drops: frames vjdetect drops for QoS (late) do not leave
 * at all, and every frame that does leave was searched; a frame it cannot
 * search (a buffer shorter than its caps) leaves, if at all, blurred
 * whole. */
GST_START_TEST (test_fail_closed_drops)
{
  const gchar *cascades = g_getenv ("FV_CASCADES");
  gchar *desc = g_strdup_printf ("vjdetect cascade=%s/haarcascades/"
      "haarcascade_frontalface_default.xml post-messages=false ! roitrack post-messages=false",
      cascades ? cascades : "/usr/share/opencv4");
  GstHarness *h = gst_harness_new_parse (desc);
  g_free (desc);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=640,height=480,"
      "framerate=30/1");
  const GstClockTime dur = gst_util_uint64_scale_int (GST_SECOND, 1, 30);
  int out = 0;
  for (int f = 0; f < 12; f++) {
    if (f == 4)   /* downstream is 5 frames behind: frames up to 8 are late */
      fail_unless (gst_harness_push_upstream_event (h, gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW,
                  2.0, (GstClockTimeDiff) (4 * dur), 4 * dur)));
    GstBuffer *b = gst_buffer_new_allocate (NULL, W * H, NULL);
    gst_buffer_memset (b, 0, 90, W * H);
    GST_BUFFER_PTS (b) = f * dur;
    GST_BUFFER_DURATION (b) = dur;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    GstBuffer *o;
    while ((o = gst_harness_try_pull (h))) {
      Out boxes[4];
      gboolean whole;
      fail_unless (gst_buffer_get_custom_meta (o, "FvDetectionMeta") != NULL);
      int plates;
      fail_unless_equals_int (read_regions (o, boxes, &whole, NULL, &plates), 0);
      fail_unless (!whole, "a searched frame blurred whole");
      out++;
    }
  }
  fail_unless (out > 0 && out < 12, "%d of 12 frames out: none dropped for QoS", out);
  /* a buffer shorter than its caps: the detector cannot search it (a
   * warning from GstVideoFilter) and passes it on unmarked; it leaves
   * blurred whole */
  GstBuffer *b = gst_buffer_new_allocate (NULL, 100, NULL);
  GST_BUFFER_PTS (b) = 12 * dur;
  gst_harness_push (h, b);
  GstBuffer *o = gst_harness_try_pull (h);
  fail_unless (o != NULL);
  {
    Out boxes[4];
    gboolean whole;
    int plates;
    fail_unless (gst_buffer_get_custom_meta (o, "FvDetectionMeta") == NULL);
    read_regions (o, boxes, &whole, NULL, &plates);
    fail_unless (whole, "a frame the detector could not search left without a whole-frame box");
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A transform that passes frames and copies none of their metas (as an
 * application's element might): the tracker must not take such a frame as
 * searched and empty. */
typedef GstBaseTransform FvtNoMeta;
typedef GstBaseTransformClass FvtNoMetaClass;
G_DEFINE_TYPE (FvtNoMeta, fvt_no_meta, GST_TYPE_BASE_TRANSFORM);
static GstStaticPadTemplate nometa_sink = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate nometa_src = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static gboolean
nometa_transform_meta (GstBaseTransform *t, GstBuffer *out, GstMeta *m, GstBuffer *in)
{
  return FALSE;
}
static GstFlowReturn
nometa_transform (GstBaseTransform *t, GstBuffer *in, GstBuffer *out)
{
  GstMapInfo a, b;
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (out, &b, GST_MAP_WRITE);
  memcpy (b.data, a.data, MIN (a.size, b.size));
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  return GST_FLOW_OK;
}
static void
fvt_no_meta_class_init (FvtNoMetaClass *k)
{
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (k), &nometa_sink);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (k), &nometa_src);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (k), "no metas", "Filter",
      "copies frames without their metas", "fastvision tests");
  k->transform_meta = nometa_transform_meta;
  k->transform = nometa_transform;
}
static void
fvt_no_meta_init (FvtNoMeta *self)
{
}

/* The privacy filter fails closed behind any element that drops or changes
 * the detector's regions: vjdetect finds the astronaut's face in every
 * frame; between it and roitrack, each element either keeps the face's
 * region (the frame leaves with a tracked box) or loses it (the frame leaves
 * with a whole-frame box), never neither. */
GST_START_TEST (test_fail_closed_behind_other_elements)
{
  const gchar *data = g_getenv ("FV_TEST_DATA");
  gchar *png = g_build_filename (data ? data : "tests/data", "faces", "astronaut.png", NULL);
  const gchar *cascades = g_getenv ("FV_CASCADES");
  gst_element_register (NULL, "fvtnometa", GST_RANK_NONE, fvt_no_meta_get_type ());
  const struct { const char *between; int whole; } cases[] = {
    { "identity", 0 },                      /* keeps everything */
    { "videoconvert", 0 },
    { "videoscale ! video/x-raw,width=256,height=256", 0 },
#if GST_CHECK_VERSION(1, 24, 0)
    /* either, as long as no frame leaves without a box (1.28's matrix
     * transform turns ROI metas with the picture, and the mark with them) */
    { "videoflip video-direction=horiz", -1 },
    { "videoflip video-direction=90r", -1 },
#else
    { "videoflip video-direction=horiz", 1 },   /* drops them */
    { "videoflip video-direction=90r", 1 },     /* keeps them unturned: the size tells */
#endif
    { "videocrop left=2 top=2", 1 },        /* drops ROI metas */
    { "videobox left=2 top=2", 1 },
    { "fvtnometa", 1 },                     /* copies no meta */
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *desc = g_strdup_printf ("filesrc location=%s ! pngdec ! videoconvert ! "
        "videocrop right=12 ! video/x-raw,format=I420 ! imagefreeze num-buffers=4 ! "
        "vjdetect backend=cpu "
        "cascade=%s/haarcascades/haarcascade_frontalface_default.xml post-messages=false ! "
        "%s ! roitrack post-messages=false ! appsink name=out sync=false", png,
        cascades ? cascades : "/usr/share/opencv4", cases[c].between);
    GError *err = NULL;
    GstElement *p = gst_parse_launch (desc, &err);
    fail_unless (p != NULL && err == NULL, "%s: %s", desc, err ? err->message : "");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
    gst_element_set_state (p, GST_STATE_PLAYING);
    int frames = 0, wholes = 0;
    GstSample *smp;
    while (1) {
      smp = NULL;
      g_signal_emit_by_name (sink, "pull-sample", &smp);
      if (!smp)
        break;
      frames++;
      int tracked = 0, whole = 0;
      gpointer st = NULL;
      GstMeta *m;
      while ((m = gst_buffer_iterate_meta_filtered (gst_sample_get_buffer (smp), &st,
                  GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
        GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
        GstStructure *ts = gst_video_region_of_interest_meta_get_param (r, "track");
        gboolean fc = FALSE;
        if (!ts)
          continue;
        if (gst_structure_get_boolean (ts, "fail-closed", &fc) && fc)
          whole++;
        else
          tracked++;
      }
      fail_unless (tracked + whole > 0, "%s: frame %d left with no box: the face is exposed",
          cases[c].between, frames);
      if (cases[c].whole == 1)
        fail_unless (whole, "%s: frame %d not failed closed", cases[c].between, frames);
      if (cases[c].whole == 0)
        fail_unless (!whole && tracked >= 1, "%s: frame %d: %d tracked, %d whole",
            cases[c].between, frames, tracked, whole);
      wholes += whole > 0;
      gst_sample_unref (smp);
    }
    fail_unless_equals_int (frames, 4);
    GST_INFO ("%s: %d of %d frames whole", cases[c].between, wholes, frames);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (p);
    g_free (desc);
  }
  g_free (png);
}
GST_END_TEST;

/* Memory and time stay bounded whatever the detections: 5,000 identical
 * boxes are one track; 3,000 distinct ones are 3,000 tracks (the grid keeps
 * the association near-linear); 5,000 distinct ones, past what roitrack
 * follows, close the frame whole with a warning instead of taking memory
 * without bound. */
GST_START_TEST (test_detection_floods)
{
  GstHarness *h = harness ("margin=0");
  Box *det = g_new (Box, 5000);
  for (int i = 0; i < 5000; i++)
    det[i] = (Box) { 100, 100, 40, 40 };
  Out *out = g_new (Out, 5000);
  gboolean whole;
  GstBuffer *o = gst_harness_push_and_pull (h, make_frame (det, 5000, 1));
  int plates;
  int n = read_regions (o, out, &whole, NULL, &plates);
  fail_unless (n == 1 && !whole, "5000 identical boxes: %d tracks, whole %d", n, whole);
  gst_harness_teardown (h);
  for (int k = 0; k < 2; k++) {
    const int count = k ? 5000 : 3000;
    h = harness ("margin=0");
    for (int i = 0; i < count; i++)   /* 8x8 boxes on a grid of 9 px */
      det[i] = (Box) { (i % 70) * 9, (i / 70) * 9 % 470, 8, 8 };
    const gint64 t0 = g_get_monotonic_time ();
    o = gst_harness_push_and_pull (h, make_frame (det, count, 1));
    o = (gst_buffer_unref (o), gst_harness_push_and_pull (h, make_frame (det, count, 1)));
    n = read_regions (o, out, &whole, NULL, &plates);
    GST_INFO ("%d distinct boxes: %d tracks, whole %d, %.3f s for two frames", count, n, whole,
        (g_get_monotonic_time () - t0) / 1e6);
    if (count <= 4096)
      fail_unless (n == count && !whole, "%d distinct boxes: %d tracks, whole %d", count, n,
          whole);
    else
      fail_unless (whole, "%d distinct boxes: not closed whole", count);
    gst_harness_teardown (h);
  }
  g_free (det);
  g_free (out);
}
GST_END_TEST;

static Suite *
roitrack_failclosed_suite (void)
{
  Suite *s = suite_create ("roitrack-failclosed");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fail_closed_drops);
  tcase_add_test (tc, test_fail_closed_behind_other_elements);
  tcase_add_test (tc, test_detection_floods);
  return s;
}

GST_CHECK_MAIN (roitrack_failclosed);
