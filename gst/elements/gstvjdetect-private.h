/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's files share this: the cascade's loading and use
 * (gstvjdetect-cascade.c) and the frame's message (gstvjdetect-message.c),
 * called by the element (gstvjdetect.c). */
#ifndef GST_VJ_DETECT_PRIVATE_H
#define GST_VJ_DETECT_PRIVATE_H

#include "gstvjdetect.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_vj_detect_debug);

#define DEFAULT_CASCADE "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

void gst_vj_detect_read_back_cascade (GstVjDetect *self);
const fv_cascade *gst_vj_detect_load_cascade (GstVjDetect *self, gboolean keep_old,
    gchar **path);
void gst_vj_detect_use_cascade (GstVjDetect *self, const fv_cascade *c, gchar *path);
gchar *gst_vj_detect_shown_text (const gchar *text);

/* facedetect's updates, the same nicks and meanings */
enum {
  VJ_UPDATES_EVERY_FRAME = 0,
  VJ_UPDATES_ON_CHANGE = 1,
  VJ_UPDATES_ON_FACE = 2,
  VJ_UPDATES_NONE = 3,
};

#define GST_TYPE_VJ_DETECT_UPDATES (gst_vj_detect_updates_get_type ())
#define GST_TYPE_VJ_DETECT_UPDATES (gst_vj_detect_updates_get_type ())
GType gst_vj_detect_updates_get_type (void);
gboolean gst_vj_detect_message_due (GstVjDetect *self, gint updates, gint n);
void gst_vj_detect_post_message (GstVjDetect *self, GstBuffer *buf, const gchar *name,
    const fv_detection *d, const gint *ids, gint n, const gchar *label);

G_END_DECLS
#endif
