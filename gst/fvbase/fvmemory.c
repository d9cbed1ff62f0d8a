/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The memory kinds' table (fvmemory.h). */
#include "fvmemory.h"
#include "fvcudactx.h"
#include "fvpinnedallocator.h"

/* System memory: a GPU element offers page-locked buffers (copies to and
 * from the device then run asynchronously); a CPU element leaves the pool
 * to GstVideoFilter. */
static gboolean
system_propose (FvDevice *dev, GstQuery *query, GstCaps *caps)
{
  (void) caps;
  if (!fv_device_is_cuda (dev))
    return FALSE;
  fv_pinned_propose_allocation (query);
  return TRUE;
}

static gboolean
system_decide (FvDevice *dev, GstQuery *query, GstCaps *caps)
{
  (void) caps;
  if (fv_device_is_cuda (dev))
    fv_pinned_decide_allocation (query);
  return FALSE;
}

/* CUDA memory: the pool of the shared context, on the element's stream. */
static gboolean
cuda_propose (FvDevice *dev, GstQuery *query, GstCaps *caps)
{
  fv_device_ensure_stream (dev);
  fv_cuda_ctx_propose_allocation (dev->cuda_ctx, query, caps, dev->gst_stream);
  return TRUE;
}

static gboolean
cuda_decide (FvDevice *dev, GstQuery *query, GstCaps *caps)
{
  fv_device_ensure_stream (dev);
  fv_cuda_ctx_decide_allocation (dev->cuda_ctx, query, caps, dev->gst_stream);
  return TRUE;
}

static const FvMemoryKindInfo kinds[FV_MEMORY_KINDS] = {
  [FV_MEMORY_SYSTEM] = { "system", GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, FALSE,
    system_propose, system_decide },
  [FV_MEMORY_CUDA] = { "CUDA", FV_CAPS_FEATURE_CUDA, TRUE, cuda_propose, cuda_decide },
};


FvMemoryKind
fv_memory_kind_of_features (const GstCapsFeatures *features)
{
  for (guint k = 0; features && !gst_caps_features_is_any (features) && k < FV_MEMORY_KINDS; k++)
    if (gst_caps_features_contains (features, kinds[k].feature))
      return (FvMemoryKind) k;
  return FV_MEMORY_SYSTEM;
}

FvMemoryKind
fv_memory_kind_of_caps (const GstCaps *caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FV_MEMORY_SYSTEM;
  return fv_memory_kind_of_features (gst_caps_get_features (caps, 0));
}

const FvMemoryKindInfo *
fv_memory_kind_info (FvMemoryKind kind)
{
  return &kinds[(guint) kind < FV_MEMORY_KINDS ? kind : FV_MEMORY_SYSTEM];
}
