/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turned scans: faces turned in the image plane, found by scanning the
 * frame turned about its centre by each angle (fv_rotate.h) with a
 * detection plan (fv_vj.h), each turned box mapped back to the frame as
 * its bounding box, and boxes of one face seen at several angles merged.
 * This is what vjdetect's `angles` does; it lives here so that tests,
 * benchmarks and applications reach it without GStreamer.
 *
 * Steering (`interval` K > 1). Each turned angle scans the whole frame once
 * every K searched frames, the angles staggered over those K frames (angle
 * k of n on frames where (frame + k K / n) mod K = 0), so that every frame
 * costs about the same. In between, an angle scans only windows: around
 * each box seen in the last K searched frames (at any angle) that this
 * frame's upright scan does not find again, the box grown by half its size
 * plus a quarter of its size per frame since it was seen (not clipped to
 * the frame: a turned face near an edge has windows reaching past it), at window widths
 * from 0.4 to 1.5 times its size. Those are the faces that turned away
 * from the upright cascade or that only a turned scan has found so far.
 * A window's scan runs a plan of only the pyramid levels its sizes need
 * (the same levels as the whole plan's, so the same sums) and keeps the
 * raw windows whose rectangle on the turned frame lies inside the window's
 * rectangle there (fv_vj_turn_window_rect): exactly the raw windows the
 * whole turned scan finds there, on the CPU and on CUDA. With K = 1 every
 * angle scans the whole frame every time (no steering). Upright (angle 0)
 * is always a whole scan: OpenCV's boxes. */
#ifndef FV_VJ_TURNED_H
#define FV_VJ_TURNED_H

#include "fv_vj.h"
#include "fv_rotate.h"

#define FV_VJ_MAX_ANGLES 64
#define FV_VJ_MAX_INTERVAL 1000

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int nangles;                          /* 1 .. FV_VJ_MAX_ANGLES */
  double angles[FV_VJ_MAX_ANGLES];      /* degrees, -90 .. 90; 0 is the upright scan */
  int turned_min_neighbors;             /* a turned box needs at least this many raw windows */
  int interval;                         /* K: 1 .. FV_VJ_MAX_INTERVAL */
  /* a box no upright scan saw is returned only once scans at this many
   * different angles see it in one frame (1: any turned box); until then
   * it is only remembered, so that the next frame's windows look at it at
   * every angle. 1 .. FV_VJ_MAX_ANGLES */
  int agreement;
  /* between an angle's whole scans, also the bands along the frame's four
   * edges, this share of its shorter side wide (as windows of that width
   * tiling them), for faces up to that width: a turned face entering the
   * frame is found on its first searched frame inside, not at its angle's
   * next whole scan. 0: none; at most FV_VJ_MAX_EDGE */
  double edge;
} fv_vj_turn_params;

#define FV_VJ_MAX_EDGE 0.5

typedef struct {
  fv_rect box;        /* in the frame */
  int neighbors;      /* raw windows, summed over the angles merged */
  double angle;       /* the angle that saw it with most neighbours */
  int nangles;        /* the different angles that saw it */
} fv_vj_turned_det;

/* Where to look on a turned frame: a rectangle of the frame and the
 * window widths (on the turned frame) to keep. */
typedef struct {
  fv_rect frame;
  int min_w, max_w;
} fv_vj_turn_window;

typedef struct fv_vj_turns fv_vj_turns;

/* plan: the whole detection for the frame size (kept, not owned: it must
 * outlive t); the steered plans are made like it (same cascade, params,
 * back end, device and stream) with fewer levels. */
fv_status fv_vj_turns_create (fv_vj_turns **t, fv_vj_plan *plan, const fv_vj_turn_params *tp,
    int device, void *stream);

/* One searched frame (GRAY8 of the plan's size, host or device as the
 * plan takes it): the merged boxes, owned by t until its next execute. */
fv_status fv_vj_turns_execute (fv_vj_turns *t, const fv_image *gray,
    const fv_vj_turned_det **det, int *n);

/* One scan at `degrees` (not 0) restricted to windows (nw 0: the whole
 * turned frame): its raw windows on the turned frame, owned by t until its
 * next call (tests, tools). */
fv_status fv_vj_turns_scan (fv_vj_turns *t, const fv_image *gray, double degrees,
    const fv_vj_turn_window *w, int nw, const fv_rect **raw, int *nraw);

/* A window's rectangle on the frame turned by r (w x h): the bounding
 * box of its corners there. A raw window r is in it when its rectangle
 * lies inside that one and min_w <= r.width <= max_w. */
fv_rect fv_vj_turn_window_rect (const fv_vj_turn_window *win, fv_rotation r, int w, int h);

/* What the last execute did (benchmarks, logs). */
typedef struct {
  int whole_scans, steered_scans, windows, remembered;
  int edge_windows;   /* of the windows, those tiling the edges */
  int held;   /* turned boxes not returned: too few angles agreed */
} fv_vj_turn_stats;
fv_vj_turn_stats fv_vj_turns_stats (const fv_vj_turns *t);

/* Forgets the boxes seen and starts the stagger again (a new stream). */
void fv_vj_turns_reset (fv_vj_turns *t);

void fv_vj_turns_destroy (fv_vj_turns *t);

/* Boxes of one face at several angles: those overlapping by half of the
 * smaller, transitively, become their bounding box (the larger, for a
 * privacy filter), neighbours summed, the angle of the one with most
 * neighbours, nangles the different angles in the group (in's nangles
 * ignored); in the order of each group's first box. Returns the count
 * written to out (room for n), or -1 without memory. */
int fv_vj_merge_turns (const fv_vj_turned_det *in, int n, fv_vj_turned_det *out);

#ifdef __cplusplus
}
#endif
#endif
