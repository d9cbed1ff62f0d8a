/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rectangle grouping as OpenCV's groupRectangles: similar rectangles are
 * joined transitively (union-find over all pairs), each class is averaged,
 * weak classes and boxes inside stronger ones are dropped. */
#include <stdlib.h>
#include <math.h>
#include "fv_vj.h"

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
  int nout = -1;
  if (!parent || !acc || !count || !avg)
    goto out;
  for (int i = 0; i < n; i++)
    parent[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (similar (&rects[i], &rects[j], eps)) {
        int a = find (parent, i), b = find (parent, j);
        if (a != b)
          parent[a < b ? b : a] = a < b ? a : b;
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
  nout = 0;
  for (int i = 0; i < nclasses; i++) {
    const fv_rect *r1 = &avg[i];
    int n1 = count[i], j;
    if (n1 <= min_neighbors)
      continue;
    for (j = 0; j < nclasses; j++) {
      int n2 = count[j];
      if (j == i || n2 <= min_neighbors)
        continue;
      const fv_rect *r2 = &avg[j];
      int dx = (int) lrint (r2->width * eps), dy = (int) lrint (r2->height * eps);
      if (r1->x >= r2->x - dx && r1->y >= r2->y - dy
          && r1->x + r1->width <= r2->x + r2->width + dx
          && r1->y + r1->height <= r2->y + r2->height + dy
          && (n2 > (n1 > 3 ? n1 : 3) || n1 < 3))
        break;
    }
    if (j == nclasses) {
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
  return nout;
}
