/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's element message: facedetect's shape and its `updates`. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstvjdetect-private.h"
#include "fvmeta.h"

/* The frame's message: facedetect's shape (a "faces" list of "face"
 * structures with the box), each face also with its label, the id of its
 * ROI meta and its neighbors. */
GType
gst_vj_detect_updates_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {VJ_UPDATES_EVERY_FRAME, "A message for every frame (a face that disappears shows)",
        "every_frame"},
    {VJ_UPDATES_ON_CHANGE, "A message when the number of boxes changes", "on_change"},
    {VJ_UPDATES_ON_FACE, "A message for every frame with a box", "on_face"},
    {VJ_UPDATES_NONE, "No messages", "none"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVjDetectUpdates", values));
  return type;
}

/* Whether this frame's message goes out (updates), n boxes in it. */
gboolean
gst_vj_detect_message_due (GstVjDetect *self, gint updates, gint n)
{
  const gint last = self->last_count;
  self->last_count = n;
  switch (updates) {
    case VJ_UPDATES_ON_CHANGE: return n != last;
    case VJ_UPDATES_ON_FACE: return n > 0;
    case VJ_UPDATES_NONE: return FALSE;
    default: return TRUE;
  }
}

void
gst_vj_detect_post_message (GstVjDetect *self, GstBuffer *buf, const gchar *name, const fv_detection *d,
    const gint *ids, gint n, const gchar *label)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GValue faces = G_VALUE_INIT, face = G_VALUE_INIT;
  g_value_init (&faces, GST_TYPE_LIST);
  for (gint i = 0; i < n; i++) {
    g_value_init (&face, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&face, gst_structure_new ("face",
            "x", G_TYPE_UINT, (guint) d[i].box.x, "y", G_TYPE_UINT, (guint) d[i].box.y,
            "width", G_TYPE_UINT, (guint) d[i].box.width,
            "height", G_TYPE_UINT, (guint) d[i].box.height, "label", G_TYPE_STRING, label,
            "id", G_TYPE_INT, ids[i], "neighbors", G_TYPE_INT, d[i].neighbors, NULL));
    gst_value_list_append_and_take_value (&faces, &face);
  }
  GstStructure *s = fv_meta_frame_structure (name, buf, &trans->segment);
  gst_structure_take_value (s, "faces", &faces);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}
