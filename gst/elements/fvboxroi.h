/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* satfilter's region mode over a frame's planes: each plane's window plans
 * (kernels/sat/fv_box_regions.h), made on first use with the plane's
 * filter. */
#ifndef FV_BOX_ROI_H
#define FV_BOX_ROI_H

#include <gst/video/video.h>
#include "fv_box_regions.h"
#include "fvplanes.h"

G_BEGIN_DECLS

typedef struct {
  fv_box_windows *plane[GST_VIDEO_MAX_PLANES];
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
