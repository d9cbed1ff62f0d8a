/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One queue of frames held back, with one set of rules, for every element
 * that holds frames: GstFvFilter's frames in flight (gstfvfilter.c) and
 * roitrack's `delay` (gstroitrack.c).
 *  - items leave oldest first, through the owner's `out` (which makes the
 *    buffer to push, or discards the item);
 *  - a flush drops the held items;
 *  - every other serialized event (EOS, caps, segment, gap, tags, stream
 *    start, custom downstream events ...) pushes them first, in order: they
 *    came before it; out-of-band events pass them;
 *  - upstream pools keep that many more buffers out (an ALLOCATION query's
 *    minimum and maximum raised), and a change of the count reconfigures
 *    the sink pad, so that upstream asks again;
 *  - the latency they add is said (fvlatency.h). */
#ifndef FV_HOLD_H
#define FV_HOLD_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include "fvlatency.h"

G_BEGIN_DECLS

typedef enum {
  FV_HOLD_PASS,    /* the event does not touch the held frames */
  FV_HOLD_DRAIN,   /* push them before the event */
  FV_HOLD_DROP,    /* drop them (a flush) */
} FvHoldAction;

/* The oldest item out: the buffer to push, or NULL when drop is set (the
 * item is discarded) or it failed (*ret says why; the item is freed). */
typedef GstBuffer *(*FvHoldOut) (gpointer owner, gpointer item, gboolean drop,
    GstFlowReturn *ret);

typedef struct {
  GQueue items;        /* held, oldest first */
  FvLatency latency;   /* the frames the element says it holds */
  FvHoldOut out;
  gpointer owner;
} FvHold;

void fv_hold_init (FvHold *hold, FvHoldOut out, gpointer owner);
static inline guint
fv_hold_count (const FvHold *hold)
{
  return hold->items.length;
}
void fv_hold_push (FvHold *hold, gpointer item);
/* The oldest item out, for pushing (*buf NULL after a failure). */
GstFlowReturn fv_hold_pop (FvHold *hold, GstBuffer **buf);
/* Every item discarded (a flush, stop, the plans freed). */
void fv_hold_drop (FvHold *hold);
/* Every item out and pushed on trans's src pad, in order; once one fails
 * or downstream refuses one, the rest are discarded. */
GstFlowReturn fv_hold_drain (FvHold *hold, GstBaseTransform *trans);
/* The rule for a sink event: drained before a serialized one, dropped on
 * a flush. Returns what it did. */
FvHoldAction fv_hold_event (FvHold *hold, GstBaseTransform *trans, GstEvent *event);

/* Raises every pool's minimum (and a nonzero maximum) in an ALLOCATION
 * query by the frames the element holds (as fv_hold_set left them). */
void fv_hold_raise_pools (GstElement *element, FvHold *hold, GstQuery *query);

/* The element now holds `held` frames back: the latency said (a message
 * when it changes) and, when it changes, the sink pad reconfigured so that
 * upstream proposes its pools again. */
void fv_hold_set (GstBaseTransform *trans, FvHold *hold, guint held);

G_END_DECLS
#endif
