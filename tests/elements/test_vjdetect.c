/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect in GstHarness and pipelines, what it finds: region-of-interest
 * metas and bus messages on a real photo, drawing, every caps format,
 * agreement with OpenCV over every frame of the sample clip (printed),
 * metas surviving satfilter roi-type=face, turned faces, and the interval
 * between searched frames. test_vjdetect_changes.c: property changes while
 * playing, cascades (shared, bad), the CUDA backend, facedetect's names.
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

GST_START_TEST (test_photo_metas_and_messages)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = vjt_harness_for (&info);
  vjt_vj_set_arg (h, "backend", "cpu");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  Box b[8];
  fail_unless_equals_int (vjt_metas (out, "face", b, 8), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)), "box %d,%d %dx%d", b[0].x, b[0].y,
      b[0].w, b[0].h);
  fail_unless (fvt_same_bytes (in, out), "pixels changed without draw");
  GstMessage *m = vjt_pop_detection (bus);
  fail_unless (m != NULL);
  GstClockTime ts;
  fail_unless_equals_int (vjt_message_faces (m, b, 8, &ts), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
  fail_unless_equals_uint64 (ts, 0);
  gst_message_unref (m);
  gst_buffer_unref (out);

  /* another label; no messages */
  gst_harness_set (h, "vjdetect", "label", "person", "post-messages", FALSE, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (vjt_metas (out, "person", b, 8), 1);
  fail_unless (vjt_pop_detection (bus) == NULL);
  gst_buffer_unref (out);

  /* drawing: the outline is white, the rest untouched */
  gst_harness_set (h, "vjdetect", "draw", TRUE, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  GstMapInfo mi, mo;
  gst_buffer_map (in, &mi, GST_MAP_READ);
  gst_buffer_map (out, &mo, GST_MAP_READ);
  const Box *f = &astronaut_face;
  gint changed_outside = 0;
  for (gint y = 0; y < 512; y++)
    for (gint x = 0; x < 512; x++) {
      gboolean on_box = x >= f->x && x < f->x + f->w && y >= f->y && y < f->y + f->h
          && (x < f->x + 2 || x >= f->x + f->w - 2 || y < f->y + 2 || y >= f->y + f->h - 2);
      if (on_box) {
        fail_unless_equals_int (mo.data[y * 512 + x], 255);
      } else if (mo.data[y * 512 + x] != mi.data[y * 512 + x]) {
        changed_outside++;
      }
    }
  fail_unless_equals_int (changed_outside, 0);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Drawing in colour: green on the outline in every plane of I420 and
 * RGBA, nothing else touched. The frames carry the photo's grey as luma
 * (RGB with R = G = B has exactly that luma), so the box is OpenCV's. */
GST_START_TEST (test_draw_colour)
{
  GstVideoInfo gi;
  GstBuffer *grey = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &gi);
  GstMapInfo gm;
  gst_buffer_map (grey, &gm, GST_MAP_READ);
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, formats[f], 512, 512);
    GstBuffer *in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    GstVideoFrame vf;
    fail_unless (gst_video_frame_map (&vf, &info, in, GST_MAP_WRITE));
    for (gint y = 0; y < 512; y++)
      for (gint x = 0; x < 512; x++) {
        guint8 g = gm.data[y * 512 + x];
        if (formats[f] == GST_VIDEO_FORMAT_RGBA) {
          guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0)
              + y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + 4 * x;
          px[0] = px[1] = px[2] = g;
          px[3] = 255;
        } else {
          ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + x] = g;
          if (!(x & 1) && !(y & 1))
            for (gint c = 1; c < 3; c++)
              ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, c))[(y / 2) *
                  GST_VIDEO_FRAME_PLANE_STRIDE (&vf, c) + x / 2] = 128;
        }
      }
    gst_video_frame_unmap (&vf);
    GstHarness *h = vjt_harness_for (&info);
    gst_harness_set (h, "vjdetect", "draw", TRUE, NULL);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
    Box b[4];
    fail_unless_equals_int (vjt_metas (out, "face", b, 4), 1);
    fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
    GstVideoFrame fi, fo;
    gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
    gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
    const Box *r = &astronaut_face;
    gint bad = 0;
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fo); c++) {
      const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
      const gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
      const guint8 want = formats[f] == GST_VIDEO_FORMAT_RGBA ? (c == 1 || c == 3 ? 255 : 0)
          : (c == 0 ? 145 : c == 1 ? 54 : 34);
      for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fo, c); y++)
        for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fo, c); x++) {
          /* the component sample's footprint in full-resolution pixels */
          gint x0 = x << ws, y0 = y << hs, x1 = (x + 1) << ws, y1 = (y + 1) << hs;
          gboolean in_box = x1 > r->x && x0 < r->x + r->w && y1 > r->y && y0 < r->y + r->h;
          gboolean inner = x0 >= r->x + 2 && x1 <= r->x + r->w - 2 && y0 >= r->y + 2
              && y1 <= r->y + r->h - 2;
          gsize oi = y * GST_VIDEO_FRAME_COMP_STRIDE (&fo, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fo, c);
          guint8 vo = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fo, c))[oi];
          guint8 vi = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fi, c))[oi];
          if (in_box && !inner)
            bad += vo != want;
          else
            bad += vo != vi;
        }
    }
    fail_unless_equals_int (bad, 0);
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&fo);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
  gst_buffer_unmap (grey, &gm);
  gst_buffer_unref (grey);
}
GST_END_TEST;

/* Every format: colour formats on OpenCV's luma find exactly OpenCV's box;
 * YUV formats (videoconvert's luma) a box over it. */
GST_START_TEST (test_formats)
{
  const char *formats[] = { "GRAY8", "I420", "NV12", "Y444", "RGB", "BGR", "RGBA", "BGRA",
    "RGBx", "BGRx" };
  gchar *png = vjt_data_path ("faces/astronaut.png"), *c = vjt_default_cascade ();
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *launch = g_strdup_printf ("filesrc location=%s ! pngdec ! videoconvert ! "
        "video/x-raw,format=%s ! vjdetect cascade=%s ! fakesink", png, formats[i], c);
    Box b[8];
    gint n = vjt_run_pipeline (launch, b, 8);
    fail_unless_equals_int (n, 1);
    gboolean rgb = i >= 4;
    if (rgb)
      fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)), "%s: %d,%d %dx%d", formats[i],
          b[0].x, b[0].y, b[0].w, b[0].h);
    else
      fail_unless (vjt_iou (&b[0], &astronaut_face) >= 0.5, "%s: IoU %.2f", formats[i],
          vjt_iou (&b[0], &astronaut_face));
    g_free (launch);
  }
  g_free (png);
  g_free (c);
}
GST_END_TEST;

/* Every frame of the sample clip against OpenCV's boxes: the agreement
 * both ways at IoU >= 0.5 must reach 95%. */
GST_START_TEST (test_clip_agreement)
{
  gchar *path = vjt_data_path ("faces/expected-clip.txt"), *text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s", path);
  GArray *want = g_array_new (FALSE, FALSE, sizeof (Box)), *want_frame = g_array_new (FALSE,
      FALSE, sizeof (gint));
  gint frames = 0;
  gchar **lines = g_strsplit (text, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    gint fr;
    Box b;
    if (sscanf (*l, "frame %d %d %d %d %d", &fr, &b.x, &b.y, &b.w, &b.h) == 5) {
      g_array_append_val (want, b);
      g_array_append_val (want_frame, fr);
    }
    sscanf (*l, "# frames %d", &frames);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  fail_unless (frames > 1000 && want->len > 0);

  gchar *clip = vjt_data_path ("sample-face.webm"), *c = vjt_default_cascade ();
  gchar *launch = g_strdup_printf ("filesrc location=%s ! decodebin ! videoconvert ! "
      "video/x-raw,format=GRAY8 ! vjdetect name=d cascade=%s ! fakesink sync=false", clip, c);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipe), "d");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipe);
  GArray *ours = g_array_new (FALSE, FALSE, sizeof (Box)), *ours_frame = g_array_new (FALSE,
      FALSE, sizeof (gint));
  gint seen = 0;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop (bus, 120 * GST_SECOND);
    fail_unless (m != NULL);
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
    gboolean eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (m), "vjdetect")) {
      Box b[32];
      GstClockTime ts;
      gint n = vjt_message_faces (m, b, 32, &ts);
      gint fr = seen;   /* one message a frame, in order (the clip's timestamps start late) */
      for (gint i = 0; i < n && i < 32; i++) {
        g_array_append_val (ours, b[i]);
        g_array_append_val (ours_frame, fr);
      }
      seen++;
    }
    gst_message_unref (m);
    if (eos)
      break;
  }
  gint backend;
  g_object_get (d, "active-backend", &backend, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless_equals_int (seen, frames);
  const guint a = vjt_matched (ours, ours_frame, want, want_frame);
  const guint b = vjt_matched (want, want_frame, ours, ours_frame);
  gdouble pa = ours->len ? 100.0 * a / ours->len : 100.0, pb = 100.0 * b / want->len;
  g_print ("agreement on %d frames of sample-face.webm (%s backend): %.1f%% of our %u boxes "
      "matched by OpenCV's, %.1f%% of OpenCV's %u matched by ours (IoU >= 0.5)\n", frames,
      backend == 1 ? "cuda" : "cpu", pa, ours->len, pb, want->len);
  fail_unless (pa >= 95.0 && pb >= 95.0);
  g_array_free (ours, TRUE);
  g_array_free (ours_frame, TRUE);
  g_array_free (want, TRUE);
  g_array_free (want_frame, TRUE);
  gst_object_unref (bus);
  gst_object_unref (d);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (clip);
  g_free (c);
}
GST_END_TEST;

/* The privacy filter: vjdetect's metas reach satfilter, which blurs only
 * inside them, and still leave with the buffer. */
GST_START_TEST (test_metas_survive_satfilter)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *c = vjt_default_cascade ();
  gchar *launch = g_strdup_printf ("vjdetect cascade=%s backend=cpu ! "
      "satfilter roi-type=face radius=6 backend=cpu", c);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  Box b[4];
  fail_unless_equals_int (vjt_metas (out, "face", b, 4), 1);
  GstMapInfo mi, mo;
  gst_buffer_map (in, &mi, GST_MAP_READ);
  gst_buffer_map (out, &mo, GST_MAP_READ);
  gint inside = 0, outside = 0;
  for (gint y = 0; y < 512; y++)
    for (gint x = 0; x < 512; x++) {
      gboolean in_box = x >= b[0].x && x < b[0].x + b[0].w && y >= b[0].y && y < b[0].y + b[0].h;
      if (mi.data[y * 512 + x] != mo.data[y * 512 + x]) {
        if (in_box)
          inside++;
        else
          outside++;
      }
    }
  fail_unless (inside > b[0].w * b[0].h / 2, "only %d pixels blurred", inside);
  fail_unless_equals_int (outside, 0);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (c);
}
GST_END_TEST;

#define TURN 45
/* angles: a face turned 45 degrees is missed upright and found by the scan
 * turned back, its box exactly the reference's (turn the frame the same
 * way, detect upright, map the corners back, bounding box); overlapping
 * boxes of several turns merge into one. */
GST_START_TEST (test_turned_faces)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstBuffer *tilted = vjt_turned_buffer (in, 512, 512, -TURN);   /* the face turned clockwise */
  GstHarness *h = vjt_harness_for (&info);
  vjt_vj_set_arg (h, "backend", "cpu");
  Box b[8], r[8];
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  fail_unless_equals_int (vjt_metas (out, "face", b, 8), 0);   /* upright misses it */
  gst_buffer_unref (out);
  /* the reference: turned back, detected upright, mapped back */
  GstBuffer *back = vjt_turned_buffer (tilted, 512, 512, TURN);
  out = gst_harness_push_and_pull (h, back);
  gint nr = vjt_metas (out, "face", r, 8);
  fail_unless (nr >= 1, "the turned-back frame has no face");
  gst_buffer_unref (out);
  const fv_rotation rot = fv_rotation_of (TURN);
  for (gint i = 0; i < nr; i++) {
    gdouble x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (gint c = 0; c < 4; c++) {
      gdouble fx, fy;
      fv_rotation_to_frame (rot, 512, 512, r[i].x + (c & 1) * r[i].w, r[i].y + (c >> 1) * r[i].h,
          &fx, &fy);
      x0 = MIN (x0, fx); y0 = MIN (y0, fy); x1 = MAX (x1, fx); y1 = MAX (y1, fy);
    }
    r[i].x = (gint) CLAMP (floor (x0), 0, 512);
    r[i].y = (gint) CLAMP (floor (y0), 0, 512);
    r[i].w = (gint) CLAMP (ceil (x1), 0, 512) - r[i].x;
    r[i].h = (gint) CLAMP (ceil (y1), 0, 512) - r[i].y;
  }
  vjt_vj_set_arg (h, "angles", G_STRINGIFY (TURN));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  gint n = vjt_metas (out, "face", b, 8);
  fail_unless_equals_int (n, nr);
  for (gint i = 0; i < n; i++)
    fail_unless (!memcmp (&b[i], &r[i], sizeof (Box)), "box %d: %d,%d %dx%d, the reference "
        "%d,%d %dx%d", i, b[i].x, b[i].y, b[i].w, b[i].h, r[i].x, r[i].y, r[i].w, r[i].h);
  gst_buffer_unref (out);
  /* seven turns: the face found (one of its boxes holds its centre) */
  vjt_vj_set_arg (h, "angles", "-45,-30,-15,0,15,30,45");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  n = vjt_metas (out, "face", b, 8);
  gdouble cx, cy;   /* the upright face's centre, turned like the frame */
  fv_rotation_to_frame (fv_rotation_of (TURN), 512, 512, astronaut_face.x + astronaut_face.w / 2.0,
      astronaut_face.y + astronaut_face.h / 2.0, &cx, &cy);
  gint holding = 0;
  for (gint i = 0; i < n; i++) {
    g_print ("turned face: box %d,%d %dx%d\n", b[i].x, b[i].y, b[i].w, b[i].h);
    holding += b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h;
  }
  fail_unless_equals_int (holding, 1);   /* one box for the face: its turns merged */
  Box whole = { 0 };
  for (gint i = 0; i < n; i++)
    if (b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h)
      whole = b[i];
  gst_buffer_unref (out);
  /* steered (turned-interval=6, six turned angles: one whole a frame,
   * -45 first, then 45): frame 0 misses the face, frame 1 finds it at 45,
   * and from frame 2 on the windows around it find it at every angle. The
   * raw windows inside a window are the whole scan's (test_vj); a group
   * may also take in windows of sizes beyond the window's range, so the
   * box is the whole scans' within a few pixels, not exactly. */
  vjt_vj_set_arg (h, "turned-interval", "6");
  for (gint f = 0; f < 6; f++) {
    out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
    n = vjt_metas (out, "face", b, 8);
    gint held = -1;
    for (gint i = 0; i < n; i++)
      if (b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h)
        held = i;
    fail_unless ((held >= 0) == (f > 0), "steered frame %d: face %s", f,
        held >= 0 ? "found" : "missed");
    if (f >= 2)
      fail_unless (abs (b[held].x - whole.x) <= 4 && abs (b[held].y - whole.y) <= 4
          && abs (b[held].w - whole.w) <= 4 && abs (b[held].h - whole.h) <= 4,
          "steered frame %d: %d,%d %dx%d, whole scans %d,%d %dx%d", f, b[held].x, b[held].y, b[held].w, b[held].h, whole.x,
          whole.y, whole.w, whole.h);
    gst_buffer_unref (out);
  }
  /* turned-agreement=2: at frame 1 only the scan at 45 sees the face (held
   * back); from frame 2 on the window looks at every angle and 30 agrees */
  vjt_vj_set_arg (h, "turned-agreement", "2");
  for (gint f = 0; f < 4; f++) {
    out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
    n = vjt_metas (out, "face", b, 8);
    gint held = 0;
    for (gint i = 0; i < n; i++)
      held |= b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h;
    fail_unless (held == (f > 1), "agreement frame %d: face %s", f, held ? "found" : "missed");
    gst_buffer_unref (out);
  }
  vjt_vj_set_arg (h, "turned-agreement", "1");
  /* turned-edge=0.5: bands along the edges half the frame wide take in the
   * face, so the first steered frame (the scans start again with the new
   * setting: only -45 whole, which misses it) finds it in them */
  vjt_vj_set_arg (h, "turned-edge", "0.5");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  n = vjt_metas (out, "face", b, 8);
  gint in_band = 0;
  for (gint i = 0; i < n; i++)
    in_band |= b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h;
  fail_unless (in_band, "turned-edge=0.5, first steered frame: face missed");
  gst_buffer_unref (out);
  vjt_vj_set_arg (h, "turned-edge", "0");
  vjt_vj_set_arg (h, "turned-interval", "1");
  /* a list that does not parse: a warning, the old list stays */
  vjt_vj_set_arg (h, "angles", "10,abc");
  gchar *now = NULL;
  g_object_get (gst_harness_find_element (h, "vjdetect"), "angles", &now, NULL);
  fail_unless_equals_string (now, "-45,-30,-15,0,15,30,45");
  g_free (now);
  gst_buffer_unref (tilted);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* interval=3: frames 0, 3, 6 searched (boxes, marked 1), the others
 * skipped (no boxes, marked 0). */
GST_START_TEST (test_interval)
{
  GstVideoInfo info;
  GstBuffer *in = vjt_pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = vjt_harness_for (&info);
  vjt_vj_set_arg (h, "backend", "cpu");
  vjt_vj_set_arg (h, "interval", "3");
  for (gint f = 0; f < 7; f++) {
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
    Box b[8];
    const gboolean searched = f % 3 == 0;
    fail_unless_equals_int (vjt_metas (out, "face", b, 8), searched ? 1 : 0);
    GstCustomMeta *m = gst_buffer_get_custom_meta (out, "FvDetectionMeta");
    gint v = -1;
    fail_unless (m && gst_structure_get_int (gst_custom_meta_get_structure (m), "face", &v));
    fail_unless_equals_int (v, searched);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
vjdetect_suite (void)
{
  Suite *s = suite_create ("vjdetect");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, vjt_setup, vjt_teardown);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_turned_faces);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_photo_metas_and_messages);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_draw_colour);
  tcase_add_test (tc, test_clip_agreement);
  tcase_add_test (tc, test_metas_survive_satfilter);
  return s;
}

GST_CHECK_MAIN (vjdetect);
