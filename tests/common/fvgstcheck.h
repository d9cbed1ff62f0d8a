/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers of the element tests (GStreamer only; header-only, so that
 * the kernel tests' library needs no GStreamer). */
#ifndef FV_GST_CHECK_H
#define FV_GST_CHECK_H

#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>

/* A test's temporary folder (g_dir_make_tmp), its files deleted, the
 * folder removed and *dir freed and cleared. */
static inline void
fvt_remove_tmpdir (gchar **dir)
{
  GDir *d = *dir ? g_dir_open (*dir, 0, NULL) : NULL;
  const gchar *name;
  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (*dir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  if (*dir)
    g_rmdir (*dir);
  g_clear_pointer (dir, g_free);
}

/* The region-of-interest meta of b after *state (NULL at first), in the
 * buffer's order, or NULL after the last. */
static inline GstVideoRegionOfInterestMeta *
fvt_next_roi (GstBuffer *b, gpointer *state)
{
  return (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (b, state,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
}

/* Whether two buffers hold the same bytes. */
/* A seek's events, as an upstream element sends them: flush start, flush
 * stop (time reset), a new TIME segment. TRUE when h took all three. */
static inline gboolean
fvt_harness_flush (GstHarness *h)
{
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  return gst_harness_push_event (h, gst_event_new_flush_start ())
      && gst_harness_push_event (h, gst_event_new_flush_stop (TRUE))
      && gst_harness_push_event (h, gst_event_new_segment (&seg));
}

static inline gboolean
fvt_same_bytes (GstBuffer *a, GstBuffer *b)
{
  GstMapInfo ma, mb;
  if (!gst_buffer_map (a, &ma, GST_MAP_READ))
    return FALSE;
  if (!gst_buffer_map (b, &mb, GST_MAP_READ)) {
    gst_buffer_unmap (a, &ma);
    return FALSE;
  }
  const gboolean same = ma.size == mb.size && !memcmp (ma.data, mb.data, ma.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

/* Runs a launch line to its end: its first error's message (g_free it),
 * NULL when it reached EOS; fails the test when the line does not parse
 * or nothing ends it within 60 s. *seconds (when given): how long it ran
 * from the state change on. */
static inline gchar *
fvt_run_pipeline (const char *desc, gdouble *seconds)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  gint64 t0 = g_get_monotonic_time ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  if (seconds)
    *seconds = (g_get_monotonic_time () - t0) / 1e6;
  fail_unless (m != NULL, "%s: neither EOS nor an error in 60 s", desc);
  gchar *text = NULL;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return text;
}

#endif
