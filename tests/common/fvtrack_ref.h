/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The region tracker's reference, written from docs/roitrack.md ("What it
 * does, frame by frame") with delay 0 and detections that carry no
 * neighbours: tests/kernels/test_track.c checks kernels/track against it,
 * tests/elements/test_roitrack.c the element, both with the frame size and
 * settings below; confirm and the rest are roitrack's defaults. */
#ifndef FVTRACK_REF_H
#define FVTRACK_REF_H

#include <math.h>
#include <string.h>

/* the frame, and the settings the tests give */
#define W 640
#define H 480
#define HOLD 5
#define HOLD_ONCE 2
#define MARGIN 0.1
#define GROW 0.05
#define MIN_IOU 0.2

#define CONFIRM 2          /* roitrack's defaults */
#define MAX_GROWTH 1.5
#define SAME 0.5
#define EDGE_SPEED 1.0

typedef struct {
  double x, y, w, h;
} Box;

typedef struct {
  int x, y, w, h;
  unsigned id, age, lost;
} Out;

/* ---- the reference, from the element's documentation ---- */

typedef struct {
  unsigned id, age, lost, missed, hits, seen;
  int confirmed;
  double x, y, w, h, dw, dh, vx, vy, cx, cy;
} RTrack;

typedef struct {
  RTrack t[256];
  int n;
  unsigned next;
} Ref;

/* the area two boxes share */
static inline double
ref_shared (const Box *a, const Box *b)
{
  double ix = fmin (a->x + a->w, b->x + b->w) - fmax (a->x, b->x);
  double iy = fmin (a->y + a->h, b->y + b->h) - fmax (a->y, b->y);
  return ix <= 0 || iy <= 0 ? 0 : ix * iy;
}

static inline double
ref_iou (const Box *a, const Box *b)
{
  const double i = ref_shared (a, b);
  return i > 0 ? i / (a->w * a->h + b->w * b->h - i) : 0;
}

static inline void
ref_take (RTrack *t, const Box *b)
{
  double cx = b->x + b->w / 2, cy = b->y + b->h / 2;
  if (t->age > 0) {
    t->vx = (t->vx + (cx - t->cx) / t->lost) / 2;
    t->vy = (t->vy + (cy - t->cy) / t->lost) / 2;
  }
  t->x = b->x; t->y = b->y; t->w = t->dw = b->w; t->h = t->dh = b->h;
  t->cx = cx; t->cy = cy;
  t->lost = t->missed = 0;
  t->hits++;
}

/* overlap as a share of the smaller box */
static inline double
ref_small (const Box *a, const Box *b)
{
  const double i = ref_shared (a, b);
  return i > 0 ? i / fmin (a->w * a->h, b->w * b->h) : 0;
}

/* Detections of one object (overlapping by half the smaller, transitively)
 * become the largest of them (the first of equals; these carry no
 * neighbours), in the order of their first one. */
static inline int
ref_merge (const Box *in, int n, Box *out)
{
  int group[256], m = 0;
  for (int i = 0; i < n; i++)
    group[i] = i;
  for (int pass = 0; pass < n; pass++)   /* the lowest index of each class */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (ref_small (&in[i], &in[j]) >= SAME && group[j] < group[i])
          group[i] = group[j];
  int slot[256];
  for (int i = 0; i < n; i++) {
    if (group[i] == i) {
      slot[i] = m;
      out[m++] = in[i];
    } else if (in[i].w * in[i].h > out[slot[group[i]]].w * out[slot[group[i]]].h) {
      out[slot[group[i]]] = in[i];
    }
  }
  return m;
}

static inline void
ref_remove (Ref *r, int i)
{
  memmove (&r->t[i], &r->t[i + 1], (r->n - i - 1) * sizeof r->t[0]);
  r->n--;
}

/* One frame: searched 1, 0 (skipped) or -1 (not marked). */
static inline void
ref_frame (Ref *r, const Box *det_in, int nd_in, int searched)
{
  for (int i = 0; i < r->n; i++) {   /* along the path; confirmed coasting boxes grow */
    RTrack *t = &r->t[i];
    t->age++;
    t->lost++;
    const double g = t->confirmed ? fmin (1 + GROW * fmin (t->lost, t->hits), MAX_GROWTH) : 1;
    t->w = t->dw * g;
    t->h = t->dh * g;
    t->x = t->cx + t->vx * t->lost - t->w / 2;
    t->y = t->cy + t->vy * t->lost - t->h / 2;
  }
  if (searched != 1)
    return;
  Box det[256];
  const int nd = ref_merge (det_in, nd_in, det);
  int tdone[256] = { 0 }, ddone[256] = { 0 };
  for (;;) {   /* best pair first, one detection a track */
    double best = 0;
    int bt = -1, bd = -1;
    for (int i = 0; i < r->n; i++)
      for (int d = 0; d < nd; d++) {
        if (tdone[i] || ddone[d])
          continue;
        Box p = { r->t[i].x, r->t[i].y, r->t[i].w, r->t[i].h };
        double s = ref_iou (&p, &det[d]);
        if ((s >= MIN_IOU || ref_small (&p, &det[d]) >= SAME) && s > best) {
          best = s;
          bt = i;
          bd = d;
        }
      }
    if (bt < 0)
      break;
    tdone[bt] = ddone[bd] = 1;
    ref_take (&r->t[bt], &det[bd]);
  }
  /* confirmed by CONFIRM detections; a tentative one not confirmed within
   * max (delay + 1, CONFIRM) searched frames ends; a confirmed one after
   * hold (hold-once) searched frames missed */
  int keep[256];
  for (int i = 0; i < r->n; i++) {
    RTrack *t = &r->t[i];
    t->seen++;
    if (t->hits >= CONFIRM)
      t->confirmed = 1;
    keep[i] = tdone[i] || (++t->missed, t->confirmed ? t->missed <= (t->hits > 1 ? HOLD
            : HOLD_ONCE) : t->seen < CONFIRM);
  }
  int m = 0;
  for (int i = 0; i < r->n; i++)
    if (keep[i])
      r->t[m++] = r->t[i];
  r->n = m;
  /* a coasting track mostly under another's box (one detected now, seen
   * more often, or older) is its duplicate */
  for (int i = r->n - 1; i >= 0; i--) {
    const RTrack *a = &r->t[i];
    if (a->lost == 0)
      continue;
    Box ab = { a->x, a->y, a->w, a->h };
    for (int j = 0; j < r->n; j++) {
      const RTrack *b = &r->t[j];
      Box bb = { b->x, b->y, b->w, b->h };
      if (j != i && (b->lost == 0 || b->hits > a->hits || (b->hits == a->hits && b->id < a->id))
          && ref_small (&ab, &bb) >= SAME) {
        ref_remove (r, i);
        break;
      }
    }
  }
  for (int d = 0; d < nd; d++)
    if (!ddone[d]) {
      RTrack t = { .id = r->next++, .seen = 1 };
      ref_take (&t, &det[d]);
      r->t[r->n++] = t;
    }
}

/* The boxes out: a coasting box within its own width (height) of an edge
 * and moving towards it reaching that edge, pushed out by the margin,
 * clipped, empty ones dropped. */
static inline int
ref_out (const Ref *r, Out *out)
{
  int n = 0;
  for (int i = 0; i < r->n; i++) {
    const RTrack *t = &r->t[i];
    if (!t->confirmed && t->missed > 0)
      continue;   /* tentative: shown only until a searched frame misses it */
    double bx0 = t->x, by0 = t->y, bx1 = t->x + t->w, by1 = t->y + t->h;
    /* a confirmed coasting box moving towards a near edge along its path */
    const int ax = fabs (t->vx) >= EDGE_SPEED && fabs (t->vx) >= fabs (t->vy) / 2;
    const int ay = fabs (t->vy) >= EDGE_SPEED && fabs (t->vy) >= fabs (t->vx) / 2;
    if (t->lost > 0 && t->confirmed) {
      bx0 = t->x < t->w && ax && t->vx < 0 ? 0 : bx0;
      bx1 = W - bx1 < t->w && ax && t->vx > 0 ? W : bx1;
      by0 = t->y < t->h && ay && t->vy < 0 ? 0 : by0;
      by1 = H - by1 < t->h && ay && t->vy > 0 ? H : by1;
    }
    double mx = MARGIN * (bx1 - bx0), my = MARGIN * (by1 - by0);
    int x0 = (int) fmin (fmax (floor (bx0 - mx), 0), W), y0 = (int) fmin (fmax (floor (by0 - my), 0), H);
    int x1 = (int) fmin (fmax (ceil (bx1 + mx), 0), W);
    int y1 = (int) fmin (fmax (ceil (by1 + my), 0), H);
    if (x1 > x0 && y1 > y0)
      out[n++] = (Out) { x0, y0, x1 - x0, y1 - y0, t->id, t->age, t->lost };
  }
  return n;
}

#endif
