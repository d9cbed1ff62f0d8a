/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One set of rules for an element that holds frames back: the base
 * class's frames in flight (gstfvfilter.c) and roitrack's `delay`
 * (gstroitrack.c) both follow them.
 *  - a flush drops the held frames;
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

FvHoldAction fv_hold_action (GstEvent *event);

/* Raises every pool's minimum (and a nonzero maximum) in an ALLOCATION
 * query by the frames the element holds (lat, as fv_hold_set left it). */
void fv_hold_raise_pools (GstElement *element, FvLatency *lat, GstQuery *query);

/* The element now holds `held` frames back: the latency said (a message
 * when it changes) and, when it changes, the sink pad reconfigured so that
 * upstream proposes its pools again. */
void fv_hold_set (GstBaseTransform *trans, FvLatency *lat, guint held);

G_END_DECLS
#endif
