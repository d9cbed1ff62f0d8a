/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's stream: starting (the backend resolved: a missing GPU
 * fails the state change), stopping, and a new format (the plane layout
 * and the pads' memory kinds). */
#include "gstfvfilter-private.h"
#include "fvlatency.h"

#define GST_CAT_DEFAULT gst_fv_filter_debug

gboolean
gst_fv_filter_start (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  PRIV (self)->ready = FALSE;
  PRIV (self)->warned_caps = FALSE;
  PRIV (self)->warned_pinned = FALSE;
  fv_latency_reset (GST_ELEMENT (self), &PRIV (self)->latency);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  if (klass->validate && !klass->validate (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  PRIV (self)->device_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  return gst_fv_filter_resolve (self);   /* a missing GPU fails the state change, not a frame */
}

gboolean
gst_fv_filter_stop (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  gst_fv_filter_release_plans (self);
  fv_device_stop (&PRIV (self)->dev);
  return TRUE;
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
  PRIV (self)->planes = GST_FV_FILTER_GET_CLASS (self)->luma_only
      && GST_VIDEO_INFO_IS_YUV (in_info) ? 1 : PRIV (self)->layout.n_planes;
  PRIV (self)->in_mem = fv_memory_kind_info (fv_memory_kind_of_caps (incaps));
  PRIV (self)->out_mem = fv_memory_kind_info (fv_memory_kind_of_caps (outcaps));
  /* GStreamer 1.22's CUDA allocator places the V plane of odd-height I420
   * half a row off (cudaupload ! cudadownload alone changes the frame):
   * our results follow the layout it describes, but say so */
  if (frames_on_device (PRIV (self))
      && GST_VIDEO_INFO_FORMAT (in_info) == GST_VIDEO_FORMAT_I420
      && GST_VIDEO_INFO_HEIGHT (in_info) % 2)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("I420 of odd height (%d) in CUDA memory: "
            "GStreamer 1.22's CUDA memory misplaces its V plane; use NV12 or an even height.",
            GST_VIDEO_INFO_HEIGHT (in_info)), (NULL));
  GST_DEBUG_OBJECT (self, "format %s %dx%d, %d planes, %s to %s memory",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      PRIV (self)->layout.n_planes, PRIV (self)->in_mem->name, PRIV (self)->out_mem->name);
  GST_OBJECT_LOCK (self);
  PRIV (self)->changed = PRIV (self)->format_changed = TRUE;   /* plans for the new format */
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}
