/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstfvfilter.h"
#include "fvmeta.h"
#include "fvpinnedallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_fv_filter_debug);
#define GST_CAT_DEFAULT gst_fv_filter_debug

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_ACTIVE_BACKEND,
  PROP_DEVICE_ID,
  PROP_THREADS,
};

typedef struct {
  /* properties, under the object lock */
  GstFvBackend backend;
  gint device_id;
  guint threads;
  gboolean changed;          /* any setting or the format: rebuild the plans */
  gboolean device_changed;   /* backend or device-id: choose the backend again */
  /* streaming */
  FvDevice dev;
  FvLatency latency;
  FvPlaneLayout layout;
  gboolean ready;
  gboolean warned_caps;
} GstFvFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstFvFilter, gst_fv_filter, GST_TYPE_VIDEO_FILTER);
#define PRIV(f) ((GstFvFilterPrivate *) gst_fv_filter_get_instance_private (f))

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

/* Resolves the backend; plans tied to an old stream are released. */
static gboolean
resolve (GstFvFilter *self)
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
  gboolean stream_changed;
  if (!fv_device_resolve (&priv->dev, GST_ELEMENT (self), backend, device, &stream_changed))
    return FALSE;
  if (stream_changed)
    GST_FV_FILTER_GET_CLASS (self)->release (self);
  return TRUE;
}

static void
gst_fv_filter_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (object));
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      priv->device_changed = TRUE;
      break;
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      priv->device_changed = TRUE;
      break;
    case PROP_THREADS: priv->threads = g_value_get_uint (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (object);
      return;
  }
  priv->changed = TRUE;
  GST_OBJECT_UNLOCK (object);
}

static void
gst_fv_filter_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (object));
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND: g_value_set_enum (value, priv->backend); break;
    case PROP_ACTIVE_BACKEND: g_value_set_enum (value, fv_device_active_backend (&priv->dev)); break;
    case PROP_DEVICE_ID: g_value_set_int (value, priv->device_id); break;
    case PROP_THREADS: g_value_set_uint (value, priv->threads); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static gboolean
gst_fv_filter_start (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  PRIV (self)->ready = FALSE;
  PRIV (self)->warned_caps = FALSE;
  fv_latency_reset (GST_ELEMENT (self), &PRIV (self)->latency);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  if (klass->validate && !klass->validate (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  PRIV (self)->device_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  return resolve (self);   /* a missing GPU fails the state change, not a frame */
}

static gboolean
gst_fv_filter_stop (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GST_FV_FILTER_GET_CLASS (self)->release (self);
  fv_device_stop (&PRIV (self)->dev);
  PRIV (self)->ready = FALSE;
  return TRUE;
}

static gboolean
gst_fv_filter_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstFvFilter *self = GST_FV_FILTER (vf);
  if (!fv_plane_layout_from_info (in_info, &PRIV (self)->layout)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported video format %s.",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info))), (NULL));
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "format %s %dx%d, %d planes",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      PRIV (self)->layout.n_planes);
  gst_fv_filter_settings_changed (self);   /* plans for the new format */
  return TRUE;
}

const FvPlaneLayout *
gst_fv_filter_layout (GstFvFilter *filter)
{
  return &PRIV (filter)->layout;
}

void
gst_fv_filter_sync_values (GstFvFilter *filter, GstBuffer *buf)
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
  gst_fv_filter_sync_values (GST_FV_FILTER (trans), buf);
}

gboolean
gst_fv_filter_prepare (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  gboolean changed = priv->changed, device_changed = priv->device_changed;
  priv->changed = priv->device_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (changed || device_changed || !priv->ready) {
    /* between frames, on the streaming thread: never mid-frame; the backend
     * is chosen again only when it or the device changed (start chose it) */
    priv->ready = FALSE;
    if ((device_changed && !resolve (self)) || !GST_FV_FILTER_GET_CLASS (self)->rebuild (self))
      return FALSE;
    priv->ready = TRUE;
  }
  return TRUE;
}

void
gst_fv_filter_hold_frames (GstFvFilter *self, guint frames)
{
  fv_latency_hold (GST_ELEMENT (self), &PRIV (self)->latency, frames);
}

static GstFlowReturn
gst_fv_filter_transform_frame (GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilter *self = GST_FV_FILTER (vf);
  if (!gst_fv_filter_prepare (self))
    return GST_FLOW_ERROR;
  return GST_FV_FILTER_GET_CLASS (self)->process (self, in, out);
}

static GstFlowReturn
gst_fv_filter_transform_frame_ip (GstVideoFilter *vf, GstVideoFrame *frame)
{
  GstFvFilter *self = GST_FV_FILTER (vf);
  if (!gst_fv_filter_prepare (self))
    return GST_FLOW_ERROR;
  return GST_FV_FILTER_GET_CLASS (self)->process_ip (self, frame);
}

static gboolean
gst_fv_filter_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  if (!fv_device_is_cuda (&PRIV (GST_FV_FILTER (trans))->dev))
    return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->propose_allocation (trans,
        decide_query, query);
  GST_DEBUG_OBJECT (trans, "proposing a pool of pinned host memory");
  fv_pinned_propose_allocation (query);
  return TRUE;
}

static gboolean
gst_fv_filter_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  if (fv_device_is_cuda (&PRIV (GST_FV_FILTER (trans))->dev))
    fv_pinned_decide_allocation (query);
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->decide_allocation (trans, query);
}

/* Refused caps: tell the user what the element takes, once, rather than
 * leave them with a bare not-negotiated from upstream. */
static void
warn_refused_caps (GstFvFilter *self, GstCaps *offered)
{
  GstFvFilterPrivate *priv = PRIV (self);
  if (priv->warned_caps || !offered || gst_caps_is_empty (offered) || gst_caps_is_any (offered))
    return;
  priv->warned_caps = TRUE;
  GstCaps *ours = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  GString *formats = g_string_new (NULL);
  const GValue *list = gst_structure_get_value (gst_caps_get_structure (ours, 0), "format");
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

static gboolean
gst_fv_filter_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->query (trans,
      direction, query);
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps;
    gboolean ok;
    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &ok);
    if (!ok && caps && gst_caps_is_fixed (caps))
      warn_refused_caps (GST_FV_FILTER (trans), caps);
  }
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (trans), &PRIV (GST_FV_FILTER (trans))->latency,
        &GST_VIDEO_FILTER (trans)->in_info, query);
  return ret;
}

static gboolean
gst_fv_filter_transform_meta (GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
    GstBuffer *inbuf)
{
  return fv_meta_survives_filter (meta);
}

static void
gst_fv_filter_finalize (GObject *object)
{
  GstFvFilter *self = GST_FV_FILTER (object);
  GST_FV_FILTER_GET_CLASS (self)->release (self);
  fv_device_release (&PRIV (self)->dev);
  G_OBJECT_CLASS (gst_fv_filter_parent_class)->finalize (object);
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

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto picks CUDA when a usable GPU is present",
          GST_TYPE_FV_BACKEND, GST_FV_BACKEND_AUTO, rw));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "The backend in use (auto until the element starts)",
          GST_TYPE_FV_BACKEND, GST_FV_BACKEND_AUTO,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID", "CUDA device to use", 0, G_MAXINT, 0, rw));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads", "CPU threads (0 = all cores)", 0, 1024, 0, rw));

  trans_class->start = GST_DEBUG_FUNCPTR (gst_fv_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_fv_filter_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_fv_filter_before_transform);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_fv_filter_query);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_meta);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_fv_filter_set_info);
  vf_class->transform_frame = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame);
  vf_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_FV_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND, 0);
}

static void
gst_fv_filter_init (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  priv->backend = GST_FV_BACKEND_AUTO;
  priv->changed = TRUE;
  /* drop frames that would arrive late at a live sink */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
