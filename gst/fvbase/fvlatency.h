/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Latency as GStreamer means it: only what an element holds back. A
 * synchronous filter returns each frame before taking the next and adds
 * nothing (its processing time is the sink's processing-deadline); an
 * element that keeps frames in flight adds that many frame durations, and
 * posts one latency message when the count changes, never per frame. */
#ifndef FV_LATENCY_H
#define FV_LATENCY_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct {
  guint frames_held;   /* under the element's object lock */
} FvLatency;

void fv_latency_reset (GstElement *element, FvLatency *lat);
/* The frames held now. */
guint fv_latency_frames (GstElement *element, FvLatency *lat);
/* The element now holds `frames` frames back: a latency message when that
 * changes. TRUE when it changed. */
gboolean fv_latency_hold (GstElement *element, FvLatency *lat, guint frames);
/* Adds frames held x frame duration (from info's frame rate; nothing when
 * it is unknown) to an answered LATENCY query. */
void fv_latency_add_to_query (GstElement *element, FvLatency *lat, const GstVideoInfo *info,
    GstQuery *query);

G_END_DECLS
#endif
