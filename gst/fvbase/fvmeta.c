/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
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

/* The mark goes where the ROI metas go: it carries their tags, so that an
 * element that drops metas tied to the picture's size or orientation
 * (videocrop, videobox) drops it too, and it follows the transforms the ROI
 * meta follows (copies, scaling, and on 1.28+ the matrix of a flip or turn);
 * any other transform drops it, and the frame fails closed. */
static gboolean
detection_meta_transform (GstBuffer *dest, GstCustomMeta *meta, GstBuffer *buffer, GQuark type,
    gpointer data, gpointer user_data)
{
  const gboolean scale = type == gst_video_meta_transform_scale_get_quark ();
  gboolean keep = GST_META_TRANSFORM_IS_COPY (type) || scale;
#if GST_CHECK_VERSION(1, 27, 0)   /* the matrix transform (videoflip's turns) */
  keep = keep || type == gst_video_meta_transform_matrix_get_quark ();
#endif
  if (!keep)
    return FALSE;
  /* videoflip turning a frame 90 degrees hands metas a "scale" from WxH to
   * HxW, which moves the regions instead of turning them: the mark goes,
   * and the frame fails closed (a real scale to exactly the transposed
   * size fails closed too: safe, and rare) */
  if (scale) {
    const GstVideoMetaTransform *t = data;
    const gint iw = GST_VIDEO_INFO_WIDTH (t->in_info), ih = GST_VIDEO_INFO_HEIGHT (t->in_info);
    if (iw != ih && GST_VIDEO_INFO_WIDTH (t->out_info) == ih
        && GST_VIDEO_INFO_HEIGHT (t->out_info) == iw)
      return FALSE;
  }
  GstCustomMeta *d = gst_buffer_get_custom_meta (dest, FV_DETECTION_META);
  if (!d)
    d = gst_buffer_add_custom_meta (dest, FV_DETECTION_META);
  if (!d)
    return FALSE;
  GstStructure *from = gst_custom_meta_get_structure (meta);
  GstStructure *to = gst_custom_meta_get_structure (d);
  for (gint i = 0, n = gst_structure_n_fields (from); i < n; i++) {
    const gchar *f = gst_structure_nth_field_name (from, i);
    gst_structure_set_value (to, f, gst_structure_get_value (from, f));
  }
  /* scaled or turned as the ROI metas are: the size they are in goes along */
  const GstVideoInfo *out = NULL;
  if (scale)
    out = ((const GstVideoMetaTransform *) data)->out_info;
#if GST_CHECK_VERSION(1, 27, 0)
  else if (type == gst_video_meta_transform_matrix_get_quark ())
    out = ((const GstVideoMetaTransformMatrix *) data)->out_info;
#endif
  if (out)
    gst_structure_set (to, FV_DETECTION_WIDTH, G_TYPE_INT, GST_VIDEO_INFO_WIDTH (out),
        FV_DETECTION_HEIGHT, G_TYPE_INT, GST_VIDEO_INFO_HEIGHT (out), NULL);
  return TRUE;
}

/* the frame's measurement goes with copies only: scaled, its areas would
 * be wrong */
static gboolean
measure_meta_transform (GstBuffer *dest, GstCustomMeta *meta, GstBuffer *buffer, GQuark type,
    gpointer data, gpointer user_data)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  fv_meta_set_measure (dest, gst_structure_copy (gst_custom_meta_get_structure (meta)));
  return TRUE;
}

void
fv_meta_set_measure (GstBuffer *buf, GstStructure *s)
{
  fv_meta_register ();
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_MEASURE_META);
  if (!m)
    m = gst_buffer_add_custom_meta (buf, FV_MEASURE_META);
  if (!m) {
    gst_structure_free (s);
    return;
  }
  GstStructure *to = gst_custom_meta_get_structure (m);
  gst_structure_remove_all_fields (to);
  for (gint i = 0, n = gst_structure_n_fields (s); i < n; i++) {
    const gchar *f = gst_structure_nth_field_name (s, i);
    gst_structure_set_value (to, f, gst_structure_get_value (s, f));
  }
  gst_structure_free (s);
}

const GstStructure *
fv_meta_get_measure (GstBuffer *buf)
{
  GstCustomMeta *m = gst_meta_get_info (FV_MEASURE_META)
      ? gst_buffer_get_custom_meta (buf, FV_MEASURE_META) : NULL;
  return m ? gst_custom_meta_get_structure (m) : NULL;
}

void
fv_meta_register (void)
{
  static gsize done;
  if (g_once_init_enter (&done)) {
    static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
      GST_META_TAG_VIDEO_SIZE_STR, NULL };
    if (!gst_meta_get_info (FV_DETECTION_META))   /* an application may have registered it */
      gst_meta_register_custom (FV_DETECTION_META, tags, detection_meta_transform, NULL, NULL);
    static const gchar *measure_tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
      NULL };
    if (!gst_meta_get_info (FV_MEASURE_META))
      gst_meta_register_custom (FV_MEASURE_META, measure_tags, measure_meta_transform, NULL,
          NULL);
    g_once_init_leave (&done, 1);
  }
}

static gchar *
ids_field (const gchar *label)
{
  return g_strconcat (label, "-ids", NULL);
}

/* `<label>-ids` in s: the ids of buf's ROI metas of type label. */
static void
list_ids (GstBuffer *buf, GstStructure *s, const gchar *label)
{
  GValue ids = G_VALUE_INIT, v = G_VALUE_INIT;
  gst_value_array_init (&ids, 4);
  g_value_init (&v, G_TYPE_INT);
  const GQuark q = g_quark_from_string (label);
  gpointer state = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (((GstVideoRegionOfInterestMeta *) meta)->roi_type == q) {
      g_value_set_int (&v, ((GstVideoRegionOfInterestMeta *) meta)->id);
      gst_value_array_append_value (&ids, &v);
    }
  gchar *field = ids_field (label);
  gst_structure_take_value (s, field, &ids);
  g_free (field);
  g_value_unset (&v);
}

void
fv_meta_mark_detection (GstBuffer *buf, const gchar *label, gboolean searched, gint width,
    gint height)
{
  fv_meta_register ();
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
  if (!m)
    m = gst_buffer_add_custom_meta (buf, FV_DETECTION_META);
  if (!m)
    return;
  GstStructure *s = gst_custom_meta_get_structure (m);
  gst_structure_set (s, label, G_TYPE_INT, searched ? 1 : 0, FV_DETECTION_WIDTH, G_TYPE_INT,
      width, FV_DETECTION_HEIGHT, G_TYPE_INT, height, NULL);
  if (searched) {
    /* the regions of that type the frame holds now, which the detector
     * vouches for: a tracker checks they are all still there */
    list_ids (buf, s, label);
  } else {
    gchar *field = ids_field (label);
    gst_structure_remove_field (s, field);
    g_free (field);
  }
}

/* The ids of buf's ROI metas of one type, as a set. */
static GHashTable *
roi_ids (GstBuffer *buf, GQuark type)
{
  GHashTable *ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  gpointer state = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (((GstVideoRegionOfInterestMeta *) meta)->roi_type == type)
      g_hash_table_add (ids, GINT_TO_POINTER (((GstVideoRegionOfInterestMeta *) meta)->id));
  return ids;
}

gint
fv_meta_detection_state (GstBuffer *buf, const gchar *label, gint width, gint height)
{
  fv_meta_register ();
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
  gint v;
  if (!m || !gst_structure_get_int (gst_custom_meta_get_structure (m), label, &v))
    return -1;
  if (v != 1)
    return v;
  /* the picture turned (videoflip's 90 degrees keep the metas as they were,
   * in the old geometry): the regions are not where the faces are */
  gint mw, mh;
  const GstStructure *ms = gst_custom_meta_get_structure (m);
  if (width > 0 && gst_structure_get_int (ms, FV_DETECTION_WIDTH, &mw)
      && gst_structure_get_int (ms, FV_DETECTION_HEIGHT, &mh) && (mw != width || mh != height))
    return -2;
  gchar *field = ids_field (label);
  const GValue *ids = gst_structure_get_value (ms, field);
  g_free (field);
  if (!ids)   /* a mark made without the list (another detector's, an older one) */
    return 1;
  if (!GST_VALUE_HOLDS_ARRAY (ids))
    return -2;
  /* the frame's ids once, then each vouched one looked up */
  GHashTable *present = roi_ids (buf, g_quark_from_string (label));
  gint state = 1;
  for (guint i = 0, n = gst_value_array_get_size (ids); i < n && state == 1; i++) {
    const GValue *id = gst_value_array_get_value (ids, i);
    if (!G_VALUE_HOLDS_INT (id)
        || !g_hash_table_contains (present, GINT_TO_POINTER (g_value_get_int (id))))
      state = -2;
  }
  g_hash_table_unref (present);
  return state;
}

static void
detection_params (GstVideoRegionOfInterestMeta *r, FvRoiDetection *d)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (r, "detection");
  gint nb;
  gdouble v;
  if (s && gst_structure_get_int (s, "neighbors", &nb))
    d->neighbors = nb;
  if (s && gst_structure_get_double (s, "angle", &v))
    d->angle = v;
  if (s && gst_structure_get_double (s, "confidence", &v))
    d->confidence = v;
}

static gchar *
tracked_field (const gchar *label)
{
  return g_strconcat (label, "-tracked", NULL);
}

void
fv_meta_mark_tracked (GstBuffer *buf, const gchar *label)
{
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
#if FV_HAVE_GST_ANALYTICS
  /* needed only where there are Mtds to leave out */
  if (!m && gst_buffer_get_analytics_relation_meta (buf))
    m = gst_buffer_add_custom_meta (buf, FV_DETECTION_META);
#endif
  if (!m)
    return;
  GstStructure *s = gst_custom_meta_get_structure (m);
  gchar *field = tracked_field (label);
  gst_structure_set (s, field, G_TYPE_BOOLEAN, TRUE, NULL);
  g_free (field);
  list_ids (buf, s, label);
}

#if FV_HAVE_GST_ANALYTICS
static gboolean
is_tracked (GstBuffer *buf, GQuark roi)
{
  GstCustomMeta *m = gst_buffer_get_custom_meta (buf, FV_DETECTION_META);
  gboolean tracked = FALSE;
  if (m) {
    gchar *field = tracked_field (g_quark_to_string (roi));
    tracked = gst_structure_get_boolean (gst_custom_meta_get_structure (m), field, &tracked)
        && tracked;
    g_free (field);
  }
  return tracked;
}
#endif

GArray *
fv_meta_detections_of_type (GstBuffer *buf, GQuark roi)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (FvRoiDetection));
  GHashTable *ids = g_hash_table_new (NULL, NULL);
  gpointer state = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) meta;
    if (r->roi_type != roi)
      continue;
    FvRoiDetection d = { { (gint) MIN (r->x, (guint) G_MAXINT), (gint) MIN (r->y,
              (guint) G_MAXINT), (gint) MIN (r->w, (guint) G_MAXINT), (gint) MIN (r->h,
              (guint) G_MAXINT) }, -1, NAN, -1 };
    detection_params (r, &d);
    g_array_append_val (out, d);
    g_hash_table_add (ids, GINT_TO_POINTER (r->id));
  }
#if FV_HAVE_GST_ANALYTICS
  /* behind a tracker the ROI metas are the tracks: the raw boxes are not */
  GstAnalyticsRelationMeta *rmeta = is_tracked (buf, roi) ? NULL
      : gst_buffer_get_analytics_relation_meta (buf);
  GstAnalyticsODMtd od;
  state = NULL;
  while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od)) {
    if (gst_analytics_od_mtd_get_obj_type (&od) != roi)
      continue;
    const gint id = (gint) gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od);
    FvRoiDetection d = { { 0 }, -1, NAN, -1 };   /* may reach past the frame */
    gfloat conf;
    if (!g_hash_table_contains (ids, GINT_TO_POINTER (id))
        && gst_analytics_od_mtd_get_location (&od, &d.r.x, &d.r.y, &d.r.w, &d.r.h, &conf)) {
      d.confidence = conf;
      g_array_append_val (out, d);
    }
  }
#endif
  g_hash_table_unref (ids);
  return out;
}

GArray *
fv_meta_regions_of_type (GstBuffer *buf, GQuark roi)
{
  GArray *dets = fv_meta_detections_of_type (buf, roi);
  GArray *rects = g_array_sized_new (FALSE, FALSE, sizeof (FvRoiRect), dets->len);
  for (guint i = 0; i < dets->len; i++)
    g_array_append_val (rects, g_array_index (dets, FvRoiDetection, i).r);
  g_array_unref (dets);
  return rects;
}

