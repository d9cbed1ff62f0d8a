/**
 * SECTION:element-autofill
 * @title: autofill
 *
 * Fills closed contours with no seed from the user: every pixel that cannot
 * reach the frame border through background pixels is filled (fill from
 * the border, invert), as scipy.ndimage.binary_fill_holes does. Contour
 * pixels are those brighter than `threshold`. On the CPU the reverse fill
 * runs in parallel from border and random interior seeds merged by
 * union-find; on an NVIDIA GPU the background is labelled by tiled
 * union-find. GRAY8 in and out.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=GRAY8 ! \
 *     satfilter mode=threshold radius=15 ! autofill ! videoconvert ! autovideosink
 * ]| Filled silhouettes of the parts a camera sees.
 * |[
 * gst-launch-1.0 filesrc location=shapes.png ! pngdec ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! autofill output=holes ! videoconvert ! pngenc ! \
 *     filesink location=holes.png
 * ]| Only the enclosed background.
 */
#include <string.h>
#include "gstautofill.h"
#include "fvmeta.h"
#include "fvpinnedallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_autofill_debug);
#define GST_CAT_DEFAULT gst_autofill_debug

enum {
  PROP_0,
  PROP_THRESHOLD,
  PROP_FILL_VALUE,
  PROP_CONNECTIVITY,
  PROP_OUTPUT,
  PROP_SEEDS,
  PROP_THREADS,
  PROP_BACKEND,
  PROP_ACTIVE_BACKEND,
  PROP_DEVICE_ID,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

#define GST_TYPE_AUTOFILL_CONNECTIVITY (gst_autofill_connectivity_get_type ())
static GType
gst_autofill_connectivity_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {4, "Background connects through edges only: diagonal gaps hold", "4"},
    {8, "Background connects through corners too: diagonal gaps leak", "8"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAutofillConnectivity", values));
  return type;
}

#define GST_TYPE_AUTOFILL_OUTPUT (gst_autofill_output_get_type ())
static GType
gst_autofill_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_FILL_FILLED, "Contours and everything they enclose", "filled"},
    {FV_FILL_HOLES, "Only the enclosed background", "holes"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAutofillOutput", values));
  return type;
}

#define gst_autofill_parent_class parent_class
G_DEFINE_TYPE (GstAutofill, gst_autofill, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (autofill, "autofill", GST_RANK_NONE, GST_TYPE_AUTOFILL);

static gboolean
build_plan (GstAutofill *self)
{
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  fv_fill_params p = { 0 };
  GST_OBJECT_LOCK (self);
  p.threshold = self->threshold;
  p.fill_value = self->fill_value;
  p.connectivity = self->connectivity;
  p.output = self->output;
  p.seeds = self->seeds;
  p.threads = self->threads;
  GstFvBackend backend = self->backend;
  gint device = self->device_id;
  self->settings_changed = FALSE;
  GST_OBJECT_UNLOCK (self);

  fv_fill_plan_destroy (self->plan);
  self->plan = NULL;
  gboolean stream_changed;
  if (!fv_device_resolve (&self->dev, GST_ELEMENT (self), backend, device, &stream_changed))
    return FALSE;
  if (!vf->negotiated)
    return TRUE;
  p.width = GST_VIDEO_INFO_WIDTH (&vf->in_info);
  p.height = GST_VIDEO_INFO_HEIGHT (&vf->in_info);
  fv_status st = fv_fill_plan_create (&self->plan, &p, self->dev.active,
      self->dev.stream_device, self->dev.stream);
  if (st != FV_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot set up the fill for %dx%d: %s.",
            p.width, p.height, fv_status_string (st)), ("%s", fv_last_error ()));
    return FALSE;
  }
  return TRUE;
}

static void
gst_autofill_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstAutofill *self = GST_AUTOFILL (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD: self->threshold = g_value_get_uint (value); break;
    case PROP_FILL_VALUE: self->fill_value = g_value_get_uint (value); break;
    case PROP_CONNECTIVITY: self->connectivity = g_value_get_enum (value); break;
    case PROP_OUTPUT: self->output = g_value_get_enum (value); break;
    case PROP_SEEDS: self->seeds = g_value_get_uint (value); break;
    case PROP_THREADS: self->threads = g_value_get_uint (value); break;
    case PROP_BACKEND: self->backend = g_value_get_enum (value); break;
    case PROP_DEVICE_ID: self->device_id = g_value_get_int (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  self->settings_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_autofill_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAutofill *self = GST_AUTOFILL (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD: g_value_set_uint (value, self->threshold); break;
    case PROP_FILL_VALUE: g_value_set_uint (value, self->fill_value); break;
    case PROP_CONNECTIVITY: g_value_set_enum (value, self->connectivity); break;
    case PROP_OUTPUT: g_value_set_enum (value, self->output); break;
    case PROP_SEEDS: g_value_set_uint (value, self->seeds); break;
    case PROP_THREADS: g_value_set_uint (value, self->threads); break;
    case PROP_BACKEND: g_value_set_enum (value, self->backend); break;
    case PROP_ACTIVE_BACKEND: g_value_set_enum (value, fv_device_active_backend (&self->dev)); break;
    case PROP_DEVICE_ID: g_value_set_int (value, self->device_id); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_autofill_start (GstBaseTransform *trans)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  fv_latency_reset (GST_ELEMENT (self), &self->latency);
  return build_plan (self);   /* fails the state change if backend=cuda has no GPU */
}

static gboolean
gst_autofill_stop (GstBaseTransform *trans)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  fv_fill_plan_destroy (self->plan);
  self->plan = NULL;
  fv_device_release (&self->dev);
  return TRUE;
}

static gboolean
gst_autofill_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstAutofill *self = GST_AUTOFILL (vf);
  GST_OBJECT_LOCK (self);
  self->settings_changed = TRUE;   /* a plan for the new size at the next frame */
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_autofill_before_transform (GstBaseTransform *trans, GstBuffer *buf)
{
  GstClockTime ts = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buf));
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (trans), ts);
}

static GstFlowReturn
gst_autofill_transform_frame (GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAutofill *self = GST_AUTOFILL (vf);
  gint64 t0 = g_get_monotonic_time ();
  GST_OBJECT_LOCK (self);
  gboolean changed = self->settings_changed;
  GST_OBJECT_UNLOCK (self);
  if ((changed || !self->plan) && !build_plan (self))
    return GST_FLOW_ERROR;
  fv_image src = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (in, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (in, 0), GST_VIDEO_FRAME_WIDTH (in),
      GST_VIDEO_FRAME_HEIGHT (in), 1, FV_U8, FV_MEM_HOST);
  fv_image dst = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (out, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), GST_VIDEO_FRAME_WIDTH (out),
      GST_VIDEO_FRAME_HEIGHT (out), 1, FV_U8, FV_MEM_HOST);
  fv_status st = fv_fill_execute (self->plan, &src, &dst);
  if (st != FV_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Fill failed: %s.", fv_status_string (st)),
        ("%s", fv_last_error ()));
    return GST_FLOW_ERROR;
  }
  fv_latency_account (GST_ELEMENT (self), &self->latency,
      (g_get_monotonic_time () - t0) * GST_USECOND);
  return GST_FLOW_OK;
}

static gboolean
gst_autofill_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  if (!fv_device_is_cuda (&self->dev))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);
  fv_pinned_propose_allocation (query);
  return TRUE;
}

static gboolean
gst_autofill_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  if (fv_device_is_cuda (&self->dev))
    fv_pinned_decide_allocation (query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans, query);
}

static gboolean
gst_autofill_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (trans), &GST_AUTOFILL (trans)->latency, query);
  return ret;
}

static gboolean
gst_autofill_transform_meta (GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
    GstBuffer *inbuf)
{
  return fv_meta_survives_filter (meta);
}

static void
gst_autofill_finalize (GObject *object)
{
  GstAutofill *self = GST_AUTOFILL (object);
  fv_fill_plan_destroy (self->plan);
  fv_device_release (&self->dev);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_autofill_class_init (GstAutofillClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vf_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_autofill_debug, "autofill", 0, "autofill");
  gobject_class->set_property = gst_autofill_set_property;
  gobject_class->get_property = gst_autofill_get_property;
  gobject_class->finalize = gst_autofill_finalize;

  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Threshold", "Pixels above this value are contour",
          0, 254, 127, rw));
  g_object_class_install_property (gobject_class, PROP_FILL_VALUE,
      g_param_spec_uint ("fill-value", "Fill value", "Value written on filled pixels "
          "(everything else becomes 0)", 0, 255, 255, rw));
  g_object_class_install_property (gobject_class, PROP_CONNECTIVITY,
      g_param_spec_enum ("connectivity", "Connectivity",
          "How background pixels connect: 4 (edges) or 8 (edges and corners)",
          GST_TYPE_AUTOFILL_CONNECTIVITY, 4, rw));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What is written as fill-value",
          GST_TYPE_AUTOFILL_OUTPUT, FV_FILL_FILLED, rw));
  g_object_class_install_property (gobject_class, PROP_SEEDS,
      g_param_spec_uint ("seeds", "Seeds", "CPU: random interior seeds, one per row at most "
          "(0 = chosen from the frame size and the cores)", 0, 1 << 20, 0, rw));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads", "CPU threads (0 = all cores)", 0, 1024, 0, rw));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto picks CUDA when a usable GPU is present",
          GST_TYPE_FV_BACKEND, GST_FV_BACKEND_AUTO, rw));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "The backend in use (auto until the element starts)", GST_TYPE_FV_BACKEND,
          GST_FV_BACKEND_AUTO, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID", "CUDA device to use", 0, G_MAXINT, 0, rw));

  gst_element_class_set_static_metadata (element_class, "Seedless contour fill",
      "Filter/Effect/Video",
      "Fills closed contours with no seed: everything that cannot reach the frame border "
      "through background is filled (parallel reverse fill with union-find on the CPU, "
      "tiled union-find labelling on an NVIDIA GPU)", "fastvision developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_autofill_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_autofill_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_autofill_before_transform);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_autofill_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_autofill_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_autofill_query);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_autofill_transform_meta);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_autofill_set_info);
  vf_class->transform_frame = GST_DEBUG_FUNCPTR (gst_autofill_transform_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_AUTOFILL_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AUTOFILL_OUTPUT, 0);
}

static void
gst_autofill_init (GstAutofill *self)
{
  self->threshold = 127;
  self->fill_value = 255;
  self->connectivity = 4;
  self->output = FV_FILL_FILLED;
  self->backend = GST_FV_BACKEND_AUTO;
  self->settings_changed = TRUE;
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
