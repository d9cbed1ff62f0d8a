/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rectangle outlines drawn into a mapped video frame of any packed or
 * planar 8-bit RGB, YUV or grey format: green in colour, white in grey. */
#ifndef FV_DRAW_H
#define FV_DRAW_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* Clipped to the frame; thickness in pixels of the full-resolution plane.
 * A frame mapped for CUDA is drawn on the device, queued on `stream`. */
void fv_draw_box (GstVideoFrame *frame, gint x, gint y, gint w, gint h, gint thickness,
    gpointer stream);

G_END_DECLS
#endif
