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
#include "fv_memory.h"
#include "fv_config.h"
#include "fvmeta.h"
#include "fvdraw.h"
#include "fv_match.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

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
  PROP_PART_ROI_TYPE,
  PROP_MIN_AREA,
  PROP_MAX_REGIONS,
  PROP_POST_MESSAGES,
  PROP_SCALE,
  PROP_UNIT,
  PROP_DRAW,
};

#define DEFAULT_ROI_TYPE "region"
#define DEFAULT_PART_ROI_TYPE "part"
#define DEFAULT_UNIT "px"
/* scale: units a pixel; beyond these a length would lose its meaning */
#define MIN_SCALE 1e-9
#define MAX_SCALE 1e9
#define DEFAULT_MAX_REGIONS 256
/* 1.24+: OD Mtds for at most this many listed regions a frame (parts
 * first): a relation meta's table of relations grows with the square of
 * its Mtds (24,000 regions would take 576 MB) */
#define MAX_OD_MTDS 1024
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

#define GST_TYPE_AUTOFILL_MEASURE (gst_autofill_measure_get_type ())
static GType
gst_autofill_measure_get_type (void)
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
    g_once_init_leave (&type, g_enum_register_static ("GstAutofillMeasure", values));
  return type;
}

static void gst_autofill_finalize (GObject *object);
static gboolean gst_autofill_sink_event (GstBaseTransform *trans, GstEvent *event);
static fv_status report (GstAutofill *self, fv_fill_plan *plan, GstVideoFrame *frame);

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
    case PROP_MEASURE: self->measure = g_value_get_enum (value); break;
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = gst_fv_filter_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_PART_ROI_TYPE:
      g_free (self->part_roi_type);
      self->part_roi_type = gst_fv_filter_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_UNIT:
      g_free (self->unit);
      self->unit = gst_fv_filter_dup_nonempty (value);
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
gray_image (GstAutofill *self, GstVideoFrame *f)
{
  return fv_plane_image (gst_fv_filter_layout (GST_FV_FILTER (self)), f, 0);
}

static GstFlowReturn
fill_failed (GstAutofill *self, fv_status st)
{
  return gst_fv_filter_frame_failed (GST_FV_FILTER (self), st, "Fill failed");
}

/* One listed region's params: the integer fields as they are, lengths
 * and areas also in the element's unit. */
static GstStructure *
region_params (const gchar *name, const fv_fill_region *r, guint index, gdouble scale,
    const gchar *unit)
{
  fv_fill_shape sh;
  fv_fill_region_shape (r, &sh);
  return gst_structure_new (name,
      "area", G_TYPE_UINT64, (guint64) r->area, "index", G_TYPE_UINT, index,
      "cx", G_TYPE_DOUBLE, sh.cx, "cy", G_TYPE_DOUBLE, sh.cy,
      "unit", G_TYPE_STRING, unit,
      "unit-area", G_TYPE_DOUBLE, (gdouble) r->area * scale * scale,
      "perimeter", G_TYPE_DOUBLE, sh.perimeter * scale,
      "equivalent-diameter", G_TYPE_DOUBLE, sh.equivalent_diameter * scale,
      "circularity", G_TYPE_DOUBLE, sh.circularity,
      "major", G_TYPE_DOUBLE, sh.major * scale, "minor", G_TYPE_DOUBLE, sh.minor * scale,
      "orientation", G_TYPE_DOUBLE, sh.orientation, NULL);
}

/* What one frame's report needs of the properties, read once. */
typedef struct {
  gchar *hole_type, *part_type, *unit;
  guint64 min_area;
  guint cap;
  gdouble scale;
  gboolean post, draw;
} Report;

/* One kind of region (holes or parts) of one frame: which are listed, the
 * metas they got, their ids, and the message's list. */
typedef struct {
  const fv_fill_region *r;
  gint n;
  guint count, listed;
  guint64 total;
  gint *meta_id;       /* per region: its ROI meta's id, -1 if not listed */
  gint *od_id;         /* 1.24+: per region, its OD Mtd's id, -1 if none */
  guint32 *id;         /* parts: per region, the id along the belt (0: none) */
  GValue list;
} Kind;

static void
kind_list (Kind *k, const Report *rp)
{
  k->meta_id = g_new (gint, MAX (k->n, 1));
  k->od_id = g_new (gint, MAX (k->n, 1));
  k->id = g_new0 (guint32, MAX (k->n, 1));
  k->count = k->listed = 0;
  k->total = 0;
  for (gint i = 0; i < k->n; i++) {
    k->meta_id[i] = k->od_id[i] = -1;
    if ((guint64) k->r[i].area < rp->min_area)
      continue;
    k->count++;
    k->total += (guint64) k->r[i].area;
    if (k->listed < rp->cap) {
      k->meta_id[i] = 0;   /* listed: its meta's id comes with the meta */
      k->listed++;
    }
  }
}

/* The parts' ids along the belt: the listed parts' boxes through the
 * matcher (kernels/track/fv_match.h). */
static void
part_ids (GstAutofill *self, Kind *parts)
{
  fv_match_box *boxes = g_new (fv_match_box, MAX (parts->listed, 1));
  guint32 *ids = g_new (guint32, MAX (parts->listed, 1));
  guint n = 0;
  for (gint i = 0; i < parts->n; i++)
    if (parts->meta_id[i] >= 0)
      boxes[n++] = (fv_match_box) { parts->r[i].x, parts->r[i].y, parts->r[i].width,
        parts->r[i].height };
  if (!self->matcher)
    self->matcher = fv_matcher_new ();
  if (self->matcher && fv_matcher_assign (self->matcher, boxes, n, 0.2, 2, ids))
    for (gint i = 0, k = 0; i < parts->n; i++)
      if (parts->meta_id[i] >= 0)
        parts->id[i] = ids[k++];
  g_free (boxes);
  g_free (ids);
}

#if FV_HAVE_GST_ANALYTICS
/* On 1.24+ the region is an OD Mtd too (its id the relation meta's own:
 * the ROI meta keeps an id unique among the frame's ROI metas). */
static gint
add_od (GstAnalyticsRelationMeta *rmeta, const gchar *type, const fv_fill_region *r,
    GstAnalyticsODMtd *od)
{
  if (rmeta && gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string (type), r->x,
          r->y, r->width, r->height, 1.0f, od))
    return (gint) gst_analytics_mtd_get_id ((GstAnalyticsMtd *) od);
  return -1;
}
#endif

/* The listed regions of one kind as ROI metas (and OD Mtds), their params,
 * their message entries; holes name their part (its id along the belt, and
 * its meta as their parent). */
static void
kind_metas (GstAutofill *self, GstBuffer *buf, Kind *k, const Kind *parts, gboolean is_part,
    const Report *rp, gint *next_id, gpointer rmeta, guint *ods)
{
  g_value_init (&k->list, GST_TYPE_LIST);
  const gchar *type = is_part ? rp->part_type : rp->hole_type;
  guint index = 0;
  for (gint i = 0; i < k->n; i++) {
    if (k->meta_id[i] < 0)
      continue;
    const fv_fill_region *r = &k->r[i];
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        r->x, r->y, r->width, r->height);
    m->id = (*next_id)++;
    k->meta_id[i] = m->id;
#if FV_HAVE_GST_ANALYTICS
    GstAnalyticsODMtd od;
    const gint od_id = k->od_id[i] = *ods < MAX_OD_MTDS ? add_od (rmeta, type, r, &od) : -1;
    *ods += od_id >= 0;
#endif
    GstStructure *p = region_params (is_part ? "part" : "region", r, index++, rp->scale,
        rp->unit);
    if (is_part) {
      gst_structure_set (p, "id", G_TYPE_UINT, k->id[i], "holes", G_TYPE_UINT, (guint) r->holes,
          "hole-area", G_TYPE_UINT64, (guint64) r->hole_area, "unit-hole-area", G_TYPE_DOUBLE,
          (gdouble) r->hole_area * rp->scale * rp->scale, NULL);
    } else if (parts && r->part >= 0 && r->part < parts->n) {
      /* its part's id along the belt, 0 when the part is not listed */
      gst_structure_set (p, "part", G_TYPE_UINT, parts->id[r->part], NULL);
      if (parts->meta_id[r->part] >= 0) {
        m->parent_id = parts->meta_id[r->part];
#if FV_HAVE_GST_ANALYTICS
        const gint part_od = parts->od_id[r->part];
        if (od_id >= 0 && part_od >= 0) {
          gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_IS_PART_OF,
              od_id, part_od);
          gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_CONTAIN,
              part_od, od_id);
        }
#endif
      }
    }
    if (rp->post) {
      GstStructure *e = gst_structure_copy (p);
      gst_structure_set (e, "roi-id", G_TYPE_INT, m->id, "x", G_TYPE_UINT, (guint) r->x,
          "y", G_TYPE_UINT, (guint) r->y, "width", G_TYPE_UINT, (guint) r->width,
          "height", G_TYPE_UINT, (guint) r->height, NULL);
      if (!is_part)   /* the message's id of a hole, as before: its meta's */
        gst_structure_set (e, "id", G_TYPE_INT, m->id, NULL);
      GValue item = G_VALUE_INIT;
      g_value_init (&item, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&item, e);
      gst_value_list_append_and_take_value (&k->list, &item);
    }
    gst_video_region_of_interest_meta_add_param (m, p);
  }
}

/* draw=true: each listed part's box and id, each listed hole's box. */
static void
draw_kinds (GstAutofill *self, GstVideoFrame *frame, const Kind *holes, const Kind *parts)
{
  gpointer stream = gst_fv_filter_device (GST_FV_FILTER (self))->stream;
  const gint H = GST_VIDEO_FRAME_HEIGHT (frame);
  for (gint i = 0; holes && i < holes->n; i++)
    if (holes->meta_id[i] >= 0) {
      const fv_fill_region *r = &holes->r[i];
      fv_draw_box_in (frame, &fv_draw_hole, r->x, r->y, r->width, r->height, 1, stream);
    }
  for (gint i = 0; parts && i < parts->n; i++)
    if (parts->meta_id[i] >= 0) {
      const fv_fill_region *r = &parts->r[i];
      const gint t = MAX (1, MIN (r->width, r->height) / 64), cell = MAX (2, H / 240);
      fv_draw_box_in (frame, &fv_draw_part, r->x - t, r->y - t, r->width + 2 * t,
          r->height + 2 * t, t, stream);
      /* the id above the box, or inside its top when the frame ends there */
      const gint ty = r->y - t - 6 * cell >= 0 ? r->y - t - 6 * cell : r->y + t + cell;
      fv_draw_number (frame, &fv_draw_part, r->x, ty, parts->id[i], cell, stream);
    }
}

/* measure: the holes and parts `plan` found in the frame it just filled,
 * as metas on the frame (at most max-regions of each kind), a frame meta
 * with the counts, one message, and with draw the boxes on the frame. */
static fv_status
report (GstAutofill *self, fv_fill_plan *plan, GstVideoFrame *frame)
{
  const gint what = self->plan_measures;   /* the plans in use decide, not the property */
  if (!plan || !what)
    return FV_OK;
  GstBuffer *buf = frame->buffer;
  Kind holes = { 0 }, parts = { 0 };
  fv_status st = fv_fill_regions (plan, &holes.r, &holes.n);
  if (st == FV_OK && (what & FV_FILL_MEASURE_PARTS))
    st = fv_fill_parts (plan, &parts.r, &parts.n);
  if (st != FV_OK)
    return st;
  const gboolean with_holes = (what & FV_FILL_MEASURE_HOLES) != 0;
  const gboolean with_parts = (what & FV_FILL_MEASURE_PARTS) != 0;
  Report rp;
  GST_OBJECT_LOCK (self);
  rp.hole_type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  rp.part_type = g_strdup (self->part_roi_type ? self->part_roi_type : DEFAULT_PART_ROI_TYPE);
  rp.unit = g_strdup (self->unit ? self->unit : DEFAULT_UNIT);
  rp.min_area = self->min_area;
  rp.scale = self->scale;
  rp.post = self->post_messages;
  rp.draw = self->draw;
  const guint max_regions = self->max_regions;
  GST_OBJECT_UNLOCK (self);
  /* what each listed region costs on the host (its ROI meta with its
   * param, and its structure in the message), bounded by the memory limit:
   * past it a region is counted as unlisted, and a warning says so once */
  const guint64 per_region = REGION_HOST_BYTES * (rp.post ? 2 : 1) * (with_parts ? 2 : 1);
  const guint64 fit = fv_memory_limit () / per_region;
  rp.cap = (guint) MIN ((guint64) max_regions, fit);
  if (with_parts) {
    kind_list (&parts, &rp);
    part_ids (self, &parts);
  }
  if (with_holes)
    kind_list (&holes, &rp);
  gint next_id = fv_meta_next_roi_id (buf);
  gpointer rmeta = NULL;
#if FV_HAVE_GST_ANALYTICS
  rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (buf);
#endif
  guint ods = 0;
  if (with_parts)
    kind_metas (self, buf, &parts, NULL, TRUE, &rp, &next_id, rmeta, &ods);
  if (with_holes)
    kind_metas (self, buf, &holes, with_parts ? &parts : NULL, FALSE, &rp, &next_id, rmeta,
        &ods);
  const guint unlisted = (with_holes ? holes.count - holes.listed : 0)
      + (with_parts ? parts.count - parts.listed : 0);
  GST_LOG_OBJECT (self, "%u holes (%u listed), %u parts (%u listed)", holes.count,
      holes.listed, parts.count, parts.listed);
  if (unlisted && rp.cap < max_regions && !self->warned_memory) {
    self->warned_memory = TRUE;
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT, ("%u regions in one frame: their metas "
            "and message would take %.1f MB, more than the %.1f MB allowed "
            "(FASTVISION_MAX_MEMORY_MB); %u of each kind are listed, the rest counted as "
            "unlisted.", holes.count + parts.count,
            (double) (holes.count + parts.count) * per_region / 1048576.0,
            fv_memory_limit () / 1048576.0, rp.cap), ("max-regions=%u", max_regions));
  }
  /* the frame's counts: on the frame (metapublish's document) and the bus */
  GstStructure *s = gst_structure_new ("autofill", "unit", G_TYPE_STRING, rp.unit,
      "scale", G_TYPE_DOUBLE, rp.scale, NULL);
  if (with_holes)
    gst_structure_set (s, "roi-type", G_TYPE_STRING, rp.hole_type, "count", G_TYPE_UINT,
        holes.count, "area", G_TYPE_UINT64, holes.total, "unit-area", G_TYPE_DOUBLE,
        (gdouble) holes.total * rp.scale * rp.scale, "unlisted", G_TYPE_UINT,
        holes.count - holes.listed, NULL);
  if (with_parts)
    gst_structure_set (s, "part-roi-type", G_TYPE_STRING, rp.part_type, "part-count",
        G_TYPE_UINT, parts.count, "part-area", G_TYPE_UINT64, parts.total, "part-unit-area",
        G_TYPE_DOUBLE, (gdouble) parts.total * rp.scale * rp.scale, "part-unlisted",
        G_TYPE_UINT, parts.count - parts.listed, NULL);
  fv_meta_set_measure (buf, gst_structure_copy (s));
  if (rp.post) {
    GstStructure *m = fv_meta_frame_structure ("autofill", buf,
        &GST_BASE_TRANSFORM (self)->segment);
    for (gint i = 0, n = gst_structure_n_fields (s); i < n; i++) {
      const gchar *f = gst_structure_nth_field_name (s, i);
      gst_structure_set_value (m, f, gst_structure_get_value (s, f));
    }
    if (with_holes)
      gst_structure_take_value (m, "regions", &holes.list);
    if (with_parts)
      gst_structure_take_value (m, "parts", &parts.list);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            m));
  }
  gst_structure_free (s);
  if (rp.draw)
    draw_kinds (self, frame, with_holes ? &holes : NULL, with_parts ? &parts : NULL);
  if (G_IS_VALUE (&holes.list))
    g_value_unset (&holes.list);
  if (G_IS_VALUE (&parts.list))
    g_value_unset (&parts.list);
  g_free (holes.meta_id);
  g_free (holes.od_id);
  g_free (holes.id);
  g_free (parts.meta_id);
  g_free (parts.od_id);
  g_free (parts.id);
  g_free (rp.hole_type);
  g_free (rp.part_type);
  g_free (rp.unit);
  return FV_OK;
}

static GstFlowReturn
gst_autofill_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstAutofill *self = GST_AUTOFILL (filter);
  fv_image src = gray_image (self, in), dst = gray_image (self, out);
  fv_status st = fv_fill_execute (self->plan, &src, &dst);
  if (st == FV_OK)
    st = report (self, self->plan, out);
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
    st = report (self, job, out);
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
      g_param_spec_enum ("measure", "Measure", "Measure what was filled in every frame: "
          "holes (enclosed background), parts (contours and what they enclose) or both; a "
          "region-of-interest meta each, a frame meta and an \"autofill\" message (no cost "
          "when none)", GST_TYPE_AUTOFILL_MEASURE, FV_FILL_MEASURE_NONE, rw));
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
  gst_type_mark_as_plugin_api (GST_TYPE_AUTOFILL_MEASURE, 0);
  GST_BASE_TRANSFORM_CLASS (klass)->sink_event = GST_DEBUG_FUNCPTR (gst_autofill_sink_event);
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
  self->scale = 1.0;
}

/* The parts' ids start again where the stream does (a flush, a new
 * stream): a part after a seek is not the one before it. */
static gboolean
gst_autofill_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstAutofill *self = GST_AUTOFILL (trans);
  if ((GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
          || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) && self->matcher)
    fv_matcher_reset (self->matcher);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
gst_autofill_finalize (GObject *object)
{
  GstAutofill *self = GST_AUTOFILL (object);
  g_free (self->roi_type);
  g_free (self->part_roi_type);
  g_free (self->unit);
  fv_matcher_free (self->matcher);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}
