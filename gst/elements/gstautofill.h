/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GST_AUTO_FILL_H
#define GST_AUTO_FILL_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_fill.h"
#include "gstfvfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_AUTO_FILL (gst_auto_fill_get_type ())
G_DECLARE_FINAL_TYPE (GstAutoFill, gst_auto_fill, GST, AUTO_FILL, GstFvFilter)

struct _GstAutoFill {
  GstFvFilter parent;

  /* properties, under the object lock */
  guint threshold, fill_value, seeds;
  gint connectivity;
  fv_fill_output output;
  gint measure;                 /* fv_fill_measure_what */
  gboolean post_messages, draw;
  gchar *roi_type, *part_roi_type, *unit;
  gdouble scale;
  guint max_regions;
  guint64 min_area;

  fv_fill_plan *plan;          /* the active backend's */
  fv_fill_plan *cpu_plan;      /* backend=hybrid: the CPU's, beside the GPU's */
  gint plan_measures;          /* what the plans were made to measure */
  struct fv_matcher *matcher;  /* the parts' ids from frame to frame */

  /* backend=hybrid: a frame submitted to the GPU is not finished yet */
  gboolean gpu_busy;
  /* a frame had more regions than the memory limit lets it list: said once */
  gboolean warned_memory;
};

GST_ELEMENT_REGISTER_DECLARE (autofill);

G_END_DECLS
#endif
