/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/video/video.h>
#include "fvmeta.h"

gboolean
fv_meta_survives_filter (GstMeta *meta)
{
  static const gchar *const kept[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL };
  GType api = meta->info->api;
  const gchar *const *tags = gst_meta_api_type_get_tags (api);
  for (; tags && *tags; tags++)
    if (!g_strv_contains (kept, *tags))
      return FALSE;
  return TRUE;
}
