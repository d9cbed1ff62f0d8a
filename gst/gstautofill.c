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
 * With `measure=true` the element also measures what it filled. A region is
 * one connected piece of enclosed background (in the `connectivity` of the
 * background): the pixels the fill turned on that were not contour — the
 * same regions whether `output` is `filled` or `holes` (a washer is one
 * region, its hole; a solid part has none). Each frame gets one
 * region-of-interest meta per region of at least `min-area` pixels (type
 * `roi-type`, "region" by default; a "region" param with its area and
 * index), at most `max-regions` of them in raster order of their first
 * pixel, and, with `post-messages`, one element message named `autofill`
 * with the count, the total area, how many were not listed and the list.
 * The regions come from what the fill already has (the runs it labelled on
 * the CPU, the enclosed bits its last pass leaves on the GPU), joined by the
 * same code on both.
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
 *     video/x-raw,format=GRAY8 ! autofill measure=true min-area=20 ! fakesink
 * ]| The holes of each part, counted and measured on the bus.
 */
#include <string.h>
#include "gstautofill.h"
#include "fv_memory.h"
#include "fv_config.h"
#include "fvmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_autofill_debug);
#define GST_CAT_DEFAULT gst_autofill_debug

enum {
  PROP_0,
  PROP_THRESHOLD,
  PROP_FILL_VALUE,
  PROP_CONNECTIVITY,
  PROP_OUTPUT,
  PROP_SEEDS,
  PROP_MEASURE,
  PROP_ROI_TYPE,
  PROP_MIN_AREA,
  PROP_MAX_REGIONS,
  PROP_POST_MESSAGES,
};

#define DEFAULT_ROI_TYPE "region"
#define DEFAULT_MAX_REGIONS 256
/* a listed region's host memory, its meta and its message entry each (an
 * upper estimate: a ROI meta with one param structure of two fields, a
 * structure of seven fields in a GstValueList) */
#define REGION_HOST_BYTES 1024

/* the Y plane is filled; the chroma of YUV formats passes through */
#define FORMATS "{ GRAY8, I420, NV12, Y444 }"
#define CUDA_FORMATS "{ I420, NV12, Y444 }"


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

static void gst_autofill_finalize (GObject *object);
static fv_status attach_regions (GstAutofill *self, fv_fill_plan *plan, GstBuffer *buf);

#define gst_autofill_parent_class parent_class
G_DEFINE_TYPE (GstAutofill, gst_autofill, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (autofill, "autofill", GST_RANK_NONE, GST_TYPE_AUTOFILL);

static void
gst_autofill_release (GstFvFilter *filter)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  fv_fill_plan_destroy (self->plan);
  fv_fill_plan_destroy (self->cpu_plan);
  self->plan = self->cpu_plan = NULL;
}

static gboolean
gst_autofill_rebuild (GstFvFilter *filter, const GstFvRebuild *r)
{
  GstAutofill *self = GST_AUTOFILL (filter);
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
  p.threads = r->threads;
  p.width = GST_VIDEO_INFO_WIDTH (&vf->in_info);
  p.height = GST_VIDEO_INFO_HEIGHT (&vf->in_info);
  p.spread = r->spread;
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
        fv_last_error (), "Cannot set up the fill for %dx%d: %s.", p.width, p.height,
        gst_fv_filter_why (st));
    fv_fill_plan_destroy (plan);
    fv_fill_plan_destroy (cpu_plan);
    return FALSE;
  }
  gst_autofill_release (filter);   /* nothing runs on them: the base class saw to it */
  self->plan = plan;
  self->cpu_plan = cpu_plan;
  self->plan_measures = p.measure;
  GST_INFO_OBJECT (self, "threshold %u, %d-connected background, output %s, %s", p.threshold,
      p.connectivity, p.output == FV_FILL_HOLES ? "holes" : "filled",
      p.measure ? "measuring regions" : "not measuring");
  return TRUE;
}

static void
gst_autofill_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstAutofill *self = GST_AUTOFILL (object);
  gboolean replan = TRUE;   /* what the plan does; the rest is read per frame */
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD: self->threshold = g_value_get_uint (value); break;
    case PROP_FILL_VALUE: self->fill_value = g_value_get_uint (value); break;
    case PROP_CONNECTIVITY: self->connectivity = g_value_get_enum (value); break;
    case PROP_OUTPUT: self->output = g_value_get_enum (value); break;
    case PROP_SEEDS: self->seeds = g_value_get_uint (value); break;
    case PROP_MEASURE: self->measure = g_value_get_boolean (value); break;
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = gst_fv_filter_dup_nonempty (value);
      replan = FALSE;
      break;
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
    case PROP_MEASURE: g_value_set_boolean (value, self->measure); break;
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
      break;
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
gray_image (GstAutofill *self, GstVideoFrame *f)
{
  return fv_plane_image (gst_fv_filter_layout (GST_FV_FILTER (self)), f, 0);
}

static GstFlowReturn
fill_failed (GstAutofill *self, fv_status st)
{
  return gst_fv_filter_frame_failed (GST_FV_FILTER (self), st, "Fill failed");
}

/* measure=true: the regions `plan` found in the frame it just filled, as
 * metas on buf (at most max-regions) and one message. */
static fv_status
attach_regions (GstAutofill *self, fv_fill_plan *plan, GstBuffer *buf)
{
  if (!plan || !self->plan_measures)   /* the plans in use decide, not the property */
    return FV_OK;
  const fv_fill_region *r;
  gint n;
  fv_status st = fv_fill_regions (plan, &r, &n);
  if (st != FV_OK)
    return st;
  GST_OBJECT_LOCK (self);
  gchar *type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  const guint64 min_area = self->min_area;
  const guint max_regions = self->max_regions;
  const gboolean post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  /* what each listed region costs on the host (its ROI meta with its
   * param, and its structure in the message), bounded by the memory limit:
   * past it a region is counted as unlisted, and a warning says so once */
  const guint64 per_region = REGION_HOST_BYTES * (post ? 2 : 1);
  const guint64 fit = fv_memory_limit () / per_region;
  const guint cap = (guint) MIN ((guint64) max_regions, fit);
  const gint first_id = fv_meta_next_roi_id (buf);
  guint count = 0, listed = 0;
  guint64 total = 0;
  GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
  g_value_init (&list, GST_TYPE_LIST);
  for (gint i = 0; i < n; i++) {
    if ((guint64) r[i].area < min_area)
      continue;
    count++;
    total += (guint64) r[i].area;
    if (listed >= cap)
      continue;
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        r[i].x, r[i].y, r[i].width, r[i].height);
    m->id = first_id + (gint) listed;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("region",
            "area", G_TYPE_UINT64, (guint64) r[i].area, "index", G_TYPE_UINT, listed, NULL));
    if (post) {
      g_value_init (&item, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&item, gst_structure_new ("region",
              "id", G_TYPE_INT, m->id, "x", G_TYPE_UINT, (guint) r[i].x,
              "y", G_TYPE_UINT, (guint) r[i].y, "width", G_TYPE_UINT, (guint) r[i].width,
              "height", G_TYPE_UINT, (guint) r[i].height,
              "area", G_TYPE_UINT64, (guint64) r[i].area, NULL));
      gst_value_list_append_and_take_value (&list, &item);
    }
    listed++;
  }
  GST_LOG_OBJECT (self, "%u regions (%u listed), %" G_GUINT64_FORMAT " pixels", count, listed,
      total);
  if (count > listed && listed == cap && cap < max_regions && !self->warned_memory) {
    self->warned_memory = TRUE;
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT, ("%u regions in one frame: their metas "
            "and message would take %.1f MB, more than the %.1f MB allowed "
            "(FASTVISION_MAX_MEMORY_MB); %u are listed, the rest counted as unlisted.", count,
            (double) count * per_region / 1048576.0, fv_memory_limit () / 1048576.0, listed),
        ("max-regions=%u", max_regions));
  }
  if (post) {
    GstStructure *s = fv_meta_frame_structure ("autofill", buf,
        &GST_BASE_TRANSFORM (self)->segment);
    gst_structure_set (s, "roi-type", G_TYPE_STRING, type, "count", G_TYPE_UINT, count,
        "area", G_TYPE_UINT64, total, "unlisted", G_TYPE_UINT, count - listed, NULL);
    gst_structure_take_value (s, "regions", &list);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            s));
  } else {
    g_value_unset (&list);
  }
  g_free (type);
  return FV_OK;
}

static GstFlowReturn
gst_autofill_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  fv_image src = gray_image (self, in), dst = gray_image (self, out);
  fv_status st = fv_fill_execute (self->plan, &src, &dst);
  if (st == FV_OK)
    st = attach_regions (self, self->plan, out->buffer);
  return st == FV_OK ? GST_FLOW_OK : fill_failed (self, st);
}

/* backend=hybrid: two frames in flight. The GPU takes a frame whenever it
 * is free and returns at once; the frame after it is filled on the CPU
 * meanwhile; each finishes in order (the base class's submit and finish). */
static guint
gst_autofill_frames_in_flight (GstFvFilter *filter)
{
  return GST_AUTOFILL (filter)->cpu_plan ? 2 : 1;
}

static GstFlowReturn
gst_autofill_submit (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out, gpointer *job)
{
  GstAutofill *self = GST_AUTOFILL (filter);
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
gst_autofill_finish (GstFvFilter *filter, GstVideoFrame *out, gpointer job, gboolean drop)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  fv_status st = FV_OK;
  if (job == self->plan) {
    st = fv_fill_wait (self->plan);
    self->gpu_busy = FALSE;
  }
  if (st == FV_OK && !drop)
    st = attach_regions (self, job, out->buffer);
  return st == FV_OK || drop ? GST_FLOW_OK : fill_failed (self, st);
}

static void
gst_autofill_class_init (GstAutofillClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_autofill_debug, "autofill", 0, "autofill");
  GST_FV_FILTER_CLASS (klass)->debug = gst_autofill_debug;
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
  g_object_class_install_property (gobject_class, PROP_MEASURE,
      g_param_spec_boolean ("measure", "Measure", "Measure the enclosed regions of every frame: "
          "a region-of-interest meta each and an \"autofill\" message (no cost when off)",
          FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Type of the region-of-interest metas added for measured regions", DEFAULT_ROI_TYPE,
          FV_PARAM_RW));
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
  gst_fv_filter_class_add_templates (GST_FV_FILTER_CLASS (klass),
      FV_FILTER_CAPS (FORMATS, CUDA_FORMATS), FV_FILL_MAX_SIDE);

  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_autofill_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_autofill_release);
  fv_class->process = GST_DEBUG_FUNCPTR (gst_autofill_process);
  fv_class->frames_in_flight = GST_DEBUG_FUNCPTR (gst_autofill_frames_in_flight);
  fv_class->submit = GST_DEBUG_FUNCPTR (gst_autofill_submit);
  fv_class->finish = GST_DEBUG_FUNCPTR (gst_autofill_finish);
  fv_class->luma_only = TRUE;   /* YUV: the Y plane is filled; the chroma passes through */

  gst_type_mark_as_plugin_api (GST_TYPE_AUTOFILL_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AUTOFILL_OUTPUT, 0);
  gst_fv_filter_class_install_backend (GST_FV_FILTER_CLASS (klass), TRUE);
}

static void
gst_autofill_init (GstAutofill *self)
{
  self->threshold = 127;
  self->fill_value = 255;
  self->connectivity = 4;
  self->output = FV_FILL_FILLED;
  self->max_regions = DEFAULT_MAX_REGIONS;
  self->post_messages = TRUE;
}

static void
gst_autofill_finalize (GObject *object)
{
  g_free (GST_AUTOFILL (object)->roi_type);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}
