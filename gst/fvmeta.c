/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/video/video.h>
#include "fvmeta.h"
#include "fv_config.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

gboolean
fv_meta_survives_filter (GstMeta *meta)
{
  static const gchar *const kept[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL };
  GType api = meta->info->api;
  const gchar *const *tags = gst_meta_api_type_get_tags (api);
  for (; tags && *tags; tags++)
    if (!g_strv_contains (kept, *tags))
      return FALSE;
  return TRUE;
}

gint
fv_meta_next_roi_id (GstBuffer *buf)
{
  gpointer state = NULL;
  GstMeta *m;
  gint next = 0;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    next = MAX (next, ((GstVideoRegionOfInterestMeta *) m)->id + 1);
  return next;
}

GstStructure *
fv_meta_frame_structure (const gchar *name, GstBuffer *buf, const GstSegment *segment)
{
  const GstClockTime ts = GST_BUFFER_TIMESTAMP (buf);
  return gst_structure_new (name,
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf), NULL);
}

static void
register_detection_meta (void)
{
  static gsize done;
  if (g_once_init_enter (&done)) {
    static const gchar *tags[] = { NULL };   /* tied to nothing: survives any filter */
    if (!gst_meta_get_info (FV_DETECTION_META))   /* an application may have registered it */
      gst_meta_register_custom (FV_DETECTION_META, tags, NULL, NULL, NULL);
    g_once_init_leave (&done, 1);
  }
}

void
fv_meta_mark_detection (GstBuffer *buf, const gchar *label, gboolean searched)
{
  register_detection_meta ();
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
  if (!m)
    m = gst_buffer_add_custom_meta (buf, FV_DETECTION_META);
  if (m)
    gst_structure_set (gst_custom_meta_get_structure (m), label, G_TYPE_INT, searched ? 1 : 0,
        NULL);
}

gint
fv_meta_detection_state (GstBuffer *buf, const gchar *label)
{
  register_detection_meta ();
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
  gint v;
  if (m && gst_structure_get_int (gst_custom_meta_get_structure (m), label, &v))
    return v;
  return -1;
}

GArray *
fv_meta_regions_of_type (GstBuffer *buf, GQuark roi)
{
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (FvRoiRect));
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint));
  gpointer state = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) meta;
    if (r->roi_type != roi)
      continue;
    FvRoiRect rect = { (gint) MIN (r->x, (guint) G_MAXINT), (gint) MIN (r->y, (guint) G_MAXINT),
      (gint) MIN (r->w, (guint) G_MAXINT), (gint) MIN (r->h, (guint) G_MAXINT) };
    g_array_append_val (rects, rect);
    g_array_append_val (ids, r->id);
  }
#if FV_HAVE_GST_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  GstAnalyticsODMtd od;
  state = NULL;
  while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od)) {
    if (gst_analytics_od_mtd_get_obj_type (&od) != roi)
      continue;
    const gint id = (gint) gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od);
    gboolean listed = FALSE;
    for (guint k = 0; k < ids->len && !listed; k++)
      listed = g_array_index (ids, gint, k) == id;
    FvRoiRect rect;   /* may reach past the frame */
    gfloat conf;
    if (!listed && gst_analytics_od_mtd_get_location (&od, &rect.x, &rect.y, &rect.w, &rect.h,
            &conf))
      g_array_append_val (rects, rect);
  }
#endif
  g_array_unref (ids);
  return rects;
}

