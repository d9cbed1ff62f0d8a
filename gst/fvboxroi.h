/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* satfilter's region mode on the box filter's window plans (fv_box.h,
 * roi_*): only the regions are filtered, so the cost follows their area,
 * not the frame's. This keeps the plans, by plane and window size, so that
 * a few of them serve regions that move and change size every frame:
 * windows grown by the radius are rounded up to 32 samples a side (128 on
 * the GPU, where a new plan's cudaMalloc would stall every stream of the
 * device). */
#ifndef FV_BOX_ROI_H
#define FV_BOX_ROI_H

#include <gst/video/video.h>
#include "fv_box.h"
#include "fvplanes.h"

G_BEGIN_DECLS

typedef struct {
  GArray *plans;        /* of window plans, least recently used dropped */
  guint64 tick;
} FvBoxRegions;

/* Filters frame rectangle (x, y, w, h) of in into out (which holds a copy
 * of in), plane p with params[p] (their size and window are set here).
 * FALSE with fv_last_error() set on failure. */
gboolean fv_box_regions_filter (FvBoxRegions *roi, const FvPlaneLayout *layout,
    const fv_box_params *params, fv_backend backend, gint device, gpointer stream,
    GstVideoFrame *in, GstVideoFrame *out, gint x, gint y, gint w, gint h);

void fv_box_regions_clear (FvBoxRegions *roi);

G_END_DECLS
#endif
