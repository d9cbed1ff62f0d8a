/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvlatency.h"

void
fv_latency_reset (GstElement *element, FvLatency *lat)
{
  GST_OBJECT_LOCK (element);
  lat->frames_held = 0;
  GST_OBJECT_UNLOCK (element);
}

guint
fv_latency_frames (GstElement *element, FvLatency *lat)
{
  GST_OBJECT_LOCK (element);
  const guint frames = lat->frames_held;
  GST_OBJECT_UNLOCK (element);
  return frames;
}

gboolean
fv_latency_hold (GstElement *element, FvLatency *lat, guint frames)
{
  GST_OBJECT_LOCK (element);
  gboolean changed = lat->frames_held != frames;
  lat->frames_held = frames;
  GST_OBJECT_UNLOCK (element);
  if (changed)
    gst_element_post_message (element, gst_message_new_latency (GST_OBJECT (element)));
  return changed;
}

void
fv_latency_add_to_query (GstElement *element, FvLatency *lat, const GstVideoInfo *info,
    GstQuery *query)
{
  const guint frames = fv_latency_frames (element, lat);
  if (!frames || info->fps_n <= 0)
    return;
  gboolean live;
  GstClockTime min, max;
  GstClockTime ours = frames * gst_util_uint64_scale_int (GST_SECOND, info->fps_d, info->fps_n);
  gst_query_parse_latency (query, &live, &min, &max);
  GST_DEBUG_OBJECT (element, "%u frames held: adding %" GST_TIME_FORMAT, frames,
      GST_TIME_ARGS (ours));
  gst_query_set_latency (query, live, min + ours, GST_CLOCK_TIME_IS_VALID (max) ? max + ours : max);
}
