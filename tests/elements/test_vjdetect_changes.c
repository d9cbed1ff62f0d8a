/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect in GstHarness and pipelines, what changes and what is refused:
 * property changes while playing (cascade included), a cascade file shared
 * and replaced, bad cascades refused with file and reason, tiny frames,
 * the CUDA backend (equal to the CPU where there is a GPU, a clear error
 * where there is none), facedetect's property names, ids unique across
 * two producers, bad angles failing the start.
 *
 * FV_TEST_DATA names tests/data; FV_CASCADES, where opencv-data is not
 * installed, a folder with haarcascades/ and lbpcascades/. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fvtest.h"
#include "fvgstcheck.h"
#include "fv_rotate.h"
#include "fv_cuda.h"
#include "vjtest.h"

GST_START_TEST (test_changes_midstream)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = vjt_harness_for (&info);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  Box b[16];
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  gst_buffer_unref (out);

  gst_harness_set (h, "vjdetect", "min-neighbors", 1000, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);

  /* min-neighbors 0: every raw window, OpenCV's 47 (expected-raw.txt) */
  gst_harness_set (h, "vjdetect", "min-neighbors", 0, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 47);
  gst_buffer_unref (out);

  /* a minimum size above the face: nothing */
  gst_harness_set (h, "vjdetect", "min-neighbors", 3, "min-size-width", 120, "min-size-height", 120,
      NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);

  /* an LBP cascade while playing */
  gchar *lbp = vjt_cascade_path ("lbpcascades", "lbpcascade_frontalface_improved.xml");
  gst_harness_set (h, "vjdetect", "min-size-width", 0, "min-size-height", 0, "cascade", lbp, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  fail_unless (vjt_iou (&b[0], &astronaut_face) >= 0.5);
  gst_buffer_unref (out);

  /* a cascade that cannot load: a warning naming it, the LBP one stays */
  while (gst_bus_have_pending (bus))
    gst_message_unref (gst_bus_pop (bus));
  gst_harness_set (h, "vjdetect", "cascade", "/nonexistent/cascade.xml", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  gst_buffer_unref (out);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL);
  GError *err = NULL;
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "/nonexistent/cascade.xml") && strstr (err->message, lbp),
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  /* the property reads back the cascade still in use */
  GstElement *vj = gst_harness_find_element (h, "vjdetect");
  gchar *now = NULL;
  g_object_get (vj, "cascade", &now, NULL);
  fail_unless_equals_string (now, lbp);
  g_free (now);
  /* a crafted cascade while playing: refused with a warning, no crash */
  gchar *crafted = vjt_write_file ("crafted.xml", "<opencv_storage><cascade><featureType>HAAR"
      "</featureType><width>24</width><height>24</height><stages><_><weakClassifiers><_>"
      "<internalNodes>0 -2147483648 0 0.5</internalNodes><leafValues>-1 1</leafValues></_>"
      "</weakClassifiers></_></stages><features><_><rects><_>2147483647 0 4 4 -1.</_></rects>"
      "</_></features></cascade></opencv_storage>");
  g_object_set (vj, "cascade", crafted, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  gst_buffer_unref (out);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL);
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "crafted.xml") && strstr (err->message, "child index"),
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  g_free (crafted);
  gst_object_unref (vj);
  g_free (lbp);

  /* a new resolution */
  GstVideoInfo small;
  GstBuffer *crop = vjt_pgm_buffer ("faces/astronaut.pgm", 101, 33, 301, 257, &small);
  gchar *c = vjt_default_cascade ();
  gst_harness_set (h, "vjdetect", "cascade", c, NULL);
  g_free (c);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&small));
  out = gst_harness_push_and_pull (h, crop);
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  Box shifted = { b[0].x + 101, b[0].y + 33, b[0].w, b[0].h };
  fail_unless (vjt_iou (&shifted, &astronaut_face) >= 0.5, "%d,%d", b[0].x, b[0].y);
  gst_buffer_unref (out);

  /* frames smaller than the window: no detection, no error */
  GstVideoInfo tiny;
  GstBuffer *t = vjt_pgm_buffer ("faces/astronaut.pgm", 200, 100, 16, 16, &tiny);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&tiny));
  out = gst_harness_push_and_pull (h, t);
  fail_unless (out != NULL);
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  gst_buffer_unref (in);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Instances naming the same file share its parsed cascade (fvcascades.c):
 * a second instance started after the file was replaced on disk must read
 * the new file, and the first keeps the cascade it started with. */
GST_START_TEST (test_shared_cascade)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *face = vjt_default_cascade (), *eye = vjt_cascade_path ("haarcascades", "haarcascade_eye.xml");
  gchar *text = NULL;
  gsize len;
  fail_unless (g_file_get_contents (face, &text, &len, NULL));
  gchar *shared = vjt_write_file ("shared.xml", text);
  g_free (text);
  gchar *launch = g_strdup_printf ("vjdetect backend=cpu cascade=%s", shared);
  GstHarness *h1 = gst_harness_new_parse (launch);   /* started: the cascade is read */
  gst_harness_set_src_caps (h1, gst_video_info_to_caps (&info));
  Box b[16];
  GstBuffer *out = gst_harness_push_and_pull (h1, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
  gst_buffer_unref (out);
  /* the eye cascade now under the same name (another size and inode) */
  fail_unless (g_file_get_contents (eye, &text, &len, NULL));
  gchar *tmp = vjt_write_file ("shared.xml.new", text);
  g_free (text);
  fail_unless (g_rename (tmp, shared) == 0);
  GstHarness *h2 = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h2, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h2, gst_buffer_copy (in));
  const gint n2 = vjt_metas (out, "face", b, 16);
  fail_if (n2 == 1 && !memcmp (&b[0], &astronaut_face, sizeof (Box)),
      "the second instance used the replaced file's cascade");
  fail_unless (n2 >= 2, "the eye cascade found %d boxes", n2);
  for (gint i = 0; i < n2; i++)   /* eyes: inside the face, much smaller */
    fail_unless (b[i].w < astronaut_face.w / 2, "box %d is %d wide", i, b[i].w);
  gst_buffer_unref (out);
  /* the first still has the face cascade */
  out = gst_harness_push_and_pull (h1, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "face", b, 16), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
  gst_buffer_unref (out);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
  g_free (launch);
  g_free (shared);
  g_free (tmp);
  g_free (face);
  g_free (eye);
  gst_buffer_unref (in);
}

GST_END_TEST;

GST_START_TEST (test_bad_cascades)
{
  gchar *good = vjt_default_cascade (), *text = NULL;
  gsize len;
  fail_unless (g_file_get_contents (good, &text, &len, NULL));
  text[len / 2] = 0;
  gchar *truncated = vjt_write_file ("truncated.xml", text);
  g_free (text);
#define HEAD "<?xml version=\"1.0\"?><opencv_storage><cascade><stageType>BOOST</stageType>" \
  "<featureType>HAAR</featureType><height>24</height><width>24</width><stageNum>%d</stageNum>" \
  "<stages>%s</stages><features>%s</features></cascade></opencv_storage>"
  const char *stage = "<_><maxWeakCount>1</maxWeakCount><stageThreshold>0.1</stageThreshold>"
      "<weakClassifiers><_><internalNodes>0 -1 0 0.5</internalNodes>"
      "<leafValues>-1 1</leafValues></_></weakClassifiers></_>";
  gchar *zero = g_strdup_printf (HEAD, 0, "", "<_><rects><_>0 0 4 4 -1.</_><_>0 0 2 4 2.</_>"
      "</rects></_>");
  gchar *outside = g_strdup_printf (HEAD, 1, stage, "<_><rects><_>20 0 8 4 -1.</_>"
      "<_>20 0 4 4 2.</_></rects></_>");
  gchar *tilted = g_strdup_printf (HEAD, 1, stage, "<_><rects><_>2 0 8 4 -1.</_>"
      "<_>2 0 4 4 2.</_></rects><tilted>1</tilted></_>");   /* runs left of the window */
  gchar *loop = g_strdup_printf (HEAD, 1, "<_><maxWeakCount>1</maxWeakCount>"
      "<stageThreshold>0.1</stageThreshold><weakClassifiers><_>"
      "<internalNodes>1 -1 0 0.5 1 -2 0 0.3</internalNodes><leafValues>-1 1 0.5</leafValues>"
      "</_></weakClassifiers></_>", "<_><rects><_>0 0 4 4 -1.</_><_>0 0 2 4 2.</_></rects></_>");
  /* node 1 points at itself: walking it would never end */
  gchar *p_tilted = vjt_write_file ("tilted.xml", tilted), *p_loop = vjt_write_file ("loop.xml", loop);
  gchar *p_zero = vjt_write_file ("zero.xml", zero), *p_out = vjt_write_file ("outside.xml", outside);
  gchar *p_bad = vjt_write_file ("garbage.xml", "this is < not xml &");
  gchar *p_old = vjt_write_file ("old.xml", "<?xml version=\"1.0\"?><opencv_storage>"
      "<c type_id=\"opencv-haar-classifier\"><size>24 24</size></c></opencv_storage>");
  vjt_expect_refused ("/nonexistent/face.xml", "/nonexistent/face.xml");
  vjt_expect_refused (truncated, "truncated.xml");
  vjt_expect_refused (p_bad, "garbage.xml");
  vjt_expect_refused (p_zero, "no cascade");
  vjt_expect_refused (p_out, "outside the 24x24 window");
  vjt_expect_refused (p_old, "old opencv-haar-classifier format");
  vjt_expect_refused (p_tilted, "outside the 24x24 window");
  vjt_expect_refused (p_loop, "points outside its tree");
  /* the crafted cascades of the hardening review: each crashed or misread */
  const char *rects = "<_><rects><_>0 0 4 4 -1.</_><_>0 0 2 4 2.</_></rects></_>";
  gchar *weak_first = g_strdup_printf (HEAD, 1, "</stages><weakClassifiers><_><internalNodes>"
      "0 -1 0 0.5</internalNodes><leafValues>-1 1</leafValues></_></weakClassifiers><stages>",
      rects);
  gchar *x_max = g_strdup_printf (HEAD, 1, stage, "<_><rects><_>2147483647 0 4 4 -1.</_>"
      "<_>0 0 2 4 2.</_></rects></_>");
  gchar *child_min = g_strdup_printf (HEAD, 1, "<_><maxWeakCount>1</maxWeakCount>"
      "<stageThreshold>0.1</stageThreshold><weakClassifiers><_>"
      "<internalNodes>0 -2147483648 0 0.5</internalNodes><leafValues>-1 1</leafValues>"
      "</_></weakClassifiers></_>", rects);
  gchar *nan_rect = g_strdup_printf (HEAD, 1, stage, "<_><rects><_>nan 0 4 4 -1.</_>"
      "<_>0 0 2 4 2.</_></rects></_>");
  gchar *p_weak = vjt_write_file ("weak-first.xml", weak_first), *p_xmax = vjt_write_file ("x.xml", x_max);
  gchar *p_child = vjt_write_file ("child.xml", child_min), *p_nan = vjt_write_file ("nan.xml", nan_rect);
  gchar *p_lbp = vjt_write_file ("lbp.xml", "<opencv_storage><cascade><stageType>BOOST</stageType>"
      "<featureType>LBP</featureType><height>24</height><width>24</width><featureParams>"
      "<maxCatCount>256</maxCatCount></featureParams><stages><_><stageThreshold>0</stageThreshold>"
      "<weakClassifiers><_><internalNodes>0 -1 0 -1 -1 -1 -1 -1 -1 -1 -1</internalNodes>"
      "<leafValues>-1 1</leafValues></_></weakClassifiers></_></stages><features><_><rect>"
      "0 0 1431655766 2</rect></_></features></cascade></opencv_storage>");
  vjt_expect_refused (p_weak, "<weakClassifiers> out of place");
  vjt_expect_refused (p_xmax, "a position or size that is not a whole number");
  vjt_expect_refused (p_child, "child index");
  vjt_expect_refused (p_nan, "a position or size");
  vjt_expect_refused (p_lbp, "a position or size");
  /* a FIFO would block the state change forever; /dev/zero would fill memory */
  gchar *fifo = g_build_filename (vjt_tmpdir, "fifo.xml", NULL);
  fail_unless (mkfifo (fifo, 0600) == 0);
  vjt_expect_refused (fifo, "not a regular file");
  vjt_expect_refused ("/dev/zero", "not a regular file");
  /* a name and content that are not UTF-8: the message still is */
  gchar *latin = vjt_write_file ("caf\xe9.xml", "<opencv_storage><cascade><featureType>H\xff" "AR"
      "</featureType></cascade></opencv_storage>");
  vjt_expect_start_error ("auto", latin, "caf", NULL);
  /* started again with a cascade that cannot load: an error, although the
   * element still holds the one of its last run (only a change while
   * playing keeps that one) */
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=48 ! vjdetect name=d ! fakesink", NULL);
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipe), "d");
  g_object_set (d, "cascade", good, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_READY);
  g_object_set (d, "cascade", p_bad, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "a restart with %s accepted", p_bad);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (d);
  gst_object_unref (pipe);
  g_free (latin);
  g_free (fifo);
  g_free (weak_first);
  g_free (x_max);
  g_free (child_min);
  g_free (nan_rect);
  g_free (p_weak);
  g_free (p_xmax);
  g_free (p_child);
  g_free (p_nan);
  g_free (p_lbp);
  g_free (tilted);
  g_free (loop);
  g_free (p_tilted);
  g_free (p_loop);
  g_free (zero);
  g_free (outside);
  g_free (p_zero);
  g_free (p_out);
  g_free (p_bad);
  g_free (p_old);
  g_free (truncated);
  g_free (good);
}
GST_END_TEST;

/* backend=cuda: the same boxes as the CPU on a GPU; without one, a clear
 * error when starting. */
GST_START_TEST (test_cuda_backend)
{
  gchar *c = vjt_default_cascade ();
  if (fv_cuda_device_count () == 0) {
    vjt_expect_start_error ("cuda", c, "GPU", NULL);
    g_free (c);
    return;
  }
  const char *photos[] = { "faces/astronaut.pgm", "faces/grace_hopper_matplotlib.pgm",
    "faces/vladmandic_sample3.pgm" };
  for (guint i = 0; i < G_N_ELEMENTS (photos); i++) {
    GstVideoInfo info;
    GstBuffer *in = vjt_pgm_buffer (photos[i], 0, 0, 0, 0, &info);
    Box got[2][16];
    gint n[2];
    for (gint be = 0; be < 2; be++) {
      GstHarness *h = vjt_harness_for (&info);
      vjt_vj_set_arg (h, "backend", be ? "cuda" : "cpu");
      gst_harness_set (h, "vjdetect", "min-neighbors", 0, NULL);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
      gint active;
      gst_harness_get (h, "vjdetect", "active-backend", &active, NULL);
      fail_unless_equals_int (active, be ? 1 : 0);
      n[be] = vjt_metas (out, "face", got[be], 16);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
    }
    fail_unless_equals_int (n[0], n[1]);
    fail_unless (!memcmp (got[0], got[1], sizeof (Box) * MIN (n[0], 16)), "%s differs", photos[i]);
    gst_buffer_unref (in);
  }
  g_free (c);
}
GST_END_TEST;

/* facedetect's names: profile and display are cascade and draw; updates
 * decides which frames post; message-name names the message. */
GST_START_TEST (test_facedetect_names)
{
  GstVideoInfo info;
  GstBuffer *face = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstBuffer *blank = gst_buffer_copy_deep (face);
  gst_buffer_memset (blank, 0, 0, gst_buffer_get_size (blank));
  gchar *c = vjt_default_cascade ();
  const struct { const char *updates; gint want; } modes[] = {
    { "every_frame", 5 }, { "on_change", 3 }, { "on_face", 3 }, { "none", 0 } };
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
    gchar *launch = g_strdup_printf ("vjdetect profile=%s display=true backend=cpu updates=%s "
        "message-name=facedetect", c, modes[m].updates);
    GstHarness *h = gst_harness_new_parse (launch);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    GstElement *e = gst_harness_find_element (h, "vjdetect");
    gchar *cascade;
    gboolean draw;
    g_object_get (e, "cascade", &cascade, "draw", &draw, NULL);
    fail_unless_equals_string (cascade, c);
    fail_unless (draw);
    g_free (cascade);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    GstBuffer *seq[] = { face, face, blank, blank, face };
    for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
      gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_copy (seq[i])));
    gint n = 0;
    GstMessage *msg;
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
      fail_unless (gst_structure_has_name (gst_message_get_structure (msg), "facedetect"));
      n++;
      gst_message_unref (msg);
    }
    fail_unless_equals_int (n, modes[m].want);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
    gst_harness_teardown (h);
    g_free (launch);
  }
  gst_buffer_unref (face);
  gst_buffer_unref (blank);
  g_free (c);
}
GST_END_TEST;

/* Two detectors on one stream (vjdetect ! vjdetect label=eye): every ROI
 * meta of the buffer has its own id, and each message's ids, labels and
 * neighbors are its metas'. */
GST_START_TEST (test_two_producers_unique_ids)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *c = vjt_default_cascade ();
  gchar *launch = g_strdup_printf ("vjdetect cascade=%s backend=cpu ! "
      "vjdetect cascade=%s backend=cpu label=eye min-neighbors=0", c, c);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  gpointer state = NULL;
  GstMeta *m;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  gint n = 0, faces = 0;
  while ((m = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
    fail_if (g_hash_table_contains (seen, GINT_TO_POINTER (r->id)), "id %d twice", r->id);
    g_hash_table_add (seen, GINT_TO_POINTER (r->id));
    faces += !strcmp (g_quark_to_string (r->roi_type), "face");
    n++;
  }
  fail_unless_equals_int (faces, 1);
  fail_unless (n > 2, "the second detector found %d boxes", n - faces);
  /* the messages: ids and labels of the metas */
  GstMessage *msg;
  gint listed = 0;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GValue *list = gst_structure_get_value (gst_message_get_structure (msg), "faces");
    for (guint i = 0; list && i < gst_value_list_get_size (list); i++) {
      const GstStructure *f = gst_value_get_structure (gst_value_list_get_value (list, i));
      gint id, nb;
      const gchar *label = gst_structure_get_string (f, "label");
      fail_unless (gst_structure_get_int (f, "id", &id) && gst_structure_get_int (f, "neighbors",
              &nb));
      fail_unless (g_hash_table_contains (seen, GINT_TO_POINTER (id)));
      GstVideoRegionOfInterestMeta *r = gst_buffer_get_video_region_of_interest_meta_id (out, id);
      fail_unless (r != NULL && label && !strcmp (label, g_quark_to_string (r->roi_type)));
      fail_unless (nb >= 1);
      listed++;
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (listed, n);
  g_hash_table_unref (seen);
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (c);
}
GST_END_TEST;

/* A list of angles the element cannot honour, set before the pipeline runs
 * (when no bus would see a warning), fails the start with an error that
 * names it, instead of scanning upright only; a good list set after it
 * clears it. */
GST_START_TEST (test_bad_angles_fail_start)
{
  GString *many = g_string_new ("0");
  for (int i = 1; i < 1000; i++)
    g_string_append_printf (many, ",%d", i % 90);
  gchar *cascade = vjt_default_cascade ();
  const char *const bad[] = { many->str, "10,abc", "91", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,"
        "width=64,height=64 ! vjdetect name=v cascade=%s ! fakesink", cascade);
    GstElement *pipe = gst_parse_launch (desc, NULL);
    fail_unless (pipe != NULL);
    GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
    g_object_set (v, "angles", bad[i], NULL);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "angles \"%.40s\": ran", bad[i]);
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail_unless (strstr (err->message, "Invalid angles") && strstr (err->message, "-90..90")
        && err->domain == GST_RESOURCE_ERROR, "%s", err->message);
    g_error_free (err);
    gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    /* set right afterwards: runs */
    g_object_set (v, "angles", "-15,0,15", NULL);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
    gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (v);
    gst_object_unref (pipe);
    g_free (desc);
  }
  g_free (cascade);
  g_string_free (many, TRUE);
}
GST_END_TEST;

static Suite *
vjdetect_changes_suite (void)
{
  Suite *s = suite_create ("vjdetect-changes");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, vjt_setup, vjt_teardown);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_changes_midstream);
  tcase_add_test (tc, test_bad_cascades);
  tcase_add_test (tc, test_shared_cascade);
  tcase_add_test (tc, test_cuda_backend);
  tcase_add_test (tc, test_two_producers_unique_ids);
  tcase_add_test (tc, test_facedetect_names);
  tcase_add_test (tc, test_bad_angles_fail_start);
  return s;
}

GST_CHECK_MAIN (vjdetect_changes);
