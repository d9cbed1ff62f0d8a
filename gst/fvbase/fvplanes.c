/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include "fvplanes.h"
#include "fvcudactx.h"
#include "fv_cuda.h"

gboolean
fv_plane_layout_from_info (const GstVideoInfo *info, FvPlaneLayout *layout)
{
  const GstVideoFormatInfo *f = info->finfo;
  memset (layout, 0, sizeof *layout);
  layout->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); c++) {
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (f, c);
    guint bytes = depth > 8 ? 2 : 1;
    if ((depth != 8 && depth != 16) || GST_VIDEO_FORMAT_INFO_SHIFT (f, c))
      return FALSE;
    gint p = GST_VIDEO_FORMAT_INFO_PLANE (f, c);
    FvPlaneDesc *d = &layout->plane[p];
    gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
    d->sample = bytes == 2 ? FV_U16 : FV_U8;
    d->channels = pstride / bytes;
    d->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    d->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    d->w_sub = GST_VIDEO_FORMAT_INFO_W_SUB (f, c);
    d->h_sub = GST_VIDEO_FORMAT_INFO_H_SUB (f, c);
    if (!(GST_VIDEO_FORMAT_INFO_HAS_ALPHA (f) && c == GST_VIDEO_COMP_A))
      d->channel_mask |= 1u << (GST_VIDEO_FORMAT_INFO_POFFSET (f, c) / bytes);
    if (d->channels < 1 || d->channels > 4)
      return FALSE;
  }
  return TRUE;
}

fv_mem
fv_frame_mem (const GstVideoFrame *frame)
{
  const GstMapFlags cuda = fv_cuda_map_flags ();
  return cuda && (frame->map[0].flags & cuda) ? FV_MEM_DEVICE : FV_MEM_HOST;
}

fv_image
fv_plane_image (const FvPlaneLayout *layout, GstVideoFrame *frame, gint p)
{
  const FvPlaneDesc *d = &layout->plane[p];
  return fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (frame, p),
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, p), d->width, d->height, d->channels,
      d->sample, fv_frame_mem (frame));
}

gboolean
fv_plane_copy (const FvPlaneLayout *layout, GstVideoFrame *out, GstVideoFrame *in, gint p,
    gpointer stream)
{
  if (fv_frame_mem (in) == FV_MEM_HOST && fv_frame_mem (out) == FV_MEM_HOST)
    return gst_video_frame_copy_plane (out, in, p);
  fv_image s = fv_plane_image (layout, in, p), d = fv_plane_image (layout, out, p);
  return fv_cuda_copy_rows (d.data, d.stride, s.data, s.stride, fv_image_row_bytes (&s),
      s.height, stream) == FV_OK;
}

gboolean
fv_plane_span (const FvPlaneLayout *layout, gint p, gint x, gint y, gint w, gint h,
    gint *x0, gint *y0, gint *x1, gint *y1)
{
  const FvPlaneDesc *d = &layout->plane[p];
  *x0 = MAX (x, 0) >> d->w_sub;
  *y0 = MAX (y, 0) >> d->h_sub;
  *x1 = MIN ((gint) (((gint64) x + w + (1 << d->w_sub) - 1) >> d->w_sub), d->width);
  *y1 = MIN ((gint) (((gint64) y + h + (1 << d->h_sub) - 1) >> d->h_sub), d->height);
  return *x1 > *x0 && *y1 > *y0;
}
