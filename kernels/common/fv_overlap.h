/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grouping boxes that overlap: the one rule by which detections of one
 * object become one group, for the turned scans' merge (fv_vj_turned.c)
 * and the tracker (fv_track.c). A box is x, y, width, height. */
#ifndef FV_OVERLAP_H
#define FV_OVERLAP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The area a and b share, as a share of the smaller one's (0 when they do
 * not overlap or one is empty). */
double fv_overlap_of_smaller (const double a[4], const double b[4]);

/* Groups n boxes transitively: two boxes whose shared area is at least
 * `share` of the smaller one's are in one group. root[i] gets the first
 * box (lowest index) of i's group, so root[i] == i marks each group's first
 * box, and groups come in the order of their first boxes. O(n²). */
void fv_group_overlapping (int n, const double (*box)[4], double share, int *root);

#ifdef __cplusplus
}
#endif
#endif
