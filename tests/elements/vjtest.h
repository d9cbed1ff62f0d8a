/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the vjdetect element tests share (vjtest.c): paths of the test data
 * and cascades, a temporary folder per test, a photo as a buffer, boxes
 * from metas and bus messages, pipelines run to the end, and the start
 * errors a bad cascade gives. */
#ifndef VJTEST_H
#define VJTEST_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

typedef struct { gint x, y, w, h; } Box;
static const Box astronaut_face = { 177, 66, 95, 95 };   /* OpenCV 4.6's, see tests/data/faces */

/* the checked fixture's folder (vjt_setup, vjt_teardown) */
extern gchar *vjt_tmpdir;

gchar *vjt_data_path (const char *name);
gchar *vjt_cascade_path (const char *kind, const char *name);
gchar *vjt_default_cascade (void);
void vjt_setup (void);
void vjt_teardown (void);
gchar *vjt_write_file (const char *name, const char *data);
gdouble vjt_iou (const Box *a, const Box *b);
GstBuffer *vjt_pgm_buffer (const char *name, gint x, gint y, gint w, gint h, GstVideoInfo *info);
void vjt_vj_set_arg (GstHarness *h, const char *prop, const char *value);
GstHarness *vjt_harness_for (const GstVideoInfo *info);
gint vjt_metas (GstBuffer *b, const char *type, Box *out, gint max);
gint vjt_message_faces (GstMessage *msg, Box *out, gint max, GstClockTime *ts);
GstMessage *vjt_pop_detection (GstBus *bus);
gint vjt_run_pipeline (const gchar *launch, Box *out, gint max);
guint vjt_matched (GArray *from, GArray *from_frame, GArray *to, GArray *to_frame);
void vjt_expect_start_error (const char *backend, const char *cascade, const char *in_message,
    const char *also);
void vjt_expect_refused (const char *path, const char *expect);
GstBuffer *vjt_turned_buffer (GstBuffer *in, gint w, gint h, gdouble deg);

#endif
