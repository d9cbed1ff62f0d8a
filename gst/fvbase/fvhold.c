/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvhold.h"

FvHoldAction
fv_hold_action (GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    return FV_HOLD_DROP;
  return GST_EVENT_IS_SERIALIZED (event) ? FV_HOLD_DRAIN : FV_HOLD_PASS;
}

void
fv_hold_raise_pools (GstElement *element, FvLatency *lat, GstQuery *query)
{
  const guint held = fv_latency_frames (element, lat);
  for (guint i = 0; held && i < gst_query_get_n_allocation_pools (query); i++) {
    GstBufferPool *pool = NULL;
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
    gst_query_set_nth_allocation_pool (query, i, pool, size, min + held, max ? max + held : 0);
    if (pool)
      gst_object_unref (pool);
  }
}

void
fv_hold_set (GstBaseTransform *trans, FvLatency *lat, guint held)
{
  if (fv_latency_hold (GST_ELEMENT (trans), lat, held))
    gst_base_transform_reconfigure_sink (trans);
}
