/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rectangle outlines and numbers drawn into a mapped video frame of any
 * packed or planar 8-bit RGB, YUV or grey format. */
#ifndef FV_DRAW_H
#define FV_DRAW_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* A colour in each kind of format: grey level, BT.601 Y'CbCr, RGB. */
typedef struct {
  guint8 grey, y, u, v, r, g, b;
} FvDrawColour;

/* green (white in grey): vjdetect's boxes */
extern const FvDrawColour fv_draw_green;
/* green and red (mid-grey in grey, seen on white silhouettes and on black):
 * autofill's parts and holes */
extern const FvDrawColour fv_draw_part, fv_draw_hole;

/* Clipped to the frame; thickness in pixels of the full-resolution plane.
 * A frame mapped for CUDA is drawn on the device, queued on `stream`. */
void fv_draw_box (GstVideoFrame *frame, gint x, gint y, gint w, gint h, gint thickness,
    gpointer stream);
void fv_draw_box_in (GstVideoFrame *frame, const FvDrawColour *colour, gint x, gint y, gint w,
    gint h, gint thickness, gpointer stream);
/* n in decimal digits 3 x 5 cells of `cell` pixels, its top left at x, y. */
void fv_draw_number (GstVideoFrame *frame, const FvDrawColour *colour, gint x, gint y, guint n,
    gint cell, gpointer stream);
/* The width of what fv_draw_number draws. */
gint fv_draw_number_width (guint n, gint cell);

G_END_DECLS
#endif
