/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fv_overlap.h"

double
fv_overlap_of_smaller (const double a[4], const double b[4])
{
  const double ix = (a[0] + a[2] < b[0] + b[2] ? a[0] + a[2] : b[0] + b[2])
      - (a[0] > b[0] ? a[0] : b[0]);
  const double iy = (a[1] + a[3] < b[1] + b[3] ? a[1] + a[3] : b[1] + b[3])
      - (a[1] > b[1] ? a[1] : b[1]);
  const double sa = a[2] * a[3], sb = b[2] * b[3], small = sa < sb ? sa : sb;
  return ix <= 0 || iy <= 0 || small <= 0 ? 0 : ix * iy / small;
}

static int
root_of (int *root, int a)
{
  while (root[a] != a)
    a = root[a] = root[root[a]];
  return a;
}

void
fv_group_overlapping (int n, const double (*box)[4], double share, int *root)
{
  for (int i = 0; i < n; i++)
    root[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (fv_overlap_of_smaller (box[i], box[j]) >= share) {
        const int a = root_of (root, i), b = root_of (root, j);
        root[a > b ? a : b] = a < b ? a : b;   /* a group's root is its first box */
      }
  for (int i = 0; i < n; i++)
    root[i] = root_of (root, i);
}
