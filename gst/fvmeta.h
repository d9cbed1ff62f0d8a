/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which metas survive a fastvision filter: ours never move or resize the
 * picture, so metas tied only to its geometry (regions of interest, video
 * layout, orientation) stay valid and are copied to the output. */
#ifndef FV_META_H
#define FV_META_H

#include <gst/gst.h>

G_BEGIN_DECLS

gboolean fv_meta_survives_filter (GstMeta *meta);

G_END_DECLS
#endif
