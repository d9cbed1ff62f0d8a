/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the roitrack element tests share (roitracktest.c): the element with
 * the reference's parameters, frames of detections in, tracked regions out. */
#ifndef ROITRACKTEST_H
#define ROITRACKTEST_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "../common/fvtrack_ref.h"

GstHarness *harness (const gchar *props);
/* A frame with these face detections (and one "plate" region that must
 * pass untouched), marked `searched` as vjdetect marks it. */
GstBuffer *make_frame (const Box *det, int nd, int searched);
/* The tracked faces of an output frame (unreffed), *whole set when a
 * whole-frame box came out; early[i] the frames before the track's first
 * detection (0 for a box of a detected or coasting track). */
int read_regions (GstBuffer *o, Out *out, gboolean *whole, guint *early, int *plates_out);
/* The same for frames that carry the one "plate" region of make_frame. */
int read_frame (GstBuffer *o, Out *out, gboolean *whole, guint *early);
/* Pushes a frame and reads the one that comes out (no delay). */
int frame (GstHarness *h, const Box *det, int nd, int searched, Out *out, gboolean *whole);
/* qsort order of tracked regions by id */
int by_id (const void *a, const void *b);

#endif
