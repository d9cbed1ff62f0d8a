/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How a video format maps onto kernel images: one entry per plane, with
 * its interleaved channels, which of them carry colour (alpha and padding
 * pass through) and its subsampling. Worked out once in set_info. */
#ifndef FV_PLANES_H
#define FV_PLANES_H

#include <gst/video/video.h>
#include "fv_image.h"

G_BEGIN_DECLS

typedef struct {
  gint width, height;     /* samples */
  gint channels;          /* interleaved samples per pixel */
  guint channel_mask;     /* colour channels: the ones to process */
  fv_sample sample;
  guint w_sub, h_sub;     /* log2 subsampling against the frame */
} FvPlaneDesc;

typedef struct {
  gint n_planes;
  FvPlaneDesc plane[GST_VIDEO_MAX_PLANES];
} FvPlaneLayout;

/* FALSE for formats whose samples are not whole 8- or 16-bit values. */
gboolean fv_plane_layout_from_info (const GstVideoInfo *info, FvPlaneLayout *layout);

/* Where a mapped frame's pixels are: device memory when it was mapped for
 * CUDA (fvcudactx.h), else host memory. */
fv_mem fv_frame_mem (const GstVideoFrame *frame);

/* Kernel view of plane p of a mapped frame, on the host or the device. */
fv_image fv_plane_image (const FvPlaneLayout *layout, GstVideoFrame *frame, gint p);

/* Copies plane p from in to out, either of them host or device (a CUDA
 * copy on `stream`, waited for); FALSE with fv_last_error() set. */
gboolean fv_plane_copy (const FvPlaneLayout *layout, GstVideoFrame *out, GstVideoFrame *in,
    gint p, gpointer stream);

/* A radius along an axis scaled by a subsampling shift, rounded to nearest
 * (ties up): 3 on luma is 2 on 4:2:0 chroma. */
static inline gint
fv_scale_radius (gint radius, guint sub)
{
  return sub ? (radius + (1 << (sub - 1))) >> sub : radius;
}

/* The samples [x0, x1) x [y0, y1) of plane p that frame rectangle (x, y,
 * w, h) touches, clipped to the plane; FALSE when none. */
gboolean fv_plane_span (const FvPlaneLayout *layout, gint p, gint x, gint y, gint w, gint h,
    gint *x0, gint *y0, gint *x1, gint *y1);

G_END_DECLS
#endif
