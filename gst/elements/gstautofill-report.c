/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* autofill's report of what `measure` found in a frame: ROI metas (and OD
 * Mtds on 1.24+) with the features as params, the parts' ids along the
 * belt, the drawing, the frame meta and the bus message. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>
#include "gstautofill-private.h"
#include "fv_memory.h"
#include "fv_config.h"
#include "fvmeta.h"
#include "fvdraw.h"
#include "fv_match.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#define GST_CAT_DEFAULT gst_auto_fill_debug

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
part_ids (GstAutoFill *self, Kind *parts)
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
kind_metas (GstAutoFill *self, GstBuffer *buf, Kind *k, const Kind *parts, gboolean is_part,
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
draw_kinds (GstAutoFill *self, GstVideoFrame *frame, const Kind *holes, const Kind *parts)
{
  gpointer stream = gst_fv_base_device (GST_FV_BASE (self))->stream;
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
fv_status
gst_auto_fill_report (GstAutoFill *self, fv_fill_plan *plan, GstVideoFrame *frame)
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
