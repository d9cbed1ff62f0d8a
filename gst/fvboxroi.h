/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* satfilter's region mode: only the regions are filtered, so the cost
 * follows their area, not the frame's. Each region is cut out of every
 * plane with a halo of the (plane's) radius, filtered as a sub-image, and
 * its own samples copied to the output. Exact: a window reaching past the
 * sub-image's cut edges never reaches a region sample, and where the cut
 * is the frame's edge the border rule applies as on the whole frame (a
 * window wider than the frame takes the whole axis). Sub-images are rounded
 * up to 32 samples a side, so that a few plans, kept by size, serve
 * regions that change size every frame. */
#ifndef FV_BOX_ROI_H
#define FV_BOX_ROI_H

#include <gst/video/video.h>
#include "fv_box.h"
#include "fvplanes.h"
#include "fvscratch.h"

G_BEGIN_DECLS

typedef struct {
  GArray *plans;        /* of sub-image plans, least recently used dropped */
  guint64 tick;
  FvScratch scratch;    /* the filtered sub-image */
} FvBoxRoi;

/* Filters frame rectangle (x, y, w, h) of in into out (which holds a copy
 * of in), plane p with params[p] (their width and height are ignored).
 * FALSE with fv_last_error() set on failure. */
gboolean fv_box_roi_filter (FvBoxRoi *roi, const FvPlaneLayout *layout,
    const fv_box_params *params, fv_backend backend, gint device, gpointer stream,
    GstVideoFrame *in, GstVideoFrame *out, gint x, gint y, gint w, gint h);

void fv_box_roi_clear (FvBoxRoi *roi);

G_END_DECLS
#endif
