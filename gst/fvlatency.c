#include "fvlatency.h"

void
fv_latency_reset (GstElement *element, FvLatency *lat)
{
  GST_OBJECT_LOCK (element);
  lat->max_seen = lat->reported = 0;
  GST_OBJECT_UNLOCK (element);
}

void
fv_latency_account (GstElement *element, FvLatency *lat, GstClockTime spent)
{
  gboolean post = FALSE;
  GST_OBJECT_LOCK (element);
  if (spent > lat->max_seen)
    lat->max_seen = spent;
  if (lat->max_seen > lat->reported + GST_MSECOND) {
    lat->reported = GST_ROUND_UP_N (lat->max_seen, GST_MSECOND);
    post = TRUE;
  }
  GST_OBJECT_UNLOCK (element);
  if (post)
    gst_element_post_message (element, gst_message_new_latency (GST_OBJECT (element)));
}

void
fv_latency_add_to_query (GstElement *element, FvLatency *lat, GstQuery *query)
{
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (element);
  GstClockTime ours = lat->reported;
  GST_OBJECT_UNLOCK (element);
  min += ours;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += ours;
  GST_DEBUG_OBJECT (element, "adding %" GST_TIME_FORMAT " of processing latency",
      GST_TIME_ARGS (ours));
  gst_query_set_latency (query, live, min, max);
}
