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

const FvDrawColour fv_draw_green = { 255, 145, 54, 34, 0, 255, 0 };
const FvDrawColour fv_draw_part = { 128, 145, 54, 34, 0, 255, 0 };
const FvDrawColour fv_draw_hole = { 128, 81, 90, 240, 255, 0, 0 };

/* Fills [x0, x1) x [y0, y1) of every component with the colour. */
static void
fill_rect (GstVideoFrame *f, const FvDrawColour *k, gint x0, gint y0, gint x1, gint y1,
    gpointer stream)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
    guint8 v;
    if (GST_VIDEO_FORMAT_INFO_IS_GRAY (fi))
      v = k->grey;
    else if (GST_VIDEO_FORMAT_INFO_IS_RGB (fi))
      v = c == 0 ? k->r : c == 1 ? k->g : c == 2 ? k->b : 255;   /* R G B (A), opaque */
    else
      v = c == 0 ? k->y : c == 1 ? k->u : k->v;
    fill_comp (f, c, v, x0, y0, x1, y1, stream);
  }
}

void
fv_draw_box_in (GstVideoFrame *f, const FvDrawColour *k, gint x, gint y, gint w, gint h,
    gint t, gpointer stream)
{
  fill_rect (f, k, x, y, x + w, y + t, stream);
  fill_rect (f, k, x, y + h - t, x + w, y + h, stream);
  fill_rect (f, k, x, y, x + t, y + h, stream);
  fill_rect (f, k, x + w - t, y, x + w, y + h, stream);
}

void
fv_draw_box (GstVideoFrame *f, gint x, gint y, gint w, gint h, gint t, gpointer stream)
{
  fv_draw_box_in (f, &fv_draw_green, x, y, w, h, t, stream);
}

/* 3 x 5 digits, a row a nibble (bit 2 the left cell) */
static const guint8 digits[10][5] = {
  { 7, 5, 5, 5, 7 }, { 2, 6, 2, 2, 7 }, { 7, 1, 7, 4, 7 }, { 7, 1, 7, 1, 7 },
  { 5, 5, 7, 1, 1 }, { 7, 4, 7, 1, 7 }, { 7, 4, 7, 5, 7 }, { 7, 1, 1, 1, 1 },
  { 7, 5, 7, 5, 7 }, { 7, 5, 7, 1, 7 },
};

gint
fv_draw_number_width (guint n, gint cell)
{
  gint k = 1;
  for (; n >= 10; n /= 10)
    k++;
  return k * 4 * cell - cell;
}

void
fv_draw_number (GstVideoFrame *f, const FvDrawColour *k, gint x, gint y, guint n, gint cell,
    gpointer stream)
{
  gchar text[16];
  const gint len = g_snprintf (text, sizeof text, "%u", n);
  for (gint i = 0; i < len; i++) {
    const guint8 *d = digits[text[i] - '0'];
    const gint x0 = x + i * 4 * cell;
    /* each row's cells as runs: a rectangle a run, two at most a row */
    for (gint r = 0; r < 5; r++)
      for (gint c = 0; c < 3;) {
        if (!(d[r] >> (2 - c) & 1)) {
          c++;
          continue;
        }
        gint e = c;
        while (e < 3 && d[r] >> (2 - e) & 1)
          e++;
        fill_rect (f, k, x0 + c * cell, y + r * cell, x0 + e * cell, y + (r + 1) * cell, stream);
        c = e;
      }
  }
}
