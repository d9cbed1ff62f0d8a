/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ids that stay with objects from frame to frame when every frame lists
 * every object with its exact box (autofill's parts on a belt): each
 * object's box is predicted from its last motion (one seen once moves as
 * the median of the objects seen again did: a belt carries its parts
 * together), a frame's boxes take the
 * ids of the predictions they overlap most (one to one, greedily by
 * overlap), the rest take new ids, and an object missed for more than
 * `hold` frames is forgotten. Unlike fv_track (made for a detector that
 * misses and doubles faces) nothing is merged, grown or held back: boxes
 * come out as they came in, with an id.
 *
 * Not thread-safe: one caller at a time. */
#ifndef FV_MATCH_H
#define FV_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double x, y, w, h;
} fv_match_box;

/* Intersection over union of two boxes (0 when they do not overlap); the
 * one overlap measure of the matcher and the tracker. */
static inline double
fv_match_iou (const fv_match_box *a, const fv_match_box *b)
{
  const double r = (a->x + a->w < b->x + b->w ? a->x + a->w : b->x + b->w);
  const double l = a->x > b->x ? a->x : b->x;
  const double bt = (a->y + a->h < b->y + b->h ? a->y + a->h : b->y + b->h);
  const double t = a->y > b->y ? a->y : b->y;
  if (r - l <= 0 || bt - t <= 0)
    return 0;
  const double inter = (r - l) * (bt - t), uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0 ? inter / uni : 0;
}

typedef struct fv_matcher fv_matcher;

fv_matcher *fv_matcher_new (void);
void fv_matcher_free (fv_matcher *m);
/* Every object forgotten; ids start from 1 again. */
void fv_matcher_reset (fv_matcher *m);
/* One frame's boxes in, their ids (>= 1) out in ids[n]. min_iou: the least
 * overlap (intersection over union) of a box with an object's predicted
 * box that continues it; hold: frames an unseen object is remembered.
 * Returns 0 when out of memory (ids then all 0). */
int fv_matcher_assign (fv_matcher *m, const fv_match_box *boxes, size_t n, double min_iou,
    unsigned hold, uint32_t *ids);
/* Objects remembered now. */
size_t fv_matcher_count (const fv_matcher *m);

#ifdef __cplusplus
}
#endif
#endif
