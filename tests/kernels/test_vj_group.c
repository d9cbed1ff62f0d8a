/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The grouping of raw windows (fv_vj_group) against a reference written
 * from OpenCV's groupRectangles as its documentation and source describe
 * it: two rectangles are similar when each of their four sides differs by
 * at most delta = eps * (min width + min height) / 2; the classes are the
 * connected parts of the similar pairs (found here by a breadth-first walk
 * over every pair), numbered by their first member; each class is
 * averaged; a class of at most min_neighbors members is dropped, and so is
 * a strong class inside another strong class (grown by eps of its size)
 * with more members than max(3, its own). Random scenes of clustered
 * windows of pyramid sizes, then hand-made ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_vj.h"

static int
ref_similar (fv_rect a, fv_rect b, double eps)
{
  const double delta = eps * ((a.width < b.width ? a.width : b.width)
      + (a.height < b.height ? a.height : b.height)) * 0.5;
  return fabs ((double) a.x - b.x) <= delta && fabs ((double) a.y - b.y) <= delta
      && fabs ((double) (a.x + a.width) - (b.x + b.width)) <= delta
      && fabs ((double) (a.y + a.height) - (b.y + b.height)) <= delta;
}

/* The definition, quadratic on purpose. */
static int
ref_group (const fv_rect *r, int n, int min_neighbors, double eps, fv_detection *out)
{
  if (min_neighbors <= 0) {
    for (int i = 0; i < n; i++)
      out[i] = (fv_detection) { .box = r[i], .neighbors = 1 };
    return n;
  }
  int *cls = malloc (sizeof (int) * (n + 1)), *queue = malloc (sizeof (int) * (n + 1));
  int nc = 0;
  for (int i = 0; i < n; i++)
    cls[i] = -1;
  for (int i = 0; i < n; i++) {   /* a walk from each first member */
    if (cls[i] >= 0)
      continue;
    int head = 0, tail = 0;
    cls[i] = nc;
    queue[tail++] = i;
    while (head < tail) {
      const int a = queue[head++];
      for (int b = 0; b < n; b++)
        if (cls[b] < 0 && ref_similar (r[a], r[b], eps)) {
          cls[b] = nc;
          queue[tail++] = b;
        }
    }
    nc++;
  }
  fv_rect *avg = malloc (sizeof (fv_rect) * (nc + 1));
  int *members = calloc (nc + 1, sizeof (int));
  for (int c = 0; c < nc; c++) {
    long long sx = 0, sy = 0, sw = 0, sh = 0;
    for (int i = 0; i < n; i++)
      if (cls[i] == c) {
        sx += r[i].x; sy += r[i].y; sw += r[i].width; sh += r[i].height;
        members[c]++;
      }
    const float s = 1.f / members[c];
    avg[c] = (fv_rect) { (int) lrintf ((float) sx * s), (int) lrintf ((float) sy * s),
        (int) lrintf ((float) sw * s), (int) lrintf ((float) sh * s) };
  }
  int k = 0;
  for (int c = 0; c < nc; c++) {
    if (members[c] <= min_neighbors)
      continue;
    int inside = 0;
    for (int o = 0; o < nc && !inside; o++) {
      if (o == c || members[o] <= min_neighbors)
        continue;
      const int dx = (int) lrint (avg[o].width * eps), dy = (int) lrint (avg[o].height * eps);
      const int more = members[o] > (members[c] > 3 ? members[c] : 3) || members[c] < 3;
      inside = more && avg[c].x >= avg[o].x - dx && avg[c].y >= avg[o].y - dy
          && avg[c].x + avg[c].width <= avg[o].x + avg[o].width + dx
          && avg[c].y + avg[c].height <= avg[o].y + avg[o].height + dy;
    }
    if (!inside)
      out[k++] = (fv_detection) { .box = avg[c], .neighbors = members[c] };
  }
  free (cls); free (queue); free (avg); free (members);
  return k;
}

/* n windows around `spots` faces of pyramid sizes (1.1^k times 24), each
 * jittered by up to a tenth of its size, some at a neighbouring scale, and
 * a few lone ones; sides long enough to reach across x. */
static void
scene (fvt_rng *g, fv_rect *r, int n, int spots, int frame)
{
  fv_rect spot[64];
  for (int s = 0; s < spots; s++) {
    const int side = (int) (24 * pow (1.1, fvt_next (g) % 40));
    spot[s] = (fv_rect) { (int) (fvt_next (g) % frame), (int) (fvt_next (g) % frame), side, side };
  }
  for (int i = 0; i < n; i++) {
    if (fvt_next (g) % 16 == 0 || spots == 0) {   /* lone */
      const int side = (int) (24 * pow (1.1, fvt_next (g) % 40));
      r[i] = (fv_rect) { (int) (fvt_next (g) % frame), (int) (fvt_next (g) % frame), side, side };
      continue;
    }
    const fv_rect s = spot[fvt_next (g) % spots];
    const double scale = pow (1.1, (int) (fvt_next (g) % 3) - 1);
    const int side = (int) (s.width * scale), j = side / 10 + 1;
    r[i] = (fv_rect) { s.x + (int) (fvt_next (g) % (2 * j + 1)) - j,
        s.y + (int) (fvt_next (g) % (2 * j + 1)) - j, side, side + (int) (fvt_next (g) % 2) };
  }
}

static void
random_scenes (void)
{
  fvt_rng g = { 0x9e3779b97f4a7c15ull };
  static const int sizes[] = { 0, 1, 2, 3, 7, 40, 300, 2000, 6000 };
  static const double epss[] = { 0.2, 0.1, 0.5 };
  static const int mins[] = { 0, 1, 2, 3, 5 };
  fv_rect *r = malloc (sizeof (fv_rect) * 6000);
  fv_detection *got = malloc (sizeof (fv_detection) * 6000);
  fv_detection *want = malloc (sizeof (fv_detection) * 6000);
  int cases = 0, boxes = 0;
  for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
    for (size_t e = 0; e < sizeof epss / sizeof epss[0]; e++)
      for (size_t m = 0; m < sizeof mins / sizeof mins[0]; m++) {
        const int n = sizes[a];
        if (n >= 2000 && (e > 0 || m % 2))   /* the quadratic reference is slow */
          continue;
        scene (&g, r, n, n < 64 ? 1 + n / 4 : 50, n > 300 ? 4000 : 600);
        const int k = fv_vj_group (r, n, mins[m], epss[e], got);
        const int kw = ref_group (r, n, mins[m], epss[e], want);
        int same = k == kw;
        for (int i = 0; same && i < k; i++)
          same = !memcmp (&got[i].box, &want[i].box, sizeof got[i].box)
              && got[i].neighbors == want[i].neighbors;
        FVT_CHECK (same, "grouping %d windows, eps %.1f, min-neighbors %d: %d boxes, "
            "reference %d (or a box differs)", n, epss[e], mins[m], k, kw);
        cases++;
        boxes += kw;
      }
  printf ("grouping: %d random scenes, %d boxes, equal to the reference\n", cases, boxes);
  free (r);
  free (got);
  free (want);
}

static void
hand_made (void)
{
  fv_rect r[] = {
    { 100, 100, 40, 40 }, { 102, 101, 40, 40 }, { 99, 98, 42, 42 }, { 101, 100, 40, 40 },
    { 300, 50, 30, 30 }, { 301, 50, 30, 30 },     /* too few: dropped at 3 */
    { 108, 108, 20, 20 }, { 108, 108, 20, 20 }, { 109, 108, 20, 20 }, { 108, 109, 20, 20 },
  };
  fv_detection d[16];
  int n = fv_vj_group (r, 10, 3, 0.2, d);
  /* the small class lies inside the big one, but with as many members (4,
   * not more than max(3, 4)), so it stays */
  FVT_CHECK (n == 2, "grouping: %d boxes, want 2", n);
  FVT_CHECK (n >= 1 && d[0].neighbors == 4 && d[0].box.x == 100 && d[0].box.y == 100
      && d[0].box.width == 40 && d[0].box.height == 40, "grouping: first box %d,%d %dx%d (%d)",
      d[0].box.x, d[0].box.y, d[0].box.width, d[0].box.height, d[0].neighbors);
  r[0] = r[1] = r[2] = r[3];
  fv_rect more[14];
  memcpy (more, r, sizeof r);
  for (int i = 10; i < 14; i++)
    more[i] = r[3];   /* the big class now has 8: the small one inside goes */
  n = fv_vj_group (more, 14, 3, 0.2, d);
  FVT_CHECK (n == 1 && d[0].neighbors == 8, "grouping: %d boxes, first with %d", n, d[0].neighbors);
  n = fv_vj_group (r, 10, 0, 0.2, d);
  FVT_CHECK (n == 10 && d[9].neighbors == 1, "min-neighbors 0 keeps every window");
  /* a chain: each next to the last, the first and the last far apart,
   * given in an order that is not x's: one class */
  fv_rect chain[12];
  for (int i = 0; i < 12; i++)
    chain[i] = (fv_rect) { 1000 - 8 * ((i * 5) % 12), 50, 40, 40 };
  n = fv_vj_group (chain, 12, 3, 0.2, d);
  FVT_CHECK (n == 1 && d[0].neighbors == 12, "a chain of 12 windows 8 px apart: %d boxes", n);
}

int
main (void)
{
  hand_made ();
  random_scenes ();
  return fvt_summary ("window grouping");
}
