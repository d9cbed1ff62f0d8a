/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker's files share this: its tracks and detections
 * (fv_track.c) and the detections' grouping and pairing with the tracks
 * (fv_track_pairs.c). */
#ifndef FV_TRACK_PRIVATE_H
#define FV_TRACK_PRIVATE_H

#include <glib.h>

/* two boxes of which the overlap is at least this much of the smaller are
 * one object (OpenCV's shifted duplicate of a face, two turns' boxes) */
#define SAME_OBJECT 0.5
/* detections merged pairwise up to this many a frame (beyond: a flood,
 * identical boxes only) */
#define MERGE_MAX 256

typedef struct {
  guint id;
  gboolean confirmed;      /* `confirm` detections, or one with confirm-neighbors */
  guint seen;              /* searched frames since it began, that one included */
  gint neighbors;          /* of the last detection (-1: not said) */
  gdouble angle, confidence;
  gdouble x, y, w, h;      /* the box now (predicted while coasting) */
  gdouble dw, dh;          /* its size at the last detection */
  gdouble vx, vy;          /* centre's displacement a frame */
  gdouble cx, cy;          /* centre at the last detection */
  guint age, lost, missed; /* frames: since it began, since detected, searched and missed */
  guint hits;              /* detections so far */
} Track;

typedef struct {
  gdouble x, y, w, h;
  gint neighbors;          /* what the detector said of it (-1, NAN, -1: nothing) */
  gdouble angle, confidence;
} Box;

typedef struct {
  guint t, d;
  gdouble score;
} Pair;

/* The overlap of a and b as a share of the smaller. */
gdouble fv_track_overlap_of_smaller (const Box *a, const Box *b);
/* Detections of one object become one (in place). */
void fv_track_merge_same (GArray *dets);
/* Identical detections become one (in place). */
void fv_track_dedupe (GArray *dets);
/* The pairs (track, detection) that overlap by at least min_iou, best
 * first (a GArray of Pair). */
GArray *fv_track_candidate_pairs (GArray *tracks, GArray *dets, gdouble min_iou);

#endif
