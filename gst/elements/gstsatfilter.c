/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-satfilter
 * @title: satfilter
 *
 * Box filter of any radius in constant time per pixel, through summed-area
 * tables (SAT): the window mean, the window standard deviation, or an
 * adaptive threshold against the window mean. On the CPU the SAT rows are
 * streamed over all cores; on an NVIDIA GPU the table is built with the
 * bandwidth-efficient tiled algorithm (partial sums carried between square
 * tiles). Both give the same integers.
 *
 * Borders are exact by default (`border=renormalize`: the mean over the part
 * of the window inside the frame). Each colour channel or plane is filtered,
 * chroma planes with the radius scaled by their subsampling; alpha and
 * padding bytes pass through. With `roi-type` set, only the insides of the
 * GstVideoRegionOfInterestMeta rectangles of that type are filtered.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=I420 ! satfilter radius=8 ! autovideosink
 * ]| Blurs a test pattern with a 17x17 box.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=GRAY8 ! \
 *     satfilter mode=threshold radius=15 sensitivity=0.15 ! videoconvert ! autovideosink
 * ]| Adaptive threshold of a camera, as on an inspection line.
 * |[
 * gst-launch-1.0 filesrc location=in.webm ! decodebin ! videoconvert ! \
 *     satfilter backend=cuda radius=25 ! videoconvert ! vp8enc ! webmmux ! filesink location=out.webm
 * ]| Filters a file on the GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>
#include <gst/controller/controller.h>
#include "gstsatfilter.h"
#include "fvmeta.h"
#include "fv_config.h"
#include "fv_cuda.h"

GST_DEBUG_CATEGORY_STATIC (gst_sat_filter_debug);
#define GST_CAT_DEFAULT gst_sat_filter_debug

#define DEFAULT_RADIUS 3
#define DEFAULT_MODE FV_BOX_MEAN
#define DEFAULT_BORDER FV_BORDER_RENORMALIZE
#define DEFAULT_SENSITIVITY 0.15

enum {
  PROP_0,
  PROP_RADIUS,
  PROP_MODE,
  PROP_SENSITIVITY,
  PROP_BORDER,
  PROP_ROI_TYPE,
};

#define FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, I420, NV12, Y444 }"
#define CUDA_FORMATS "{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, I420, NV12, Y444 }"


GType
gst_sat_filter_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_BOX_MEAN, "Window mean, rounded to nearest", "mean"},
    {FV_BOX_STDDEV, "Window standard deviation, rounded to nearest", "stddev"},
    {FV_BOX_THRESHOLD, "Maximum where pixel > mean*(1-sensitivity), else 0", "threshold"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstSatFilterMode", values));
  return type;
}

GType
gst_sat_filter_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_BORDER_RENORMALIZE, "Mean over the part of the window inside the frame", "renormalize"},
    {FV_BORDER_REPLICATE, "Edge pixels repeated outwards (aaa|abc)", "replicate"},
    {FV_BORDER_MIRROR, "Reflected about the edge pixel (cb|abc)", "mirror"},
    {FV_BORDER_ZERO, "Zero outside the frame", "zero"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstSatFilterBorder", values));
  return type;
}

#define gst_sat_filter_parent_class parent_class
G_DEFINE_TYPE (GstSatFilter, gst_sat_filter, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (satfilter, "satfilter", GST_RANK_NONE, GST_TYPE_SAT_FILTER);

static void
gst_sat_filter_release (GstFvFilter *filter)
{
  GstSatFilter *self = GST_SAT_FILTER (filter);
  for (gint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    fv_box_plan_destroy (self->plans[p]);
    self->plans[p] = NULL;
  }
  fv_box_regions_clear (&self->roi);
}

/* One plan per plane for the current settings, format and backend, made
 * beside the ones in use; those are dropped only once all are made. */
static gboolean
gst_sat_filter_rebuild (GstFvFilter *filter, const GstFvRebuild *r)
{
  GstSatFilter *self = GST_SAT_FILTER (filter);
  const FvPlaneLayout *layout = r->layout;
  const FvDevice *dev = r->dev;
  fv_box_params bp, params[GST_VIDEO_MAX_PLANES];
  fv_box_plan *plans[GST_VIDEO_MAX_PLANES] = { NULL };

  memset (params, 0, sizeof params);
  GST_OBJECT_LOCK (self);
  memset (&bp, 0, sizeof bp);
  bp.mode = self->mode;
  bp.border = self->border;
  bp.sensitivity = self->sensitivity;
  gint radius = self->radius;
  /* the mode is settled here, with the plans it needs: the whole-frame
   * plans, or (roi-type) only the parameters the regions' plans are made from */
  const GQuark roi_quark = self->roi_type ? g_quark_from_string (self->roi_type) : 0;
  GST_OBJECT_UNLOCK (self);
  bp.frame.threads = r->threads;
  bp.frame.spread = r->spread;
  static const char *const modes[] = { "mean", "stddev", "threshold" };
  GST_INFO_OBJECT (self, "mode %s, radius %d, %s", (guint) bp.mode < G_N_ELEMENTS (modes)
      ? modes[bp.mode] : "?", radius, roi_quark ? "only inside regions of interest"
      : "the whole frame");

  gsize bytes = 0;
  for (gint p = 0; p < layout->n_planes; p++) {
    const FvPlaneDesc *d = &layout->plane[p];
    bp.frame.width = d->width;
    bp.frame.height = d->height;
    bp.frame.channels = d->channels;
    bp.channel_mask = d->channel_mask;
    bp.frame.sample = d->sample;
    bp.radius_x = fv_scale_radius (radius, d->w_sub);
    bp.radius_y = fv_scale_radius (radius, d->h_sub);
    params[p] = bp;
    /* region mode's plans are at most the whole plane's */
    if (fv_box_params_validate (&bp) == FV_OK)
      bytes += fv_box_plan_bytes (&bp, dev->active);
  }
  if (!gst_fv_filter_check_memory (filter, bytes, 0))
    return FALSE;
  for (gint p = 0; p < layout->n_planes; p++) {
    fv_status st = roi_quark ? fv_box_params_validate (&params[p])
        : fv_box_plan_create (&plans[p], &params[p], dev->active, dev->stream_device, dev->stream);
    if (st != FV_OK) {
      gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
          fv_last_error (), "Cannot set up the %s box filter for plane %d: %s.",
          fv_device_is_cuda (dev) ? "CUDA" : "CPU", p, gst_fv_filter_why (st));
      for (gint q = 0; q <= p; q++)
        fv_box_plan_destroy (plans[q]);
      return FALSE;
    }
  }
  gst_sat_filter_release (filter);
  memcpy (self->plans, plans, sizeof plans);
  memcpy (self->params, params, sizeof params);
  self->roi_quark = roi_quark;
  return TRUE;
}

static void
gst_sat_filter_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstSatFilter *self = GST_SAT_FILTER (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS:
      self->radius = g_value_get_uint (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_SENSITIVITY:
      self->sensitivity = g_value_get_double (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      break;
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = gst_fv_dup_nonempty (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  gst_fv_base_mark_changed (GST_FV_BASE (self));
}

static void
gst_sat_filter_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GstSatFilter *self = GST_SAT_FILTER (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_SENSITIVITY:
      g_value_set_double (value, self->sensitivity);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
run_plans (GstSatFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  const FvPlaneLayout *layout = gst_fv_filter_layout (GST_FV_FILTER (self));
  for (gint p = 0; p < layout->n_planes; p++) {
    fv_image src = fv_plane_image (layout, in, p);
    fv_image dst = fv_plane_image (layout, out, p);
    fv_status st = fv_box_execute (self->plans[p], &src, &dst);
    if (st != FV_OK)
      return gst_fv_filter_frame_failed (GST_FV_FILTER (self), st,
          "Box filter failed on plane %d", p);
  }
  return GST_FLOW_OK;
}

/* The union of rects (clipped to W x H) as disjoint rectangles
 * (fv_box_rect_union), so that overlapping regions are filtered once: the
 * cost follows the union's area (100 full-frame regions cost one frame,
 * not a hundred). Takes rects; NULL when out of memory. */
static GArray *
union_of (GArray *rects, gint W, gint H)
{
  fv_box_rect *in = g_new (fv_box_rect, MAX (rects->len, 1)), *u = NULL;
  for (guint i = 0; i < rects->len; i++) {
    const FvRoiRect *r = &g_array_index (rects, FvRoiRect, i);
    in[i] = (fv_box_rect) { r->x, r->y, r->w, r->h };
  }
  gint n = 0;
  const fv_status st = fv_box_rect_union (in, (gint) rects->len, W, H, &u, &n);
  g_free (in);
  g_array_unref (rects);
  if (st != FV_OK)
    return NULL;
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (FvRoiRect), (guint) n);
  for (gint i = 0; i < n; i++) {
    const FvRoiRect r = { u[i].x, u[i].y, u[i].width, u[i].height };
    g_array_append_val (out, r);
  }
  free (u);
  return out;
}

static GstFlowReturn
gst_sat_filter_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstSatFilter *self = GST_SAT_FILTER (filter);
  const FvPlaneLayout *layout = gst_fv_filter_layout (GST_FV_FILTER (self));
  const GQuark roi = self->roi_quark;
  if (!roi)
    return run_plans (self, in, out);

  /* only the regions are filtered: the cost follows their area */
  const FvDevice *dev = gst_fv_base_device (GST_FV_BASE (filter));
  const gint W = GST_VIDEO_FRAME_WIDTH (in), H = GST_VIDEO_FRAME_HEIGHT (in);
  for (gint p = 0; p < layout->n_planes; p++) {
    if (!fv_plane_copy (layout, out, in, p, dev->stream)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot copy plane %d.", p),
          ("%s", fv_last_error ()));
      return GST_FLOW_ERROR;
    }
  }
  GArray *rects = union_of (fv_meta_regions_of_type (in->buffer, roi), W, H);
  if (!rects) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot join the frame's regions."),
        ("%s", fv_last_error ()));
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  for (guint i = 0; i < rects->len && ret == GST_FLOW_OK; i++) {
    const FvRoiRect *r = &g_array_index (rects, FvRoiRect, i);   /* inside the frame */
    if (!fv_box_regions_filter (&self->roi, layout, self->params, dev->active,
            dev->stream_device, dev->stream, in, out, r->x, r->y, r->w, r->h)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Box filter failed on a region."),
          ("%s", fv_last_error ()));
      ret = GST_FLOW_ERROR;
    }
  }
  g_array_unref (rects);
  return ret;
}

static void
gst_sat_filter_finalize (GObject *object)
{
  g_free (GST_SAT_FILTER (object)->roi_type);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_sat_filter_class_init (GstSatFilterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_sat_filter_debug, "satfilter", 0, "satfilter");
  GST_FV_BASE_CLASS (klass)->debug = gst_sat_filter_debug;

  gobject_class->set_property = gst_sat_filter_set_property;
  gobject_class->get_property = gst_sat_filter_get_property;
  gobject_class->finalize = gst_sat_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "Window radius r: the window is (2r+1)x(2r+1) pixels, on chroma planes "
          "scaled by the subsampling; may exceed the frame",
          0, FV_BOX_MAX_RADIUS, DEFAULT_RADIUS, rw));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What to compute over the window",
          GST_TYPE_SAT_FILTER_MODE, DEFAULT_MODE, rw));
  g_object_class_install_property (gobject_class, PROP_SENSITIVITY,
      g_param_spec_double ("sensitivity", "Sensitivity",
          "mode=threshold: output is maximum where pixel > mean*(1-sensitivity)",
          0.0, 1.0, DEFAULT_SENSITIVITY, rw));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "How the window is completed outside the frame",
          GST_TYPE_SAT_FILTER_BORDER, DEFAULT_BORDER, rw));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Filter only inside GstVideoRegionOfInterestMeta rectangles of this type "
          "(e.g. \"face\"); unset: the whole frame",
          NULL, FV_PARAM_RW));

  gst_element_class_set_static_metadata (element_class,
      "Summed-area-table box filter", "Filter/Effect/Video",
      "Box mean, standard deviation or adaptive threshold of any radius in "
      "constant time per pixel, through summed-area tables on the CPU or a "
      "tiled SAT on an NVIDIA GPU",
      FV_AUTHOR);
  gst_fv_base_class_add_templates (GST_FV_BASE_CLASS (klass),
      FV_FILTER_CAPS (FORMATS, CUDA_FORMATS), FV_BOX_MAX_SIDE);
  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_sat_filter_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_sat_filter_release);
  fv_class->process = GST_DEBUG_FUNCPTR (gst_sat_filter_process);

  gst_type_mark_as_plugin_api (GST_TYPE_SAT_FILTER_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SAT_FILTER_BORDER, 0);
  gst_fv_base_class_install_backend (GST_FV_BASE_CLASS (klass), FALSE);
}

static void
gst_sat_filter_init (GstSatFilter *self)
{
  self->radius = DEFAULT_RADIUS;
  self->mode = DEFAULT_MODE;
  self->border = DEFAULT_BORDER;
  self->sensitivity = DEFAULT_SENSITIVITY;
}
