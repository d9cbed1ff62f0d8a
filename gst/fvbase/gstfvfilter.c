/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstFvFilter: plans made current before a frame, the frame processed
 * (GstFvBase's `frame`: inside its map and CUDA ordering), the planes
 * that pass through, and frames in flight. */
#include "gstfvfilter-private.h"
#include "fvmeta.h"
#include "fvhold.h"

GST_DEBUG_CATEGORY (gst_fv_filter_debug);
#define GST_CAT_DEFAULT gst_fv_filter_debug

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstFvFilter, gst_fv_filter, GST_TYPE_FV_BASE);
GstFvFilterPrivate *
gst_fv_filter_private (GstFvFilter *f)
{
  return (GstFvFilterPrivate *) gst_fv_filter_get_instance_private (f);
}


static void drop_in_flight (GstFvFilter *self);

/* GstFvBase's release: the subclass frees its plans once no frame runs on
 * them (the context is current). */
static void
release_plans (GstFvBase *base)
{
  GstFvFilter *self = GST_FV_FILTER (base);
  drop_in_flight (self);
  GST_FV_FILTER_GET_CLASS (self)->release (self);
  PRIV (self)->ready = FALSE;
}

/* How CUDA plans may spread, for the kernels' parameters; FALSE after
 * refusing a device list that does not parse or names a missing device. */
static gboolean
spread_of (GstFvFilter *filter, fv_spread *spread)
{
  gchar *bad = NULL;
  if (gst_fv_base_spread (GST_FV_BASE (filter), spread, &bad))
    return TRUE;
  gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      fv_last_error (), "Invalid cuda-device-ids \"%s\".", bad);
  g_free (bad);
  return FALSE;
}

const FvPlaneLayout *
gst_fv_filter_layout (GstFvFilter *filter)
{
  return &PRIV (filter)->layout;
}

gint
gst_fv_filter_planes (GstFvFilter *filter)
{
  return PRIV (filter)->planes;
}

/* The controller's values for this buffer's time. */
static void
sync_values (GstFvFilter *filter, GstBuffer *buf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstClockTime ts = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buf));
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (filter), ts);
}

static void
gst_fv_filter_before_transform (GstBaseTransform *trans, GstBuffer *buf)
{
  sync_values (GST_FV_FILTER (trans), buf);
}

/* Whether plans are to be made before the next frame. */
static gboolean
plans_stale (GstFvFilter *self)
{
  return gst_fv_base_changes_pending (GST_FV_BASE (self)) || !PRIV (self)->ready;
}

/* Makes the plans current before a frame (with the context current); not
 * while frames run on them (generate_output finishes those first). */
static gboolean
prepare (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  if (fv_hold_count (&priv->hold))
    return TRUE;
  GstFvBase *base = GST_FV_BASE (self);
  gboolean changed, device_changed;
  gst_fv_base_take_changes (base, &changed, &device_changed);
  GST_OBJECT_LOCK (self);
  const gboolean format_changed = priv->format_changed;
  priv->format_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (changed || device_changed || !priv->ready) {
    /* between frames, on the streaming thread: never mid-frame; the backend
     * is chosen again only when it or the device changed (start chose it) */
    GstVideoFilter *vf = GST_VIDEO_FILTER (self);
    GstDebugCategory *cat = GST_FV_BASE_GET_CLASS (self)->debug;
    /* one rule for every element: new settings that cannot be planned
     * while plans for this format and device run leave those running, with
     * a warning (gst_fv_filter_refuse); the first plans, and plans for a
     * new format or device, fail with an error */
    const gboolean had = priv->ready;
    priv->ready = FALSE;
    const gint64 t0 = g_get_monotonic_time ();
    if (device_changed && !gst_fv_base_resolve (base))
      return FALSE;
    priv->keeping = had && !format_changed && !device_changed;
    const FvDevice *dev = gst_fv_base_device (base);
    GstFvRebuild r = { &priv->layout, dev, gst_fv_base_threads (base), priv->planes };
    const gboolean built = spread_of (self, &r.spread)
        && GST_FV_FILTER_GET_CLASS (self)->rebuild (self, &r);
    const gboolean kept = !built && priv->keeping;
    priv->keeping = FALSE;
    if (kept) {
      GST_CAT_INFO_OBJECT (cat ? cat : GST_CAT_DEFAULT, self, "new settings refused: the plans "
          "in use keep running");
      priv->ready = TRUE;
      return TRUE;
    }
    if (!built)
      return FALSE;
    GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
    priv->depth = klass->frames_in_flight ? MIN (klass->frames_in_flight (self),
        FV_MAX_IN_FLIGHT) : 0;
    /* what is in flight beyond the frame being handed in is held back
     * (fvhold.h's rules: latency, upstream pools) */
    fv_hold_set (GST_BASE_TRANSFORM (self), &priv->hold, priv->depth > 1 ? priv->depth - 1 : 0);
    GST_CAT_INFO_OBJECT (cat ? cat : GST_CAT_DEFAULT, self,
        "plans made for %dx%d %s on the %s backend (%u threads asked, 0 = all cores) in %.1f ms",
        GST_VIDEO_INFO_WIDTH (&vf->in_info), GST_VIDEO_INFO_HEIGHT (&vf->in_info),
        GST_VIDEO_INFO_NAME (&vf->in_info), fv_device_backend_name (dev),
        r.threads, (g_get_monotonic_time () - t0) / 1000.0);
    priv->ready = TRUE;
  }
  return TRUE;
}

static GstFlowReturn
copy_passed_planes (GstFvFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  gpointer stream = gst_fv_base_device (GST_FV_BASE (self))->stream;
  for (gint p = priv->planes; p < priv->layout.n_planes; p++)
    if (!fv_plane_copy (&priv->layout, out, in, p, stream)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot copy plane %d.", p),
          ("%s", fv_last_error ()));
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

/* GstFvBase's prepare: the plans made current, before the frame's CUDA
 * work is ordered. */
static gboolean
gst_fv_filter_prepare (GstFvBase *base)
{
  return prepare (GST_FV_FILTER (base));
}

/* GstFvBase's frame: the subclass processes it (out NULL: in place), and
 * the planes it leaves pass through. */
static GstFlowReturn
gst_fv_filter_frame (GstFvBase *base, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilter *self = GST_FV_FILTER (base);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  GstFlowReturn ret = out ? klass->process (self, in, out) : klass->process_ip (self, in);
  if (out && ret == GST_FLOW_OK)
    ret = copy_passed_planes (self, in, out);
  return ret;
}

/* Frames in flight (frames_in_flight, submit, finish), held in fvhold.h's
 * queue. */

/* The hold's `out`: finishes the oldest frame in flight and unmaps it;
 * its output is pushed unless dropped (or failed). */
static GstBuffer *
finish_flight (gpointer owner, gpointer item, gboolean drop, GstFlowReturn *ret)
{
  GstFvFilter *self = GST_FV_FILTER (owner);
  FvFlight *f = item;
  const FvDevice *dev = gst_fv_base_device (GST_FV_BASE (self));
  fv_device_push (dev);
  *ret = GST_FV_FILTER_GET_CLASS (self)->finish (self, &f->out, f->job, drop);
  fv_device_pop (dev);
  GstBuffer *in = f->in.buffer, *out = f->out.buffer;
  gst_video_frame_unmap (&f->in);
  gst_video_frame_unmap (&f->out);
  g_free (f);
  gst_buffer_unref (in);
  if (!drop && *ret == GST_FLOW_OK)
    return out;
  gst_buffer_unref (out);
  return NULL;
}

/* Flush, stop, new plans from a new stream: nothing in flight is pushed. */
static void
drop_in_flight (GstFvFilter *self)
{
  fv_hold_drop (&PRIV (self)->hold);
}

/* Submits the queued input; once `depth` frames are in flight, finishes
 * the oldest into *outbuf. */
static GstFlowReturn
submit_queued (GstFvFilter *self, GstBuffer **outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstFvFilterPrivate *priv = PRIV (self);
  GstBuffer *inbuf = trans->queued_buf, *out = NULL;
  trans->queued_buf = NULL;
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->
      prepare_output_buffer (trans, inbuf, &out);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  GstFvBase *base = GST_FV_BASE (self);
  const FvDevice *dev = gst_fv_base_device (base);
  gst_fv_base_check_pinned (base, out);
  FvFlight *f = g_new0 (FvFlight, 1);
  fv_device_push (dev);
  ret = gst_fv_base_map_pair (base, inbuf, out, &f->in, &f->out);
  const gboolean mapped = ret == GST_FLOW_OK;
  if (mapped)
    ret = GST_FV_FILTER_GET_CLASS (self)->submit (self, &f->in, &f->out, &f->job);
  if (ret == GST_FLOW_OK) {
    /* in flight, buffers and all; a failed copy drops it with the rest */
    fv_hold_push (&priv->hold, f);
    ret = copy_passed_planes (self, &f->in, &f->out);
  } else {
    if (mapped) {
      gst_video_frame_unmap (&f->in);
      gst_video_frame_unmap (&f->out);
    }
    g_free (f);
    gst_buffer_unref (inbuf);
    gst_buffer_unref (out);
  }
  fv_device_pop (dev);
  if (ret != GST_FLOW_OK) {
    drop_in_flight (self);
    return ret;
  }
  return fv_hold_count (&priv->hold) >= priv->depth ? fv_hold_pop (&priv->hold, outbuf)
      : GST_FLOW_OK;
}

/* With frames in flight, GstBaseTransform's one buffer in, one out becomes
 * one in, any out: it calls this until no buffer comes. Elements without
 * submit, and plans that keep nothing in flight, take the ordinary path. */
static GstFlowReturn
gst_fv_filter_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class);
  if (!GST_FV_FILTER_GET_CLASS (self)->submit)
    return parent->generate_output (trans, outbuf);
  *outbuf = NULL;
  if (!trans->queued_buf)
    return GST_FLOW_OK;
  /* the settings decide whether frames go in flight: plans brought up to
   * date first, and frames that run on the old ones finished and pushed,
   * one a call */
  sync_values (self, trans->queued_buf);
  if (fv_hold_count (&priv->hold) && plans_stale (self)) {
    GstFlowReturn ret = fv_hold_pop (&priv->hold, outbuf);
    if (ret != GST_FLOW_OK)
      drop_in_flight (self);
    if (ret != GST_FLOW_OK || *outbuf)
      return ret;
  }
  const FvDevice *dev = gst_fv_base_device (GST_FV_BASE (self));
  fv_device_push (dev);
  const gboolean ready = prepare (self);
  fv_device_pop (dev);
  if (!ready) {
    gst_clear_buffer (&trans->queued_buf);
    return GST_FLOW_ERROR;
  }
  if (priv->depth < 2)
    return parent->generate_output (trans, outbuf);
  return submit_queued (self, outbuf);
}

/* Every serialized event (EOS, caps, segment, gap, tags, custom ...) pushes
 * what is in flight first (it belongs before them); a flush drops it
 * (fvhold.h). */
static gboolean
gst_fv_filter_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  fv_hold_event (&PRIV (GST_FV_FILTER (trans))->hold, trans, event);
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->sink_event (trans, event);
}

static gboolean
gst_fv_filter_transform_meta (GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
    GstBuffer *inbuf)
{
  return fv_meta_survives_filter (meta);
}

static void
gst_fv_filter_class_init (GstFvFilterClass *klass)
{
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vf_class = GST_VIDEO_FILTER_CLASS (klass);
  GstFvBaseClass *base_class = GST_FV_BASE_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_fv_filter_debug, "fvfilter", 0,
      "fastvision filter: plans and frames");
  base_class->release = GST_DEBUG_FUNCPTR (release_plans);
  base_class->prepare = GST_DEBUG_FUNCPTR (gst_fv_filter_prepare);
  base_class->frame = GST_DEBUG_FUNCPTR (gst_fv_filter_frame);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_fv_filter_start);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_fv_filter_before_transform);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_propose_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_fv_filter_query);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_meta);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_fv_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_fv_filter_sink_event);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_fv_filter_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_FV_FILTER, 0);
}

static void
gst_fv_filter_init (GstFvFilter *self)
{
  fv_hold_init (&PRIV (self)->hold, finish_flight, self);
}
