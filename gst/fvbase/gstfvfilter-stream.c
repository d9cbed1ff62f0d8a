/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan layer's stream: what it adds to GstFvBase's start (settings
 * that must fail the state change), to a new format (the plane layout),
 * to allocation (pools raised for frames held) and to the queries
 * (latency). */
#include "gstfvfilter-private.h"
#include "fvhold.h"
#include "fvlatency.h"

#define GST_CAT_DEFAULT gst_fv_filter_debug

#define BASE_TRANSFORM_PARENT GST_BASE_TRANSFORM_CLASS (FILTER_PARENT_CLASS)

gboolean
gst_fv_filter_start (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  PRIV (self)->ready = FALSE;
  fv_latency_reset (GST_ELEMENT (self), &PRIV (self)->hold.latency);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  if (klass->validate && !klass->validate (self))
    return FALSE;
  return BASE_TRANSFORM_PARENT->start (trans);   /* the backend resolved */
}

gboolean
gst_fv_filter_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstFvFilter *self = GST_FV_FILTER (vf);
  if (!fv_plane_layout_from_info (in_info, &PRIV (self)->layout)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported video format %s.",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info))), (NULL));
    return FALSE;
  }
  /* the pads' memory kinds; marks the settings changed */
  if (!GST_VIDEO_FILTER_CLASS (FILTER_PARENT_CLASS)->set_info (vf, incaps, in_info,
          outcaps, out_info))
    return FALSE;
  PRIV (self)->planes = GST_FV_FILTER_GET_CLASS (self)->luma_only
      && GST_VIDEO_INFO_IS_YUV (in_info) ? 1 : PRIV (self)->layout.n_planes;
  GST_DEBUG_OBJECT (self, "format %s %dx%d, %d planes",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      PRIV (self)->layout.n_planes);
  GST_OBJECT_LOCK (self);
  PRIV (self)->format_changed = TRUE;   /* plans for the new format */
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Frames in flight hold their input buffers: upstream keeps that many
 * more out (fvhold.h). */
gboolean
gst_fv_filter_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  const gboolean ok = BASE_TRANSFORM_PARENT->propose_allocation (trans, decide_query, query);
  if (ok)
    fv_hold_raise_pools (GST_ELEMENT (trans), &PRIV (GST_FV_FILTER (trans))->hold, query);
  return ok;
}

gboolean
gst_fv_filter_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  const gboolean ret = BASE_TRANSFORM_PARENT->query (trans, direction, query);
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (trans), &PRIV (GST_FV_FILTER (trans))->hold.latency,
        &GST_VIDEO_FILTER (trans)->in_info, query);
  return ret;
}
