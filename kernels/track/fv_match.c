/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ids from frame to frame: predict, pair by overlap, greedy (fv_match.h).
 * Candidate pairs come from a sweep over the predictions sorted by their
 * left edge, so that a frame of n boxes among m objects costs about
 * (n + m) log m plus the pairs that truly overlap, not n x m. */
#include <stdlib.h>
#include "fv_match.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

typedef struct {
  fv_match_box box;        /* where it was last seen */
  double vx, vy;           /* its motion a frame */
  uint32_t id;
  unsigned missed;         /* frames since */
  unsigned moved;          /* frames it was seen again in: its own motion is known */
} object;

typedef struct {
  double iou;
  uint32_t box, obj;
} pair;

struct fv_matcher {
  object *obj;
  size_t n, cap;
  uint32_t next_id;
  double vx, vy;           /* the median motion of the objects seen again last */
};

fv_matcher *
fv_matcher_new (void)
{
  fv_matcher *m = calloc (1, sizeof *m);
  if (m)
    m->next_id = 1;
  return m;
}

void
fv_matcher_free (fv_matcher *m)
{
  if (!m)
    return;
  free (m->obj);
  free (m);
}

void
fv_matcher_reset (fv_matcher *m)
{
  m->n = 0;
  m->next_id = 1;
  m->vx = m->vy = 0;
}

size_t
fv_matcher_count (const fv_matcher *m)
{
  return m->n;
}

typedef struct {
  double left;
  uint32_t k;
} edge;

static int
by_left (const void *a, const void *b)
{
  const edge *p = a, *q = b;
  if (p->left != q->left)
    return (p->left > q->left) - (p->left < q->left);
  return (p->k > q->k) - (p->k < q->k);
}

static int
by_value (const void *a, const void *b)
{
  const double l = *(const double *) a, r = *(const double *) b;
  return (l > r) - (l < r);
}

static double
median (double *v, size_t n)
{
  qsort (v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
by_overlap (const void *a, const void *b)
{
  const pair *p = a, *q = b;
  if (p->iou != q->iou)
    return p->iou < q->iou ? 1 : -1;
  /* ties: the older object, then the earlier box (the same ids on every run) */
  return p->obj != q->obj ? (p->obj > q->obj) - (p->obj < q->obj)
      : (p->box > q->box) - (p->box < q->box);
}

int
fv_matcher_assign (fv_matcher *m, const fv_match_box *boxes, size_t n, double min_iou,
    unsigned hold, uint32_t *ids)
{
  for (size_t i = 0; i < n; i++)
    ids[i] = 0;
  const size_t no = m->n;
  fv_match_box *pred = malloc (sizeof *pred * (no + 1));
  edge *order = malloc (sizeof *order * (no + 1));
  uint8_t *taken = calloc (no + 1, 1);
  size_t npairs = 0, cap = 64;
  pair *pairs = malloc (sizeof *pairs * cap);
  int ok = pred && order && taken && pairs;
  double widest = 0;
  for (size_t k = 0; ok && k < no; k++) {
    const object *o = &m->obj[k];
    /* one seen once moves as the others did (a belt's parts together) */
    const double vx = o->moved ? o->vx : m->vx, vy = o->moved ? o->vy : m->vy;
    pred[k] = (fv_match_box) { o->box.x + vx * (o->missed + 1),
      o->box.y + vy * (o->missed + 1), o->box.w, o->box.h };
    order[k] = (edge) { pred[k].x, (uint32_t) k };
    widest = MAX (widest, o->box.w);
  }
  if (ok)
    qsort (order, no, sizeof *order, by_left);
  /* the predictions whose left edge lies in (box.x - widest, box.x + box.w) */
  for (size_t i = 0; ok && i < n; i++) {
    const fv_match_box *b = &boxes[i];
    size_t lo = 0, hi = no;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (order[mid].left <= b->x - widest) lo = mid + 1; else hi = mid;
    }
    for (size_t k = lo; k < no && order[k].left < b->x + b->w; k++) {
      const double v = fv_match_iou (b, &pred[order[k].k]);
      if (v < min_iou || v <= 0)
        continue;
      if (npairs == cap) {
        pair *p = realloc (pairs, sizeof *p * (cap *= 2));
        if (!p) { ok = 0; break; }
        pairs = p;
      }
      pairs[npairs++] = (pair) { v, (uint32_t) i, order[k].k };
    }
  }
  if (ok)
    qsort (pairs, npairs, sizeof *pairs, by_overlap);
  /* the objects seen again move; new boxes become objects; the unseen
   * coast until hold runs out */
  object *next = ok ? malloc (sizeof *next * (no + n + 1)) : NULL;
  double *mx = ok ? malloc (sizeof *mx * (2 * n + 2)) : NULL, *my = mx ? mx + n + 1 : NULL;
  ok = ok && next && mx;
  size_t nn = 0, nmoved = 0;
  for (size_t p = 0; ok && p < npairs; p++) {
    const pair *q = &pairs[p];
    if (taken[q->obj] || ids[q->box])
      continue;
    taken[q->obj] = 1;
    const object *o = &m->obj[q->obj];
    const fv_match_box *b = &boxes[q->box];
    const double steps = o->missed + 1;
    const double dx = (b->x + b->w / 2 - o->box.x - o->box.w / 2) / steps;
    const double dy = (b->y + b->h / 2 - o->box.y - o->box.h / 2) / steps;
    ids[q->box] = o->id;
    mx[nmoved] = dx;
    my[nmoved++] = dy;
    next[nn++] = (object) { *b, dx, dy, o->id, 0, o->moved + 1 };
  }
  if (ok && nmoved) {
    m->vx = median (mx, nmoved);
    m->vy = median (my, nmoved);
  }
  for (size_t i = 0; ok && i < n; i++)
    if (!ids[i]) {
      ids[i] = m->next_id++;
      if (!m->next_id)   /* wrapped: 0 means none */
        m->next_id = 1;
      next[nn++] = (object) { boxes[i], 0, 0, ids[i], 0, 0 };
    }
  for (size_t k = 0; ok && k < no; k++)
    if (!taken[k] && m->obj[k].missed < hold) {
      next[nn] = m->obj[k];
      next[nn++].missed++;
    }
  if (ok) {
    free (m->obj);
    m->obj = next;
    m->n = nn;
    m->cap = no + n + 1;
  } else {
    free (next);
    for (size_t i = 0; i < n; i++)
      ids[i] = 0;
  }
  free (mx);
  free (pred);
  free (order);
  free (taken);
  free (pairs);
  return ok;
}
