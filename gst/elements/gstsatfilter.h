/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GST_SAT_FILTER_H
#define GST_SAT_FILTER_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_box.h"
#include "fvdevice.h"
#include "fvplanes.h"
#include "gstfvfilter.h"
#include "fvboxroi.h"

G_BEGIN_DECLS

#define GST_TYPE_SAT_FILTER (gst_sat_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstSatFilter, gst_sat_filter, GST, SAT_FILTER, GstFvFilter)

#define GST_TYPE_SAT_FILTER_MODE (gst_sat_filter_mode_get_type ())
GType gst_sat_filter_mode_get_type (void);
#define GST_TYPE_SAT_FILTER_BORDER (gst_sat_filter_border_get_type ())
GType gst_sat_filter_border_get_type (void);

struct _GstSatFilter {
  GstFvFilter parent;

  /* properties, under the object lock */
  guint radius;
  fv_box_mode mode;
  fv_border border;
  gdouble sensitivity;
  gchar *roi_type;

  /* streaming state */
  fv_box_plan *plans[GST_VIDEO_MAX_PLANES];
  fv_box_params params[GST_VIDEO_MAX_PLANES];   /* each plane's, for regions */
  GQuark roi_quark;            /* roi-type as the last rebuild saw it (0: the whole frame) */
  FvBoxRegions roi;            /* roi-type: the window plans of the regions */
};

GST_ELEMENT_REGISTER_DECLARE (satfilter);

G_END_DECLS
#endif
