/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The region tracker (kernels/track) against its reference written from
 * docs/roitrack.md (tests/common/fvtrack_ref.h) on random scenes, then the
 * rules one at a time: duplicate boxes of one face, one-off false boxes,
 * confirmation inside the delay, a track leaving at an edge and one
 * drifting near it, a face that turns back, growth bounds, fail-closed and
 * the flood bound. */
#include <math.h>
#include <stdlib.h>
#include <glib.h>
#include "fvtest.h"
#include "fv_track.h"
#include "fv_match.h"

#include "fvtrack_ref.h"

static fv_track_params
params (void)
{
  fv_track_params p;
  fv_track_params_init (&p);
  p.hold = HOLD;
  p.hold_once = HOLD_ONCE;
  p.margin = MARGIN;
  p.grow = GROW;
  p.min_iou = MIN_IOU;
  return p;
}

static fv_track_det
det (double x, double y, double w, double h)
{
  return (fv_track_det) { x, y, w, h, -1, NAN, -1 };
}

/* One frame in and, with no delay, out. */
static fv_track_frame
step (fv_tracker *t, const fv_track_params *p, int searched, const fv_track_det *d, size_t n)
{
  fv_track_frame f = { 0 };
  fv_tracker_push (t, p, searched, d, n);
  if (fv_tracker_held (t) > p->delay)
    fv_tracker_pop (t, p, &f);
  return f;
}

static int
by_id (const void *a, const void *b)
{
  return (int) ((const Out *) a)->id - (int) ((const Out *) b)->id;
}

/* Random scenes: objects entering, leaving, crossing, with detector gaps,
 * jitter, false boxes, skipped and unmarked frames; box by box, id by id. */
static void
random_scenes (void)
{
  const fv_track_params p = params ();
  for (int scene = 0; scene < 40; scene++) {
    fvt_rng rng = { 7000u + (uint32_t) scene };
    fv_tracker *t = fv_tracker_new ();
    fv_tracker_reset (t, W, H, 1);
    Ref ref = { .next = 1 };
    const int nobj = 1 + (int) (fvt_next (&rng) % 5);
    struct { int from, to; double x, y, vx, vy, s; } ob[8];
    for (int k = 0; k < nobj; k++) {
      ob[k].from = (int) (fvt_next (&rng) % 40);
      ob[k].to = ob[k].from + 5 + (int) (fvt_next (&rng) % 75);
      ob[k].x = fvt_next (&rng) % (W - 100);
      ob[k].y = fvt_next (&rng) % (H - 100);
      ob[k].vx = (double) (fvt_next (&rng) % 1201) / 100.0 - 6;
      ob[k].vy = (double) (fvt_next (&rng) % 801) / 100.0 - 4;
      ob[k].s = 24 + fvt_next (&rng) % 96;
    }
    for (int f = 0; f < 120; f++) {
      const uint32_t r = fvt_next (&rng) % 100;
      const int searched = r < 5 ? -1 : r < 20 ? 0 : 1;
      Box bx[16];
      fv_track_det d[16];
      int nd = 0;
      for (int k = 0; k < nobj && searched == 1; k++) {
        if (f < ob[k].from || f >= ob[k].to || fvt_next (&rng) % 100 < 25)
          continue;
        const double x = ob[k].x + ob[k].vx * (f - ob[k].from);
        const double y = ob[k].y + ob[k].vy * (f - ob[k].from);
        const double j = (double) (fvt_next (&rng) % 7) - 3;
        Box b = { floor (x + j), floor (y - j), floor (ob[k].s + j), floor (ob[k].s + j) };
        if (b.x >= 0 && b.y >= 0 && b.x + b.w <= W && b.y + b.h <= H)
          bx[nd++] = b;
      }
      if (searched == 1 && fvt_next (&rng) % 10 == 0)   /* a false detection */
        bx[nd++] = (Box) { fvt_next (&rng) % (W - 40), fvt_next (&rng) % (H - 40), 30, 30 };
      for (int i = 0; i < nd; i++)
        d[i] = det (bx[i].x, bx[i].y, bx[i].w, bx[i].h);
      const fv_track_frame fr = step (t, &p, searched, d, (size_t) nd);
      ref_frame (&ref, bx, nd, searched);
      Out want[256], got[256];
      const int m = ref_out (&ref, want);
      FVT_CHECK ((int) fr.n_boxes == m, "scene %d frame %d: %zu boxes, want %d", scene, f,
          fr.n_boxes, m);
      FVT_CHECK (fr.whole == (searched < 0), "scene %d frame %d: whole %d", scene, f, fr.whole);
      if ((int) fr.n_boxes != m)
        continue;
      for (int i = 0; i < m; i++)
        got[i] = (Out) { fr.boxes[i].x, fr.boxes[i].y, fr.boxes[i].w, fr.boxes[i].h,
          fr.boxes[i].id, fr.boxes[i].age, fr.boxes[i].lost };
      qsort (got, (size_t) m, sizeof *got, by_id);
      qsort (want, (size_t) m, sizeof *want, by_id);
      for (int i = 0; i < m; i++)
        FVT_CHECK (!memcmp (&got[i], &want[i], sizeof got[i]), "scene %d frame %d box %d: "
            "%d,%d %dx%d id %u age %u lost %u, want %d,%d %dx%d id %u age %u lost %u", scene, f,
            i, got[i].x, got[i].y, got[i].w, got[i].h, got[i].id, got[i].age, got[i].lost,
            want[i].x, want[i].y, want[i].w, want[i].h, want[i].id, want[i].age, want[i].lost);
    }
    fv_tracker_free (t);
  }
}

/* OpenCV's second box, shifted upwards over the same face, with fewer
 * neighbours: one track, the surer box, one id, for every frame. */
static void
duplicates (void)
{
  const fv_track_params p = params ();
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, W, H, 1);
  for (int f = 0; f < 30; f++) {
    fv_track_det d[2] = { det (200 + f, 200, 100, 100), det (195 + f, 160, 110, 110) };
    d[0].neighbors = 30;
    d[1].neighbors = 6;
    /* the duplicate comes and goes */
    const fv_track_frame fr = step (t, &p, 1, d, f % 3 ? 2 : 1);
    FVT_CHECK (fr.n_boxes == 1 && fr.boxes[0].id == 1, "frame %d: %zu boxes, id %u", f,
        fr.n_boxes, fr.n_boxes ? fr.boxes[0].id : 0);
    FVT_CHECK (fr.n_boxes == 1 && fr.boxes[0].y == 190 && fr.boxes[0].h == 120
        && fr.boxes[0].neighbors == 30, "frame %d: the surer box, not the union (y %d h %d)",
        f, fr.n_boxes ? fr.boxes[0].y : -1, fr.n_boxes ? fr.boxes[0].h : -1);
  }
  fv_tracker_free (t);
}

/* With delay=3: a one-off false box blurs nothing; a box found twice in the
 * held frames blurs from the frame before its first detection on; one
 * with confirm-neighbors from three frames before. */
static void
confirmation (void)
{
  fv_track_params p = params ();
  p.delay = 3;
  for (int c = 0; c < 3; c++) {
    fv_tracker *t = fv_tracker_new ();
    fv_tracker_reset (t, W, H, 1);
    int shown[12] = { 0 }, early[12] = { 0 };
    for (int f = 0; f < 12 + 3; f++) {
      fv_track_det d = det (300, 200, 60, 60);
      d.neighbors = c == 2 ? 25 : 5;
      const int found = c == 0 ? f == 5 : (f == 5 || (c == 1 && f == 7));
      fv_tracker_push (t, &p, f < 12 ? 1 : 0, &d, found ? 1 : 0);
      fv_track_frame fr;
      while (fv_tracker_held (t) > (f < 12 ? p.delay : 0) && fv_tracker_pop (t, &p, &fr))
        if (fr.n < 12) {
          shown[fr.n] = (int) fr.n_boxes;
          early[fr.n] = fr.n_boxes ? (int) fr.boxes[0].early : -1;
        }
    }
    for (int f = 0; f < 12; f++) {
      int want = 0;
      if (c == 1)
        want = f >= 4 && f <= 7 + HOLD;   /* confirmed at 7: frame 4 still held */
      else if (c == 2)
        want = f >= 2 && f <= 5 + HOLD_ONCE;
      FVT_CHECK (shown[f] == want, "case %d frame %d: %d boxes, want %d", c, f, shown[f], want);
    }
    if (c == 1)
      FVT_CHECK (early[4] == 1 && early[5] == 0, "early %d %d", early[4], early[5]);
    if (c == 2)
      FVT_CHECK (early[2] == 3 && early[3] == 2 && early[4] == 1, "early %d %d %d", early[2],
          early[3], early[4]);
    fv_tracker_free (t);
  }
  /* no delay: the tentative box shows where detected only, and ends at
   * the first searched frame that misses it */
  p = params ();
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, W, H, 1);
  fv_track_det d = det (50, 50, 40, 40);
  FVT_CHECK (step (t, &p, 1, &d, 1).n_boxes == 1, "detected: shown");
  FVT_CHECK (step (t, &p, 0, NULL, 0).n_boxes == 1, "skipped frame: still shown");
  FVT_CHECK (step (t, &p, 1, NULL, 0).n_boxes == 0, "missed: gone (no coasting)");
  FVT_CHECK (fv_tracker_count (t) == 0, "ended unconfirmed");
  fv_tracker_free (t);
}

/* Detected in `hits` frames moving by (vx, vy) a frame from (x, y), then
 * missed for `lost` searched frames: the last frame's box. */
static fv_track_box
coast (double x, double y, double s, double vx, double vy, int hits, int lost)
{
  fv_track_params p = params ();
  p.hold = 100;
  p.margin = 0;
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, W, H, 1);
  fv_track_frame fr = { 0 };
  for (int f = 0; f < hits + lost; f++) {
    fv_track_det d = det (x + vx * f, y + vy * f, s, s);
    fr = step (t, &p, 1, &d, f < hits ? 1 : 0);
  }
  fv_track_box b = fr.n_boxes ? fr.boxes[0] : (fv_track_box) { 0 };
  fv_tracker_free (t);
  return b;
}

static void
edges_and_growth (void)
{
  /* leaving at the right edge at 8 px a frame: stretched to the edge */
  fv_track_box b = coast (400, 200, 80, 8, 0, 10, 2);
  FVT_CHECK (b.x + b.w == W, "a leaving box reaches the edge: %d+%d", b.x, b.w);
  /* drifting at 0.5 px a frame near the top: not stretched up */
  b = coast (300, 30, 80, 0.5, -0.5, 10, 3);
  FVT_CHECK (b.y > 0, "a drifting box stays off the top edge: y %d", b.y);
  /* moving right near the top: the top edge not taken */
  b = coast (100, 20, 80, 6, -0.5, 10, 2);
  FVT_CHECK (b.y > 0, "a box moving sideways near the top stays off it: y %d", b.y);
  /* growth: detected twice, lost 10 frames: at most 1 + 2 GROW */
  b = coast (200, 200, 100, 0, 0, 2, 10);
  FVT_CHECK (b.w <= (int) ceil (100 * (1 + 2 * GROW)) + 1, "growth bound by detections: %d",
      b.w);
  /* detected 40 times, lost 40 frames: at most MAX_GROWTH */
  b = coast (200, 150, 100, 0, 0, 40, 40);
  FVT_CHECK (b.w <= (int) ceil (100 * MAX_GROWTH) + 1 && b.w >= 140, "growth bound: %d", b.w);
  /* a face that turns back: lost for 3 frames moving right, found moving
   * left where its box still is: the same track */
  fv_track_params p = params ();
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, W, H, 1);
  for (int f = 0; f < 14; f++) {
    const double x = f < 8 ? 200 + 4 * f : 228 - 2 * (f - 8);
    fv_track_det d = det (x, 200, 80, 80);
    const fv_track_frame fr = step (t, &p, 1, &d, f >= 8 && f < 11 ? 0 : 1);
    FVT_CHECK (fr.n_boxes == 1 && fr.boxes[0].id == 1, "frame %d: %zu boxes, id %u", f,
        fr.n_boxes, fr.n_boxes ? fr.boxes[0].id : 0);
  }
  fv_tracker_free (t);
}

static void
fail_closed_and_floods (void)
{
  fv_track_params p = params ();
  fv_tracker *t = fv_tracker_new ();
  fv_tracker_reset (t, W, H, 1);
  FVT_CHECK (step (t, &p, FV_TRACK_UNMARKED, NULL, 0).whole, "unmarked: whole");
  FVT_CHECK (step (t, &p, FV_TRACK_DROPPED, NULL, 0).whole, "regions dropped: whole");
  FVT_CHECK (!step (t, &p, FV_TRACK_SKIPPED, NULL, 0).whole, "skipped on purpose: not whole");
  p.fail_closed = 0;
  FVT_CHECK (!step (t, &p, FV_TRACK_UNMARKED, NULL, 0).whole, "fail-closed off");
  /* more detections than followed: whole, in bounded time */
  const size_t n = FV_TRACK_MAX_DETECTIONS + 10;
  fv_track_det *d = g_new (fv_track_det, n);
  for (size_t i = 0; i < n; i++)
    d[i] = det ((double) (i % 600), (double) (i / 600) * 2, 8, 8);
  FVT_CHECK (step (t, &p, 1, d, n).whole, "a flood: whole");
  /* as many identical boxes are one */
  for (size_t i = 0; i < n; i++)
    d[i] = det (10, 10, 30, 30);
  const fv_track_frame fr = step (t, &p, 1, d, n);
  FVT_CHECK (!fr.whole && fr.n_boxes == 1, "identical boxes: one (%zu)", fr.n_boxes);
  g_free (d);
  fv_tracker_free (t);
}

/* Ids along a belt (fv_matcher): parts of several sizes move right at
 * speeds up to nearly half their width a frame (until an object has moved
 * once, its box last seen is its prediction; a small one moving more than
 * its width keeps its id by the others' motion), enter on the left and leave
 * on the right, one is missed for two frames, two ride side by side a
 * pixel apart. Every part keeps one id while it is on the belt, no two parts
 * share one, and a part that comes back after leaving gets a new one. */
static void
belt (void)
{
  enum { PARTS = 13, FRAMES = 240, BELT = 1000 };
  fv_matcher *m = fv_matcher_new ();
  uint32_t id_of[PARTS][4] = { { 0 } };   /* per part and lap: its id */
  int wrong = 0, shared = 0;
  for (int speed = 2; speed <= 14; speed += 6) {
    fv_matcher_reset (m);
    memset (id_of, 0, sizeof id_of);
    for (int f = 0; f < FRAMES; f++) {
      fv_match_box boxes[PARTS];
      int who[PARTS], lap[PARTS], n = 0;
      for (int p = 0; p < PARTS; p++) {
        /* speed / w up to 0.47; part 12, 6 wide, moves up to twice its
         * width a frame: it keeps its id by the belt's motion */
        const double w = p == 12 ? 6 : 30 + p % 4 * 10;
        /* part 5 rides 1 px right of part 4 (30 wide), in its row */
        const double start = p == 5 ? -(4 * 90.0) + 31 : -(p * 90.0);
        const double pos = start + (double) speed * f;
        const int l = (int) (pos / (BELT + 200));
        const double x = pos - l * (BELT + 200);
        if (pos < 0 || x >= BELT || (p == 7 && (f == 20 || f == 21)))
          continue;
        boxes[n] = (fv_match_box) { x, 100 + (p == 5 ? 4 : p) % 3 * 50, w, 24 };
        who[n] = p;
        lap[n++] = l % 4;
      }
      uint32_t ids[PARTS];
      FVT_CHECK (fv_matcher_assign (m, boxes, (size_t) n, 0.2, 3, ids), "belt: out of memory");
      for (int i = 0; i < n; i++) {
        uint32_t *want = &id_of[who[i]][lap[i]];
        if (!*want)
          *want = ids[i];
        wrong += *want != ids[i];
        for (int j = 0; j < i; j++)
          shared += ids[i] == ids[j];
      }
    }
    /* laps of one part, and different parts: different ids */
    for (int a = 0; a < PARTS * 4; a++)
      for (int b = 0; b < a; b++)
        shared += id_of[a / 4][a % 4] && id_of[a / 4][a % 4] == id_of[b / 4][b % 4];
    FVT_CHECK (wrong == 0 && shared == 0, "belt at %d px a frame: %d ids changed, %d shared",
        speed, wrong, shared);
  }
  fv_matcher_free (m);
}

int
main (void)
{
  random_scenes ();
  duplicates ();
  confirmation ();
  edges_and_growth ();
  fail_closed_and_floods ();
  belt ();
  return fvt_summary ("region tracker");
}
