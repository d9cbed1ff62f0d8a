/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's private state and the entries its files share
 * (gstfvfilter.c: device, plans and frames; gstfvfilter-stream.c: start,
 * stop, format; gstfvfilter-props.c: properties; gstfvfilter-caps.c: caps,
 * memory kinds, allocation and queries; gstfvfilter-report.c: refusals,
 * errors and the memory check). Not installed. */
#ifndef GST_FV_FILTER_PRIVATE_H
#define GST_FV_FILTER_PRIVATE_H

#include "gstfvfilter.h"
#include "fvmemory.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_fv_filter_debug);

enum {
  PROP_0,
  PROP_ACTIVE_BACKEND,
  PROP_DEVICE_ID,
  PROP_CUDA_DEVICE_ID,
  PROP_THREADS,
  PROP_MAX_DEVICE_MEMORY,
  PROP_CUDA_DEVICE_IDS,
};

/* A frame submitted and not yet finished: both frames stay mapped (no
 * extra reference: the output gets metas), the input's reference ours. */
typedef struct {
  GstVideoFrame in, out;
  gpointer job;
} FvFlight;
#define FV_MAX_IN_FLIGHT 4

typedef struct {
  /* properties, under the object lock */
  GstFvBackend backend;
  gint device_id;
  guint threads;
  guint64 max_device_memory;
  gchar *device_ids;
  gboolean changed;          /* any setting or the format: rebuild the plans */
  gboolean device_changed;   /* backend or device-id: choose the backend again */
  gboolean format_changed;   /* new caps: plans for the old format cannot run */
  /* streaming */
  FvDevice dev;
  FvLatency latency;
  FvPlaneLayout layout;
  gint planes;                  /* of layout's, those process handles (luma_only) */
  gboolean ready;
  gboolean keeping;             /* in rebuild: a failure keeps the plans that run */
  gboolean warned_caps;
  gboolean warned_pinned;       /* said once: a host frame fell back to pageable memory */
  /* the negotiated pads' memory (fvmemory.h: what each kind needs) */
  const FvMemoryKindInfo *in_mem, *out_mem;
  /* frames in flight (submit/finish): how many the plans allow (< 2: none),
   * those started, oldest first, and those finished, waiting to be pushed */
  guint depth;
  guint n_flight;
  FvFlight flight[FV_MAX_IN_FLIGHT];
  GQueue done;
} GstFvFilterPrivate;

/* Whether either pad's frames live on the device (then the element's
 * stream is waited for, or ordered, once a frame). */
static inline gboolean
frames_on_device (const GstFvFilterPrivate *priv)
{
  return priv->in_mem->on_device || priv->out_mem->on_device;
}

GstFvFilterPrivate *gst_fv_filter_private (GstFvFilter *f);
/* the parent class (GstVideoFilter's), for chaining up */
gpointer gst_fv_filter_parent (void);
#define PRIV(f) gst_fv_filter_private (f)

/* gstfvfilter.c: the backend resolved (plans tied to an old stream
 * released first; FALSE: said as an error); the plans released */
gboolean gst_fv_filter_resolve (GstFvFilter *self);
void gst_fv_filter_release_plans (GstFvFilter *self);

/* gstfvfilter-stream.c: GstBaseTransform's and GstVideoFilter's entries */
gboolean gst_fv_filter_start (GstBaseTransform *trans);
gboolean gst_fv_filter_stop (GstBaseTransform *trans);
gboolean gst_fv_filter_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info);

/* gstfvfilter-props.c: the properties */
void gst_fv_filter_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec);
void gst_fv_filter_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec);

/* gstfvfilter-caps.c: GstBaseTransform's and GstElement's entries */
GstCaps *gst_fv_filter_transform_caps (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, GstCaps *filter);
void gst_fv_filter_set_context (GstElement *element, GstContext *context);
gboolean gst_fv_filter_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query);
gboolean gst_fv_filter_decide_allocation (GstBaseTransform *trans, GstQuery *query);
gboolean gst_fv_filter_query (GstBaseTransform *trans, GstPadDirection direction,
    GstQuery *query);
gboolean gst_fv_filter_transform_meta (GstBaseTransform *trans, GstBuffer *outbuf,
    GstMeta *meta, GstBuffer *inbuf);

G_END_DECLS
#endif
