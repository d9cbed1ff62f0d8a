/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-roitrack
 * @title: roitrack
 *
 * Tracks the regions of interest of one type (`roi-type`, default `face`)
 * across frames, so that a privacy filter downstream does not blink off
 * when the detector misses a face for a frame or two. In place, any video
 * caps and any memory: the frame is never mapped, only its metas change.
 *
 * Each frame, the detections are the frame's #GstVideoRegionOfInterestMeta
 * of that type (and, on GStreamer 1.24 and later, its analytics OD Mtds of
 * that type whose ids no ROI meta already has). Every track's box is first
 * moved along its velocity (the predicted path); each detection then goes to
 * the track whose predicted box it overlaps most (intersection over union
 * at least `min-iou`, best pairs first, one detection a track), and takes
 * its place: the track's velocity becomes the mean of its last velocity and
 * the centre's displacement since its previous detection. A detection that
 * matches no track starts one, with a new id (ids count up from 1 and are
 * never reused while the element runs), and is output at once (no
 * confirmation delay). A track that the detector searched for and did not
 * find keeps coasting along its path, its box growing by `grow` of its last
 * detected size a frame, for `hold` searched frames (`hold-once` for a
 * track detected in one frame only, so that a one-off false detection
 * costs a few blurred frames); after that it ends.
 *
 * The frame's ROI metas of that type are then replaced by one a track: the
 * track's box, each side pushed out by `margin` of its width (height),
 * clipped to the frame, with a parameter structure `track` holding `id`,
 * `age` (frames since the track began) and `lost` (frames since its last
 * detection, 0 when detected in this frame).
 *
 * Frames the detector skipped on purpose (vjdetect `interval`) carry the
 * tracks along their paths without counting against `hold`. With
 * `fail-closed` (the default), a frame that no detector of that type marked
 * as searched (the first frames before the detector runs, a branch that
 * bypassed it, a detector without the mark) gets one more box, the whole
 * frame, so nothing leaves unblurred; a warning says so once, since a
 * detector that never marks frames (not vjdetect) then blurs everything:
 * set `fail-closed=false` for those.
 *
 * With `delay` = N (default 0), the element holds N frames back, so that a
 * track's first detection also reaches the N frames before it: in each of
 * them the track gets a box moved back along its path (the displacement
 * between its first two detections, per frame; none yet: in place), growing
 * by `grow` a frame back as a coasting box does. A face entering the frame
 * or turning towards the camera, which a detector finds only once most of it
 * shows, is then blurred from the frame it appeared in. The latency query
 * reports the N frames (N frame durations of the caps' frame rate); a
 * serialized event (end of stream, new caps or segment) first sends the
 * held frames on, a flush drops them.
 *
 * With `post-messages` an element message named `roitrack` goes on the bus
 * for every frame, shaped like vjdetect's (and facedetect's): the frame's
 * times and `faces`, a list of `face` structures with `x`, `y`, `width`,
 * `height`, `id`, `age` and `lost` (a box moved back before a track's first
 * detection: `age` 0, `lost` 0 and `early`, the frames before it); also
 * `searched` (1, 0 skipped, -1 not marked) and `fail-closed` (boolean). With
 * `delay` the message leaves with its frame.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect ! roitrack ! satfilter roi-type=face radius=12 ! videoconvert ! \
 *     vp8enc ! webmmux ! filesink location=blurred.webm
 * ]| The privacy filter with tracking: a face the detector misses for a
 * few frames stays blurred.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! vjdetect interval=3 ! \
 *     roitrack hold=30 margin=0.2 ! satfilter roi-type=face radius=12 ! \
 *     videoconvert ! autovideosink
 * ]| Detection on every third frame only, the tracker carrying the boxes
 * between (for a slow machine).
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect angles=-30,-15,0,15,30 ! roitrack delay=3 ! \
 *     satfilter roi-type=face radius=12 ! videoconvert ! autovideosink
 * ]| The settings docs/privacy.md recommends where exposure matters most:
 * turned faces searched too, and three frames of latency so that faces are
 * blurred from the frame they enter.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "fv_config.h"
#include "fvlatency.h"
#include "fvmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_roitrack_debug);
#define GST_CAT_DEFAULT gst_roitrack_debug

#define GST_TYPE_ROITRACK (gst_roitrack_get_type ())
G_DECLARE_FINAL_TYPE (GstRoitrack, gst_roitrack, GST, ROITRACK, GstBaseTransform)

#define DEFAULT_ROI_TYPE "face"
#define DEFAULT_HOLD 15
#define DEFAULT_HOLD_ONCE 3
#define DEFAULT_MARGIN 0.1
#define DEFAULT_GROW 0.05
#define DEFAULT_MIN_IOU 0.2
#define DEFAULT_DELAY 0
#define MAX_DELAY 300
/* frames without a mark before the warning that every frame is blurred */
#define UNMARKED_WARNING 30
/* detections in one frame and tracks at once at most: past them a frame is
 * blurred whole (fail-closed), with a warning, instead of memory and time
 * without bound */
#define MAX_DETECTIONS 4096
#define MAX_TRACKS 4096

typedef struct {
  guint id;
  gdouble x, y, w, h;      /* the box now (predicted while coasting) */
  gdouble dw, dh;          /* its size at the last detection */
  gdouble vx, vy;          /* centre's displacement a frame */
  gdouble cx, cy;          /* centre at the last detection */
  guint age, lost, missed; /* frames: since it began, since detected, searched and missed */
  guint hits;              /* detections so far */
} Track;

typedef struct {
  gdouble x, y, w, h;
} Box;

/* An output box, margin applied and clipped to the frame. */
typedef struct {
  gint x, y, w, h;
  guint id, age, lost, early;
} OutBox;

/* A frame held back (delay), with the boxes it got when it was tracked. */
typedef struct {
  GstBuffer *buf;
  guint64 n;               /* frames since start */
  gint searched;
  gboolean whole;
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

struct _GstRoitrack {
  GstBaseTransform parent;
  /* properties, under the object lock */
  gchar *roi_type;
  guint hold, hold_once;
  gdouble margin, grow, min_iou;
  gboolean fail_closed, post_messages;
  guint delay;
  /* streaming */
  GQueue held;             /* of Held *, oldest first */
  GArray *births;          /* of Birth */
  guint64 frame_n;
  GstVideoInfo info;
  FvLatency latency;
  GArray *tracks;          /* of Track */
  guint next_id;
  guint unmarked;          /* frames in a row without a detector's mark */
  gboolean warned;
  gboolean warned_dropped; /* the warning for a frame whose regions went missing */
  gboolean overflow;       /* this frame had more than the tracker takes */
  gboolean warned_overflow;
};

enum {
  PROP_0,
  PROP_ROI_TYPE,
  PROP_HOLD,
  PROP_HOLD_ONCE,
  PROP_MARGIN,
  PROP_GROW,
  PROP_MIN_IOU,
  PROP_FAIL_CLOSED,
  PROP_POST_MESSAGES,
  PROP_DELAY,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

#define gst_roitrack_parent_class parent_class
G_DEFINE_TYPE (GstRoitrack, gst_roitrack, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (roitrack, "roitrack", GST_RANK_NONE, GST_TYPE_ROITRACK);

static gdouble
iou (const Box *a, const Box *b)
{
  const gdouble ix = MIN (a->x + a->w, b->x + b->w) - MAX (a->x, b->x);
  const gdouble iy = MIN (a->y + a->h, b->y + b->h) - MAX (a->y, b->y);
  if (ix <= 0 || iy <= 0)
    return 0;
  const gdouble inter = ix * iy, uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0 ? inter / uni : 0;
}

/* The frame's detections of type q (fv_meta_regions_of_type), as boxes. */
static GArray *
detections (GstBuffer *buf, GQuark q)
{
  GArray *rects = fv_meta_regions_of_type (buf, q);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Box), rects->len);
  for (guint i = 0; i < rects->len; i++) {
    const FvRoiRect *r = &g_array_index (rects, FvRoiRect, i);
    Box b = { r->x, r->y, r->w, r->h };
    g_array_append_val (out, b);
  }
  g_array_unref (rects);
  return out;
}

typedef struct {
  guint t, d;
  gdouble score;
} Pair;


/* Every track one frame along its path; a coasting box grows. */
static void
predict (GstRoitrack *self, gdouble grow)
{
  for (guint i = 0; i < self->tracks->len; i++) {
    Track *t = &g_array_index (self->tracks, Track, i);
    t->age++;
    t->lost++;
    const gdouble cx = t->cx + t->vx * t->lost, cy = t->cy + t->vy * t->lost;
    t->w = t->dw * (1 + grow * t->lost);
    t->h = t->dh * (1 + grow * t->lost);
    t->x = cx - t->w / 2;
    t->y = cy - t->h / 2;
  }
}

/* The second detection of a track born in a held frame: its velocity. */
static void
birth_moves (GstRoitrack *self, const Track *t, gdouble cx, gdouble cy)
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
detected (GstRoitrack *self, Track *t, const Box *b)
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
}

/* Candidate pairs kept per track at most: the association stays bounded
 * however many detections overlap one track. */
#define PAIRS_PER_TRACK 32

static gint
by_score_then_order (gconstpointer a, gconstpointer b)
{
  const Pair *p = a, *q = b;
  if (p->score != q->score)
    return p->score < q->score ? 1 : -1;
  if (p->t != q->t)
    return p->t < q->t ? -1 : 1;
  return p->d < q->d ? -1 : p->d > q->d;
}

/* Identical detections (a detector that reports one box twice, or an
 * attacker's thousands) are one: one track per box. */
static void
dedupe (GArray *dets)
{
  if (dets->len < 2)
    return;
  GHashTable *seen = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  GArray *kept = g_array_sized_new (FALSE, FALSE, sizeof (Box), dets->len);
  GPtrArray *keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint d = 0; d < dets->len; d++) {
    GBytes *k = g_bytes_new (&g_array_index (dets, Box, d), sizeof (Box));
    g_ptr_array_add (keys, k);
    if (g_hash_table_add (seen, k))
      g_array_append_val (kept, g_array_index (dets, Box, d));
  }
  g_array_set_size (dets, 0);
  g_array_append_vals (dets, kept->data, kept->len);
  g_array_unref (kept);
  g_hash_table_unref (seen);
  g_ptr_array_unref (keys);
}

/* The pairs (track, detection) that overlap by at least min_iou, found
 * through a grid of cells as large as the largest detection (each
 * detection in at most four cells; a track looks at the cells its box
 * covers), at most PAIRS_PER_TRACK best a track: near-linear in tracks
 * and detections where boxes are spread, bounded where they pile up. */
static GArray *
candidate_pairs (GArray *tracks, GArray *dets, gdouble min_iou)
{
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (Pair));
  if (!tracks->len || !dets->len)
    return pairs;
  gdouble cell = 16;
  for (guint d = 0; d < dets->len; d++) {
    const Box *b = &g_array_index (dets, Box, d);
    cell = MAX (cell, MAX (b->w, b->h));
  }
  GHashTable *grid = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      (GDestroyNotify) g_array_unref);
#define CELL_KEY(cx, cy) (((gint64) (cx) << 32) ^ (gint64) (guint32) (cy))
  for (guint d = 0; d < dets->len; d++) {
    const Box *b = &g_array_index (dets, Box, d);
    const gint64 x0 = (gint64) floor (b->x / cell), x1 = (gint64) floor ((b->x + b->w) / cell);
    const gint64 y0 = (gint64) floor (b->y / cell), y1 = (gint64) floor ((b->y + b->h) / cell);
    for (gint64 cy = y0; cy <= y1; cy++)
      for (gint64 cx = x0; cx <= x1; cx++) {
        gint64 key = CELL_KEY (cx, cy);
        GArray *list = g_hash_table_lookup (grid, &key);
        if (!list) {
          list = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (grid, g_memdup2 (&key, sizeof key), list);
        }
        g_array_append_val (list, d);
      }
  }
  guint *stamp = g_new0 (guint, dets->len);
  Pair best[PAIRS_PER_TRACK];
  for (guint t = 0; t < tracks->len; t++) {
    const Track *tr = &g_array_index (tracks, Track, t);
    const Box pb = { tr->x, tr->y, tr->w, tr->h };
    guint n = 0;
    /* a track far larger than the cells (coasted and grown) looks at every
     * cell its box covers, at most the grid's */
    const gint64 x0 = (gint64) floor (pb.x / cell), x1 = (gint64) floor ((pb.x + pb.w) / cell);
    const gint64 y0 = (gint64) floor (pb.y / cell), y1 = (gint64) floor ((pb.y + pb.h) / cell);
    const gboolean all = (x1 - x0 + 1) * (y1 - y0 + 1) > (gint64) g_hash_table_size (grid);
    GHashTableIter it;
    gpointer key, value;
    if (all)
      g_hash_table_iter_init (&it, grid);
    for (gint64 cy = y0, cx = x0;;) {
      GArray *list;
      if (all) {
        if (!g_hash_table_iter_next (&it, &key, &value))
          break;
        list = value;
      } else {
        if (cy > y1)
          break;
        gint64 k = CELL_KEY (cx, cy);
        list = g_hash_table_lookup (grid, &k);
        if (++cx > x1) {
          cx = x0;
          cy++;
        }
        if (!list)
          continue;
      }
      for (guint i = 0; i < list->len; i++) {
        const guint d = g_array_index (list, guint, i);
        if (stamp[d] == t + 1)
          continue;
        stamp[d] = t + 1;
        Pair p = { t, d, iou (&pb, &g_array_index (dets, Box, d)) };
        if (!(p.score >= min_iou && p.score > 0))
          continue;
        if (n < PAIRS_PER_TRACK) {
          best[n++] = p;
        } else {   /* replaces the worst kept, if better */
          guint worst = 0;
          for (guint j = 1; j < n; j++)
            if (by_score_then_order (&best[j], &best[worst]) > 0)
              worst = j;
          if (by_score_then_order (&p, &best[worst]) < 0)
            best[worst] = p;
        }
      }
    }
    g_array_append_vals (pairs, best, n);
  }
#undef CELL_KEY
  g_free (stamp);
  g_hash_table_unref (grid);
  g_array_sort (pairs, by_score_then_order);
  return pairs;
}

/* A searched frame: detections to tracks, new tracks, ended tracks. */
static void
associate (GstRoitrack *self, GArray *dets, gdouble min_iou, guint hold, guint hold_once)
{
  GArray *pairs = candidate_pairs (self->tracks, dets, min_iou);
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
    if (tr->hits == 2)
      GST_INFO_OBJECT (self, "track %u confirmed (second detection, frame %" G_GUINT64_FORMAT
          ")", tr->id, self->frame_n);
    else if (was_lost)
      GST_DEBUG_OBJECT (self, "track %u found again", tr->id);
  }
  const guint old = self->tracks->len;
  for (guint t = old; t-- > 0;) {
    Track *tr = &g_array_index (self->tracks, Track, t);
    if (track_done[t])
      continue;
    if (++tr->missed > (tr->hits > 1 ? hold : MIN (hold, hold_once))) {
      if (tr->hits > 1)
        GST_INFO_OBJECT (self, "track %u ended: %u frames, %u detections, missed %u searched "
            "frames", tr->id, tr->age, tr->hits, tr->missed - 1);
      else
        GST_DEBUG_OBJECT (self, "track %u ended: detected once", tr->id);
      g_array_remove_index (self->tracks, t);   /* keeps the others' order */
    } else if (tr->missed == 1) {
      GST_DEBUG_OBJECT (self, "track %u coasting (missed in frame %" G_GUINT64_FORMAT ")",
          tr->id, self->frame_n);
    }
  }
  for (guint d = 0; d < dets->len; d++) {
    if (det_done[d])
      continue;
    if (self->tracks->len >= MAX_TRACKS) {   /* the frame goes out blurred whole */
      self->overflow = TRUE;
      break;
    }
    Track t = { .id = self->next_id++ };
    detected (self, &t, &g_array_index (dets, Box, d));
    g_array_append_val (self->tracks, t);
    GST_DEBUG_OBJECT (self, "track %u born at %.0f,%.0f %.0fx%.0f (frame %" G_GUINT64_FORMAT
        ")", t.id, t.x, t.y, t.w, t.h, self->frame_n);
    Birth b = { t.id, self->frame_n, g_array_index (dets, Box, d), 0, 0, FALSE };
    g_array_append_val (self->births, b);
  }
  g_free (track_done);
  g_free (det_done);
  g_array_unref (pairs);
}

static gboolean
drop_type (GstBuffer *buf, GstMeta **meta, gpointer q)
{
  if ((*meta)->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE
      && ((GstVideoRegionOfInterestMeta *) *meta)->roi_type == GPOINTER_TO_UINT (q))
    *meta = NULL;
  return TRUE;
}

/* A box with the margin, clipped to the frame; FALSE where nothing is left. */
static gboolean
out_box (GstRoitrack *self, gdouble x, gdouble y, gdouble w, gdouble h, gdouble margin,
    OutBox *o)
{
  const gdouble mx = margin * w, my = margin * h;
  const gint W = GST_VIDEO_INFO_WIDTH (&self->info), H = GST_VIDEO_INFO_HEIGHT (&self->info);
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
 * `toward` is +1 for coasting boxes, -1 for boxes before a detection, 0
 * for those before a detection whose path is not known yet (any edge). */
static void
to_edges (GstRoitrack *self, gdouble *x, gdouble *y, gdouble *w, gdouble *h, gdouble vx,
    gdouble vy, gint toward)
{
  const gdouble W = GST_VIDEO_INFO_WIDTH (&self->info), H = GST_VIDEO_INFO_HEIGHT (&self->info);
  gdouble x0 = *x, y0 = *y, x1 = *x + *w, y1 = *y + *h;
  const gboolean any = toward == 0;
  vx *= toward;
  vy *= toward;
  if (x0 < *w && (vx < 0 || any))
    x0 = 0;
  if (W - x1 < *w && (vx > 0 || any))
    x1 = W;
  if (y0 < *h && (vy < 0 || any))
    y0 = 0;
  if (H - y1 < *h && (vy > 0 || any))
    y1 = H;
  *x = x0;
  *y = y0;
  *w = x1 - x0;
  *h = y1 - y0;
}

/* One frame into the tracks; the frame held with the boxes it gets. */
static GstFlowReturn
gst_roitrack_submit (GstBaseTransform *trans, gboolean discont, GstBuffer *buf)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  GST_OBJECT_LOCK (self);
  gchar *type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  const guint hold = self->hold, hold_once = self->hold_once;
  const gdouble margin = self->margin, grow = self->grow, min_iou = self->min_iou;
  const gboolean fail_closed = self->fail_closed;
  GST_OBJECT_UNLOCK (self);
  const gint searched = fv_meta_detection_state (buf, type, GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info));

  predict (self, grow);
  self->overflow = FALSE;
  if (searched == 1) {
    GArray *dets = detections (buf, g_quark_from_string (type));
    dedupe (dets);
    if (dets->len > MAX_DETECTIONS)
      self->overflow = TRUE;
    else
      associate (self, dets, min_iou, hold, hold_once);
    if (self->overflow && !self->warned_overflow) {
      self->warned_overflow = TRUE;
      GST_ELEMENT_WARNING (self, STREAM, FAILED, ("%u regions of type \"%s\" in one frame, "
              "or %u tracks at once: more than roitrack follows (%d); such frames are "
              "blurred whole.", dets->len, type, self->tracks->len, MAX_DETECTIONS), (NULL));
    }
    g_array_unref (dets);
    self->unmarked = 0;
  } else if (searched == -2 && fail_closed && !self->warned_dropped) {
    self->warned_dropped = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Regions of type \"%s\" that the detector "
            "found are missing: an element between the detector and roitrack dropped or "
            "changed them; with fail-closed each such frame is blurred whole.", type),
        ("the detector's mark lists ROI meta ids that are no longer on the frame; elements "
            "that crop or box the picture (videocrop, videobox) drop ROI metas: place them "
            "before the detector or after roitrack (docs/roitrack.md)"));
  } else if (searched == -1 && ++self->unmarked == UNMARKED_WARNING && fail_closed
      && !self->warned) {
    self->warned = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("No detector marked the last %d frames as "
            "searched for \"%s\": with fail-closed each of them is blurred whole.",
            UNMARKED_WARNING, type), ("vjdetect marks every frame it searches; for a detector "
            "that does not, set fail-closed=false"));
  }
  Held *h = g_new0 (Held, 1);
  h->buf = buf;
  h->n = self->frame_n++;
  h->searched = searched;
  h->whole = (searched < 0 && fail_closed) || self->overflow;
  if (h->whole)
    GST_DEBUG_OBJECT (self, "frame %" G_GUINT64_FORMAT " closed whole: %s", h->n,
        self->overflow ? "more regions than tracked" : searched == -2 ? "regions the detector "
        "found are missing" : "no detector marked it");
  h->boxes = g_array_new (FALSE, FALSE, sizeof (OutBox));
  for (guint i = 0; i < self->tracks->len; i++) {
    const Track *t = &g_array_index (self->tracks, Track, i);
    OutBox o = { .id = t->id, .age = t->age, .lost = t->lost };
    gdouble x = t->x, y = t->y, w = t->w, hh = t->h;
    if (t->lost > 0)
      to_edges (self, &x, &y, &w, &hh, t->vx, t->vy, 1);
    if (out_box (self, x, y, w, hh, margin, &o))
      g_array_append_val (h->boxes, o);
  }
  g_queue_push_tail (&self->held, h);
  GST_LOG_OBJECT (self, "%u tracks%s, %u frames held", self->tracks->len,
      h->whole ? ", whole frame" : "", self->held.length);
  g_free (type);
  return GST_FLOW_OK;
}

/* The boxes of tracks first detected in the `delay` frames after held
 * frame h, moved back along their path to it. */
static void
add_early (GstRoitrack *self, const Held *h, guint delay, gdouble grow, gdouble margin)
{
  for (guint i = 0; i < self->births->len; i++) {
    const Birth *b = &g_array_index (self->births, Birth, i);
    if (b->n <= h->n || b->n - h->n > delay)
      continue;
    const gdouble k = (gdouble) (b->n - h->n);
    gdouble w = b->box.w * (1 + grow * k), hh = b->box.h * (1 + grow * k);
    gdouble x = b->box.x + b->box.w / 2 - b->vx * k - w / 2;
    gdouble y = b->box.y + b->box.h / 2 - b->vy * k - hh / 2;
    to_edges (self, &x, &y, &w, &hh, b->vx, b->vy, b->moving ? -1 : 0);
    OutBox o = { .id = b->id, .early = (guint) k };
    if (out_box (self, x, y, w, hh, margin, &o))
      g_array_append_val (h->boxes, o);
  }
}

static void
held_free (Held *h)
{
  gst_clear_buffer (&h->buf);
  g_array_unref (h->boxes);
  g_free (h);
}

/* The oldest held frame out: its type's metas replaced by the boxes, its
 * message posted. */
static GstBuffer *
emit (GstRoitrack *self, guint delay)
{
  Held *h = g_queue_pop_head (&self->held);
  GST_OBJECT_LOCK (self);
  gchar *type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  const gdouble margin = self->margin, grow = self->grow;
  const gboolean post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  const GQuark q = g_quark_from_string (type);
  add_early (self, h, delay, grow, margin);
  for (guint i = self->births->len; i-- > 0;)   /* no later frame takes these */
    if (g_array_index (self->births, Birth, i).n <= h->n + 1)
      g_array_remove_index_fast (self->births, i);

  GstBuffer *buf = gst_buffer_make_writable (h->buf);
  h->buf = NULL;
  gst_buffer_foreach_meta (buf, drop_type, GUINT_TO_POINTER (q));
  gint id = fv_meta_next_roi_id (buf);
  GValue faces = G_VALUE_INIT;
  if (post)
    g_value_init (&faces, GST_TYPE_LIST);
  for (guint i = 0; i < h->boxes->len; i++) {
    const OutBox *o = &g_array_index (h->boxes, OutBox, i);
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        o->x, o->y, o->w, o->h);
    m->id = id++;
    GstStructure *track = gst_structure_new ("track", "id", G_TYPE_UINT, o->id, "age",
        G_TYPE_UINT, o->age, "lost", G_TYPE_UINT, o->lost, NULL);
    if (o->early)
      gst_structure_set (track, "early", G_TYPE_UINT, o->early, NULL);
    gst_video_region_of_interest_meta_add_param (m, track);
    if (post) {
      GValue face = G_VALUE_INIT;
      g_value_init (&face, GST_TYPE_STRUCTURE);
      GstStructure *f = gst_structure_new ("face", "x", G_TYPE_UINT, m->x, "y", G_TYPE_UINT,
          m->y, "width", G_TYPE_UINT, m->w, "height", G_TYPE_UINT, m->h, "id", G_TYPE_UINT,
          o->id, "age", G_TYPE_UINT, o->age, "lost", G_TYPE_UINT, o->lost, NULL);
      if (o->early)
        gst_structure_set (f, "early", G_TYPE_UINT, o->early, NULL);
      g_value_take_boxed (&face, f);
      gst_value_list_append_and_take_value (&faces, &face);
    }
  }
  if (h->whole) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        0, 0, GST_VIDEO_INFO_WIDTH (&self->info), GST_VIDEO_INFO_HEIGHT (&self->info));
    m->id = id;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("track",
            "id", G_TYPE_UINT, 0, "fail-closed", G_TYPE_BOOLEAN, TRUE, NULL));
  }
  if (post) {
    GstStructure *s = fv_meta_frame_structure ("roitrack", buf,
        &GST_BASE_TRANSFORM (self)->segment);
    gst_structure_take_value (s, "faces", &faces);
    gst_structure_set (s, "searched", G_TYPE_INT, h->searched, "fail-closed", G_TYPE_BOOLEAN,
        h->whole, NULL);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            s));
  }
  held_free (h);
  g_free (type);
  return buf;
}

static guint
delay_now (GstRoitrack *self)
{
  GST_OBJECT_LOCK (self);
  const guint delay = self->delay;
  GST_OBJECT_UNLOCK (self);
  return delay;
}

/* Frames beyond `delay` leave, oldest first (more than one after the
 * delay was lowered). */
static GstFlowReturn
gst_roitrack_generate (GstBaseTransform *trans, GstBuffer **out)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  const guint delay = delay_now (self);
  *out = self->held.length > delay ? emit (self, delay) : NULL;
  return GST_FLOW_OK;
}

/* Every held frame on downstream now (before an event, at the end). */
static void
drain (GstRoitrack *self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  const guint delay = delay_now (self);
  while (self->held.length > 0) {
    GstBuffer *buf = emit (self, delay);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
    else
      gst_buffer_unref (buf);   /* downstream refused one: the rest go nowhere either */
  }
}

static void
forget (GstRoitrack *self)
{
  g_array_set_size (self->tracks, 0);
  g_array_set_size (self->births, 0);
  g_queue_clear_full (&self->held, (GDestroyNotify) held_free);
  self->unmarked = 0;
}

static gboolean
gst_roitrack_set_caps (GstBaseTransform *trans, GstCaps *in, GstCaps *out)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, in)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot read the frame size from the caps "
            "%" GST_PTR_FORMAT ".", in), (NULL));
    return FALSE;
  }
  if (info.width != self->info.width || info.height != self->info.height)
    forget (self);   /* boxes of another size mean nothing here */
  self->info = info;
  return TRUE;
}

static gboolean
gst_roitrack_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  /* a seek or a new stream: the old tracks' paths lead nowhere */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    forget (self);
  else if (GST_EVENT_IS_SERIALIZED (event))
    drain (self);   /* the held frames go before the event, as they came */
  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    forget (self);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_roitrack_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (self), &self->latency, &self->info, query);
  return TRUE;
}

/* Pools upstream keep `delay` more buffers out: ours are held here. */
static gboolean
gst_roitrack_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans, decide_query, query))
    return FALSE;
  const guint delay = delay_now (GST_ROITRACK (trans));
  for (guint i = 0; delay && i < gst_query_get_n_allocation_pools (query); i++) {
    GstBufferPool *pool = NULL;
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
    gst_query_set_nth_allocation_pool (query, i, pool, size, min + delay, max ? max + delay : 0);
    if (pool)
      gst_object_unref (pool);
  }
  return TRUE;
}

static gboolean
gst_roitrack_start (GstBaseTransform *trans)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  forget (self);
  self->next_id = 1;
  self->frame_n = 0;
  self->warned = FALSE;
  self->warned_dropped = FALSE;
  self->warned_overflow = FALSE;
  gst_video_info_init (&self->info);
  return TRUE;
}

static gboolean
gst_roitrack_stop (GstBaseTransform *trans)
{
  forget (GST_ROITRACK (trans));
  return TRUE;
}

static void
gst_roitrack_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstRoitrack *self = GST_ROITRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = g_value_dup_string (value);
      if (self->roi_type && !*self->roi_type)
        g_clear_pointer (&self->roi_type, g_free);
      break;
    case PROP_HOLD: self->hold = g_value_get_uint (value); break;
    case PROP_HOLD_ONCE: self->hold_once = g_value_get_uint (value); break;
    case PROP_MARGIN: self->margin = g_value_get_double (value); break;
    case PROP_GROW: self->grow = g_value_get_double (value); break;
    case PROP_MIN_IOU: self->min_iou = g_value_get_double (value); break;
    case PROP_FAIL_CLOSED: self->fail_closed = g_value_get_boolean (value); break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean (value); break;
    case PROP_DELAY: self->delay = g_value_get_uint (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
  /* the frames held from now on: the latency query's, and a latency
   * message when they change */
  if (prop_id == PROP_DELAY)
    fv_latency_hold (GST_ELEMENT (self), &self->latency, g_value_get_uint (value));
}

static void
gst_roitrack_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstRoitrack *self = GST_ROITRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
      break;
    case PROP_HOLD: g_value_set_uint (value, self->hold); break;
    case PROP_HOLD_ONCE: g_value_set_uint (value, self->hold_once); break;
    case PROP_MARGIN: g_value_set_double (value, self->margin); break;
    case PROP_GROW: g_value_set_double (value, self->grow); break;
    case PROP_MIN_IOU: g_value_set_double (value, self->min_iou); break;
    case PROP_FAIL_CLOSED: g_value_set_boolean (value, self->fail_closed); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    case PROP_DELAY: g_value_set_uint (value, self->delay); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roitrack_finalize (GObject *object)
{
  GstRoitrack *self = GST_ROITRACK (object);
  g_free (self->roi_type);
  forget (self);
  g_array_unref (self->tracks);
  g_array_unref (self->births);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_roitrack_class_init (GstRoitrackClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ctl = rw | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_roitrack_debug, "roitrack", 0, "roitrack");
  gobject_class->set_property = gst_roitrack_set_property;
  gobject_class->get_property = gst_roitrack_get_property;
  gobject_class->finalize = gst_roitrack_finalize;

  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type", "Type of the regions tracked (vjdetect's "
          "label)", DEFAULT_ROI_TYPE, rw));
  g_object_class_install_property (gobject_class, PROP_HOLD,
      g_param_spec_uint ("hold", "Hold", "Searched frames a track coasts along its path after "
          "its last detection before it ends", 0, 100000, DEFAULT_HOLD, ctl));
  g_object_class_install_property (gobject_class, PROP_HOLD_ONCE,
      g_param_spec_uint ("hold-once", "Hold once", "The same for a track detected in one "
          "frame only (at most hold): a one-off false detection blurs a few frames, not hold",
          0, 100000, DEFAULT_HOLD_ONCE, ctl));
  g_object_class_install_property (gobject_class, PROP_MARGIN,
      g_param_spec_double ("margin", "Margin", "Each side of an output box pushed out by this "
          "much of the box's width (height)", 0, 10, DEFAULT_MARGIN, ctl));
  g_object_class_install_property (gobject_class, PROP_GROW,
      g_param_spec_double ("grow", "Grow", "A coasting box's width and height grow by this "
          "much of the last detected size a frame", 0, 10, DEFAULT_GROW, ctl));
  g_object_class_install_property (gobject_class, PROP_MIN_IOU,
      g_param_spec_double ("min-iou", "Minimum IoU", "Least intersection over union of a "
          "detection with a track's predicted box for it to continue the track", 0, 1,
          DEFAULT_MIN_IOU, ctl));
  g_object_class_install_property (gobject_class, PROP_FAIL_CLOSED,
      g_param_spec_boolean ("fail-closed", "Fail closed", "A frame no detector marked as "
          "searched gets a whole-frame box too", TRUE, ctl));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages", "Post a \"roitrack\" element "
          "message every frame with the tracked boxes", TRUE, ctl));
  g_object_class_install_property (gobject_class, PROP_DELAY,
      g_param_spec_uint ("delay", "Delay", "Frames held back so that a track's first "
          "detection also blurs the frames before it (a face entering or turning is blurred "
          "from the frame it appeared in); adds as many frames of latency", 0, MAX_DELAY,
          DEFAULT_DELAY, ctl));

  gst_element_class_set_static_metadata (element_class, "Region tracker",
      "Filter/Analyzer/Video",
      "Tracks regions of interest across frames: stable ids, boxes held along their path "
      "when the detector misses them, whole-frame boxes when it did not run", FV_AUTHOR);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  bt->submit_input_buffer = GST_DEBUG_FUNCPTR (gst_roitrack_submit);
  bt->generate_output = GST_DEBUG_FUNCPTR (gst_roitrack_generate);
  bt->query = GST_DEBUG_FUNCPTR (gst_roitrack_query);
  bt->propose_allocation = GST_DEBUG_FUNCPTR (gst_roitrack_propose_allocation);
  bt->stop = GST_DEBUG_FUNCPTR (gst_roitrack_stop);
  bt->set_caps = GST_DEBUG_FUNCPTR (gst_roitrack_set_caps);
  bt->sink_event = GST_DEBUG_FUNCPTR (gst_roitrack_sink_event);
  bt->start = GST_DEBUG_FUNCPTR (gst_roitrack_start);
}

static void
gst_roitrack_init (GstRoitrack *self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  self->tracks = g_array_new (FALSE, FALSE, sizeof (Track));
  self->births = g_array_new (FALSE, FALSE, sizeof (Birth));
  g_queue_init (&self->held);
  gst_video_info_init (&self->info);
  self->delay = DEFAULT_DELAY;
  self->hold = DEFAULT_HOLD;
  self->hold_once = DEFAULT_HOLD_ONCE;
  self->margin = DEFAULT_MARGIN;
  self->grow = DEFAULT_GROW;
  self->min_iou = DEFAULT_MIN_IOU;
  self->fail_closed = TRUE;
  self->post_messages = TRUE;
  self->next_id = 1;
}
