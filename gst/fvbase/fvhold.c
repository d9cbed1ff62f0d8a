/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvhold.h"

void
fv_hold_init (FvHold *hold, FvHoldOut out, gpointer owner)
{
  g_queue_init (&hold->items);
  hold->latency.frames_held = 0;
  hold->out = out;
  hold->owner = owner;
}

void
fv_hold_push (FvHold *hold, gpointer item)
{
  g_queue_push_tail (&hold->items, item);
}

GstFlowReturn
fv_hold_pop (FvHold *hold, GstBuffer **buf)
{
  GstFlowReturn ret = GST_FLOW_OK;
  *buf = NULL;
  gpointer item = g_queue_pop_head (&hold->items);
  if (item)
    *buf = hold->out (hold->owner, item, FALSE, &ret);
  return ret;
}

void
fv_hold_drop (FvHold *hold)
{
  gpointer item;
  GstFlowReturn ret;
  while ((item = g_queue_pop_head (&hold->items)))
    hold->out (hold->owner, item, TRUE, &ret);
}

GstFlowReturn
fv_hold_drain (FvHold *hold, GstBaseTransform *trans)
{
  GstFlowReturn ret = GST_FLOW_OK;
  while (ret == GST_FLOW_OK && fv_hold_count (hold)) {
    GstBuffer *buf;
    ret = fv_hold_pop (hold, &buf);
    if (buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), buf);
  }
  fv_hold_drop (hold);   /* after a failure: the rest go nowhere either */
  return ret;
}

FvHoldAction
fv_hold_event (FvHold *hold, GstBaseTransform *trans, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    fv_hold_drop (hold);
    return FV_HOLD_DROP;
  }
  if (!GST_EVENT_IS_SERIALIZED (event))
    return FV_HOLD_PASS;
  if (fv_hold_count (hold)) {
    const GstFlowReturn ret = fv_hold_drain (hold, trans);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (trans, "frames held before %s: %s", GST_EVENT_TYPE_NAME (event),
          gst_flow_get_name (ret));
  }
  return FV_HOLD_DRAIN;
}

void
fv_hold_raise_pools (GstElement *element, FvHold *hold, GstQuery *query)
{
  const guint held = fv_latency_frames (element, &hold->latency);
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
fv_hold_set (GstBaseTransform *trans, FvHold *hold, guint held)
{
  if (fv_latency_hold (GST_ELEMENT (trans), &hold->latency, held))
    gst_base_transform_reconfigure_sink (trans);
}
