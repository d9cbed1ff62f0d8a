/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the element tests share, header only (tests/common/fvtest.h is the
 * kernel tests' and knows no GStreamer). */
#ifndef FVTEST_GST_H
#define FVTEST_GST_H

#include <string.h>
#include <gst/video/video.h>
#include "fvtest.h"

/* A frame of info's layout, every byte drawn from seed, with a video meta
 * that gives info's plane offsets and strides (padded layouts arrive as
 * laid out), PTS 0 and a thirtieth of a second's duration. */
static inline GstBuffer *
fvt_random_buffer (const GstVideoInfo *info, uint64_t seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstMapInfo map;
  fvt_rng rng = { seed };
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = fvt_next (&rng) & 0xff;
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (info),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      (gsize *) info->offset, (gint *) info->stride);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* The element's launch description and, for vjdetect where opencv-data is
 * not installed (the GPU host), the cascade from FV_CASCADES. */
static inline gchar *
fvt_element_desc (const char *element)
{
  const gchar *dir = g_getenv ("FV_CASCADES");
  if (!dir || strcmp (element, "vjdetect"))
    return g_strdup (element);
  return g_strdup_printf ("%s cascade=%s/haarcascades/haarcascade_frontalface_default.xml",
      element, dir);
}
/* The astronaut photo (FV_TEST_DATA/faces/astronaut.pgm) four times, 2 x 2,
 * GRAY8, with info set to its layout: plans of more than a megabyte for
 * every element. */
static inline GstBuffer *
fvt_photo_2x2 (GstVideoInfo *info)
{
  const gchar *dir = g_getenv ("FV_TEST_DATA");
  gchar *path = g_build_filename (dir ? dir : "tests/data", "faces", "astronaut.pgm", NULL);
  fv_image *im = fvt_load_pnm (path);
  fail_unless (im != NULL, "cannot load %s", path);
  g_free (path);
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, 2 * im->width, 2 * im->height);
  GstBuffer *b = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, b, GST_MAP_WRITE));
  for (gint y = 0; y < 2 * im->height; y++)
    for (gint x = 0; x < 2; x++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f,
              0) + x * im->width, (const guint8 *) im->data + (gsize) (y % im->height)
          * im->stride, im->width);
  gst_video_frame_unmap (&f);
  fvt_image_free (im);
  g_free (im);
  return b;
}

#endif
