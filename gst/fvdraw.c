/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvdraw.h"
#include "fvplanes.h"
#include "fv_cuda.h"

/* Fills [x0, x1) x [y0, y1) of component c, in full-resolution pixels. */
static void
fill_comp (GstVideoFrame *f, gint c, guint8 v, gint x0, gint y0, gint x1, gint y1,
    gpointer stream)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  const gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fi, c), hs = GST_VIDEO_FORMAT_INFO_H_SUB (fi, c);
  const gint cw = GST_VIDEO_FRAME_COMP_WIDTH (f, c), ch = GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  const gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c), st = GST_VIDEO_FRAME_COMP_STRIDE (f, c);
  guint8 *base = GST_VIDEO_FRAME_COMP_DATA (f, c);
  x0 = CLAMP (x0 >> ws, 0, cw);
  x1 = CLAMP ((x1 + (1 << ws) - 1) >> ws, 0, cw);
  y0 = CLAMP (y0 >> hs, 0, ch);
  y1 = CLAMP ((y1 + (1 << hs) - 1) >> hs, 0, ch);
  if (fv_frame_mem (f) == FV_MEM_DEVICE) {
    fv_cuda_fill_rect (base, st, ps, x0, y0, x1, y1, v, stream);
    return;
  }
  for (gint y = y0; y < y1; y++)
    for (gint x = x0; x < x1; x++)
      base[y * st + x * ps] = v;
}

void
fv_draw_box (GstVideoFrame *f, gint x, gint y, gint w, gint h, gint t, gpointer stream)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint8 colour[GST_VIDEO_MAX_COMPONENTS];
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    if (GST_VIDEO_FORMAT_INFO_IS_GRAY (fi))
      colour[c] = 255;
    else if (GST_VIDEO_FORMAT_INFO_IS_RGB (fi))
      colour[c] = c == 0 || c == 2 ? 0 : 255;   /* R G B (A): green, opaque */
    else
      colour[c] = c == 0 ? 145 : c == 1 ? 54 : 34;   /* green in BT.601 YUV */
  }
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    fill_comp (f, c, colour[c], x, y, x + w, y + t, stream);
    fill_comp (f, c, colour[c], x, y + h - t, x + w, y + h, stream);
    fill_comp (f, c, colour[c], x, y, x + t, y + h, stream);
    fill_comp (f, c, colour[c], x + w - t, y, x + w, y + h, stream);
  }
}
