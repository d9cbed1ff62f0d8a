/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the element tests share, header only (tests/common/fvtest.h is the
 * kernel tests' and knows no GStreamer). */
#ifndef FVTEST_GST_H
#define FVTEST_GST_H

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

#endif
