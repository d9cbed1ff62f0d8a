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
