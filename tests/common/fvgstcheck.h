/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers of the element tests (GStreamer only; header-only, so that
 * the kernel tests' library needs no GStreamer). */
#ifndef FV_GST_CHECK_H
#define FV_GST_CHECK_H

#include <string.h>
#include <gst/gst.h>

/* Whether two buffers hold the same bytes. */
static inline gboolean
fvt_same_bytes (GstBuffer *a, GstBuffer *b)
{
  GstMapInfo ma, mb;
  if (!gst_buffer_map (a, &ma, GST_MAP_READ))
    return FALSE;
  if (!gst_buffer_map (b, &mb, GST_MAP_READ)) {
    gst_buffer_unmap (a, &ma);
    return FALSE;
  }
  const gboolean same = ma.size == mb.size && !memcmp (ma.data, mb.data, ma.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

#endif
