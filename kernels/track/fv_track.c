/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roitrack's tracker (fv_track.h): the rules of docs/roitrack.md. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <glib.h>
#include "fv_track.h"
#include "fv_track_private.h"
#include "fv_match.h"
#include "../common/fv_overlap.h"

/* a coasting box grows to at most this much of its last detected size */
#define MAX_GROWTH 1.5
/* least speed towards an edge (pixels a frame) for the edge rule */
#define EDGE_MIN_SPEED 1.0

/* An output box, margin applied and clipped to the frame. A tentative
 * track's box leaves only once the track is confirmed (or, detected in its
 * frame, when nothing is held: delay 0). */
typedef struct {
  gint x, y, w, h;
  guint id, age, lost, early;
  gboolean tentative, detected;   /* detected: not missed since its last detection */
  gint neighbors;
  gdouble angle, confidence;
} OutBox;

/* A track that ended: confirmed tracks' held boxes still leave until the
 * frame it ended in has. */
typedef struct {
  guint id;
  guint64 n;
} Ended;

/* A frame held back (delay), with the boxes it got when it was tracked. */
typedef struct {
  guint64 n;               /* frames since start */
  gint searched;
  gboolean whole, overflow;
  gboolean open;           /* tracked with nothing held (delay 0) */
  GArray *boxes;           /* of OutBox */
} Held;

/* A track's first detection, while held frames before it may still take it. */
typedef struct {
  guint id;
  guint64 n;
  Box box;
  gdouble vx, vy;          /* per frame, from its first two detections */
  gboolean moving;         /* the second one is in */
} Birth;


struct fv_tracker {
  int width, height;
  GQueue held;             /* of Held *, oldest first */
  GArray *births;          /* of Birth */
  GArray *tracks;          /* of Track */
  GHashTable *confirmed;   /* ids of confirmed tracks with boxes still held */
  GArray *ended;           /* of Ended */
  GArray *out;             /* of fv_track_box: the frame popped last */
  guint64 frame_n;
  guint next_id;
  gboolean overflow;       /* this frame had more than the tracker follows */
  fv_track_log_fn log;
  void *log_user;
};

static void G_GNUC_PRINTF (3, 4)
tlog (fv_tracker *self, fv_track_log_level level, const char *fmt, ...)
{
  if (!self->log)
    return;
  va_list ap;
  va_start (ap, fmt);
  gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  self->log (self->log_user, level, msg);
  g_free (msg);
}

/* The growth of a coasting box: `grow` a frame, for no more frames than the
 * track was detected in, and at most MAX_GROWTH: a box grows by what the
 * track has shown, not by how long it coasts. A tentative track does not
 * grow. */
static gdouble
growth (const Track *t, gdouble grow)
{
  if (!t->confirmed)
    return 1;
  return MIN (1 + grow * MIN (t->lost, t->hits), MAX_GROWTH);
}

/* Every track one frame along its path; a coasting box grows. */
static void
predict (fv_tracker *self, gdouble grow)
{
  for (guint i = 0; i < self->tracks->len; i++) {
    Track *t = &g_array_index (self->tracks, Track, i);
    t->age++;
    t->lost++;
    const gdouble cx = t->cx + t->vx * t->lost, cy = t->cy + t->vy * t->lost;
    t->w = t->dw * growth (t, grow);
    t->h = t->dh * growth (t, grow);
    t->x = cx - t->w / 2;
    t->y = cy - t->h / 2;
  }
}

/* The second detection of a track born in a held frame: its velocity. */
static void
birth_moves (fv_tracker *self, const Track *t, gdouble cx, gdouble cy)
{
  for (guint i = 0; i < self->births->len; i++) {
    Birth *b = &g_array_index (self->births, Birth, i);
    if (b->id == t->id) {
      b->vx = (cx - t->cx) / t->lost;
      b->vy = (cy - t->cy) / t->lost;
      b->moving = TRUE;
    }
  }
}

static void
detected (fv_tracker *self, Track *t, const Box *b)
{
  const gdouble cx = b->x + b->w / 2, cy = b->y + b->h / 2;
  if (t->hits == 1)
    birth_moves (self, t, cx, cy);
  if (t->age > 0) {   /* the mean of the last velocity and the displacement since */
    t->vx = (t->vx + (cx - t->cx) / t->lost) / 2;
    t->vy = (t->vy + (cy - t->cy) / t->lost) / 2;
  }
  t->x = b->x;
  t->y = b->y;
  t->w = t->dw = b->w;
  t->h = t->dh = b->h;
  t->cx = cx;
  t->cy = cy;
  t->lost = t->missed = 0;
  t->hits++;
  t->neighbors = b->neighbors;
  t->angle = b->angle;
  t->confidence = b->confidence;
}

/* A track confirmed: its held boxes leave from now on. */
static void
confirm_track (fv_tracker *self, Track *tr, const gchar *why)
{
  tr->confirmed = TRUE;
  g_hash_table_add (self->confirmed, GUINT_TO_POINTER (tr->id));
  tlog (self, FV_TRACK_LOG_INFO, "track %u confirmed (%s, frame %" G_GUINT64_FORMAT ")", tr->id, why,
      self->frame_n);
}

static void
end_track (fv_tracker *self, guint t, const gchar *why)
{
  Track *tr = &g_array_index (self->tracks, Track, t);
  if (tr->confirmed)
    tlog (self, FV_TRACK_LOG_INFO, "track %u ended (%s): %u frames, %u detections, missed %u searched "
        "frames", tr->id, why, tr->age, tr->hits, tr->missed);
  else
    tlog (self, FV_TRACK_LOG_DEBUG, "track %u ended unconfirmed (%s): %u detections in %u searched "
        "frames", tr->id, why, tr->hits, tr->seen);
  Ended e = { tr->id, self->frame_n };
  g_array_append_val (self->ended, e);
  g_array_remove_index (self->tracks, t);   /* keeps the others' order */
}

/* A searched frame: detections to tracks, new tracks, ended tracks. A
 * track is confirmed by `confirm` detections, or by one with at least
 * `confirm_neighbors` neighbours; one not confirmed within the frames it
 * may wait (max (delay + 1, confirm) searched frames) ends, its boxes never
 * shown (but for delay 0, where each detected frame's box leaves at once).
 * A coasting track that another track's box mostly covers is that one's
 * duplicate and ends. */
static void
associate (fv_tracker *self, GArray *dets, gdouble min_iou, guint hold, guint hold_once,
    guint confirm, guint confirm_neighbors, guint delay)
{
  fv_track_merge_same (dets);
  GArray *pairs = fv_track_candidate_pairs (self->tracks, dets, min_iou);
  gboolean *track_done = g_new0 (gboolean, self->tracks->len + 1);
  gboolean *det_done = g_new0 (gboolean, dets->len + 1);
  for (guint i = 0; i < pairs->len; i++) {
    const Pair *p = &g_array_index (pairs, Pair, i);
    if (track_done[p->t] || det_done[p->d])
      continue;
    track_done[p->t] = det_done[p->d] = TRUE;
    Track *tr = &g_array_index (self->tracks, Track, p->t);
    const gboolean was_lost = tr->missed > 0;
    detected (self, tr, &g_array_index (dets, Box, p->d));
    if (was_lost)
      tlog (self, FV_TRACK_LOG_DEBUG, "track %u found again", tr->id);
  }
  const guint window = MAX (delay + 1, confirm);
  const guint old = self->tracks->len;
  for (guint t = old; t-- > 0;) {
    Track *tr = &g_array_index (self->tracks, Track, t);
    tr->seen++;
    if (!tr->confirmed && (tr->hits >= confirm || (confirm_neighbors > 0
                && tr->lost == 0 && tr->neighbors >= (gint) confirm_neighbors))) {
      confirm_track (self, tr, tr->hits >= confirm ? "detections" : "neighbours");
    }
    if (track_done[t])
      continue;
    tr->missed++;
    if (!tr->confirmed) {
      if (tr->seen >= window)
        end_track (self, t, "not confirmed in time");
      continue;
    }
    if (tr->missed > (tr->hits > 1 ? hold : MIN (hold, hold_once))) {
      end_track (self, t, "lost");
    } else if (tr->missed == 1) {
      tlog (self, FV_TRACK_LOG_DEBUG, "track %u coasting (missed in frame %" G_GUINT64_FORMAT ")",
          tr->id, self->frame_n);
    }
  }
  /* duplicates: a coasting track mostly under another track's box */
  for (guint t = self->tracks->len; t-- > 0;) {
    const Track *a = &g_array_index (self->tracks, Track, t);
    if (a->lost == 0)
      continue;
    const Box ab = { a->x, a->y, a->w, a->h };
    for (guint u = 0; u < self->tracks->len; u++) {
      const Track *b = &g_array_index (self->tracks, Track, u);
      const Box bb = { b->x, b->y, b->w, b->h };
      /* the one detected now, or else the one seen more, stays */
      if (u != t && (b->lost == 0 || b->hits > a->hits || (b->hits == a->hits && b->id < a->id))
          && fv_track_overlap_of_smaller (&ab, &bb) >= SAME_OBJECT) {
        tlog (self, FV_TRACK_LOG_DEBUG, "track %u is track %u's duplicate", a->id, b->id);
        end_track (self, t, "duplicate");
        break;
      }
    }
  }
  for (guint d = 0; d < dets->len; d++) {
    if (det_done[d])
      continue;
    if (self->tracks->len >= FV_TRACK_MAX_TRACKS) {   /* the frame goes out blurred whole */
      self->overflow = TRUE;
      break;
    }
    Track t = { .id = self->next_id++, .seen = 1 };
    detected (self, &t, &g_array_index (dets, Box, d));
    tlog (self, FV_TRACK_LOG_DEBUG, "track %u born at %.0f,%.0f %.0fx%.0f (frame %" G_GUINT64_FORMAT
        ")", t.id, t.x, t.y, t.w, t.h, self->frame_n);
    if (confirm <= 1 || (confirm_neighbors > 0 && t.neighbors >= (gint) confirm_neighbors))
      confirm_track (self, &t, confirm <= 1 ? "detections" : "neighbours");
    g_array_append_val (self->tracks, t);
    Birth b = { t.id, self->frame_n, g_array_index (dets, Box, d), 0, 0, FALSE };
    g_array_append_val (self->births, b);
  }
  g_free (track_done);
  g_free (det_done);
  g_array_unref (pairs);
}

/* A box with the margin, clipped to the frame; FALSE where nothing is left. */
static gboolean
out_box (fv_tracker *self, gdouble x, gdouble y, gdouble w, gdouble h, gdouble margin,
    OutBox *o)
{
  const gdouble mx = margin * w, my = margin * h;
  const gint W = self->width, H = self->height;
  o->x = (gint) CLAMP (floor (x - mx), 0, W);
  o->y = (gint) CLAMP (floor (y - my), 0, H);
  o->w = (gint) CLAMP (ceil (x + w + mx), 0, W) - o->x;
  o->h = (gint) CLAMP (ceil (y + h + my), 0, H) - o->y;
  return o->w > 0 && o->h > 0;   /* not coasted out of the frame */
}

/* A box not seen in this frame (coasting, or before its first detection)
 * that lies within its own width (height) of a frame edge and moves towards
 * it (a leaving face), or away from it (before its first detection: an
 * entering one), reaches that edge: the face is between the box and the
 * edge, and moves faster than a path fitted to its last detections says.
 * Only along a path the track has shown: at least EDGE_MIN_SPEED pixels a
 * frame towards that edge, and at least half its speed across (a box
 * drifting sideways does not reach the top). `toward` is +1 for coasting
 * boxes, -1 for boxes before a detection, 0 for those whose path is not
 * known (no edge). */
static void
to_edges (fv_tracker *self, gdouble *x, gdouble *y, gdouble *w, gdouble *h, gdouble vx,
    gdouble vy, gint toward)
{
  const gdouble W = self->width, H = self->height;
  gdouble x0 = *x, y0 = *y, x1 = *x + *w, y1 = *y + *h;
  vx *= toward;
  vy *= toward;
  const gboolean along_x = fabs (vx) >= EDGE_MIN_SPEED && fabs (vx) >= fabs (vy) / 2;
  const gboolean along_y = fabs (vy) >= EDGE_MIN_SPEED && fabs (vy) >= fabs (vx) / 2;
  if (x0 < *w && along_x && vx < 0)
    x0 = 0;
  if (W - x1 < *w && along_x && vx > 0)
    x1 = W;
  if (y0 < *h && along_y && vy < 0)
    y0 = 0;
  if (H - y1 < *h && along_y && vy > 0)
    y1 = H;
  *x = x0;
  *y = y0;
  *w = x1 - x0;
  *h = y1 - y0;
}

/* The boxes of tracks first detected in the `delay` frames after held
 * frame h, moved back along their path to it. */
static void
add_early (fv_tracker *self, const Held *h, guint delay, gdouble grow, gdouble margin)
{
  for (guint i = 0; i < self->births->len; i++) {
    const Birth *b = &g_array_index (self->births, Birth, i);
    if (b->n <= h->n || b->n - h->n > delay
        || !g_hash_table_contains (self->confirmed, GUINT_TO_POINTER (b->id)))
      continue;
    const gdouble k = (gdouble) (b->n - h->n);
    gdouble w = b->box.w * (1 + grow * k), hh = b->box.h * (1 + grow * k);
    gdouble x = b->box.x + b->box.w / 2 - b->vx * k - w / 2;
    gdouble y = b->box.y + b->box.h / 2 - b->vy * k - hh / 2;
    to_edges (self, &x, &y, &w, &hh, b->vx, b->vy, b->moving ? -1 : 0);
    OutBox o = { .id = b->id, .early = (guint) k, .neighbors = b->box.neighbors,
      .angle = b->box.angle, .confidence = b->box.confidence };
    if (out_box (self, x, y, w, hh, margin, &o))
      g_array_append_val (h->boxes, o);
  }
}


void
fv_track_params_init (fv_track_params *p)
{
  *p = (fv_track_params) { .hold = 15, .hold_once = 3, .delay = 0, .confirm = 2,
    .confirm_neighbors = 20, .margin = 0.1, .grow = 0.05, .min_iou = 0.2, .fail_closed = 1 };
}

static void
held_free (Held *h)
{
  g_array_unref (h->boxes);
  g_free (h);
}

fv_tracker *
fv_tracker_new (void)
{
  fv_tracker *self = g_new0 (fv_tracker, 1);
  g_queue_init (&self->held);
  self->tracks = g_array_new (FALSE, FALSE, sizeof (Track));
  self->births = g_array_new (FALSE, FALSE, sizeof (Birth));
  self->ended = g_array_new (FALSE, FALSE, sizeof (Ended));
  self->out = g_array_new (FALSE, FALSE, sizeof (fv_track_box));
  self->confirmed = g_hash_table_new (NULL, NULL);
  self->next_id = 1;
  return self;
}

void
fv_tracker_free (fv_tracker *self)
{
  if (!self)
    return;
  g_queue_clear_full (&self->held, (GDestroyNotify) held_free);
  g_array_unref (self->tracks);
  g_array_unref (self->births);
  g_array_unref (self->ended);
  g_array_unref (self->out);
  g_hash_table_unref (self->confirmed);
  g_free (self);
}

void
fv_tracker_set_log (fv_tracker *self, fv_track_log_fn fn, void *user)
{
  self->log = fn;
  self->log_user = user;
}

void
fv_tracker_reset (fv_tracker *self, int width, int height, int restart_ids)
{
  g_array_set_size (self->tracks, 0);
  g_array_set_size (self->births, 0);
  g_array_set_size (self->ended, 0);
  g_hash_table_remove_all (self->confirmed);
  g_queue_clear_full (&self->held, (GDestroyNotify) held_free);
  self->width = width;
  self->height = height;
  if (restart_ids) {
    self->next_id = 1;
    self->frame_n = 0;
  }
}

size_t
fv_tracker_held (const fv_tracker *self)
{
  return self->held.length;
}

size_t
fv_tracker_count (const fv_tracker *self)
{
  return self->tracks->len;
}

int
fv_tracker_push (fv_tracker *self, const fv_track_params *p, int searched,
    const fv_track_det *dets_in, size_t n)
{
  predict (self, p->grow);
  self->overflow = FALSE;
  if (searched == FV_TRACK_SEARCHED) {
    {
      GArray *dets = g_array_sized_new (FALSE, FALSE, sizeof (Box), (guint) n);
      for (size_t i = 0; i < n; i++) {
        const fv_track_det *d = &dets_in[i];
        Box b = { d->x, d->y, d->w, d->h, d->neighbors, d->angle, d->confidence };
        g_array_append_val (dets, b);
      }
      fv_track_dedupe (dets);
      if (dets->len > FV_TRACK_MAX_DETECTIONS)
        self->overflow = TRUE;
      else
        associate (self, dets, p->min_iou, p->hold, p->hold_once, p->confirm,
            p->confirm_neighbors, p->delay);
      g_array_unref (dets);
    }
  }
  Held *h = g_new0 (Held, 1);
  h->n = self->frame_n++;
  h->searched = searched;
  h->overflow = self->overflow;
  h->whole = (searched < 0 && p->fail_closed) || self->overflow;
  h->open = p->delay == 0;
  h->boxes = g_array_new (FALSE, FALSE, sizeof (OutBox));
  for (guint i = 0; i < self->tracks->len; i++) {
    const Track *t = &g_array_index (self->tracks, Track, i);
    OutBox o = { .id = t->id, .age = t->age, .lost = t->lost, .tentative = !t->confirmed,
      .detected = t->missed == 0, .neighbors = t->neighbors, .angle = t->angle,
      .confidence = t->confidence };
    if (o.tentative && !o.detected && p->delay == 0)
      continue;   /* can never be shown */
    gdouble x = t->x, y = t->y, w = t->w, hh = t->h;
    if (t->lost > 0 && t->confirmed)
      to_edges (self, &x, &y, &w, &hh, t->vx, t->vy, 1);
    if (out_box (self, x, y, w, hh, p->margin, &o))
      g_array_append_val (h->boxes, o);
  }
  g_queue_push_tail (&self->held, h);
  return self->overflow;
}

int
fv_tracker_pop (fv_tracker *self, const fv_track_params *p, fv_track_frame *out)
{
  Held *h = g_queue_pop_head (&self->held);
  if (!h)
    return 0;
  add_early (self, h, p->delay, p->grow, p->margin);
  for (guint i = self->births->len; i-- > 0;)   /* no later frame takes these */
    if (g_array_index (self->births, Birth, i).n <= h->n + 1)
      g_array_remove_index_fast (self->births, i);
  g_array_set_size (self->out, 0);
  for (guint i = 0; i < h->boxes->len; i++) {
    const OutBox *o = &g_array_index (h->boxes, OutBox, i);
    if (o->tentative && !(o->detected && h->open)
        && !g_hash_table_contains (self->confirmed, GUINT_TO_POINTER (o->id)))
      continue;   /* a track never confirmed */
    fv_track_box b = { o->x, o->y, o->w, o->h, o->id, o->age, o->lost, o->early, o->neighbors,
      o->angle, o->confidence };
    g_array_append_val (self->out, b);
  }
  /* tracks that ended by this frame have no box in the frames after it */
  for (guint i = self->ended->len; i-- > 0;) {
    const Ended *e = &g_array_index (self->ended, Ended, i);
    if (e->n <= h->n) {
      g_hash_table_remove (self->confirmed, GUINT_TO_POINTER (e->id));
      g_array_remove_index_fast (self->ended, i);
    }
  }
  *out = (fv_track_frame) { .n = h->n, .searched = h->searched, .whole = h->whole,
    .overflow = h->overflow, .n_boxes = self->out->len,
    .boxes = (const fv_track_box *) self->out->data };
  held_free (h);
  return 1;
}
