/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The vjdetect element tests' shared helpers (vjtest.h). */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "fvtest.h"
#include "fvgstcheck.h"
#include "fv_rotate.h"
#include "vjtest.h"

gchar *vjt_tmpdir;

gchar *
vjt_data_path (const char *name)
{
  const gchar *dir = g_getenv ("FV_TEST_DATA");
  return g_build_filename (dir ? dir : "tests/data", name, NULL);
}

gchar *
vjt_cascade_path (const char *kind, const char *name)
{
  const gchar *dir = g_getenv ("FV_CASCADES");
  return g_build_filename (dir ? dir : "/usr/share/opencv4", kind, name, NULL);
}

gchar *
vjt_default_cascade (void)
{
  return vjt_cascade_path ("haarcascades", "haarcascade_frontalface_default.xml");
}

void
vjt_setup (void)
{
  vjt_tmpdir = g_dir_make_tmp ("fvvjXXXXXX", NULL);
}

void
vjt_teardown (void)
{
  fvt_remove_tmpdir (&vjt_tmpdir);
}

gchar *
vjt_write_file (const char *name, const char *data)
{
  gchar *path = g_build_filename (vjt_tmpdir, name, NULL);
  fail_unless (g_file_set_contents (path, data, -1, NULL));
  return path;
}

gdouble
vjt_iou (const Box *a, const Box *b)
{
  gint x0 = MAX (a->x, b->x), y0 = MAX (a->y, b->y);
  gint x1 = MIN (a->x + a->w, b->x + b->w), y1 = MIN (a->y + a->h, b->y + b->h);
  gdouble inter = x1 > x0 && y1 > y0 ? (gdouble) (x1 - x0) * (y1 - y0) : 0;
  return inter / ((gdouble) a->w * a->h + (gdouble) b->w * b->h - inter);
}

/* A GRAY8 buffer from a PGM, optionally cropped to w x h at (x, y). */
GstBuffer *
vjt_pgm_buffer (const char *name, gint x, gint y, gint w, gint h, GstVideoInfo *info)
{
  gchar *path = vjt_data_path (name);
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
void
vjt_vj_set_arg (GstHarness *h, const char *prop, const char *value)
{
  GstElement *e = gst_harness_find_element (h, "vjdetect");
  gst_util_set_object_arg (G_OBJECT (e), prop, value);
  gst_object_unref (e);
}

GstHarness *
vjt_harness_for (const GstVideoInfo *info)
{
  gchar *c = vjt_default_cascade (), *launch = g_strdup_printf ("vjdetect cascade=%s", c);
  GstHarness *h = gst_harness_new_parse (launch);   /* the cascade set before it starts */
  g_free (launch);
  g_free (c);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

/* The ROI metas of a buffer as boxes; checks their type and parameters. */
gint
vjt_metas (GstBuffer *b, const char *type, Box *out, gint max)
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
gint
vjt_message_faces (GstMessage *msg, Box *out, gint max, GstClockTime *ts)
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

GstMessage *
vjt_pop_detection (GstBus *bus)
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

/* Runs launch to EOS; returns the faces of the last vjdetect message. */
gint
vjt_run_pipeline (const gchar *launch, Box *out, gint max)
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
      n = vjt_message_faces (m, out, max, NULL);
    gst_message_unref (m);
    if (eos)
      break;
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return n;
}

/* Boxes of `from` with a box of `to` on the same frame at IoU >= 0.5. */
guint
vjt_matched (GArray *from, GArray *from_frame, GArray *to, GArray *to_frame)
{
  guint m = 0;
  for (guint i = 0; i < from->len; i++)
    for (guint j = 0; j < to->len; j++)
      if (g_array_index (from_frame, gint, i) == g_array_index (to_frame, gint, j)
          && vjt_iou (&g_array_index (from, Box, i), &g_array_index (to, Box, j)) >= 0.5) {
        m++;
        break;
      }
  return m;
}

/* Starting vjdetect with backend and cascade must fail with an error whose
 * message holds in_message and also (NULL: anything) also, in valid UTF-8. */
void
vjt_expect_start_error (const char *backend, const char *cascade, const char *in_message,
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
void
vjt_expect_refused (const char *path, const char *expect)
{
  vjt_expect_start_error ("auto", path, path, expect);
}

/* A frame's bytes turned by `deg` with the kernel library's rotation (the
 * interpolation vjdetect's angles use). */
GstBuffer *
vjt_turned_buffer (GstBuffer *in, gint w, gint h, gdouble deg)
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

