/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan and process layer's private state and the entries its files
 * share (gstfvfilter.c: plans and frames; gstfvfilter-stream.c: start,
 * format, the queries and allocation it adds to GstFvBase's;
 * gstfvfilter-report.c: refusals, errors and the memory check). Not
 * installed. */
#ifndef GST_FV_FILTER_PRIVATE_H
#define GST_FV_FILTER_PRIVATE_H

#include "gstfvfilter.h"
#include "gstfvbase.h"
#include "fvhold.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_fv_filter_debug);

/* A frame submitted and not yet finished: both frames stay mapped (no
 * extra reference: the output gets metas), the input's reference ours. */
typedef struct {
  GstVideoFrame in, out;
  gpointer job;
} FvFlight;
#define FV_MAX_IN_FLIGHT 4

typedef struct {
  gboolean format_changed;   /* new caps: plans for the old format cannot run */
  FvPlaneLayout layout;
  gint planes;                  /* of layout's, those process handles (luma_only) */
  gboolean ready;
  gboolean keeping;             /* in rebuild: a failure keeps the plans that run */
  /* frames in flight (submit/finish): how many the plans allow (< 2: none)
   * and those started (FvFlight), oldest first, with the latency they add */
  guint depth;
  FvHold hold;
} GstFvFilterPrivate;

GstFvFilterPrivate *gst_fv_filter_private (GstFvFilter *f);
/* the parent class (GstFvBase's), for chaining up from this layer's files */
#define FILTER_PARENT_CLASS g_type_class_peek (GST_TYPE_FV_BASE)
#define PRIV(f) gst_fv_filter_private (f)

/* gstfvfilter-stream.c: the entries this layer adds to GstFvBase's */
gboolean gst_fv_filter_start (GstBaseTransform *trans);
gboolean gst_fv_filter_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info);
gboolean gst_fv_filter_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query);
gboolean gst_fv_filter_query (GstBaseTransform *trans, GstPadDirection direction,
    GstQuery *query);

G_END_DECLS
#endif
