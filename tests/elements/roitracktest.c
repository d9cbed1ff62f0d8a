/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The roitrack element tests' shared helpers (roitracktest.h). */
#include "roitracktest.h"
#include "../common/fvgstcheck.h"

/* ---- the element ---- */

GstHarness *
harness (const gchar *props)
{
  gchar *desc = g_strdup_printf ("roitrack hold=%d hold-once=%d margin=%g grow=%g min-iou=%g %s",
      HOLD, HOLD_ONCE, MARGIN, GROW, MIN_IOU, props);
  GstHarness *h = gst_harness_new_parse (desc);
  g_free (desc);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=640,height=480,"
      "framerate=30/1");
  return h;
}

/* A frame with these face detections (and one "plate" region that must
 * pass untouched), marked `searched` as vjdetect marks it. */
GstBuffer *
make_frame (const Box *det, int nd, int searched)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, W * H, NULL);
  for (int i = 0; i < nd; i++) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (b, "face",
        (guint) det[i].x, (guint) det[i].y, (guint) det[i].w, (guint) det[i].h);
    m->id = i;
  }
  gst_buffer_add_video_region_of_interest_meta (b, "plate", 5, 6, 7, 8)->id = 100;
  if (searched >= 0) {
    static const gchar *tags[] = { NULL };
    if (!gst_meta_get_info ("FvDetectionMeta"))
      gst_meta_register_custom ("FvDetectionMeta", tags, NULL, NULL, NULL);
    GstCustomMeta *cm = gst_buffer_add_custom_meta (b, "FvDetectionMeta");
    gst_structure_set (gst_custom_meta_get_structure (cm), "face", G_TYPE_INT, searched, NULL);
  }
  return b;
}

/* The tracked faces of an output frame (unreffed), *whole set when a
 * whole-frame box came out; early[i] the frames before the track's first
 * detection (0 for a box of a detected or coasting track). */
int
read_regions (GstBuffer *o, Out *out, gboolean *whole, guint *early, int *plates_out)
{
  int n = 0, plates = 0;
  *whole = FALSE;
  gpointer state = NULL;
  for (GstVideoRegionOfInterestMeta *m; (m = fvt_next_roi (o, &state));) {
    if (m->roi_type == g_quark_from_string ("plate")) {
      plates++;
      fail_unless (m->x == 5 && m->y == 6 && m->w == 7 && m->h == 8 && m->id == 100);
      continue;
    }
    GstStructure *s = gst_video_region_of_interest_meta_get_param (m, "track");
    fail_unless (s != NULL);
    gboolean fc = FALSE;
    if (gst_structure_get_boolean (s, "fail-closed", &fc) && fc) {
      fail_unless (m->x == 0 && m->y == 0 && m->w == W && m->h == H);
      *whole = TRUE;
      continue;
    }
    Out r = { m->x, m->y, m->w, m->h };
    fail_unless (gst_structure_get_uint (s, "id", &r.id) && gst_structure_get_uint (s, "age",
            &r.age) && gst_structure_get_uint (s, "lost", &r.lost));
    if (early && !gst_structure_get_uint (s, "early", &early[n]))
      early[n] = 0;
    out[n++] = r;
  }
  *plates_out = plates;
  gst_buffer_unref (o);
  return n;
}

/* The same for frames that carry the one "plate" region of make_frame. */
int
read_frame (GstBuffer *o, Out *out, gboolean *whole, guint *early)
{
  int plates;
  const int n = read_regions (o, out, whole, early, &plates);
  fail_unless_equals_int (plates, 1);
  return n;
}

/* Pushes a frame and reads the one that comes out (no delay). */
int
frame (GstHarness *h, const Box *det, int nd, int searched, Out *out, gboolean *whole)
{
  GstBuffer *o = gst_harness_push_and_pull (h, make_frame (det, nd, searched));
  fail_unless (o != NULL);
  return read_frame (o, out, whole, NULL);
}

int
by_id (const void *a, const void *b)
{
  return (int) ((const Out *) a)->id - (int) ((const Out *) b)->id;
}
