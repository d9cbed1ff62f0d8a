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

/* The regions of type roi on buf: its region-of-interest metas, and with
 * GStreamer's analytics library (1.24+) its object-detection Mtds, but for
 * those that carry the id of a ROI meta of the same type already listed
 * (vjdetect and DL Streamer attach both for one object). An array of
 * FvRoiRect (sides past G_MAXINT cut to it; boxes may reach past the
 * frame), g_array_unref it. */
typedef struct {
  gint x, y, w, h;
} FvRoiRect;
GArray *fv_meta_regions_of_type (GstBuffer *buf, GQuark roi);

/* The same regions with what the detector said of each: the ROI meta's
 * `detection` param (vjdetect: `neighbors`, and `angle` for a turned
 * scan's box) or the OD Mtd's confidence. neighbors -1 and angle NAN where
 * not said; confidence -1 where not said. An array of FvRoiDetection. */
typedef struct {
  FvRoiRect r;
  gint neighbors;
  gdouble angle;
  gdouble confidence;
} FvRoiDetection;
GArray *fv_meta_detections_of_type (GstBuffer *buf, GQuark roi);

/* A tracker's mark, after it put its regions on buf: the ROI metas of type
 * `label` are the tracks (roitrack), so the object-detection Mtds of that
 * type, the detector's raw boxes, are no longer regions of it
 * (fv_meta_regions_of_type leaves them out; analytics consumers still see
 * them), and `<label>-ids` lists the tracks' ids (which are the ROI metas'
 * ids: bindings that cannot iterate metas look them up by these). Only
 * where the detector's mark is on buf, or OD Mtds are. buf must be
 * writable. */
void fv_meta_mark_tracked (GstBuffer *buf, const gchar *label);

/* Whether a detector looked at a frame, so that a tracker can tell "no
 * object" from "not looked" (roitrack fail-closed): one custom meta
 * (FV_DETECTION_META) a buffer, its structure holding one int field per
 * object type (the detector's label): 1 searched this frame, 0 skipped on
 * purpose (vjdetect interval); for a searched frame also `<label>-ids`, an
 * array of the ids of the ROI metas of that type the frame held when it was
 * marked (mark after adding them). The meta carries the ROI meta's tags and
 * transforms, so an element that drops those drops the mark too. */
#define FV_DETECTION_META "FvDetectionMeta"
/* the frame size the regions are in (updated when the frame is scaled) */
#define FV_DETECTION_WIDTH "frame-width"
#define FV_DETECTION_HEIGHT "frame-height"
void fv_meta_register (void);

/* A frame's measurement as a whole (autofill's count, unlisted and total
 * areas): one custom meta (FV_MEASURE_META) a buffer holding a structure
 * named after the element, copied with the buffer and dropped by any
 * transform that changes its size (the areas would be wrong). Set replaces
 * the structure (taken); get returns it or NULL. */
#define FV_MEASURE_META "FvMeasureMeta"
void fv_meta_set_measure (GstBuffer *buf, GstStructure *s);
const GstStructure *fv_meta_get_measure (GstBuffer *buf);
void fv_meta_mark_detection (GstBuffer *buf, const gchar *label, gboolean searched, gint width,
    gint height);
/* 1 searched, 0 skipped, -1 no detector of that label marked the frame, -2
 * marked as searched but a region it vouched for is gone (an element
 * between dropped or changed the ROI metas), or the frame is no longer the
 * size the regions are in (width, height: the frame's now; 0 unchecked). */
gint fv_meta_detection_state (GstBuffer *buf, const gchar *label, gint width, gint height);

G_END_DECLS
#endif
