/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstAnalytics (GStreamer 1.24+; built only where gstreamer-analytics-1.0
 * is found, as on Debian 13): vjdetect attaches one object-detection Mtd a
 * box (type = label, the ROI meta's box, the ROI meta's id = the Mtd's id,
 * a location confidence in (0, 1)); satfilter roi-type=X blurs the OD Mtds
 * of type X with no ROI meta at all, exactly as it blurs ROI metas;
 * metapublish lists the OD Mtds under "objects". FV_TEST_DATA names
 * tests/data; FV_CASCADES the folder of OpenCV's cascades. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/analytics/analytics.h>
#include "fvtest.h"

static GstBuffer *
astronaut (GstVideoInfo *info)
{
  gchar *path = g_build_filename (g_getenv ("FV_TEST_DATA") ? g_getenv ("FV_TEST_DATA")
      : "tests/data", "faces", "astronaut.pgm", NULL);
  fv_image *im = fvt_load_pnm (path);
  fail_unless (im != NULL, "cannot read %s", path);
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, im->width, im->height);
  GstBuffer *b = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, b, GST_MAP_WRITE));
  for (gint y = 0; y < im->height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
        (guint8 *) im->data + y * im->stride, im->width);
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (b) = 0;
  fvt_image_free (im);
  g_free (im);
  g_free (path);
  return b;
}

static gchar *
cascade (void)
{
  const gchar *dir = g_getenv ("FV_CASCADES");
  return g_build_filename (dir ? dir : "/usr/share/opencv4", "haarcascades",
      "haarcascade_frontalface_default.xml", NULL);
}

GST_START_TEST (test_vjdetect_od_mtds)
{
  GstVideoInfo info;
  GstBuffer *in = astronaut (&info);
  gchar *c = cascade (), *launch = g_strdup_printf ("vjdetect cascade=%s label=face", c);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (out);
  fail_unless (rmeta != NULL, "no relation meta");
  gpointer state = NULL;
  GstMeta *m;
  gint n = 0;
  while ((m = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
    GstAnalyticsODMtd od;
    fail_unless (gst_analytics_relation_meta_get_od_mtd (rmeta, (guint) r->id, &od),
        "no OD Mtd with the ROI meta's id %d", r->id);
    gint x, y, w, hh;
    gfloat conf;
    fail_unless (gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &hh, &conf));
    fail_unless (x == (gint) r->x && y == (gint) r->y && w == (gint) r->w && hh == (gint) r->h);
    fail_unless (conf > 0.f && conf < 1.f, "confidence %f", conf);
    fail_unless_equals_string (g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)),
        "face");
    n++;
  }
  fail_unless_equals_int (n, 1);   /* the astronaut's face, as OpenCV finds it */
  gint mtds = 0;
  GstAnalyticsODMtd od;
  state = NULL;
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (),
          &od))
    mtds++;
  fail_unless_equals_int (mtds, n);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (c);
}
GST_END_TEST;

/* satfilter roi-type=face from OD Mtds alone: inside the box exactly the
 * whole-frame filter, outside the input untouched; another type ignored */
GST_START_TEST (test_satfilter_from_od_mtds)
{
  GstVideoInfo info;
  GstBuffer *in = astronaut (&info);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (in);
  GstAnalyticsODMtd od;
  const gint bx = 150, by = 60, bw = 120, bh = 110;
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("face"),
          bx, by, bw, bh, 0.9f, &od));
  fail_unless (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("cat"),
          0, 0, 40, 40, 0.9f, &od));
  fail_unless (gst_buffer_get_meta (in, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) == NULL);
  GstHarness *roi = gst_harness_new_parse ("satfilter backend=cpu radius=6 roi-type=face");
  GstHarness *full = gst_harness_new_parse ("satfilter backend=cpu radius=6");
  gst_harness_set_src_caps (roi, gst_video_info_to_caps (&info));
  gst_harness_set_src_caps (full, gst_video_info_to_caps (&info));
  GstBuffer *a = gst_harness_push_and_pull (roi, gst_buffer_ref (in));
  GstBuffer *b = gst_harness_push_and_pull (full, gst_buffer_ref (in));
  GstVideoFrame fi, fa, fb;
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
  long inside_wrong = 0, outside_wrong = 0, changed = 0;
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH (&info); x++) {
      const gint s = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0);
      const guint8 vi = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, 0))[y * s + x];
      const guint8 va = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0))[y * s + x];
      const guint8 vb = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0))[y * s + x];
      const gboolean inside = x >= bx && x < bx + bw && y >= by && y < by + bh;
      if (inside) {
        inside_wrong += va != vb;
        changed += va != vi;
      } else {
        outside_wrong += va != vi;
      }
    }
  fail_unless (inside_wrong == 0 && outside_wrong == 0 && changed > bw * bh / 2,
      "inside %ld wrong, outside %ld changed, %ld blurred", inside_wrong, outside_wrong, changed);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  gst_harness_teardown (roi);
  gst_harness_teardown (full);
}
GST_END_TEST;

/* metapublish lists OD Mtds under "objects" */
GST_START_TEST (test_metapublish_objects)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "fv-analytics-test.jsonl", NULL);
  g_unlink (path);
  gchar *launch = g_strdup_printf ("metapublish location=%s", path);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=1/1");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
  GstAnalyticsODMtd od;
  fail_unless (gst_analytics_relation_meta_add_od_mtd (gst_buffer_add_analytics_relation_meta (in),
          g_quark_from_string ("person"), 3, 4, 20, 30, 0.75f, &od));
  gst_buffer_unref (gst_harness_push_and_pull (h, in));
  gst_harness_teardown (h);
  gchar *text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless (strstr (text, "\"objects\":[{\"type\":\"person\",\"id\":0,\"x\":3,\"y\":4,"
          "\"width\":20,\"height\":30,\"confidence\":0.75") != NULL, "%s", text);
  g_free (text);
  g_unlink (path);
  g_free (launch);
  g_free (path);
}
GST_END_TEST;

/* roitrack tracks another detector's OD Mtds (a producer of synthetic
 * ones, no ROI metas, no fastvision mark: fail-closed=false), keeps one id
 * a region (the ROI meta's id is the track's), carries the confidence, and
 * adds a tracking Mtd related to the track's OD Mtd; satfilter behind it
 * takes the tracks, not the raw boxes. */
GST_START_TEST (test_roitrack_tracking_mtds)
{
  GstHarness *h = gst_harness_new_parse ("roitrack fail-closed=false post-messages=false");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=320,height=240,"
      "framerate=10/1");
  for (int f = 0; f < 6; f++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 320 * 240, NULL);
    GST_BUFFER_PTS (in) = f * GST_SECOND / 10;
    GstAnalyticsRelationMeta *rm = gst_buffer_add_analytics_relation_meta (in);
    GstAnalyticsODMtd od;
    /* a face moving right, found in every frame but the fourth; a one-off
     * false box in the second */
    if (f != 3)
      fail_unless (gst_analytics_relation_meta_add_od_mtd (rm, g_quark_from_string ("face"),
              40 + 5 * f, 50, 60, 60, 0.8f, &od));
    if (f == 1)
      fail_unless (gst_analytics_relation_meta_add_od_mtd (rm, g_quark_from_string ("face"),
              250, 150, 30, 30, 0.3f, &od));
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    /* the face's ROI meta: the track's id; the tracking Mtd with that id,
     * related to an OD Mtd at the ROI's box */
    GstVideoRegionOfInterestMeta *roi = gst_buffer_get_video_region_of_interest_meta_id (out, 1);
    fail_unless (roi != NULL, "frame %d: no region with the track's id 1", f);
    gdouble conf = 0;
    GstStructure *det = gst_video_region_of_interest_meta_get_param (roi, "detection");
    fail_unless (det && gst_structure_get_double (det, "confidence", &conf)
        && fabs (conf - 0.8) < 1e-6);
    GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (out);
    gpointer state = NULL;
    GstAnalyticsTrackingMtd trk;
    gboolean found = FALSE;
    while (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_tracking_mtd_get_mtd_type (), &trk)) {
      guint64 id;
      GstClockTime first, last;
      gboolean lost;
      fail_unless (gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost));
      if (id != 1)
        continue;
      found = TRUE;
      fail_unless_equals_uint64 (first, 0);
      fail_unless_equals_uint64 (last, (f == 3 ? 2 : f) * GST_SECOND / 10);
      GstAnalyticsODMtd tod;
      fail_unless (gst_analytics_relation_meta_get_direct_related (rmeta,
              gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &trk),
              GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_od_mtd_get_mtd_type (), NULL,
              (GstAnalyticsMtd *) &tod), "frame %d: the tracking Mtd relates to no OD Mtd", f);
      gint x, y, w, hh;
      gfloat c;
      fail_unless (gst_analytics_od_mtd_get_location (&tod, &x, &y, &w, &hh, &c));
      fail_unless (x == (gint) roi->x && y == (gint) roi->y && w == (gint) roi->w
          && hh == (gint) roi->h, "frame %d: the track's OD Mtd is not its box", f);
    }
    fail_unless (found, "frame %d: no tracking Mtd for track 1", f);
    /* the one-off false box is a tentative track, shown where found (no
     * delay) and never coasting */
    gint regions = 0;
    state = NULL;
    while (gst_buffer_iterate_meta_filtered (out, &state,
            GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
      regions++;
    fail_unless_equals_int (regions, f == 1 ? 2 : 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* autofill measure=both: every listed part and hole is an OD Mtd too, at
 * its box, of its type; a hole IS_PART_OF its part, which CONTAINs it. A
 * ring inside a frame: one part, one hole. */
GST_START_TEST (test_autofill_od_mtds)
{
  GstHarness *h = gst_harness_new_parse ("autofill backend=cpu measure=both post-messages=false");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=10/1");
  GstBuffer *in = gst_buffer_new_and_alloc (64 * 48);
  GstMapInfo map;
  fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
  for (int y = 0; y < 48; y++)
    for (int x = 0; x < 64; x++) {
      const int r2 = (x - 30) * (x - 30) + (y - 24) * (y - 24);
      map.data[y * 64 + x] = r2 <= 15 * 15 && r2 >= 8 * 8 ? 200 : 0;
    }
  gst_buffer_unmap (in, &map);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (out);
  fail_unless (rmeta != NULL);
  GstAnalyticsODMtd od, part = { 0 }, hole = { 0 };
  gpointer state = NULL;
  int parts = 0, holes = 0;
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (),
          &od)) {
    const gchar *type = g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od));
    gint x, y, w, hh;
    gfloat c;
    fail_unless (gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &hh, &c));
    if (!strcmp (type, "part")) {
      parts++;
      part = od;
      fail_unless (x == 15 && y == 9 && w == 31 && hh == 31, "part at %d,%d %dx%d", x, y, w, hh);
    } else if (!strcmp (type, "region")) {
      holes++;
      hole = od;
      fail_unless (x == 23 && y == 17 && w == 15 && hh == 15, "hole at %d,%d %dx%d", x, y, w, hh);
    }
  }
  fail_unless (parts == 1 && holes == 1, "%d part and %d hole Mtds", parts, holes);
  const guint pid = gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &part);
  const guint hid = gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &hole);
  fail_unless (gst_analytics_relation_meta_get_relation (rmeta, hid, pid)
      & GST_ANALYTICS_REL_TYPE_IS_PART_OF);
  fail_unless (gst_analytics_relation_meta_get_relation (rmeta, pid, hid)
      & GST_ANALYTICS_REL_TYPE_CONTAIN);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
analytics_suite (void)
{
  Suite *s = suite_create ("analytics");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_vjdetect_od_mtds);
  tcase_add_test (tc, test_satfilter_from_od_mtds);
  tcase_add_test (tc, test_metapublish_objects);
  tcase_add_test (tc, test_roitrack_tracking_mtds);
  tcase_add_test (tc, test_autofill_od_mtds);
  return s;
}

GST_CHECK_MAIN (analytics);
