/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rectangle grouping as OpenCV's groupRectangles: similar rectangles are
 * joined transitively (union-find), each class is averaged, weak classes
 * and boxes inside stronger ones are dropped.
 *
 * The classes are the connected parts of the graph of similar pairs, so
 * they do not depend on the order in which pairs are looked at, and they
 * are numbered in the order of their first member, as OpenCV's partition
 * numbers them. Only pairs that can be similar are looked at: similar
 * rectangles a, b have |a.x - b.x| <= delta <= eps * (a.width + a.height)
 * / 2 (delta takes the smaller width and height), so with the rectangles
 * sorted by x, each is compared with those after it up to that far to its
 * right. Looking at all pairs took about 0.3 s of the 1.57 s a 32768^2
 * frame of about 17,000 raw windows took on one H200; with the sweep the
 * frame takes 1.24 s (docs/benchmark-log.md, 2026-11-28). */
#include <stdlib.h>
#include <math.h>
#include "fv_vj.h"
#include "fv_vj_turned.h"
#include "../common/fv_overlap.h"

static int
similar (const fv_rect *a, const fv_rect *b, double eps)
{
  int mw = a->width < b->width ? a->width : b->width;
  int mh = a->height < b->height ? a->height : b->height;
  double delta = eps * (mw + mh) * 0.5;
  return abs (a->x - b->x) <= delta && abs (a->y - b->y) <= delta
      && abs (a->x + a->width - b->x - b->width) <= delta
      && abs (a->y + a->height - b->y - b->height) <= delta;
}

typedef struct {
  int x, i;
} Key;

static int
by_x_then_index (const void *pa, const void *pb)
{
  const Key *a = pa, *b = pb;
  return a->x != b->x ? (a->x < b->x ? -1 : 1) : a->i - b->i;
}

static int
find (int *parent, int i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

int
fv_vj_group (const fv_rect *rects, int n, int min_neighbors, double eps, fv_detection *out)
{
  if (min_neighbors <= 0 || n == 0) {
    for (int i = 0; i < n; i++) {
      out[i].box = rects[i];
      out[i].neighbors = 1;
    }
    return n;
  }
  int *parent = malloc (sizeof (int) * n * 2), *label = parent + n;
  long long (*acc)[4] = calloc (n, sizeof *acc);
  int *count = calloc (n, sizeof (int));
  fv_rect *avg = malloc (sizeof (fv_rect) * n);
  Key *by_x = malloc (sizeof (Key) * n);
  int *strong = malloc (sizeof (int) * n);
  int nout = -1;
  if (!parent || !acc || !count || !avg || !by_x || !strong)
    goto out;
  for (int i = 0; i < n; i++) {
    parent[i] = i;
    by_x[i] = (Key) { rects[i].x, i };
  }
  qsort (by_x, n, sizeof *by_x, by_x_then_index);
  for (int a = 0; a < n; a++) {
    const int i = by_x[a].i;
    const double reach = eps * (rects[i].width + rects[i].height) * 0.5;
    for (int b = a + 1; b < n && by_x[b].x - rects[i].x <= reach; b++) {
      const int j = by_x[b].i;
      if (similar (&rects[i], &rects[j], eps)) {
        int ri = find (parent, i), rj = find (parent, j);
        if (ri != rj)
          parent[ri < rj ? rj : ri] = ri < rj ? ri : rj;
      }
    }
  }
  /* classes numbered in the order their first member appears */
  int nclasses = 0;
  for (int i = 0; i < n; i++)
    label[i] = -1;
  for (int i = 0; i < n; i++) {
    int r = find (parent, i);
    if (label[r] < 0)
      label[r] = nclasses++;
    int c = label[r];
    acc[c][0] += rects[i].x;
    acc[c][1] += rects[i].y;
    acc[c][2] += rects[i].width;
    acc[c][3] += rects[i].height;
    count[c]++;
  }
  for (int c = 0; c < nclasses; c++) {
    float s = 1.f / count[c];
    avg[c].x = (int) lrintf ((float) acc[c][0] * s);
    avg[c].y = (int) lrintf ((float) acc[c][1] * s);
    avg[c].width = (int) lrintf ((float) acc[c][2] * s);
    avg[c].height = (int) lrintf ((float) acc[c][3] * s);
  }
  /* a strong class is dropped when it lies in another strong one with
   * more members: only strong classes are compared */
  int nstrong = 0;
  for (int c = 0; c < nclasses; c++)
    if (count[c] > min_neighbors)
      strong[nstrong++] = c;
  nout = 0;
  for (int s = 0; s < nstrong; s++) {
    const int i = strong[s];
    const fv_rect *r1 = &avg[i];
    int n1 = count[i], t;
    for (t = 0; t < nstrong; t++) {
      const int j = strong[t];
      const int n2 = count[j];
      if (j == i)
        continue;
      const fv_rect *r2 = &avg[j];
      int dx = (int) lrint (r2->width * eps), dy = (int) lrint (r2->height * eps);
      if (r1->x >= r2->x - dx && r1->y >= r2->y - dy
          && r1->x + r1->width <= r2->x + r2->width + dx
          && r1->y + r1->height <= r2->y + r2->height + dy
          && (n2 > (n1 > 3 ? n1 : 3) || n1 < 3))
        break;
    }
    if (t == nstrong) {
      out[nout].box = *r1;
      out[nout].neighbors = n1;
      nout++;
    }
  }
out:
  free (parent);
  free (acc);
  free (count);
  free (avg);
  free (by_x);
  free (strong);
  return nout;
}

/* The turned scans' boxes of one object (overlapping by half of the
 * smaller, transitively: fv_overlap.h) as one: their bounding box, the
 * neighbours summed, the angle of the turn that saw it best, and how many
 * angles saw it. */
int
fv_vj_merge_turns (const fv_vj_turned_det *in, int n, fv_vj_turned_det *out)
{
  int *root = malloc (sizeof (int) * 3 * (size_t) (n + 1)), *slot = root + n + 1;
  int *best = slot + n + 1;
  double (*box)[4] = malloc (sizeof *box * (size_t) (n + 1));
  if (!root || !box) {
    free (root);
    free (box);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    box[i][0] = in[i].box.x;
    box[i][1] = in[i].box.y;
    box[i][2] = in[i].box.width;
    box[i][3] = in[i].box.height;
  }
  fv_group_overlapping (n, (const double (*)[4]) box, 0.5, root);
  int nout = 0;
  for (int i = 0; i < n; i++) {
    const int r = root[i];
    const fv_vj_turned_det *d = &in[i];
    if (r == i) {
      slot[i] = nout;
      best[i] = d->neighbors;
      out[nout] = *d;
      out[nout++].nangles = 1;
      continue;
    }
    fv_vj_turned_det *m = &out[slot[r]];
    int seen_angle = 0;   /* an earlier member of the group at this angle */
    for (int j = r; j < i && !seen_angle; j++)
      seen_angle = root[j] == r && in[j].angle == d->angle;
    m->nangles += !seen_angle;
    if (d->neighbors > best[r]) {   /* the turn that saw it best */
      best[r] = d->neighbors;
      m->angle = d->angle;
    }
    const int x1 = m->box.x + m->box.width > d->box.x + d->box.width
        ? m->box.x + m->box.width : d->box.x + d->box.width;
    const int y1 = m->box.y + m->box.height > d->box.y + d->box.height
        ? m->box.y + m->box.height : d->box.y + d->box.height;
    m->box.x = m->box.x < d->box.x ? m->box.x : d->box.x;
    m->box.y = m->box.y < d->box.y ? m->box.y : d->box.y;
    m->box.width = x1 - m->box.x;
    m->box.height = y1 - m->box.y;
    m->neighbors += d->neighbors;
  }
  free (box);
  free (root);
  return nout;
}
