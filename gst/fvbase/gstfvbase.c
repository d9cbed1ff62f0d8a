/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstFvBase: the device, the changes that wait, and a frame's path
 * through the layer: map (in its memory's way), the subclass's `frame`
 * with the context current, the frame's CUDA work waited for or ordered,
 * unmap. Caps, memory kinds and allocation: gstfvbase-caps.c; the
 * properties: gstfvbase-props.c. */
#include "gstfvbase-private.h"
#include "fvpinnedallocator.h"
#include "fvcudactx.h"
#include "fv_cuda.h"
#include "fv_devices.h"

GST_DEBUG_CATEGORY (gst_fv_base_debug);
#define GST_CAT_DEFAULT gst_fv_base_debug

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstFvBase, gst_fv_base, GST_TYPE_VIDEO_FILTER);

GstFvBasePrivate *
gst_fv_base_private (gpointer instance)
{
  return gst_fv_base_get_instance_private (GST_FV_BASE (instance));
}

const FvDevice *
gst_fv_base_device (GstFvBase *base)
{
  return &BPRIV (base)->dev;
}

guint
gst_fv_base_threads (GstFvBase *base)
{
  GST_OBJECT_LOCK (base);
  guint t = BPRIV (base)->threads;
  GST_OBJECT_UNLOCK (base);
  return t;
}

void
gst_fv_base_mark_changed (GstFvBase *base)
{
  GST_OBJECT_LOCK (base);
  BPRIV (base)->changed = TRUE;
  GST_OBJECT_UNLOCK (base);
}

gboolean
gst_fv_base_changes_pending (GstFvBase *base)
{
  GST_OBJECT_LOCK (base);
  const gboolean pending = BPRIV (base)->changed || BPRIV (base)->device_changed;
  GST_OBJECT_UNLOCK (base);
  return pending;
}

void
gst_fv_base_take_changes (GstFvBase *base, gboolean *changed, gboolean *device_changed)
{
  GstFvBasePrivate *priv = BPRIV (base);
  GST_OBJECT_LOCK (base);
  *changed = priv->changed;
  *device_changed = priv->device_changed;
  priv->changed = priv->device_changed = FALSE;
  GST_OBJECT_UNLOCK (base);
}

/* Whether either pad's frames live on the device. */
static gboolean
frames_on_device (GstFvBase *base)
{
  const GstFvBasePrivate *priv = BPRIV (base);
  return priv->in_mem->on_device || priv->out_mem->on_device;
}

/* What was made on the device, freed in its context. */
static void
release (GstFvBase *self)
{
  GstFvBaseClass *klass = GST_FV_BASE_GET_CLASS (self);
  if (!klass->release)
    return;
  fv_device_push (&BPRIV (self)->dev);
  klass->release (self);
  fv_device_pop (&BPRIV (self)->dev);
}

gboolean
gst_fv_base_resolve (GstFvBase *self)
{
  GstFvBasePrivate *priv = BPRIV (self);
  GST_OBJECT_LOCK (self);
  GstFvBackend backend = priv->backend;
  gint device = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (!GST_FV_BASE_GET_CLASS (self)->has_cuda) {
    if (backend != GST_FV_BACKEND_AUTO && backend != GST_FV_BACKEND_CPU) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s has no CUDA path yet; use "
              "backend=cpu or auto.", G_OBJECT_TYPE_NAME (self)), (NULL));
      return FALSE;
    }
    backend = GST_FV_BACKEND_CPU;
  }
  /* what was made belongs to the old stream and context: freed there first */
  release (self);
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

gboolean
gst_fv_base_spread (GstFvBase *base, fv_spread *spread, gchar **bad_ids)
{
  GstFvBasePrivate *priv = BPRIV (base);
  memset (spread, 0, sizeof *spread);
  *bad_ids = NULL;
  GST_OBJECT_LOCK (base);
  spread->max_device_bytes = priv->max_device_memory;
  spread->note = spread_note;
  spread->note_user = base;
  gchar *ids = g_strdup (priv->device_ids);
  GST_OBJECT_UNLOCK (base);
  if (!fv_device_is_cuda (&priv->dev)) {
    g_free (ids);
    return TRUE;
  }
  if (fv_device_list_parse (ids, priv->dev.stream_device, spread->devices,
          &spread->ndevices) != FV_OK) {
    *bad_ids = ids;
    return FALSE;
  }
  if (spread->ndevices > 1)
    GST_INFO_OBJECT (base, "frames spread over %d device entries (%s)", spread->ndevices, ids);
  g_free (ids);
  return TRUE;
}

/* One mapped frame through the subclass, with the context current.
 * GStreamer 1.22's CUDA memory carries no stream or event: a neighbour may
 * touch a CUDA frame as soon as we return (the producer reuses the input,
 * the consumer reads the output), so work on CUDA frames is finished here;
 * producers of 1.22 do the same before they push, which makes the input
 * safe to read on our stream. On 1.24+, when both sides are CUDA memories
 * that carry streams, those streams wait for ours on the GPU instead and
 * the element returns at once (fv_cuda_ctx_frame_ordered;
 * docs/gpu-pipelines.md). A host frame on either side is always waited
 * for: the host is reading or reusing it. */
static GstFlowReturn
run_frame (GstFvBase *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvBasePrivate *priv = BPRIV (self);
  GstFvBaseClass *klass = GST_FV_BASE_GET_CLASS (self);
  GstFlowReturn ret = GST_FLOW_ERROR;
  fv_device_push (&priv->dev);
  const gint64 t0 = g_get_monotonic_time ();
  GstBuffer *const outbuf = out ? out->buffer : NULL;
  const gboolean on_device = frames_on_device (self);
  const gboolean can_order = priv->in_mem->on_device && (!out || priv->out_mem->on_device)
      && fv_cuda_ctx_frame_can_order (in->buffer, outbuf);
  if (!klass->prepare || klass->prepare (self)) {
    /* the kernels leave their device work queued on our stream: it is
     * waited for once below, or ordered on the GPU (a frame's regions and
     * planes then cost no host round trip each) */
    if (can_order || (on_device && priv->dev.stream))
      fv_cuda_defer_begin (priv->dev.stream);
    ret = klass->frame (self, in, out);
    fv_cuda_defer_end ();
  }
  const gboolean ordered = ret == GST_FLOW_OK && can_order
      && fv_cuda_ctx_frame_ordered (in->buffer, outbuf, priv->dev.stream);
  /* also after a failure: work still queued must not outlive the frames */
  if (on_device && priv->dev.stream && !ordered
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

/* GstVideoFilter's entries: system frames, mapped by GstVideoFilter */
static GstFlowReturn
gst_fv_base_transform_frame (GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
  return run_frame (GST_FV_BASE (vf), in, out);
}

static GstFlowReturn
gst_fv_base_transform_frame_ip (GstVideoFilter *vf, GstVideoFrame *frame)
{
  return run_frame (GST_FV_BASE (vf), frame, NULL);
}

static GstFlowReturn
map_failed (GstFvBase *self, const gchar *which)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the %s frame.", which), (NULL));
  return GST_FLOW_ERROR;
}

/* Host frames on the CUDA path in ordinary memory because page-locked
 * memory ran out (fvpinnedallocator.c): they still work, said once. */
void
gst_fv_base_check_pinned (GstFvBase *self, GstBuffer *buf)
{
  GstFvBasePrivate *priv = BPRIV (self);
  const gchar *note = fv_pinned_fallback_note ();
  if (priv->out_mem->on_device || priv->warned_pinned || !note
      || !fv_device_is_cuda (&priv->dev) || !buf || gst_buffer_n_memory (buf) < 1
      || fv_memory_is_pinned (gst_buffer_peek_memory (buf, 0)))
    return;
  priv->warned_pinned = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
      ("Frames use ordinary host memory: the page-locked memory budget is exhausted."),
      ("%s", note));
}

/* CUDA frames are mapped for the device (GstVideoFilter would map them for
 * the CPU, a download); system frames the usual way. No extra reference:
 * vjdetect and autofill add metas, which needs a writable buffer. */
GstFlowReturn
gst_fv_base_map_pair (GstFvBase *self, GstBuffer *inbuf, GstBuffer *outbuf, GstVideoFrame *in,
    GstVideoFrame *out)
{
  GstFvBasePrivate *priv = BPRIV (self);
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
gst_fv_base_transform (GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstFvBase *self = GST_FV_BASE (trans);
  GstFvBasePrivate *priv = BPRIV (self);
  gst_fv_base_check_pinned (self, outbuf);
  if (!frames_on_device (self))
    return GST_BASE_TRANSFORM_CLASS (gst_fv_base_parent_class)->transform (trans, inbuf, outbuf);
  GstVideoFrame in, out;
  fv_device_push (&priv->dev);   /* the input may be waited for on our stream */
  GstFlowReturn ret = gst_fv_base_map_pair (self, inbuf, outbuf, &in, &out);
  if (ret == GST_FLOW_OK) {
    ret = run_frame (self, &in, &out);
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&in);
  }
  fv_device_pop (&priv->dev);
  return ret;
}

static GstFlowReturn
gst_fv_base_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstFvBase *self = GST_FV_BASE (trans);
  GstVideoFilter *vf = GST_VIDEO_FILTER (trans);
  GstVideoFrame frame;
  /* pixels mapped for writing only when they change: a decoder's frame
   * shared with its reference list, or a buffer a tee shares, is then not
   * copied */
  GstFvBaseClass *klass = GST_FV_BASE_GET_CLASS (self);
  const gboolean writes = !klass->writes_in_place || klass->writes_in_place (self);
  const GstMapFlags flags = (writes ? GST_MAP_READWRITE : GST_MAP_READ)
      | (GstMapFlags) GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  const gboolean on_device = BPRIV (self)->in_mem->on_device;
  const FvDevice *dev = &BPRIV (self)->dev;
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

/* Start resolves the backend: a missing GPU fails the state change, not
 * a frame. */
static gboolean
gst_fv_base_start (GstBaseTransform *trans)
{
  GstFvBasePrivate *priv = BPRIV (trans);
  priv->warned_caps = priv->warned_pinned = FALSE;
  GST_OBJECT_LOCK (trans);
  priv->device_changed = FALSE;
  GST_OBJECT_UNLOCK (trans);
  return gst_fv_base_resolve (GST_FV_BASE (trans));
}

static gboolean
gst_fv_base_stop (GstBaseTransform *trans)
{
  GstFvBase *self = GST_FV_BASE (trans);
  release (self);
  fv_device_stop (&BPRIV (self)->dev);
  return TRUE;
}

/* The pads' memory kinds; the layer above takes the plane layout. */
static gboolean
gst_fv_base_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstFvBase *self = GST_FV_BASE (vf);
  GstFvBasePrivate *priv = BPRIV (self);
  priv->in_mem = fv_memory_kind_info (fv_memory_kind_of_caps (incaps));
  priv->out_mem = fv_memory_kind_info (fv_memory_kind_of_caps (outcaps));
  /* GStreamer 1.22's CUDA allocator places the V plane of odd-height I420
   * half a row off (cudaupload ! cudadownload alone changes the frame):
   * our results follow the layout it describes, but say so */
  if (frames_on_device (self)
      && GST_VIDEO_INFO_FORMAT (in_info) == GST_VIDEO_FORMAT_I420
      && GST_VIDEO_INFO_HEIGHT (in_info) % 2)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("I420 of odd height (%d) in CUDA memory: "
            "GStreamer 1.22's CUDA memory misplaces its V plane; use NV12 or an even height.",
            GST_VIDEO_INFO_HEIGHT (in_info)), (NULL));
  GST_DEBUG_OBJECT (self, "%s to %s memory", priv->in_mem->name, priv->out_mem->name);
  gst_fv_base_mark_changed (self);
  return TRUE;
}

static void
gst_fv_base_finalize (GObject *object)
{
  GstFvBase *self = GST_FV_BASE (object);
  release (self);
  g_free (BPRIV (self)->device_ids);
  fv_device_stop (&BPRIV (self)->dev);
  G_OBJECT_CLASS (gst_fv_base_parent_class)->finalize (object);
}

/* The subclass's own class is known only here (during instance init the
 * instance still has its ancestors' classes). */
static void
gst_fv_base_constructed (GObject *object)
{
  G_OBJECT_CLASS (gst_fv_base_parent_class)->constructed (object);
  if (GST_FV_BASE_GET_CLASS (object)->in_place)
    gst_base_transform_set_in_place (GST_BASE_TRANSFORM (object), TRUE);
}

static void
gst_fv_base_class_init (GstFvBaseClass *klass)
{
  klass->has_cuda = TRUE;
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vf_class = GST_VIDEO_FILTER_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_fv_base_debug, "fvbase", 0,
      "fastvision base: device, memory kinds, CUDA ordering");
  gobject_class->finalize = gst_fv_base_finalize;
  gobject_class->constructed = gst_fv_base_constructed;
  gst_fv_base_install_properties (gobject_class);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_fv_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_fv_base_stop);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_fv_base_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_fv_base_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_fv_base_query);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_fv_base_transform_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_fv_base_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_fv_base_transform_ip);
  GST_ELEMENT_CLASS (klass)->set_context = GST_DEBUG_FUNCPTR (gst_fv_base_set_context);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_fv_base_set_info);
  vf_class->transform_frame = GST_DEBUG_FUNCPTR (gst_fv_base_transform_frame);
  vf_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_fv_base_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_FV_BASE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND_HYBRID, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_ACTIVE_BACKEND, 0);
}

static void
gst_fv_base_init (GstFvBase *self)
{
  GstFvBasePrivate *priv = BPRIV (self);
  priv->backend = GST_FV_BACKEND_AUTO;
  priv->device_id = -1;
  priv->in_mem = priv->out_mem = fv_memory_kind_info (FV_MEMORY_SYSTEM);
  priv->changed = TRUE;
  /* drop frames that would arrive late at a live sink */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
