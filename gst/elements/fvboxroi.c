/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include "fvboxroi.h"

gboolean
fv_box_regions_filter (FvBoxRegions *roi, const FvPlaneLayout *layout,
    const fv_box_params *params, fv_backend backend, gint device, gpointer stream,
    GstVideoFrame *in, GstVideoFrame *out, gint x, gint y, gint w, gint h)
{
  for (gint p = 0; p < layout->n_planes; p++) {
    const FvPlaneDesc *d = &layout->plane[p];
    gint x0, y0, x1, y1;   /* the region's samples in this plane */
    if (!fv_plane_span (layout, p, x, y, w, h, &x0, &y0, &x1, &y1))
      continue;
    if (!roi->plane[p]) {
      fv_box_params bp = params[p];
      bp.frame.width = d->width;
      bp.frame.height = d->height;
      if (fv_box_windows_create (&roi->plane[p], &bp, backend, device, stream) != FV_OK)
        return FALSE;
    }
    const fv_image src = fv_plane_image (layout, in, p), dst = fv_plane_image (layout, out, p);
    if (fv_box_windows_filter (roi->plane[p], &src, &dst, x0, y0, x1 - x0, y1 - y0) != FV_OK)
      return FALSE;
  }
  return TRUE;
}

void
fv_box_regions_clear (FvBoxRegions *roi)
{
  for (gint p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    fv_box_windows_destroy (roi->plane[p]);
  memset (roi, 0, sizeof *roi);
}
