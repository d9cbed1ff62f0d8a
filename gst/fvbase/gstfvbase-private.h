/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The lower layer's private state and the entries its files share
 * (gstfvbase.c: device, changes, a frame's map and CUDA ordering;
 * gstfvbase-props.c: properties; gstfvbase-caps.c: caps, memory kinds,
 * allocation and queries). Not installed. */
#ifndef GST_FV_BASE_PRIVATE_H
#define GST_FV_BASE_PRIVATE_H

#include "gstfvbase.h"
#include "fvmemory.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_fv_base_debug);

enum {
  PROP_0,
  PROP_ACTIVE_BACKEND,
  PROP_DEVICE_ID,
  PROP_CUDA_DEVICE_ID,
  PROP_THREADS,
  PROP_MAX_DEVICE_MEMORY,
  PROP_CUDA_DEVICE_IDS,
};

typedef struct {
  /* properties, under the object lock */
  GstFvBackend backend;
  gint device_id;
  guint threads;
  guint64 max_device_memory;
  gchar *device_ids;
  gboolean changed;          /* any setting or the format: the plans are made again */
  gboolean device_changed;   /* backend or device-id: the backend is chosen again */
  /* streaming */
  FvDevice dev;
  gboolean warned_caps;
  gboolean warned_pinned;    /* said once: a host frame fell back to pageable memory */
  /* the negotiated pads' memory (fvmemory.h: what each kind needs) */
  const FvMemoryKindInfo *in_mem, *out_mem;
} GstFvBasePrivate;

/* the private state of any GstFvBase instance */
GstFvBasePrivate *gst_fv_base_private (gpointer instance);
/* the parent class (GstVideoFilter's), for chaining up from this layer's files */
#define BASE_PARENT_CLASS g_type_class_peek (GST_TYPE_VIDEO_FILTER)
#define BPRIV(b) gst_fv_base_private (b)

/* gstfvbase-props.c: the properties */
void gst_fv_base_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec);
void gst_fv_base_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec);
void gst_fv_base_install_properties (GObjectClass *gobject_class);

/* gstfvbase-caps.c: GstBaseTransform's and GstElement's entries */
GstCaps *gst_fv_base_transform_caps (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, GstCaps *filter);
void gst_fv_base_set_context (GstElement *element, GstContext *context);
gboolean gst_fv_base_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query);
gboolean gst_fv_base_decide_allocation (GstBaseTransform *trans, GstQuery *query);
gboolean gst_fv_base_query (GstBaseTransform *trans, GstPadDirection direction,
    GstQuery *query);

G_END_DECLS
#endif
