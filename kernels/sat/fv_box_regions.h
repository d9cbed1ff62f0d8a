/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The box filter on regions only (satfilter's region mode, the privacy
 * filter): the regions' union as disjoint rectangles, so that overlapping
 * regions are filtered once and the cost follows the union's area, and
 * window plans (fv_box.h, roi_*) kept by size, so that a few of them serve
 * regions that move and change size every frame. */
#ifndef FV_BOX_REGIONS_H
#define FV_BOX_REGIONS_H

#include "fv_box.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int x, y, width, height;
} fv_box_rect;

/* The union of n rectangles, clipped to width x height, as disjoint
 * rectangles covering exactly the same pixels: rows are cut at every top
 * and bottom edge, in each band the covering intervals are merged, and a
 * band's rectangles extend the band's above where their columns are the
 * same. *out is malloc'd (free it); FV_ERR_NOMEM when that fails. */
fv_status fv_box_rect_union (const fv_box_rect *in, int n, int width, int height,
    fv_box_rect **out, int *nout);

typedef struct fv_box_windows fv_box_windows;

/* Window plans of one filter (params: the frame's size and the filter; its
 * window fields are set per plan) on backend, device and stream. */
fv_status fv_box_windows_create (fv_box_windows **out, const fv_box_params *params,
    fv_backend backend, int device, void *stream);

/* Filters window (x, y, w, h) of src into dst (the frame's size; dst holds
 * src's samples elsewhere, or what the caller wants there) with a kept plan
 * whose window takes it. Windows grown by the radius are rounded up to 32
 * samples a side (128 on the GPU, where a new plan's device memory stalls
 * every stream of the device), and the least recently used of more than 16
 * plans is dropped; any size gives the same samples. */
fv_status fv_box_windows_filter (fv_box_windows *c, const fv_image *src, const fv_image *dst,
    int x, int y, int w, int h);

/* The plans kept (tests). */
int fv_box_windows_kept (const fv_box_windows *c);

void fv_box_windows_destroy (fv_box_windows *c);

#ifdef __cplusplus
}
#endif
#endif
