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
 * With `measure` the element also measures what it filled: `holes` (each
 * connected piece of enclosed background, in the background's
 * `connectivity`: a washer has one, a solid part none), `parts` (each
 * connected piece of the filled output, contour and what it encloses, in
 * the other connectivity) or `both`. Every region gets its box, area,
 * centroid, Crofton perimeter, equivalent diameter, circularity and
 * equivalent ellipse (major, minor, orientation), lengths and areas also in
 * `unit` through `scale`; parts keep an id from frame to frame while they
 * move (a belt), count their holes, and holes name their part. Each frame
 * gets one region-of-interest meta per region of at least `min-area` pixels
 * (types `part-roi-type` and `roi-type`; the features as params; a hole's
 * parent is its part), at most `max-regions` of each kind in raster order of
 * their first pixel, OD Mtds on 1.24+, a frame meta with the counts
 * (metapublish's "measure"), and with `post-messages` one element message
 * named `autofill` with the counts and the lists; `draw=true` draws the parts
 * (box and id) and holes on the output. The CPU measures the runs its fill
 * labelled; the GPU labels and sums on the device and copies back only the
 * table of regions; both give the same integers, hence the same features.
 * Spread over several `cuda-device-ids`, or in chunks beyond one GPU's
 * `max-device-memory`, each chunk is measured on its GPU and the regions
 * are joined across the seams: the same integers as one GPU's.
 * docs/autofill.md has the definitions.
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
 * |[
 * gst-launch-1.0 -m filesrc location=shapes.png ! pngdec ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! autofill measure=both min-area=20 ! fakesink
 * ]| Each part and its holes, counted and measured on the bus.
 * |[
 * gst-launch-1.0 filesrc location=parts.webm ! decodebin ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! satfilter mode=threshold radius=15 sensitivity=0.15 ! \
 *     autofill measure=both min-area=20 scale=0.1 unit=mm draw=true ! \
 *     metapublish location=parts.jsonl ! videoconvert ! autovideosink
 * ]| An inspection line: parts with their ids drawn, measurements in mm to a file.
 */
#include <string.h>
#include "gstautofill.h"
#include "gstautofill-private.h"
#include "fv_memory.h"
#include "fv_config.h"
#include "fvmeta.h"
#include "fvdraw.h"
#include "fv_match.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY (gst_auto_fill_debug);
#define GST_CAT_DEFAULT gst_auto_fill_debug

enum {
  PROP_0,
  PROP_THRESHOLD,
  PROP_FILL_VALUE,
  PROP_CONNECTIVITY,
  PROP_OUTPUT,
  PROP_SEEDS,
  PROP_MEASURE,
  PROP_ROI_TYPE,
  PROP_PART_ROI_TYPE,
  PROP_MIN_AREA,
  PROP_MAX_REGIONS,
  PROP_POST_MESSAGES,
  PROP_SCALE,
  PROP_UNIT,
  PROP_DRAW,
};

/* the Y plane is filled; the chroma of YUV formats passes through */
#define FORMATS "{ GRAY8, I420, NV12, Y444 }"
#define CUDA_FORMATS "{ I420, NV12, Y444 }"


#define GST_TYPE_AUTO_FILL_CONNECTIVITY (gst_auto_fill_connectivity_get_type ())
static GType
gst_auto_fill_connectivity_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {4, "Background connects through edges only: diagonal gaps hold", "4"},
    {8, "Background connects through corners too: diagonal gaps leak", "8"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAutoFillConnectivity", values));
  return type;
}

#define GST_TYPE_AUTO_FILL_OUTPUT (gst_auto_fill_output_get_type ())
static GType
gst_auto_fill_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_FILL_FILLED, "Contours and everything they enclose", "filled"},
    {FV_FILL_HOLES, "Only the enclosed background", "holes"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAutoFillOutput", values));
  return type;
}

#define GST_TYPE_AUTO_FILL_MEASURE (gst_auto_fill_measure_get_type ())
static GType
gst_auto_fill_measure_get_type (void)
{
  static GType type = 0;
  /* "false" and "true" are the values of the boolean measure of earlier
   * releases, kept for their launch lines and g_object_set calls */
  static const GEnumValue values[] = {
    {FV_FILL_MEASURE_NONE, "Nothing measured (no cost)", "none"},
    {FV_FILL_MEASURE_HOLES, "The holes: enclosed background", "holes"},
    {FV_FILL_MEASURE_PARTS, "The parts: contours and what they enclose", "parts"},
    {FV_FILL_MEASURE_BOTH, "Parts and their holes", "both"},
    {FV_FILL_MEASURE_NONE, "As none (earlier releases' measure=false)", "false"},
    {FV_FILL_MEASURE_HOLES, "As holes (earlier releases' measure=true)", "true"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstAutoFillMeasure", values));
  return type;
}

static void gst_auto_fill_finalize (GObject *object);
static gboolean gst_auto_fill_sink_event (GstBaseTransform *trans, GstEvent *event);

#define gst_auto_fill_parent_class parent_class
G_DEFINE_TYPE (GstAutoFill, gst_auto_fill, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (autofill, "autofill", GST_RANK_NONE, GST_TYPE_AUTO_FILL);

static void
gst_auto_fill_release (GstFvFilter *filter)
{
  GstAutoFill *self = GST_AUTO_FILL (filter);
  fv_fill_plan_destroy (self->plan);
  fv_fill_plan_destroy (self->cpu_plan);
  self->plan = self->cpu_plan = NULL;
}

static gboolean
gst_auto_fill_rebuild (GstFvFilter *filter, const GstFvRebuild *r)
{
  GstAutoFill *self = GST_AUTO_FILL (filter);
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  const FvDevice *dev = r->dev;
  fv_fill_params p = { 0 };
  GST_OBJECT_LOCK (self);
  p.threshold = self->threshold;
  p.fill_value = self->fill_value;
  p.connectivity = self->connectivity;
  p.output = self->output;
  p.seeds = self->seeds;
  p.measure = self->measure;
  GST_OBJECT_UNLOCK (self);
  p.frame.threads = r->threads;
  p.frame.width = GST_VIDEO_INFO_WIDTH (&vf->in_info);
  p.frame.height = GST_VIDEO_INFO_HEIGHT (&vf->in_info);
  p.frame.spread = r->spread;
  if (!gst_fv_filter_check_memory (filter, fv_fill_plan_bytes (&p, dev->active)
          + (dev->hybrid ? fv_fill_plan_bytes (&p, FV_BACKEND_CPU) : 0), 0))
    return FALSE;
  /* made beside the plans in use, which go only once these are made */
  fv_fill_plan *plan = NULL, *cpu_plan = NULL;
  fv_status st = fv_fill_plan_create (&plan, &p, dev->active, dev->stream_device, dev->stream);
  if (st == FV_OK && dev->hybrid)
    st = fv_fill_plan_create (&cpu_plan, &p, FV_BACKEND_CPU, 0, NULL);
  if (st != FV_OK) {
    gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        fv_last_error (), "Cannot set up the fill for %dx%d: %s.", p.frame.width, p.frame.height,
        gst_fv_filter_why (st));
    fv_fill_plan_destroy (plan);
    fv_fill_plan_destroy (cpu_plan);
    return FALSE;
  }
  gst_auto_fill_release (filter);   /* nothing runs on them: the base class saw to it */
  self->plan = plan;
  self->cpu_plan = cpu_plan;
  self->plan_measures = p.measure;
  if (self->matcher)   /* a new size: parts seen before are not on it */
    fv_matcher_reset (self->matcher);
  GST_INFO_OBJECT (self, "threshold %u, %d-connected background, output %s, %s", p.threshold,
      p.connectivity, p.output == FV_FILL_HOLES ? "holes" : "filled",
      p.measure == FV_FILL_MEASURE_BOTH ? "measuring parts and holes"
      : p.measure == FV_FILL_MEASURE_PARTS ? "measuring parts"
      : p.measure ? "measuring holes" : "not measuring");
  return TRUE;
}

static void
gst_auto_fill_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstAutoFill *self = GST_AUTO_FILL (object);
  gboolean replan = TRUE;   /* what the plan does; the rest is read per frame */
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD: self->threshold = g_value_get_uint (value); break;
    case PROP_FILL_VALUE: self->fill_value = g_value_get_uint (value); break;
    case PROP_CONNECTIVITY: self->connectivity = g_value_get_enum (value); break;
    case PROP_OUTPUT: self->output = g_value_get_enum (value); break;
    case PROP_SEEDS: self->seeds = g_value_get_uint (value); break;
    case PROP_MEASURE: self->measure = g_value_get_enum (value); break;
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = gst_fv_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_PART_ROI_TYPE:
      g_free (self->part_roi_type);
      self->part_roi_type = gst_fv_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_UNIT:
      g_free (self->unit);
      self->unit = gst_fv_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_SCALE: self->scale = g_value_get_double (value); replan = FALSE; break;
    case PROP_DRAW: self->draw = g_value_get_boolean (value); replan = FALSE; break;
    case PROP_MIN_AREA: self->min_area = g_value_get_uint64 (value); replan = FALSE; break;
    case PROP_MAX_REGIONS: self->max_regions = g_value_get_uint (value); replan = FALSE; break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      replan = FALSE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  if (replan)
    gst_fv_base_mark_changed (GST_FV_BASE (self));
}

static void
gst_auto_fill_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstAutoFill *self = GST_AUTO_FILL (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD: g_value_set_uint (value, self->threshold); break;
    case PROP_FILL_VALUE: g_value_set_uint (value, self->fill_value); break;
    case PROP_CONNECTIVITY: g_value_set_enum (value, self->connectivity); break;
    case PROP_OUTPUT: g_value_set_enum (value, self->output); break;
    case PROP_SEEDS: g_value_set_uint (value, self->seeds); break;
    case PROP_MEASURE: g_value_set_enum (value, self->measure); break;
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
      break;
    case PROP_PART_ROI_TYPE:
      g_value_set_string (value, self->part_roi_type ? self->part_roi_type
          : DEFAULT_PART_ROI_TYPE);
      break;
    case PROP_UNIT: g_value_set_string (value, self->unit ? self->unit : DEFAULT_UNIT); break;
    case PROP_SCALE: g_value_set_double (value, self->scale); break;
    case PROP_DRAW: g_value_set_boolean (value, self->draw); break;
    case PROP_MIN_AREA: g_value_set_uint64 (value, self->min_area); break;
    case PROP_MAX_REGIONS: g_value_set_uint (value, self->max_regions); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The plane filled: GRAY8's only plane, or the Y plane. */
static fv_image
gray_image (GstAutoFill *self, GstVideoFrame *f)
{
  return fv_plane_image (gst_fv_filter_layout (GST_FV_FILTER (self)), f, 0);
}

static GstFlowReturn
fill_failed (GstAutoFill *self, fv_status st)
{
  return gst_fv_filter_frame_failed (GST_FV_FILTER (self), st, "Fill failed");
}

static GstFlowReturn
gst_auto_fill_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAutoFill *self = GST_AUTO_FILL (filter);
  fv_image src = gray_image (self, in), dst = gray_image (self, out);
  fv_status st = fv_fill_execute (self->plan, &src, &dst);
  if (st == FV_OK)
    st = gst_auto_fill_report (self, self->plan, out);
  return st == FV_OK ? GST_FLOW_OK : fill_failed (self, st);
}

/* backend=hybrid: two frames in flight. The GPU takes a frame whenever it
 * is free and returns at once; the frame after it is filled on the CPU
 * meanwhile; each finishes in order (the base class's submit and finish). */
static guint
gst_auto_fill_frames_in_flight (GstFvFilter *filter)
{
  return GST_AUTO_FILL (filter)->cpu_plan ? 2 : 1;
}

static GstFlowReturn
gst_auto_fill_submit (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out, gpointer *job)
{
  GstAutoFill *self = GST_AUTO_FILL (filter);
  fv_image src = gray_image (self, in), dst = gray_image (self, out);
  fv_status st;
  if (!self->gpu_busy) {
    *job = self->plan;
    st = fv_fill_execute_async (self->plan, &src, &dst);
    if (st == FV_OK)
      self->gpu_busy = TRUE;
    else
      fv_fill_wait (self->plan);   /* nothing left running on the frame */
  } else {
    *job = self->cpu_plan;
    st = fv_fill_execute (self->cpu_plan, &src, &dst);
  }
  return st == FV_OK ? GST_FLOW_OK : fill_failed (self, st);
}

static GstFlowReturn
gst_auto_fill_finish (GstFvFilter *filter, GstVideoFrame *out, gpointer job, gboolean drop)
{
  GstAutoFill *self = GST_AUTO_FILL (filter);
  fv_status st = FV_OK;
  if (job == self->plan) {
    st = fv_fill_wait (self->plan);
    self->gpu_busy = FALSE;
  }
  if (st == FV_OK && !drop)
    st = gst_auto_fill_report (self, job, out);
  return st == FV_OK || drop ? GST_FLOW_OK : fill_failed (self, st);
}

static void
gst_auto_fill_class_init (GstAutoFillClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_auto_fill_debug, "autofill", 0, "autofill");
  GST_FV_BASE_CLASS (klass)->debug = gst_auto_fill_debug;
  gobject_class->set_property = gst_auto_fill_set_property;
  gobject_class->get_property = gst_auto_fill_get_property;
  gobject_class->finalize = gst_auto_fill_finalize;

  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Threshold", "Pixels above this value are contour",
          0, 254, 127, rw));
  g_object_class_install_property (gobject_class, PROP_FILL_VALUE,
      g_param_spec_uint ("fill-value", "Fill value", "Value written on filled pixels "
          "(everything else becomes 0)", 0, 255, 255, rw));
  g_object_class_install_property (gobject_class, PROP_CONNECTIVITY,
      g_param_spec_enum ("connectivity", "Connectivity",
          "How background pixels connect: 4 (edges) or 8 (edges and corners)",
          GST_TYPE_AUTO_FILL_CONNECTIVITY, 4, rw));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What is written as fill-value",
          GST_TYPE_AUTO_FILL_OUTPUT, FV_FILL_FILLED, rw));
  g_object_class_install_property (gobject_class, PROP_SEEDS,
      g_param_spec_uint ("seeds", "Seeds", "CPU: random interior seeds, one per row at most "
          "(0 = chosen from the frame size and the cores)", 0, 1 << 20, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MEASURE,
      g_param_spec_enum ("measure", "Measure", "Measure what was filled in every frame: "
          "holes (enclosed background), parts (contours and what they enclose) or both; a "
          "region-of-interest meta each, a frame meta and an \"autofill\" message (no cost "
          "when none)", GST_TYPE_AUTO_FILL_MEASURE, FV_FILL_MEASURE_NONE, rw));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Type of the region-of-interest metas added for measured holes", DEFAULT_ROI_TYPE,
          FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_PART_ROI_TYPE,
      g_param_spec_string ("part-roi-type", "Part ROI type",
          "Type of the region-of-interest metas added for measured parts",
          DEFAULT_PART_ROI_TYPE, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale", "Units a pixel: lengths are multiplied by it, "
          "areas by its square, in the \"unit-\" fields, perimeter, equivalent-diameter, major "
          "and minor (boxes, centroids and pixel areas stay in pixels)", MIN_SCALE, MAX_SCALE,
          1.0, rw));
  g_object_class_install_property (gobject_class, PROP_UNIT,
      g_param_spec_string ("unit", "Unit", "Name of the unit of length `scale` gives (mm, "
          "um...), written beside the measurements", DEFAULT_UNIT, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw", "With measure: draw each listed part's box and id "
          "and each listed hole's box on the output (green and red, mid-grey on GRAY8)",
          FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_AREA,
      g_param_spec_uint64 ("min-area", "Minimum area", "Measured regions of fewer pixels are "
          "ignored (specks): no meta, not counted", 0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_REGIONS,
      g_param_spec_uint ("max-regions", "Maximum regions", "At most this many regions a frame "
          "get metas and are listed (the first in raster order); the rest are counted as "
          "unlisted", 0, G_MAXINT, DEFAULT_MAX_REGIONS, rw));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages", "With measure: post an "
          "\"autofill\" element message with the regions for every frame", TRUE, rw));

  gst_element_class_set_static_metadata (element_class, "Seedless contour fill",
      "Filter/Effect/Video",
      "Fills closed contours with no seed: everything that cannot reach the frame border "
      "through background is filled (parallel reverse fill with union-find on the CPU, "
      "tiled union-find labelling on an NVIDIA GPU)", FV_AUTHOR);
  gst_fv_base_class_add_templates (GST_FV_BASE_CLASS (klass),
      FV_FILTER_CAPS (FORMATS, CUDA_FORMATS), FV_FILL_MAX_SIDE);

  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_auto_fill_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_auto_fill_release);
  fv_class->process = GST_DEBUG_FUNCPTR (gst_auto_fill_process);
  fv_class->frames_in_flight = GST_DEBUG_FUNCPTR (gst_auto_fill_frames_in_flight);
  fv_class->submit = GST_DEBUG_FUNCPTR (gst_auto_fill_submit);
  fv_class->finish = GST_DEBUG_FUNCPTR (gst_auto_fill_finish);
  fv_class->luma_only = TRUE;   /* YUV: the Y plane is filled; the chroma passes through */

  gst_type_mark_as_plugin_api (GST_TYPE_AUTO_FILL_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AUTO_FILL_OUTPUT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AUTO_FILL_MEASURE, 0);
  GST_BASE_TRANSFORM_CLASS (klass)->sink_event = GST_DEBUG_FUNCPTR (gst_auto_fill_sink_event);
  gst_fv_base_class_install_backend (GST_FV_BASE_CLASS (klass), TRUE);
}

static void
gst_auto_fill_init (GstAutoFill *self)
{
  self->threshold = 127;
  self->fill_value = 255;
  self->connectivity = 4;
  self->output = FV_FILL_FILLED;
  self->max_regions = DEFAULT_MAX_REGIONS;
  self->post_messages = TRUE;
  self->scale = 1.0;
}

/* The parts' ids start again where the stream does (a flush, a new
 * stream): a part after a seek is not the one before it. */
static gboolean
gst_auto_fill_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstAutoFill *self = GST_AUTO_FILL (trans);
  if ((GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
          || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) && self->matcher)
    fv_matcher_reset (self->matcher);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
gst_auto_fill_finalize (GObject *object)
{
  GstAutoFill *self = GST_AUTO_FILL (object);
  g_free (self->roi_type);
  g_free (self->part_roi_type);
  g_free (self->unit);
  fv_matcher_free (self->matcher);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}
