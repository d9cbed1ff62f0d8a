/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which metas survive a fastvision filter: ours never move or resize the
 * picture, so metas tied only to its geometry (regions of interest, video
 * layout, orientation) stay valid and are copied to the output. */
#ifndef FV_META_H
#define FV_META_H

#include <gst/gst.h>

G_BEGIN_DECLS

gboolean fv_meta_survives_filter (GstMeta *meta);

/* The id for the next region-of-interest meta added to buf: one above every
 * id its ROI metas already carry (whichever element added them), so that
 * ids stay unique within a buffer. */
gint fv_meta_next_roi_id (GstBuffer *buf);

/* An element message's structure named `name` with the frame's times, as
 * every fastvision message carries them: timestamp, stream-time,
 * running-time and duration (nanoseconds) of buf in segment. */
GstStructure *fv_meta_frame_structure (const gchar *name, GstBuffer *buf,
    const GstSegment *segment);

G_END_DECLS
#endif
