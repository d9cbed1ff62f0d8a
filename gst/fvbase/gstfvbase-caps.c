/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The lower layer's negotiation: caps by memory kind (fvmemory.h), the
 * CUDA context, allocation, and the queries that say what was refused. */
#include "gstfvbase-private.h"
#include "fvcudactx.h"
#include "fv_cuda.h"

#define GST_CAT_DEFAULT gst_fv_base_debug

/* CUDA memory is offered where frames can stay on the device: built with
 * GStreamer's CUDA library, an element with a CUDA path, and (once started)
 * the cuda backend running in a shared context. hybrid needs host frames
 * for its CPU half. */
static gboolean
cuda_memory_possible (GstFvBase *self)
{
  const FvDevice *dev = &BPRIV (self)->dev;
  if (!fv_cuda_ctx_built () || !GST_FV_BASE_GET_CLASS (self)->has_cuda)
    return FALSE;
  return !dev->have_active || (fv_device_is_cuda (dev) && !dev->hybrid && dev->cuda_ctx);
}

/* The kinds a caps structure with these features becomes across the
 * element, most wanted first. What we take (sink caps from downstream's,
 * direction SRC): the device's kinds first, so a decoder or cudaupload
 * hands over device frames. What we give (src caps from the input's,
 * direction SINK): the input's kind first (the host's for ANY), so frames
 * stay where they are unless the neighbour takes only another (system
 * memory to a CPU element, device memory to a CUDA-only one, and an
 * application's appsink after system memory gets system memory). In-place elements keep the kind they
 * are given. Device kinds only where frames can stay on the device. */
static guint
kinds_in_order (GstFvBase *self, GstPadDirection direction, const GstCapsFeatures *f,
    FvMemoryKind *order)
{
  const gboolean any = f && gst_caps_features_is_any (f);
  const FvMemoryKind own = fv_memory_kind_of_features (f);
  const gboolean same = gst_base_transform_is_in_place (GST_BASE_TRANSFORM (self));
  const gboolean device_ok = cuda_memory_possible (self);
  guint n = 0;
  if (direction == GST_PAD_SINK && !any && (device_ok || !fv_memory_kind_info (own)->on_device))
    order[n++] = own;
  /* then, taking, the device's kinds first; giving, the host's */
  const gint first = direction == GST_PAD_SRC ? 1 : 0;
  for (gint pass = 0, device = first; pass < 2; pass++, device = !device)
    for (guint k = 0; k < FV_MEMORY_KINDS; k++) {
      const FvMemoryKindInfo *info = fv_memory_kind_info ((FvMemoryKind) k);
      if (info->on_device == device && (!device || device_ok) && (!same || any || k == own)
          && !(n && order[0] == k))
        order[n++] = (FvMemoryKind) k;
    }
  return n;
}

/* Either memory in, either memory out (kinds_in_order): each structure in
 * each of its kinds, the most wanted kinds of all structures first. */
GstCaps *
gst_fv_base_transform_caps (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, GstCaps *filter)
{
  GstCaps *tier[FV_MEMORY_KINDS];
  for (guint t = 0; t < FV_MEMORY_KINDS; t++)
    tier[t] = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    FvMemoryKind order[FV_MEMORY_KINDS];
    const guint n = kinds_in_order (GST_FV_BASE (trans), direction,
        gst_caps_get_features (caps, i), order);
    for (guint t = 0; t < n; t++)
      gst_caps_append_structure_full (tier[t], gst_structure_copy (gst_caps_get_structure (caps,
                  i)), gst_caps_features_new (fv_memory_kind_info (order[t])->feature, NULL));
  }
  GstCaps *res = tier[0];
  for (guint t = 1; t < FV_MEMORY_KINDS; t++)
    res = gst_caps_merge (res, tier[t]);
  if (filter) {
    GstCaps *t = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = t;
  }
  GST_LOG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, res);
  return res;
}

void
gst_fv_base_set_context (GstElement *element, GstContext *context)
{
  GstFvBasePrivate *priv = BPRIV (element);
  GST_OBJECT_LOCK (element);
  gint device = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  fv_cuda_ctx_set_context (element, context, device, &priv->dev.cuda_ctx);
  GST_ELEMENT_CLASS (BASE_PARENT_CLASS)->set_context (element, context);
}

gboolean
gst_fv_base_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  GstFvBasePrivate *priv = BPRIV (trans);
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  const FvMemoryKindInfo *kind = fv_memory_kind_info (fv_memory_kind_of_caps (caps));
  gboolean ok = kind->propose (&priv->dev, query, caps);
  if (ok)
    GST_DEBUG_OBJECT (trans, "proposed a pool of %s memory%s", kind->name,
        kind->on_device ? "" : " (page-locked)");
  else
    ok = GST_BASE_TRANSFORM_CLASS (BASE_PARENT_CLASS)->propose_allocation (trans,
        decide_query, query);
  return ok;
}

gboolean
gst_fv_base_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  FvDevice *dev = &BPRIV (trans)->dev;
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  if (fv_memory_kind_info (fv_memory_kind_of_caps (caps))->decide (dev, query, caps))
    return gst_query_get_n_allocation_pools (query) > 0;
  return GST_BASE_TRANSFORM_CLASS (BASE_PARENT_CLASS)->decide_allocation (trans, query);
}

/* Refused caps: tell the user what the element takes, once, rather than
 * leave them with a bare not-negotiated from upstream. */
static void
warn_refused_caps (GstFvBase *self, GstCaps *offered)
{
  GstFvBasePrivate *priv = BPRIV (self);
  if (priv->warned_caps || !offered || gst_caps_is_empty (offered) || gst_caps_is_any (offered))
    return;
  /* a size past the largest side: said with the size (the caps' first
   * structure that has one) */
  const gint max_side = GST_FV_BASE_GET_CLASS (self)->max_side;
  for (guint i = 0; max_side > 0 && i < gst_caps_get_size (offered); i++) {
    const GstStructure *st = gst_caps_get_structure (offered, i);
    gint w = 0, h = 0;
    if (!gst_structure_get_int (st, "width", &w) || !gst_structure_get_int (st, "height", &h))
      continue;
    if (w <= max_side && h <= max_side)
      break;
    priv->warned_caps = TRUE;
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("%s takes frames of at most %dx%d pixels; offered %dx%d (scale or crop the video "
            "before it).", GST_ELEMENT_NAME (self), max_side, max_side, w, h),
        ("offered: %" GST_PTR_FORMAT, offered));
    return;
  }
  priv->warned_caps = TRUE;
  GstCaps *ours = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  GString *formats = g_string_new (NULL);
  /* the system-memory formats: all of them (CUDA memory takes a subset) */
  guint sys = 0;
  for (guint i = 0; i < gst_caps_get_size (ours); i++)
    if (!gst_caps_features_contains (gst_caps_get_features (ours, i), FV_CAPS_FEATURE_CUDA))
      sys = i;
  const GValue *list = gst_structure_get_value (gst_caps_get_structure (ours, sys), "format");
  if (list && GST_VALUE_HOLDS_LIST (list)) {
    for (guint i = 0; i < gst_value_list_get_size (list); i++)
      g_string_append_printf (formats, "%s%s", i ? ", " : "",
          g_value_get_string (gst_value_list_get_value (list, i)));
  } else if (list && G_VALUE_HOLDS_STRING (list)) {
    g_string_append (formats, g_value_get_string (list));
  }
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("%s takes raw video in %s only; put videoconvert in front of it.",
          GST_ELEMENT_NAME (self), formats->str), ("offered: %" GST_PTR_FORMAT, offered));
  g_string_free (formats, TRUE);
  gst_caps_unref (ours);
}

/* Only for a size: formats are said by accept-caps, once the caps are
 * fixed. */
static void
warn_refused_size (GstFvBase *self, GstCaps *offered)
{
  const gint max_side = GST_FV_BASE_GET_CLASS (self)->max_side;
  for (guint i = 0; max_side > 0 && i < gst_caps_get_size (offered); i++) {
    const GstStructure *st = gst_caps_get_structure (offered, i);
    gint w = 0, h = 0;
    if (gst_structure_get_int (st, "width", &w) && gst_structure_get_int (st, "height", &h)
        && (w > max_side || h > max_side)) {
      warn_refused_caps (self, offered);
      return;
    }
  }
}

gboolean
gst_fv_base_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && fv_cuda_ctx_query (GST_ELEMENT (trans), query, BPRIV (trans)->dev.cuda_ctx))
    return TRUE;
  gboolean ret = GST_BASE_TRANSFORM_CLASS (BASE_PARENT_CLASS)->query (trans,
      direction, query);
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps;
    gboolean ok;
    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &ok);
    if (!ok && caps && gst_caps_is_fixed (caps))
      warn_refused_caps (GST_FV_BASE (trans), caps);
  }
  /* upstream asks what we take for what it can give: nothing in common,
   * and what it gives is one size, is a size we cannot take (the caps
   * query fails negotiation before any accept-caps query) */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter, *result;
    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (filter && result && gst_caps_is_empty (result) && !gst_caps_is_empty (filter))
      warn_refused_size (GST_FV_BASE (trans), filter);
  }
  return ret;
}
