/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstfvfilter-private.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "fvmeta.h"
#include "fvpinnedallocator.h"
#include "fvcudactx.h"
#include "fvmemory.h"
#include "fvhold.h"
#include "fv_cuda.h"
#include "fv_devices.h"

GST_DEBUG_CATEGORY (gst_fv_filter_debug);
#define GST_CAT_DEFAULT gst_fv_filter_debug



G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstFvFilter, gst_fv_filter, GST_TYPE_VIDEO_FILTER);
GstFvFilterPrivate *
gst_fv_filter_private (GstFvFilter *f)
{
  return (GstFvFilterPrivate *) gst_fv_filter_get_instance_private (f);
}

gpointer
gst_fv_filter_parent (void)
{
  return gst_fv_filter_parent_class;
}


void
gst_fv_filter_settings_changed (GstFvFilter *filter)
{
  GST_OBJECT_LOCK (filter);
  PRIV (filter)->changed = TRUE;
  GST_OBJECT_UNLOCK (filter);
}

const FvDevice *
gst_fv_filter_device (GstFvFilter *filter)
{
  return &PRIV (filter)->dev;
}

guint
gst_fv_filter_threads (GstFvFilter *filter)
{
  GST_OBJECT_LOCK (filter);
  guint t = PRIV (filter)->threads;
  GST_OBJECT_UNLOCK (filter);
  return t;
}

static void drop_in_flight (GstFvFilter *self);

/* The subclass frees its plans in the context they were made in, once no
 * frame runs on them. */
void
gst_fv_filter_release_plans (GstFvFilter *self)
{
  FvDevice *dev = &PRIV (self)->dev;
  fv_device_push (dev);
  drop_in_flight (self);
  GST_FV_FILTER_GET_CLASS (self)->release (self);
  fv_device_pop (dev);
  PRIV (self)->ready = FALSE;
}

/* Resolves the backend; plans tied to an old stream are released. */
gboolean
gst_fv_filter_resolve (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  GstFvBackend backend = priv->backend;
  gint device = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (!GST_FV_FILTER_GET_CLASS (self)->has_cuda) {
    if (backend != GST_FV_BACKEND_AUTO && backend != GST_FV_BACKEND_CPU) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s has no CUDA path yet; use "
              "backend=cpu or auto.", G_OBJECT_TYPE_NAME (self)), (NULL));
      return FALSE;
    }
    backend = GST_FV_BACKEND_CPU;
  }
  /* plans belong to the old stream and context: freed there first */
  gst_fv_filter_release_plans (self);
  const gboolean running = priv->dev.have_active;
  if (!fv_device_resolve (&priv->dev, GST_ELEMENT (self), backend, device))
    return FALSE;
  /* a change refused while running (no usable GPU) keeps the backend that
   * runs, and the property reads it back: what is in use, not what was asked */
  const gint now = fv_device_active_backend (&priv->dev);
  if (running && backend != GST_FV_BACKEND_AUTO && now != (gint) backend) {
    GST_OBJECT_LOCK (self);
    const gboolean same = priv->backend == backend;
    if (same)
      priv->backend = (GstFvBackend) now;
    GST_OBJECT_UNLOCK (self);
    if (same)
      g_object_notify (G_OBJECT (self), "backend");
  }
  return TRUE;
}

/* The chunk runner keeps to one device, faster than the listed ones. */
static void
spread_note (void *user, const char *message)
{
  GST_WARNING_OBJECT (user, "cuda-device-ids: %s", message);
}

/* How CUDA plans may spread (max-device-memory, cuda-device-ids, the
 * active device), for the kernels' parameters; FALSE after refusing a
 * device list that does not parse or names a missing device. */
static gboolean
spread_of (GstFvFilter *filter, fv_spread *spread)
{
  GstFvFilterPrivate *priv = PRIV (filter);
  memset (spread, 0, sizeof *spread);
  GST_OBJECT_LOCK (filter);
  spread->max_device_bytes = priv->max_device_memory;
  spread->note = spread_note;
  spread->note_user = filter;
  gchar *ids = g_strdup (priv->device_ids);
  GST_OBJECT_UNLOCK (filter);
  if (!fv_device_is_cuda (&priv->dev)) {
    g_free (ids);
    return TRUE;
  }
  fv_status st = fv_device_list_parse (ids, priv->dev.stream_device, spread->devices,
      &spread->ndevices);
  if (st != FV_OK)
    gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        fv_last_error (), "Invalid cuda-device-ids \"%s\".", ids);
  else if (spread->ndevices > 1)
    GST_INFO_OBJECT (filter, "frames spread over %d device entries (%s)", spread->ndevices, ids);
  g_free (ids);
  return st == FV_OK;
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
  GstFvFilterPrivate *priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  const gboolean stale = priv->changed || priv->device_changed || !priv->ready;
  GST_OBJECT_UNLOCK (self);
  return stale;
}

/* Makes the plans current before a frame (with the context current); not
 * while frames run on them (generate_output finishes those first). */
static gboolean
prepare (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  if (priv->n_flight)
    return TRUE;
  GST_OBJECT_LOCK (self);
  gboolean changed = priv->changed, device_changed = priv->device_changed;
  const gboolean format_changed = priv->format_changed;
  priv->changed = priv->device_changed = priv->format_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (changed || device_changed || !priv->ready) {
    /* between frames, on the streaming thread: never mid-frame; the backend
     * is chosen again only when it or the device changed (start chose it) */
    GstVideoFilter *vf = GST_VIDEO_FILTER (self);
    GstDebugCategory *cat = GST_FV_FILTER_GET_CLASS (self)->debug;
    /* one rule for every element: new settings that cannot be planned
     * while plans for this format and device run leave those running, with
     * a warning (gst_fv_filter_refuse); the first plans, and plans for a
     * new format or device, fail with an error */
    const gboolean had = priv->ready;
    priv->ready = FALSE;
    const gint64 t0 = g_get_monotonic_time ();
    if (device_changed && !gst_fv_filter_resolve (self))
      return FALSE;
    priv->keeping = had && !format_changed && !device_changed;
    GstFvRebuild r = { &priv->layout, &priv->dev, gst_fv_filter_threads (self), priv->planes };
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
    fv_hold_set (GST_BASE_TRANSFORM (self), &priv->latency, priv->depth > 1 ? priv->depth - 1 : 0);
    GST_CAT_INFO_OBJECT (cat ? cat : GST_CAT_DEFAULT, self,
        "plans made for %dx%d %s on the %s backend (%u threads asked, 0 = all cores) in %.1f ms",
        GST_VIDEO_INFO_WIDTH (&vf->in_info), GST_VIDEO_INFO_HEIGHT (&vf->in_info),
        GST_VIDEO_INFO_NAME (&vf->in_info), fv_device_backend_name (&priv->dev),
        gst_fv_filter_threads (self), (g_get_monotonic_time () - t0) / 1000.0);
    priv->ready = TRUE;
  }
  return TRUE;
}

static GstFlowReturn
copy_passed_planes (GstFvFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  for (gint p = priv->planes; p < priv->layout.n_planes; p++)
    if (!fv_plane_copy (&priv->layout, out, in, p, priv->dev.stream)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot copy plane %d.", p),
          ("%s", fv_last_error ()));
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

/* Prepares the plans and processes one frame (out NULL: in place), with
 * the CUDA context current. GStreamer 1.22's CUDA memory carries no stream
 * or event: a neighbour may touch a CUDA frame as soon as we return (the
 * producer reuses the input, the consumer reads the output), so work on
 * CUDA frames is finished here; producers of 1.22 do the same before they
 * push, which makes the input safe to read on our stream. On 1.24+, when
 * both sides are CUDA memories that carry streams, those streams wait for
 * ours on the GPU instead and the element returns at once
 * (fv_cuda_ctx_frame_ordered; docs/gpu-pipelines.md). A host frame on
 * either side is always waited for: the host is reading or reusing it. */
static GstFlowReturn
run_frame (GstFvFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  GstFlowReturn ret = GST_FLOW_ERROR;
  fv_device_push (&priv->dev);
  const gint64 t0 = g_get_monotonic_time ();
  GstBuffer *const outbuf = out ? out->buffer : NULL;
  const gboolean can_order = priv->in_mem->on_device && (!out || priv->out_mem->on_device)
      && fv_cuda_ctx_frame_can_order (in->buffer, outbuf);
  if (prepare (self)) {
    /* the kernels leave their device work queued on our stream: it is
     * waited for once below, or ordered on the GPU (a frame's regions and
     * planes then cost no host round trip each) */
    if (can_order || (frames_on_device (priv) && priv->dev.stream))
      fv_cuda_defer_begin (priv->dev.stream);
    ret = out ? klass->process (self, in, out) : klass->process_ip (self, in);
    if (out && ret == GST_FLOW_OK)
      ret = copy_passed_planes (self, in, out);
    fv_cuda_defer_end ();
  }
  const gboolean ordered = ret == GST_FLOW_OK && can_order
      && fv_cuda_ctx_frame_ordered (in->buffer, outbuf, priv->dev.stream);
  /* also after a failure: work still queued must not outlive the frames */
  if (frames_on_device (priv) && priv->dev.stream && !ordered
      && fv_cuda_stream_sync (priv->dev.stream) != FV_OK && ret == GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("CUDA work on the frame failed."),
        ("%s", fv_last_error ()));
    ret = GST_FLOW_ERROR;
  }
  fv_device_pop (&priv->dev);
  GST_CAT_TRACE_OBJECT (klass->debug ? klass->debug : GST_CAT_DEFAULT, self,
      "frame %" GST_TIME_FORMAT " in %.3f ms", GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer)),
      (g_get_monotonic_time () - t0) / 1000.0);
  return ret;
}

static GstFlowReturn
gst_fv_filter_transform_frame (GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
  return run_frame (GST_FV_FILTER (vf), in, out);
}

static GstFlowReturn
gst_fv_filter_transform_frame_ip (GstVideoFilter *vf, GstVideoFrame *frame)
{
  return run_frame (GST_FV_FILTER (vf), frame, NULL);
}

static GstFlowReturn
map_failed (GstFvFilter *self, const gchar *which)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the %s frame.", which), (NULL));
  return GST_FLOW_ERROR;
}

/* CUDA frames are mapped for the device (GstVideoFilter would map them for
 * the CPU, a download); system frames go the usual way. */
/* Host frames on the CUDA path in ordinary memory because page-locked
 * memory ran out (fvpinnedallocator.c): they still work, said once. */
static void
warn_pageable (GstFvFilter *self, GstBuffer *buf)
{
  GstFvFilterPrivate *priv = PRIV (self);
  const gchar *note = fv_pinned_fallback_note ();
  if (priv->warned_pinned || !note || !fv_device_is_cuda (&priv->dev) || !buf
      || gst_buffer_n_memory (buf) < 1 || fv_memory_is_pinned (gst_buffer_peek_memory (buf, 0)))
    return;
  priv->warned_pinned = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
      ("Frames use ordinary host memory: the page-locked memory budget is exhausted."),
      ("%s", note));
}

/* Maps the input for reading and the output for writing, each in its
 * memory's way (fvmemory.h), with no extra reference: vjdetect and autofill
 * add metas, which needs a writable buffer. Call with the context current:
 * a CUDA input may be waited for on our stream. */
static GstFlowReturn
map_pair (GstFvFilter *self, GstBuffer *inbuf, GstBuffer *outbuf, GstVideoFrame *in,
    GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  const GstMapFlags noref = (GstMapFlags) GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  if (!fv_cuda_frame_map (in, &vf->in_info, inbuf, GST_MAP_READ | noref,
          priv->in_mem->on_device, priv->dev.stream))
    return map_failed (self, "input");
  if (!fv_cuda_frame_map (out, &vf->out_info, outbuf, GST_MAP_WRITE | noref,
          priv->out_mem->on_device, priv->dev.stream)) {
    gst_video_frame_unmap (in);
    return map_failed (self, "output");
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_fv_filter_transform (GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  if (!priv->out_mem->on_device)
    warn_pageable (self, outbuf);
  if (!frames_on_device (priv))
    return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->transform (trans, inbuf, outbuf);
  GstVideoFrame in, out;
  fv_device_push (&priv->dev);   /* the input may be waited for on our stream */
  GstFlowReturn ret = map_pair (self, inbuf, outbuf, &in, &out);
  if (ret == GST_FLOW_OK) {
    ret = run_frame (self, &in, &out);
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&in);
  }
  fv_device_pop (&priv->dev);
  return ret;
}

static GstFlowReturn
gst_fv_filter_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstVideoFilter *vf = GST_VIDEO_FILTER (trans);
  GstVideoFrame frame;
  /* pixels mapped for writing only when they change: a decoder's frame
   * shared with its reference list, or a buffer a tee shares, is then not
   * copied */
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  const gboolean writes = !klass->writes_in_place || klass->writes_in_place (self);
  const GstMapFlags flags = (writes ? GST_MAP_READWRITE : GST_MAP_READ)
      | (GstMapFlags) GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  const gboolean on_device = PRIV (self)->in_mem->on_device;
  const FvDevice *dev = &PRIV (self)->dev;
  GstFlowReturn ret;
  if (on_device)
    fv_device_push (dev);   /* the frame may be waited for on our stream */
  if (!fv_cuda_frame_map (&frame, &vf->in_info, buf, flags, on_device, dev->stream)) {
    if (on_device) {
      ret = map_failed (self, "input");
    } else {
      /* as GstVideoFilter does: the buffer goes on unprocessed, and a
       * detector's absent result is what fails closed downstream */
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Invalid video buffer received: it does "
              "not hold a %dx%d %s frame; passed on unprocessed.",
              GST_VIDEO_INFO_WIDTH (&vf->in_info), GST_VIDEO_INFO_HEIGHT (&vf->in_info),
              GST_VIDEO_INFO_NAME (&vf->in_info)), (NULL));
      ret = GST_FLOW_OK;
    }
  } else {
    ret = run_frame (self, &frame, NULL);
    gst_video_frame_unmap (&frame);
  }
  if (on_device)
    fv_device_pop (dev);
  return ret;
}

/* Frames in flight (frames_in_flight, submit, finish). */

/* Finishes the oldest frame in flight and unmaps it; its output joins
 * those waiting to be pushed unless dropped (or failed). */
static GstFlowReturn
finish_oldest (GstFvFilter *self, gboolean drop)
{
  GstFvFilterPrivate *priv = PRIV (self);
  FvFlight f = priv->flight[0];
  memmove (priv->flight, priv->flight + 1, --priv->n_flight * sizeof f);
  fv_device_push (&priv->dev);
  GstFlowReturn ret = GST_FV_FILTER_GET_CLASS (self)->finish (self, &f.out, f.job, drop);
  fv_device_pop (&priv->dev);
  GstBuffer *in = f.in.buffer, *out = f.out.buffer;
  gst_video_frame_unmap (&f.in);
  gst_video_frame_unmap (&f.out);
  gst_buffer_unref (in);
  if (drop || ret != GST_FLOW_OK)
    gst_buffer_unref (out);
  else
    g_queue_push_tail (&priv->done, out);
  return ret;
}

/* Flush, stop, new plans from a new stream: nothing in flight is pushed. */
static void
drop_in_flight (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  while (priv->n_flight)
    finish_oldest (self, TRUE);
  g_queue_clear_full (&priv->done, (GDestroyNotify) gst_buffer_unref);
}

/* Finishes everything in flight, in order, for pushing (before new plans,
 * new caps or EOS); on a failure the rest is dropped. */
static GstFlowReturn
finish_in_flight (GstFvFilter *self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  while (PRIV (self)->n_flight && ret == GST_FLOW_OK)
    ret = finish_oldest (self, FALSE);
  if (ret != GST_FLOW_OK)
    drop_in_flight (self);
  return ret;
}

/* Hands the next finished output out, if any. */
static gboolean
next_done (GstFvFilter *self, GstBuffer **outbuf)
{
  *outbuf = g_queue_pop_head (&PRIV (self)->done);
  return *outbuf != NULL;
}

/* Submits the queued input; once `depth` frames are in flight, finishes
 * the oldest. */
static GstFlowReturn
submit_queued (GstFvFilter *self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstFvFilterPrivate *priv = PRIV (self);
  GstBuffer *inbuf = trans->queued_buf, *outbuf = NULL;
  trans->queued_buf = NULL;
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->
      prepare_output_buffer (trans, inbuf, &outbuf);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  if (!priv->out_mem->on_device)
    warn_pageable (self, outbuf);
  FvFlight f = { 0 };
  fv_device_push (&priv->dev);
  ret = map_pair (self, inbuf, outbuf, &f.in, &f.out);
  const gboolean mapped = ret == GST_FLOW_OK;
  if (mapped)
    ret = GST_FV_FILTER_GET_CLASS (self)->submit (self, &f.in, &f.out, &f.job);
  if (ret == GST_FLOW_OK) {
    /* in flight, buffers and all; a failed copy drops it with the rest */
    priv->flight[priv->n_flight++] = f;
    ret = copy_passed_planes (self, &f.in, &f.out);
  } else {
    if (mapped) {
      gst_video_frame_unmap (&f.in);
      gst_video_frame_unmap (&f.out);
    }
    gst_buffer_unref (inbuf);
    gst_buffer_unref (outbuf);
  }
  fv_device_pop (&priv->dev);
  if (ret != GST_FLOW_OK) {
    drop_in_flight (self);
    return ret;
  }
  return priv->n_flight >= priv->depth ? finish_oldest (self, FALSE) : GST_FLOW_OK;
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
  if (next_done (self, outbuf) || !trans->queued_buf)
    return GST_FLOW_OK;
  /* the settings decide whether frames go in flight: plans brought up to
   * date first, and frames that run on the old ones finished and pushed */
  sync_values (self, trans->queued_buf);
  if (priv->n_flight && plans_stale (self)) {
    GstFlowReturn ret = finish_in_flight (self);
    if (ret != GST_FLOW_OK || next_done (self, outbuf))
      return ret;
  }
  fv_device_push (&priv->dev);
  const gboolean ready = prepare (self);
  fv_device_pop (&priv->dev);
  if (!ready) {
    gst_clear_buffer (&trans->queued_buf);
    return GST_FLOW_ERROR;
  }
  if (priv->depth < 2)
    return parent->generate_output (trans, outbuf);
  GstFlowReturn ret = submit_queued (self);
  next_done (self, outbuf);
  return ret;
}

/* Every serialized event (EOS, caps, segment, gap, tags, custom ...) pushes
 * what is in flight first (it belongs before them); a flush drops it
 * (fvhold.h). */
static gboolean
gst_fv_filter_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  const FvHoldAction act = fv_hold_action (event);
  if (act == FV_HOLD_DRAIN && priv->n_flight) {
    GstBuffer *b;
    GstFlowReturn ret = finish_in_flight (self);
    while (next_done (self, &b))
      if (ret == GST_FLOW_OK)
        ret = gst_pad_push (trans->srcpad, b);
      else
        gst_buffer_unref (b);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "frames in flight before %s: %s", GST_EVENT_TYPE_NAME (event),
          gst_flow_get_name (ret));
  } else if (act == FV_HOLD_DROP) {
    drop_in_flight (self);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->sink_event (trans, event);
}

static void
gst_fv_filter_finalize (GObject *object)
{
  GstFvFilter *self = GST_FV_FILTER (object);
  gst_fv_filter_release_plans (self);
  g_free (PRIV (self)->device_ids);
  fv_device_stop (&PRIV (self)->dev);
  G_OBJECT_CLASS (gst_fv_filter_parent_class)->finalize (object);
}

/* The subclass's own class is known only here (during instance init the
 * instance still has its ancestors' classes). */
static void
gst_fv_filter_constructed (GObject *object)
{
  G_OBJECT_CLASS (gst_fv_filter_parent_class)->constructed (object);
  if (GST_FV_FILTER_GET_CLASS (object)->in_place)
    gst_base_transform_set_in_place (GST_BASE_TRANSFORM (object), TRUE);
}

static void
gst_fv_filter_class_init (GstFvFilterClass *klass)
{
  klass->has_cuda = TRUE;
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vf_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_fv_filter_debug, "fvfilter", 0, "fastvision filter base");
  gobject_class->set_property = gst_fv_filter_set_property;
  gobject_class->get_property = gst_fv_filter_get_property;
  gobject_class->finalize = gst_fv_filter_finalize;
  gobject_class->constructed = gst_fv_filter_constructed;

  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "The backend in use (none until the element starts)",
          GST_TYPE_FV_ACTIVE_BACKEND, GST_FV_ACTIVE_BACKEND_NONE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "CUDA device to use (-1 = the device of the CUDA context the pipeline "
          "shares, else device 0)", -1, G_MAXINT, -1, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "Deprecated alias of cuda-device-id (reads -1 as 0)", 0, G_MAXINT, 0,
          rw | G_PARAM_DEPRECATED));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads", "CPU threads (0 = all cores)", 0, 1024, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_DEVICE_MEMORY,
      g_param_spec_uint64 ("max-device-memory", "Max device memory",
          "CUDA: device memory one plane's plan may take on each device, in bytes (0 = what "
          "the device has free, less 1/16 and 64 MB); a frame that needs more is processed "
          "in overlapping chunks, exactly", 0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_IDS,
      g_param_spec_string ("cuda-device-ids", "CUDA device IDs",
          "CUDA devices one frame is spread over, in chunks: \"0\", \"0,1\", \"all\" (a "
          "device listed twice runs two chunks at once); unset: cuda-device-id alone",
          NULL, FV_PARAM_RW));

  trans_class->start = GST_DEBUG_FUNCPTR (gst_fv_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_fv_filter_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_fv_filter_before_transform);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_fv_filter_query);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_meta);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_fv_filter_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_ip);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_fv_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_fv_filter_sink_event);
  GST_ELEMENT_CLASS (klass)->set_context = GST_DEBUG_FUNCPTR (gst_fv_filter_set_context);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_fv_filter_set_info);
  vf_class->transform_frame = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame);
  vf_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_FV_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND_HYBRID, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_ACTIVE_BACKEND, 0);
}

static void
gst_fv_filter_init (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  priv->backend = GST_FV_BACKEND_AUTO;
  priv->device_id = -1;
  priv->in_mem = priv->out_mem = fv_memory_kind_info (FV_MEMORY_SYSTEM);
  priv->changed = TRUE;
  g_queue_init (&priv->done);
  /* drop frames that would arrive late at a live sink */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
