/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The region tracker (kernels/track) on recorded detections, without
 * GStreamer or a detector: each setting of roitrack measured on the same
 * detections in a fraction of a second (tests/bench/bench_privacy.py
 * --replay records them and scores what comes out). Not run by CI.
 *
 *   bench_track W H [key=value ...] < detections > boxes
 *
 * keys: hold, hold-once, delay, confirm, confirm-neighbors, margin, grow,
 * min-iou, fail-closed (roitrack's properties). Input: per frame a line
 * "frame SEARCHED N" then N lines "x y w h neighbors angle". Output: per
 * frame a line "frame F WHOLE N" then N lines "x y w h id lost early". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fv_track.h"

static int
set (fv_track_params *p, const char *kv)
{
  const char *eq = strchr (kv, '=');
  if (!eq)
    return 0;
  const double v = atof (eq + 1);
  const size_t n = (size_t) (eq - kv);
#define KEY(name) (n == strlen (name) && !strncmp (kv, name, n))
  if (KEY ("hold")) p->hold = (unsigned) v;
  else if (KEY ("hold-once")) p->hold_once = (unsigned) v;
  else if (KEY ("delay")) p->delay = (unsigned) v;
  else if (KEY ("confirm")) p->confirm = (unsigned) v;
  else if (KEY ("confirm-neighbors")) p->confirm_neighbors = (unsigned) v;
  else if (KEY ("margin")) p->margin = v;
  else if (KEY ("grow")) p->grow = v;
  else if (KEY ("min-iou")) p->min_iou = v;
  else if (KEY ("fail-closed")) p->fail_closed = (int) v;
  else return 0;
#undef KEY
  return 1;
}

static void
emit (fv_tracker *t, const fv_track_params *p)
{
  fv_track_frame f;
  if (!fv_tracker_pop (t, p, &f))
    return;
  printf ("frame %llu %d %zu\n", (unsigned long long) f.n, f.whole, f.n_boxes);
  for (size_t i = 0; i < f.n_boxes; i++)
    printf ("%d %d %d %d %u %u %u\n", f.boxes[i].x, f.boxes[i].y, f.boxes[i].w, f.boxes[i].h,
        f.boxes[i].id, f.boxes[i].lost, f.boxes[i].early);
}

int
main (int argc, char **argv)
{
  if (argc < 3) {
    fprintf (stderr, "usage: bench_track W H [key=value ...] < detections\n");
    return 2;
  }
  fv_track_params p;
  fv_track_params_init (&p);
  for (int i = 3; i < argc; i++)
    if (!set (&p, argv[i])) {
      fprintf (stderr, "unknown setting %s\n", argv[i]);
      return 2;
    }
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, atoi (argv[1]), atoi (argv[2]), 1);
  long frame;
  int searched;
  size_t n;
  fv_track_det *d = NULL;
  size_t cap = 0;
  while (scanf (" frame %ld %d %zu", &frame, &searched, &n) == 3) {
    if (n > cap) {
      cap = n;
      d = realloc (d, cap * sizeof *d);
    }
    for (size_t i = 0; i < n; i++) {
      d[i].confidence = -1;
      if (scanf ("%lf %lf %lf %lf %d %lf", &d[i].x, &d[i].y, &d[i].w, &d[i].h, &d[i].neighbors,
              &d[i].angle) != 6) {
        fprintf (stderr, "frame %ld: a detection does not read\n", frame);
        return 1;
      }
    }
    fv_tracker_push (t, &p, searched, d, n);
    while (fv_tracker_held (t) > p.delay)
      emit (t, &p);
  }
  while (fv_tracker_held (t) > 0)
    emit (t, &p);
  free (d);
  fv_tracker_free (t);
  return 0;
}
