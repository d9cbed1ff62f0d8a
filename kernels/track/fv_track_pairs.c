/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roitrack's tracker: a frame's detections grouped (one box an object,
 * identical boxes once) and paired with the tracks they may continue. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "fv_track_private.h"
#include "fv_match.h"
#include "../common/fv_overlap.h"

/* IoU of two boxes: the matcher's measure (fv_match.h). */
static gdouble
iou (const Box *a, const Box *b)
{
  const fv_match_box p = { a->x, a->y, a->w, a->h }, q = { b->x, b->y, b->w, b->h };
  return fv_match_iou (&p, &q);
}

/* The overlap of a and b as a share of the smaller (fv_overlap.h). */
gdouble
fv_track_overlap_of_smaller (const Box *a, const Box *b)
{
  const double ab[2][4] = { { a->x, a->y, a->w, a->h }, { b->x, b->y, b->w, b->h } };
  return fv_overlap_of_smaller (ab[0], ab[1]);
}

/* Detections of one object are one (OpenCV's second box shifted over the
 * same face, a box inside another): those overlapping by SAME_OBJECT of the
 * smaller, transitively, become the one of them the detector is surest of
 * (the most neighbours; then the larger; then the first). Their bounding
 * box would blur the forehead and hair above the face too (on the sample
 * clip, half the frame when the face is near). */
void
fv_track_merge_same (GArray *dets)
{
  const guint n = dets->len;
  if (n < 2 || n > MERGE_MAX)
    return;
  gint root[MERGE_MAX];
  double box[MERGE_MAX][4];
  for (guint i = 0; i < n; i++) {
    const Box *d = &g_array_index (dets, Box, i);
    box[i][0] = d->x;
    box[i][1] = d->y;
    box[i][2] = d->w;
    box[i][3] = d->h;
  }
  fv_group_overlapping ((int) n, (const double (*)[4]) box, SAME_OBJECT, root);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Box), n);
  guint slot[MERGE_MAX];
  for (guint i = 0; i < n; i++) {
    const guint r = (guint) root[i];
    const Box *d = &g_array_index (dets, Box, i);
    if (r == i) {
      slot[i] = out->len;
      g_array_append_val (out, *d);
      continue;
    }
    Box *m = &g_array_index (out, Box, slot[r]);
    if (d->neighbors > m->neighbors || (d->neighbors == m->neighbors && d->w * d->h > m->w * m->h))
      *m = *d;
  }
  g_array_set_size (dets, 0);
  g_array_append_vals (dets, out->data, out->len);
  g_array_unref (out);
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
void
fv_track_dedupe (GArray *dets)
{
  if (dets->len < 2)
    return;
  GHashTable *seen = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  GArray *kept = g_array_sized_new (FALSE, FALSE, sizeof (Box), dets->len);
  GPtrArray *keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint d = 0; d < dets->len; d++) {
    const Box *b = &g_array_index (dets, Box, d);
    const gdouble rect[4] = { b->x, b->y, b->w, b->h };
    GBytes *k = g_bytes_new (rect, sizeof rect);
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
GArray *
fv_track_candidate_pairs (GArray *tracks, GArray *dets, gdouble min_iou)
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
        const Box *db = &g_array_index (dets, Box, d);
        Pair p = { t, d, iou (&pb, db) };
        /* a detection inside the track's box or around it continues it too
         * (a face's box and OpenCV's shifted one are one track) */
        if (!((p.score >= min_iou || fv_track_overlap_of_smaller (&pb, db) >= SAME_OBJECT)
                && p.score > 0))
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
