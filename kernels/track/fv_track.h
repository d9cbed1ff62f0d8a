/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The region tracker behind roitrack, without GStreamer: detections of one
 * object type in, frame by frame, tracked boxes out, `delay` frames later.
 * Its rules are docs/roitrack.md's ("What it does, frame by frame"):
 * detections of one object merged, association by overlap, confirmation,
 * coasting with bounded growth, the edge rule, duplicates, early boxes
 * before a track's first detection, fail-closed frames.
 *
 * Plan once, run per frame: fv_tracker_new, fv_tracker_reset for a frame
 * size (and to forget everything: a seek, a new stream), then per frame
 * fv_tracker_push and, while more than `delay` frames are held,
 * fv_tracker_pop (at the end of a stream, pop until nothing is held). The
 * parameters may change between frames. Not thread-safe: one caller at a
 * time. */
#ifndef FV_TRACK_H
#define FV_TRACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* detections in one frame and tracks at once at most: past them a frame is
 * closed whole (fail-closed) instead of memory and time without bound */
#define FV_TRACK_MAX_DETECTIONS 4096
#define FV_TRACK_MAX_TRACKS 4096
#define FV_TRACK_MAX_DELAY 300

/* A detection; what the detector said of it: neighbors -1, angle NAN and
 * confidence -1 where nothing. */
typedef struct {
  double x, y, w, h;
  int neighbors;
  double angle, confidence;
} fv_track_det;

typedef struct {
  unsigned hold;               /* searched frames a lost track coasts */
  unsigned hold_once;          /* the same for one detected once */
  unsigned delay;              /* frames held back (early boxes) */
  unsigned confirm;            /* detections that confirm a track */
  unsigned confirm_neighbors;  /* neighbours that confirm at once (0: never) */
  double margin, grow, min_iou;
  int fail_closed;             /* frames nobody searched get a whole-frame box */
} fv_track_params;

/* roitrack's defaults */
void fv_track_params_init (fv_track_params *p);

/* A box out: the margin applied, clipped to the frame. early: frames
 * before the track's first detection (0 for a detected or coasting box).
 * neighbors, angle, confidence: of the track's last detection. */
typedef struct {
  int x, y, w, h;
  unsigned id, age, lost, early;
  int neighbors;
  double angle, confidence;
} fv_track_box;

/* A frame's state as the detector marked it. */
enum {
  FV_TRACK_DROPPED = -2,       /* marked, but regions it found are gone */
  FV_TRACK_UNMARKED = -1,      /* no detector looked at it */
  FV_TRACK_SKIPPED = 0,        /* skipped on purpose (vjdetect interval) */
  FV_TRACK_SEARCHED = 1,
};

/* A frame out: its boxes (valid until the next call on the tracker), and
 * whole when it gets a whole-frame box too (fail-closed, or more regions
 * than the tracker follows). */
typedef struct {
  uint64_t n;                  /* frames since the reset */
  int searched;
  int whole;
  int overflow;
  size_t n_boxes;
  const fv_track_box *boxes;
} fv_track_frame;

typedef enum { FV_TRACK_LOG_INFO, FV_TRACK_LOG_DEBUG } fv_track_log_level;
typedef void (*fv_track_log_fn) (void *user, fv_track_log_level level, const char *message);

typedef struct fv_tracker fv_tracker;

fv_tracker *fv_tracker_new (void);
void fv_tracker_free (fv_tracker *t);
/* Where the tracker tells of tracks born, confirmed, coasting, found again
 * and ended (NULL: nowhere). */
void fv_tracker_set_log (fv_tracker *t, fv_track_log_fn fn, void *user);
/* Everything forgotten (tracks, held frames, ids counted from 1 again only
 * with restart_ids), for frames of this size. */
void fv_tracker_reset (fv_tracker *t, int width, int height, int restart_ids);
/* One frame in (searched: FV_TRACK_*; dets only read when searched).
 * Returns 1 when it held more regions, or would make more tracks, than the
 * tracker follows: it then leaves whole. */
int fv_tracker_push (fv_tracker *t, const fv_track_params *p, int searched,
    const fv_track_det *dets, size_t n);
/* Frames held (pushed and not popped). */
size_t fv_tracker_held (const fv_tracker *t);
/* Tracks alive. */
size_t fv_tracker_count (const fv_tracker *t);
/* The oldest held frame out; 0 when none is held. */
int fv_tracker_pop (fv_tracker *t, const fv_track_params *p, fv_track_frame *out);

#ifdef __cplusplus
}
#endif

#endif
