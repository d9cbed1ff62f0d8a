/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
 * union-find; with backend=hybrid the CPU fills frame i+1 while the GPU
 * finishes frame i (one frame of latency). GRAY8, or the Y plane of I420,
 * NV12 and Y444 (chroma passed through).
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
#include "fv_config.h"

GST_DEBUG_CATEGORY_STATIC (gst_autofill_debug);
#define GST_CAT_DEFAULT gst_autofill_debug

enum {
  PROP_0,
  PROP_THRESHOLD,
  PROP_FILL_VALUE,
  PROP_CONNECTIVITY,
  PROP_OUTPUT,
  PROP_SEEDS,
};

/* the Y plane is filled; the chroma of YUV formats passes through */
#define FORMATS "{ GRAY8, I420, NV12, Y444 }"
#define CUDA_FORMATS "{ I420, NV12, Y444 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (FV_FILTER_CAPS (FORMATS, CUDA_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (FV_FILTER_CAPS (FORMATS, CUDA_FORMATS)));

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
G_DEFINE_TYPE (GstAutofill, gst_autofill, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (autofill, "autofill", GST_RANK_NONE, GST_TYPE_AUTOFILL);

/* backend=hybrid: waits for the GPU's frame and hands its buffer over. */
static GstBuffer *
finish_gpu_frame (GstAutofill *self, fv_status *st)
{
  if (!self->gpu_busy)
    return NULL;
  gst_fv_filter_context_push (GST_FV_FILTER (self));
  *st = fv_fill_wait (self->plan);
  gst_fv_filter_context_pop (GST_FV_FILTER (self));
  gst_video_frame_unmap (&self->gpu_in);
  gst_video_frame_unmap (&self->gpu_out);
  self->gpu_busy = FALSE;
  GstBuffer *out = self->gpu_outbuf;
  self->gpu_outbuf = NULL;
  return out;
}

static void
drop_pending (GstAutofill *self)
{
  fv_status st;
  GstBuffer *b = finish_gpu_frame (self, &st);
  gst_clear_buffer (&b);
  gst_clear_buffer (&self->cpu_outbuf);
}

static void
gst_autofill_release (GstFvFilter *filter)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  drop_pending (self);
  fv_fill_plan_destroy (self->plan);
  fv_fill_plan_destroy (self->cpu_plan);
  self->plan = self->cpu_plan = NULL;
}

static gboolean
gst_autofill_rebuild (GstFvFilter *filter)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  const FvDevice *dev = gst_fv_filter_device (filter);
  fv_fill_params p = { 0 };
  gst_autofill_release (filter);
  GST_OBJECT_LOCK (self);
  p.threshold = self->threshold;
  p.fill_value = self->fill_value;
  p.connectivity = self->connectivity;
  p.output = self->output;
  p.seeds = self->seeds;
  GST_OBJECT_UNLOCK (self);
  p.threads = gst_fv_filter_threads (filter);
  p.width = GST_VIDEO_INFO_WIDTH (&vf->in_info);
  p.height = GST_VIDEO_INFO_HEIGHT (&vf->in_info);
  if (!gst_fv_filter_spread (filter, &p.spread))
    return FALSE;
  fv_status st = fv_fill_plan_create (&self->plan, &p, dev->active, dev->stream_device,
      dev->stream);
  if (st == FV_OK && dev->hybrid)
    st = fv_fill_plan_create (&self->cpu_plan, &p, FV_BACKEND_CPU, 0, NULL);
  if (st != FV_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot set up the fill for %dx%d: %s.",
            p.width, p.height, fv_status_string (st)), ("%s", fv_last_error ()));
    return FALSE;
  }
  /* hybrid keeps one frame on the GPU while the CPU fills the next */
  gst_fv_filter_hold_frames (filter, dev->hybrid ? 1 : 0);
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  gst_fv_filter_settings_changed (GST_FV_FILTER (self));
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The plane filled: GRAY8's only plane, or the Y plane. */
static fv_image
gray_image (GstAutofill *self, GstVideoFrame *f)
{
  return fv_plane_image (gst_fv_filter_layout (GST_FV_FILTER (self)), f, 0);
}

/* Chroma passes through (on the device for CUDA frames). */
static gboolean
copy_chroma (GstAutofill *self, GstVideoFrame *out, GstVideoFrame *in)
{
  const FvPlaneLayout *layout = gst_fv_filter_layout (GST_FV_FILTER (self));
  for (gint p = 1; p < layout->n_planes; p++)
    if (!fv_plane_copy (layout, out, in, p, gst_fv_filter_device (GST_FV_FILTER (self))->stream))
      return FALSE;
  return TRUE;
}

static GstFlowReturn
fill_failed (GstAutofill *self, fv_status st)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Fill failed: %s.", fv_status_string (st)),
      ("%s", fv_last_error ()));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_autofill_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  fv_image src = gray_image (self, in), dst = gray_image (self, out);
  fv_status st = fv_fill_execute (self->plan, &src, &dst);
  if (st == FV_OK && !copy_chroma (self, out, in))
    st = FV_ERR_CUDA;
  return st == FV_OK ? GST_FLOW_OK : fill_failed (self, st);
}

/* backend=hybrid. Frames alternate: an even frame is queued on the GPU and
 * nothing is pushed; the odd frame after it is filled on the CPU while the
 * GPU works, then both are pushed in order (the base class calls us again
 * until we return no buffer). Other backends take the ordinary path. */
static GstFlowReturn
gst_autofill_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (parent_class);
  const FvDevice *dev = gst_fv_filter_device (GST_FV_FILTER (self));
  *outbuf = NULL;
  if (self->cpu_outbuf) {   /* the second of a pair */
    *outbuf = self->cpu_outbuf;
    self->cpu_outbuf = NULL;
    return GST_FLOW_OK;
  }
  if (!trans->queued_buf)
    return GST_FLOW_OK;
  /* the settings decide the path: bring the plans up to date first (not
   * while the GPU holds a frame: that pair finishes with the plans it has) */
  gst_fv_filter_sync_values (GST_FV_FILTER (self), trans->queued_buf);
  /* GPU work in the element's CUDA context; buffers (pinned host memory,
   * which must outlive that context) are allocated outside it */
  gst_fv_filter_context_push (GST_FV_FILTER (self));
  gboolean ready = self->gpu_busy || gst_fv_filter_prepare (GST_FV_FILTER (self));
  gst_fv_filter_context_pop (GST_FV_FILTER (self));
  if (!ready) {
    gst_clear_buffer (&trans->queued_buf);
    return GST_FLOW_ERROR;
  }
  if (!dev->hybrid && !self->gpu_busy)
    return parent->generate_output (trans, outbuf);

  GstBuffer *inbuf = trans->queued_buf, *out = NULL;
  trans->queued_buf = NULL;
  GstFlowReturn ret = parent->prepare_output_buffer (trans, inbuf, &out);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  GstVideoFrame fin, fout;
  if (!gst_video_frame_map (&fin, &vf->in_info, inbuf, GST_MAP_READ)) {
    gst_buffer_unref (inbuf);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the input frame."), (NULL));
    return GST_FLOW_ERROR;
  }
  gst_buffer_unref (inbuf);   /* the mapped frame holds it */
  if (!gst_video_frame_map (&fout, &vf->out_info, out, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&fin);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the output frame."), (NULL));
    return GST_FLOW_ERROR;
  }
  copy_chroma (self, &fout, &fin);   /* host frames here: a plain copy */
  fv_image src = gray_image (self, &fin), dst = gray_image (self, &fout);
  fv_status st;
  if (!self->gpu_busy) {
    gst_fv_filter_context_push (GST_FV_FILTER (self));
    st = fv_fill_execute_async (self->plan, &src, &dst);
    gst_fv_filter_context_pop (GST_FV_FILTER (self));
    self->gpu_in = fin;
    self->gpu_out = fout;
    self->gpu_outbuf = out;
    self->gpu_busy = TRUE;
    if (st != FV_OK) {
      drop_pending (self);
      return fill_failed (self, st);
    }
    return GST_FLOW_OK;
  }
  st = fv_fill_execute (self->cpu_plan, &src, &dst);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  fv_status gst_ = FV_OK;
  *outbuf = finish_gpu_frame (self, &gst_);
  self->cpu_outbuf = out;
  if (st == FV_OK)
    st = gst_;
  if (st != FV_OK) {
    gst_clear_buffer (outbuf);
    gst_clear_buffer (&self->cpu_outbuf);
    return fill_failed (self, st);
  }
  return GST_FLOW_OK;
}

/* EOS pushes the frame still on the GPU; a flush drops it. */
static gboolean
gst_autofill_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->gpu_busy) {
    fv_status st;
    GstBuffer *b = finish_gpu_frame (self, &st);
    if (st == FV_OK)
      gst_pad_push (trans->srcpad, b);
    else
      gst_buffer_unref (b);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    drop_pending (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
gst_autofill_class_init (GstAutofillClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_autofill_debug, "autofill", 0, "autofill");
  gobject_class->set_property = gst_autofill_set_property;
  gobject_class->get_property = gst_autofill_get_property;

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

  gst_element_class_set_static_metadata (element_class, "Seedless contour fill",
      "Filter/Effect/Video",
      "Fills closed contours with no seed: everything that cannot reach the frame border "
      "through background is filled (parallel reverse fill with union-find on the CPU, "
      "tiled union-find labelling on an NVIDIA GPU)", FV_AUTHOR);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  GST_BASE_TRANSFORM_CLASS (klass)->generate_output =
      GST_DEBUG_FUNCPTR (gst_autofill_generate_output);
  GST_BASE_TRANSFORM_CLASS (klass)->sink_event = GST_DEBUG_FUNCPTR (gst_autofill_sink_event);
  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_autofill_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_autofill_release);
  fv_class->process = GST_DEBUG_FUNCPTR (gst_autofill_process);

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
}
