/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GST_VJ_DETECT_H
#define GST_VJ_DETECT_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include "fv_vj.h"
#include "fv_vj_turned.h"
#include "gstfvfilter.h"
#include "fvscratch.h"

G_BEGIN_DECLS

#define GST_TYPE_VJ_DETECT (gst_vj_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstVjDetect, gst_vj_detect, GST, VJ_DETECT, GstFvFilter)

struct _GstVjDetect {
  GstFvFilter parent;

  /* properties, under the object lock */
  gchar *cascade_path;
  gdouble scale_factor;
  gint min_neighbors;
  gint turned_min_neighbors;    /* a turned scan's boxes need this many */
  gint min_width, min_height, max_width, max_height;
  gchar *label;
  gboolean draw, post_messages;
  gint updates;                /* GstVjDetectUpdates: when messages are posted */
  gchar *message_name;         /* "vjdetect", or "facedetect" for its applications */
  gint last_count;             /* faces in the last frame (updates=on_change), -1 at start */
  gboolean cascade_changed;    /* a new cascade to load before the next frame */
  guint interval;              /* detect on every interval-th frame */
  guint turned_interval;       /* each turned angle's whole scan every this many searches */
  guint turned_agreement;      /* angles that must see a box only turned scans see */
  gdouble turned_edge;         /* bands along the edges turned scans search in between */
  GArray *angles;              /* of gdouble: the turns scanned (0: upright only) */
  gchar *angles_text;
  gchar *angles_refused;   /* a list refused while stopped: an error at start */
  guint64 frames;              /* frames seen (the interval's phase) */

  /* streaming state */
  const fv_cascade *cascade;
  gchar *loaded_path;          /* the file the cascade came from */
  fv_vj_plan *plan;
  FvScratch gray;              /* RGB input: its luma */
  fv_vj_turns *turns;          /* angles: the turned scans, made for plan and turns_params */
  fv_vj_turn_params turns_params;
  gsize gray_stride;
};

GST_ELEMENT_REGISTER_DECLARE (vjdetect);

G_END_DECLS
#endif
