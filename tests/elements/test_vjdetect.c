/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect in GstHarness and pipelines: region-of-interest metas and bus
 * messages on a real photo, drawing, every caps format, agreement with
 * OpenCV over every frame of the sample clip (printed), property changes
 * while playing (cascade included), bad cascades refused with file and
 * reason, tiny frames, metas surviving satfilter roi-type=face, and the
 * CUDA backend (equal to the CPU where there is a GPU, a clear error where
 * there is none).
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

static gchar *tmpdir;

typedef struct { gint x, y, w, h; } Box;
static const Box astronaut_face = { 177, 66, 95, 95 };   /* OpenCV 4.6's, see tests/data/faces */

static gchar *
data_path (const char *name)
{
  const gchar *dir = g_getenv ("FV_TEST_DATA");
  return g_build_filename (dir ? dir : "tests/data", name, NULL);
}

static gchar *
cascade_path (const char *kind, const char *name)
{
  const gchar *dir = g_getenv ("FV_CASCADES");
  return g_build_filename (dir ? dir : "/usr/share/opencv4", kind, name, NULL);
}

static gchar *
default_cascade (void)
{
  return cascade_path ("haarcascades", "haarcascade_frontalface_default.xml");
}

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("fvvjXXXXXX", NULL);
}

static void
teardown (void)
{
  GDir *d = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;
  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (tmpdir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static gchar *
write_file (const char *name, const char *data)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  fail_unless (g_file_set_contents (path, data, -1, NULL));
  return path;
}

static gdouble
iou (const Box *a, const Box *b)
{
  gint x0 = MAX (a->x, b->x), y0 = MAX (a->y, b->y);
  gint x1 = MIN (a->x + a->w, b->x + b->w), y1 = MIN (a->y + a->h, b->y + b->h);
  gdouble inter = x1 > x0 && y1 > y0 ? (gdouble) (x1 - x0) * (y1 - y0) : 0;
  return inter / ((gdouble) a->w * a->h + (gdouble) b->w * b->h - inter);
}

/* A GRAY8 buffer from a PGM, optionally cropped to w x h at (x, y). */
static GstBuffer *
pgm_buffer (const char *name, gint x, gint y, gint w, gint h, GstVideoInfo *info)
{
  gchar *path = data_path (name);
  fv_image *im = fvt_load_pnm (path);
  fail_unless (im != NULL, "cannot load %s", path);
  if (w <= 0) {
    w = im->width;
    h = im->height;
  }
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  GstBuffer *b = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, b, GST_MAP_WRITE));
  for (gint j = 0; j < h; j++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + j * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
        (guint8 *) im->data + (y + j) * im->stride + x, w);
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (b) = 0;
  GST_BUFFER_DURATION (b) = 40 * GST_MSECOND;
  fvt_image_free (im);
  g_free (im);
  g_free (path);
  return b;
}

/* Sets an enum property of the harness's vjdetect by its nick. */
static void
vj_set_arg (GstHarness *h, const char *prop, const char *value)
{
  GstElement *e = gst_harness_find_element (h, "vjdetect");
  gst_util_set_object_arg (G_OBJECT (e), prop, value);
  gst_object_unref (e);
}

static GstHarness *
harness_for (const GstVideoInfo *info)
{
  gchar *c = default_cascade (), *launch = g_strdup_printf ("vjdetect cascade=%s", c);
  GstHarness *h = gst_harness_new_parse (launch);   /* the cascade set before it starts */
  g_free (launch);
  g_free (c);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

/* The ROI metas of a buffer as boxes; checks their type and parameters. */
static gint
metas (GstBuffer *b, const char *type, Box *out, gint max)
{
  gpointer state = NULL;
  GstMeta *m;
  gint n = 0;
  while ((m = gst_buffer_iterate_meta_filtered (b, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
    fail_unless_equals_string (g_quark_to_string (r->roi_type), type);
    GstStructure *p = gst_video_region_of_interest_meta_get_param (r, "detection");
    gint nb = 0;
    fail_unless (p && gst_structure_get_int (p, "neighbors", &nb) && nb > 0);
    if (n < max)
      out[n] = (Box) { r->x, r->y, r->w, r->h };
    n++;
  }
  return n;
}

/* The faces of a vjdetect element message. */
static gint
message_faces (GstMessage *msg, Box *out, gint max, GstClockTime *ts)
{
  const GstStructure *s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "vjdetect"));
  guint64 t, st, rt, d;
  fail_unless (gst_structure_get (s, "timestamp", G_TYPE_UINT64, &t, "stream-time", G_TYPE_UINT64,
          &st, "running-time", G_TYPE_UINT64, &rt, "duration", G_TYPE_UINT64, &d, NULL));
  if (ts)
    *ts = t;
  const GValue *faces = gst_structure_get_value (s, "faces");
  fail_unless (faces && GST_VALUE_HOLDS_LIST (faces));
  gint n = gst_value_list_get_size (faces);
  for (gint i = 0; i < n && i < max; i++) {
    const GstStructure *f = gst_value_get_structure (gst_value_list_get_value (faces, i));
    guint x, y, w, h;
    fail_unless (gst_structure_has_name (f, "face"));
    fail_unless (gst_structure_get (f, "x", G_TYPE_UINT, &x, "y", G_TYPE_UINT, &y,
            "width", G_TYPE_UINT, &w, "height", G_TYPE_UINT, &h, NULL));
    out[i] = (Box) { x, y, w, h };
  }
  return n;
}

static GstMessage *
pop_detection (GstBus *bus)
{
  GstMessage *m;
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (m), "vjdetect"))
      return m;
    gst_message_unref (m);
  }
  return NULL;
}

GST_START_TEST (test_photo_metas_and_messages)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = harness_for (&info);
  vj_set_arg (h, "backend", "cpu");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  Box b[8];
  fail_unless_equals_int (metas (out, "face", b, 8), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)), "box %d,%d %dx%d", b[0].x, b[0].y,
      b[0].w, b[0].h);
  fail_unless (fvt_same_bytes (in, out), "pixels changed without draw");
  GstMessage *m = pop_detection (bus);
  fail_unless (m != NULL);
  GstClockTime ts;
  fail_unless_equals_int (message_faces (m, b, 8, &ts), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
  fail_unless_equals_uint64 (ts, 0);
  gst_message_unref (m);
  gst_buffer_unref (out);

  /* another label; no messages */
  gst_harness_set (h, "vjdetect", "label", "person", "post-messages", FALSE, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "person", b, 8), 1);
  fail_unless (pop_detection (bus) == NULL);
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
  GstBuffer *grey = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &gi);
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
    GstHarness *h = harness_for (&info);
    gst_harness_set (h, "vjdetect", "draw", TRUE, NULL);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
    Box b[4];
    fail_unless_equals_int (metas (out, "face", b, 4), 1);
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

/* Runs launch to EOS; returns the faces of the last vjdetect message. */
static gint
run_pipeline (const gchar *launch, Box *out, gint max)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : launch);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipe);
  gint n = -1;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop (bus, 60 * GST_SECOND);
    fail_unless (m != NULL, "timeout: %s", launch);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      fail ("%s: %s", launch, err->message);
    }
    gboolean eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (m), "vjdetect"))
      n = message_faces (m, out, max, NULL);
    gst_message_unref (m);
    if (eos)
      break;
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return n;
}

/* Every format: colour formats on OpenCV's luma find exactly OpenCV's box;
 * YUV formats (videoconvert's luma) a box over it. */
GST_START_TEST (test_formats)
{
  const char *formats[] = { "GRAY8", "I420", "NV12", "Y444", "RGB", "BGR", "RGBA", "BGRA",
    "RGBx", "BGRx" };
  gchar *png = data_path ("faces/astronaut.png"), *c = default_cascade ();
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *launch = g_strdup_printf ("filesrc location=%s ! pngdec ! videoconvert ! "
        "video/x-raw,format=%s ! vjdetect cascade=%s ! fakesink", png, formats[i], c);
    Box b[8];
    gint n = run_pipeline (launch, b, 8);
    fail_unless_equals_int (n, 1);
    gboolean rgb = i >= 4;
    if (rgb)
      fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)), "%s: %d,%d %dx%d", formats[i],
          b[0].x, b[0].y, b[0].w, b[0].h);
    else
      fail_unless (iou (&b[0], &astronaut_face) >= 0.5, "%s: IoU %.2f", formats[i],
          iou (&b[0], &astronaut_face));
    g_free (launch);
  }
  g_free (png);
  g_free (c);
}
GST_END_TEST;

/* Boxes of `from` with a box of `to` on the same frame at IoU >= 0.5. */
static guint
matched (GArray *from, GArray *from_frame, GArray *to, GArray *to_frame)
{
  guint m = 0;
  for (guint i = 0; i < from->len; i++)
    for (guint j = 0; j < to->len; j++)
      if (g_array_index (from_frame, gint, i) == g_array_index (to_frame, gint, j)
          && iou (&g_array_index (from, Box, i), &g_array_index (to, Box, j)) >= 0.5) {
        m++;
        break;
      }
  return m;
}

/* Every frame of the sample clip against OpenCV's boxes: the agreement
 * both ways at IoU >= 0.5 must reach 95%. */
GST_START_TEST (test_clip_agreement)
{
  gchar *path = data_path ("faces/expected-clip.txt"), *text = NULL;
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

  gchar *clip = data_path ("sample-face.webm"), *c = default_cascade ();
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
      gint n = message_faces (m, b, 32, &ts);
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
  const guint a = matched (ours, ours_frame, want, want_frame);
  const guint b = matched (want, want_frame, ours, ours_frame);
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

GST_START_TEST (test_changes_midstream)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = harness_for (&info);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  Box b[16];
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
  gst_buffer_unref (out);

  gst_harness_set (h, "vjdetect", "min-neighbors", 1000, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);

  /* min-neighbors 0: every raw window, OpenCV's 47 (expected-raw.txt) */
  gst_harness_set (h, "vjdetect", "min-neighbors", 0, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 47);
  gst_buffer_unref (out);

  /* a minimum size above the face: nothing */
  gst_harness_set (h, "vjdetect", "min-neighbors", 3, "min-size-width", 120, "min-size-height", 120,
      NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);

  /* an LBP cascade while playing */
  gchar *lbp = cascade_path ("lbpcascades", "lbpcascade_frontalface_improved.xml");
  gst_harness_set (h, "vjdetect", "min-size-width", 0, "min-size-height", 0, "cascade", lbp, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
  fail_unless (iou (&b[0], &astronaut_face) >= 0.5);
  gst_buffer_unref (out);

  /* a cascade that cannot load: a warning naming it, the LBP one stays */
  while (gst_bus_have_pending (bus))
    gst_message_unref (gst_bus_pop (bus));
  gst_harness_set (h, "vjdetect", "cascade", "/nonexistent/cascade.xml", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless (out != NULL);
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
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
  gchar *crafted = write_file ("crafted.xml", "<opencv_storage><cascade><featureType>HAAR"
      "</featureType><width>24</width><height>24</height><stages><_><weakClassifiers><_>"
      "<internalNodes>0 -2147483648 0 0.5</internalNodes><leafValues>-1 1</leafValues></_>"
      "</weakClassifiers></_></stages><features><_><rects><_>2147483647 0 4 4 -1.</_></rects>"
      "</_></features></cascade></opencv_storage>");
  g_object_set (vj, "cascade", crafted, NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
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
  GstBuffer *crop = pgm_buffer ("faces/astronaut.pgm", 101, 33, 301, 257, &small);
  gchar *c = default_cascade ();
  gst_harness_set (h, "vjdetect", "cascade", c, NULL);
  g_free (c);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&small));
  out = gst_harness_push_and_pull (h, crop);
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
  Box shifted = { b[0].x + 101, b[0].y + 33, b[0].w, b[0].h };
  fail_unless (iou (&shifted, &astronaut_face) >= 0.5, "%d,%d", b[0].x, b[0].y);
  gst_buffer_unref (out);

  /* frames smaller than the window: no detection, no error */
  GstVideoInfo tiny;
  GstBuffer *t = pgm_buffer ("faces/astronaut.pgm", 200, 100, 16, 16, &tiny);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&tiny));
  out = gst_harness_push_and_pull (h, t);
  fail_unless (out != NULL);
  fail_unless_equals_int (metas (out, "face", b, 16), 0);
  gst_buffer_unref (out);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  gst_buffer_unref (in);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Starting vjdetect with backend and cascade must fail with an error whose
 * message holds in_message and also (NULL: anything) also, in valid UTF-8. */
static void
expect_start_error (const char *backend, const char *cascade, const char *in_message,
    const char *also)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=64,height=48 ! vjdetect name=d ! fakesink", NULL);
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipe), "d");
  g_object_set (d, "cascade", cascade, NULL);
  gst_util_set_object_arg (G_OBJECT (d), "backend", backend);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 5 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s with backend=%s accepted", cascade, backend);
  GError *err = NULL;
  gchar *dbg = NULL;
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (strstr (err->message, in_message) != NULL, "%s", err->message);
  fail_unless (!also || strstr (err->message, also) != NULL, "%s: %s", cascade, err->message);
  fail_unless (g_utf8_validate (err->message, -1, NULL));
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (d);
  gst_object_unref (pipe);
}

/* A bad cascade at start: an error naming the file and the reason. */
static void
expect_refused (const char *path, const char *expect)
{
  expect_start_error ("auto", path, path, expect);
}

/* Instances naming the same file share its parsed cascade (fvcascades.c):
 * a second instance started after the file was replaced on disk must read
 * the new file, and the first keeps the cascade it started with. */
GST_START_TEST (test_shared_cascade)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *face = default_cascade (), *eye = cascade_path ("haarcascades", "haarcascade_eye.xml");
  gchar *text = NULL;
  gsize len;
  fail_unless (g_file_get_contents (face, &text, &len, NULL));
  gchar *shared = write_file ("shared.xml", text);
  g_free (text);
  gchar *launch = g_strdup_printf ("vjdetect backend=cpu cascade=%s", shared);
  GstHarness *h1 = gst_harness_new_parse (launch);   /* started: the cascade is read */
  gst_harness_set_src_caps (h1, gst_video_info_to_caps (&info));
  Box b[16];
  GstBuffer *out = gst_harness_push_and_pull (h1, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
  fail_unless (!memcmp (&b[0], &astronaut_face, sizeof (Box)));
  gst_buffer_unref (out);
  /* the eye cascade now under the same name (another size and inode) */
  fail_unless (g_file_get_contents (eye, &text, &len, NULL));
  gchar *tmp = write_file ("shared.xml.new", text);
  g_free (text);
  fail_unless (g_rename (tmp, shared) == 0);
  GstHarness *h2 = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h2, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h2, gst_buffer_copy (in));
  const gint n2 = metas (out, "face", b, 16);
  fail_if (n2 == 1 && !memcmp (&b[0], &astronaut_face, sizeof (Box)),
      "the second instance used the replaced file's cascade");
  fail_unless (n2 >= 2, "the eye cascade found %d boxes", n2);
  for (gint i = 0; i < n2; i++)   /* eyes: inside the face, much smaller */
    fail_unless (b[i].w < astronaut_face.w / 2, "box %d is %d wide", i, b[i].w);
  gst_buffer_unref (out);
  /* the first still has the face cascade */
  out = gst_harness_push_and_pull (h1, gst_buffer_copy (in));
  fail_unless_equals_int (metas (out, "face", b, 16), 1);
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
  gchar *good = default_cascade (), *text = NULL;
  gsize len;
  fail_unless (g_file_get_contents (good, &text, &len, NULL));
  text[len / 2] = 0;
  gchar *truncated = write_file ("truncated.xml", text);
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
  gchar *p_tilted = write_file ("tilted.xml", tilted), *p_loop = write_file ("loop.xml", loop);
  gchar *p_zero = write_file ("zero.xml", zero), *p_out = write_file ("outside.xml", outside);
  gchar *p_bad = write_file ("garbage.xml", "this is < not xml &");
  gchar *p_old = write_file ("old.xml", "<?xml version=\"1.0\"?><opencv_storage>"
      "<c type_id=\"opencv-haar-classifier\"><size>24 24</size></c></opencv_storage>");
  expect_refused ("/nonexistent/face.xml", "/nonexistent/face.xml");
  expect_refused (truncated, "truncated.xml");
  expect_refused (p_bad, "garbage.xml");
  expect_refused (p_zero, "no cascade");
  expect_refused (p_out, "outside the 24x24 window");
  expect_refused (p_old, "old opencv-haar-classifier format");
  expect_refused (p_tilted, "outside the 24x24 window");
  expect_refused (p_loop, "points outside its tree");
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
  gchar *p_weak = write_file ("weak-first.xml", weak_first), *p_xmax = write_file ("x.xml", x_max);
  gchar *p_child = write_file ("child.xml", child_min), *p_nan = write_file ("nan.xml", nan_rect);
  gchar *p_lbp = write_file ("lbp.xml", "<opencv_storage><cascade><stageType>BOOST</stageType>"
      "<featureType>LBP</featureType><height>24</height><width>24</width><featureParams>"
      "<maxCatCount>256</maxCatCount></featureParams><stages><_><stageThreshold>0</stageThreshold>"
      "<weakClassifiers><_><internalNodes>0 -1 0 -1 -1 -1 -1 -1 -1 -1 -1</internalNodes>"
      "<leafValues>-1 1</leafValues></_></weakClassifiers></_></stages><features><_><rect>"
      "0 0 1431655766 2</rect></_></features></cascade></opencv_storage>");
  expect_refused (p_weak, "<weakClassifiers> out of place");
  expect_refused (p_xmax, "a position or size that is not a whole number");
  expect_refused (p_child, "child index");
  expect_refused (p_nan, "a position or size");
  expect_refused (p_lbp, "a position or size");
  /* a FIFO would block the state change forever; /dev/zero would fill memory */
  gchar *fifo = g_build_filename (tmpdir, "fifo.xml", NULL);
  fail_unless (mkfifo (fifo, 0600) == 0);
  expect_refused (fifo, "not a regular file");
  expect_refused ("/dev/zero", "not a regular file");
  /* a name and content that are not UTF-8: the message still is */
  gchar *latin = write_file ("caf\xe9.xml", "<opencv_storage><cascade><featureType>H\xff" "AR"
      "</featureType></cascade></opencv_storage>");
  expect_start_error ("auto", latin, "caf", NULL);
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

/* The privacy filter: vjdetect's metas reach satfilter, which blurs only
 * inside them, and still leave with the buffer. */
GST_START_TEST (test_metas_survive_satfilter)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *c = default_cascade ();
  gchar *launch = g_strdup_printf ("vjdetect cascade=%s backend=cpu ! "
      "satfilter roi-type=face radius=6 backend=cpu", c);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  Box b[4];
  fail_unless_equals_int (metas (out, "face", b, 4), 1);
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

/* backend=cuda: the same boxes as the CPU on a GPU; without one, a clear
 * error when starting. */
GST_START_TEST (test_cuda_backend)
{
  gchar *c = default_cascade ();
  if (fv_cuda_device_count () == 0) {
    expect_start_error ("cuda", c, "GPU", NULL);
    g_free (c);
    return;
  }
  const char *photos[] = { "faces/astronaut.pgm", "faces/grace_hopper_matplotlib.pgm",
    "faces/vladmandic_sample3.pgm" };
  for (guint i = 0; i < G_N_ELEMENTS (photos); i++) {
    GstVideoInfo info;
    GstBuffer *in = pgm_buffer (photos[i], 0, 0, 0, 0, &info);
    Box got[2][16];
    gint n[2];
    for (gint be = 0; be < 2; be++) {
      GstHarness *h = harness_for (&info);
      vj_set_arg (h, "backend", be ? "cuda" : "cpu");
      gst_harness_set (h, "vjdetect", "min-neighbors", 0, NULL);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
      gint active;
      gst_harness_get (h, "vjdetect", "active-backend", &active, NULL);
      fail_unless_equals_int (active, be ? 1 : 0);
      n[be] = metas (out, "face", got[be], 16);
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
  GstBuffer *face = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstBuffer *blank = gst_buffer_copy_deep (face);
  gst_buffer_memset (blank, 0, 0, gst_buffer_get_size (blank));
  gchar *c = default_cascade ();
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
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  gchar *c = default_cascade ();
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

/* A frame's bytes turned by `deg` with the kernel library's rotation (the
 * interpolation vjdetect's angles use). */
static GstBuffer *
turned_buffer (GstBuffer *in, gint w, gint h, gdouble deg)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, (gsize) w * h, NULL);
  GstMapInfo mi, mo;
  gst_buffer_map (in, &mi, GST_MAP_READ);
  gst_buffer_map (out, &mo, GST_MAP_WRITE);
  fv_image a = fv_image_make (mi.data, w, w, h, 1, FV_U8, FV_MEM_HOST);
  fv_image b = fv_image_make (mo.data, w, w, h, 1, FV_U8, FV_MEM_HOST);
  fail_unless (fv_rotate_u8 (&a, &b, fv_rotation_of (deg), 1, NULL) == FV_OK);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  return out;
}

#define TURN 45
/* angles: a face turned 45 degrees is missed upright and found by the scan
 * turned back, its box exactly the reference's (turn the frame the same
 * way, detect upright, map the corners back, bounding box); overlapping
 * boxes of several turns merge into one. */
GST_START_TEST (test_turned_faces)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstBuffer *tilted = turned_buffer (in, 512, 512, -TURN);   /* the face turned clockwise */
  GstHarness *h = harness_for (&info);
  vj_set_arg (h, "backend", "cpu");
  Box b[8], r[8];
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  fail_unless_equals_int (metas (out, "face", b, 8), 0);   /* upright misses it */
  gst_buffer_unref (out);
  /* the reference: turned back, detected upright, mapped back */
  GstBuffer *back = turned_buffer (tilted, 512, 512, TURN);
  out = gst_harness_push_and_pull (h, back);
  gint nr = metas (out, "face", r, 8);
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
  vj_set_arg (h, "angles", G_STRINGIFY (TURN));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  gint n = metas (out, "face", b, 8);
  fail_unless_equals_int (n, nr);
  for (gint i = 0; i < n; i++)
    fail_unless (!memcmp (&b[i], &r[i], sizeof (Box)), "box %d: %d,%d %dx%d, the reference "
        "%d,%d %dx%d", i, b[i].x, b[i].y, b[i].w, b[i].h, r[i].x, r[i].y, r[i].w, r[i].h);
  gst_buffer_unref (out);
  /* seven turns: the face found (one of its boxes holds its centre) */
  vj_set_arg (h, "angles", "-45,-30,-15,0,15,30,45");
  out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
  n = metas (out, "face", b, 8);
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
  vj_set_arg (h, "turned-interval", "6");
  for (gint f = 0; f < 6; f++) {
    out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
    n = metas (out, "face", b, 8);
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
  vj_set_arg (h, "turned-agreement", "2");
  for (gint f = 0; f < 4; f++) {
    out = gst_harness_push_and_pull (h, gst_buffer_ref (tilted));
    n = metas (out, "face", b, 8);
    gint held = 0;
    for (gint i = 0; i < n; i++)
      held |= b[i].x <= cx && cx <= b[i].x + b[i].w && b[i].y <= cy && cy <= b[i].y + b[i].h;
    fail_unless (held == (f > 1), "agreement frame %d: face %s", f, held ? "found" : "missed");
    gst_buffer_unref (out);
  }
  vj_set_arg (h, "turned-agreement", "1");
  vj_set_arg (h, "turned-interval", "1");
  /* a list that does not parse: a warning, the old list stays */
  vj_set_arg (h, "angles", "10,abc");
  gchar *now = NULL;
  g_object_get (gst_harness_find_element (h, "vjdetect"), "angles", &now, NULL);
  fail_unless_equals_string (now, "-45,-30,-15,0,15,30,45");
  g_free (now);
  gst_buffer_unref (tilted);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
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
  gchar *cascade = default_cascade ();
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

/* interval=3: frames 0, 3, 6 searched (boxes, marked 1), the others
 * skipped (no boxes, marked 0). */
GST_START_TEST (test_interval)
{
  GstVideoInfo info;
  GstBuffer *in = pgm_buffer ("faces/astronaut.pgm", 0, 0, 0, 0, &info);
  GstHarness *h = harness_for (&info);
  vj_set_arg (h, "backend", "cpu");
  vj_set_arg (h, "interval", "3");
  for (gint f = 0; f < 7; f++) {
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_copy (in));
    Box b[8];
    const gboolean searched = f % 3 == 0;
    fail_unless_equals_int (metas (out, "face", b, 8), searched ? 1 : 0);
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
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_turned_faces);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_photo_metas_and_messages);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_draw_colour);
  tcase_add_test (tc, test_clip_agreement);
  tcase_add_test (tc, test_changes_midstream);
  tcase_add_test (tc, test_bad_cascades);
  tcase_add_test (tc, test_shared_cascade);
  tcase_add_test (tc, test_metas_survive_satfilter);
  tcase_add_test (tc, test_cuda_backend);
  tcase_add_test (tc, test_two_producers_unique_ids);
  tcase_add_test (tc, test_facedetect_names);
  tcase_add_test (tc, test_bad_angles_fail_start);
  return s;
}

GST_CHECK_MAIN (vjdetect);
